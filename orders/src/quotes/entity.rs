use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "quotes")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub workspace_id: String,
    pub mode: String,
    /// The locked route (`RouteKey`) as JSON.
    pub route: String,
    pub amount_cents: i64,
    pub currency: String,
    /// `Breakdown` as JSON.
    pub breakdown: String,
    pub distance_km: f64,
    pub duration_min: i64,
    pub service_area_id: String,
    pub valid_until: i64,
    pub created_at: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
