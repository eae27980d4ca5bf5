use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "fleet_orders")]
pub struct Model {
    /// The public id (`flo_…`).
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    /// The dispatch board's id (`ord_…`).
    pub order_id: String,
    pub workspace_id: String,
    pub mode: String,
    pub status: String,
    pub reference: Option<String>,
    /// `ContactInput` as JSON.
    pub customer: String,
    /// `OrderRoute` (waypoints and items) as JSON.
    pub route: String,
    pub vehicle_type_id: String,
    pub requested_pickup_date: Option<String>,
    pub requested_pickup_time: Option<String>,
    pub customer_timezone: Option<String>,
    pub notes: Option<String>,
    pub pickup_window_start: Option<i64>,
    pub pickup_window_end: Option<i64>,
    pub dropoff_window_start: Option<i64>,
    pub dropoff_window_end: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
