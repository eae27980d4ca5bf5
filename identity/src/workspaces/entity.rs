use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "workspaces")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub name: String,
    pub kind: String,
    pub api_access: bool,
    pub fleet_order_intake: bool,
    pub proof_of_delivery: bool,
    pub discount_bps: i32,
    /// Fleets: board orders offered to the fleet's own drivers.
    pub auto_dispatch: bool,
    pub invoice_billing_enabled: bool,
    pub credit_limit_cents: i64,
    pub billing_day: i32,
    pub payment_terms_days: i32,
    /// Kept by `billing`: an open statement is past its due date.
    pub statement_overdue: bool,
    /// Running total kept by `billing`: live, priced, not cancelled, on no statement.
    pub open_amount_cents: i64,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
