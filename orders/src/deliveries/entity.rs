use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "deliveries")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub workspace_id: String,
    pub mode: String,
    pub status: String,
    pub external_id: Option<String>,
    pub quote_id: Option<String>,
    pub amount_cents: Option<i64>,
    pub currency: Option<String>,
    /// `Breakdown` as JSON.
    pub breakdown: Option<String>,
    /// `StoredRoute` (waypoints, extras, items) as JSON.
    pub route: String,
    pub vehicle_type_id: String,
    pub service_area_id: String,
    pub distance_km: f64,
    pub duration_min: i64,
    pub notes: Option<String>,
    pub scheduled_at: Option<i64>,
    /// `ProofRequirements` as JSON.
    pub proof_requirements: String,
    pub test_scenario: Option<String>,
    pub tracking_token: String,
    pub tracking_available_at: Option<i64>,
    /// `Courier` as JSON.
    pub courier: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    pub cancelled_at: Option<i64>,
    pub cancellation_reason: Option<String>,
    pub cancel_reason: Option<String>,
    pub delivered_at: Option<i64>,
    /// When the courier picked the goods up (reports' time to pickup).
    pub picked_up_at: Option<i64>,
    pub next_step_at: Option<i64>,
    pub pickup_eta: Option<i64>,
    pub dropoff_eta: Option<i64>,
    pub pickup_window_start: Option<i64>,
    pub pickup_window_end: Option<i64>,
    pub dropoff_window_start: Option<i64>,
    pub dropoff_window_end: Option<i64>,
    pub promised_by: Option<i64>,
    pub delayed_at: Option<i64>,
    pub on_time: Option<bool>,
    /// `allowed` or `never` (see [`super::Batching`]).
    pub batching: String,
    /// `notifications::Preferences` as JSON; `None` keeps the workspace's.
    pub notifications: Option<String>,
    /// The 4 digits the courier enters to hand over, when the proof asks.
    pub dropoff_pin: Option<String>,
    /// Wrong PINs entered since booking or the last dispatcher's reset.
    pub dropoff_pin_failures: i32,
    /// The wrong PIN that counted last, as `submission_id:PIN`.
    pub dropoff_pin_failed_submission: Option<String>,
    /// `return_to_pickup` or `dispose` (see [`super::UndeliverableAction`]).
    pub undeliverable_action: String,
    /// On a return: the delivery whose goods it brings back.
    pub return_of: Option<String>,
    /// On a delivery whose handover failed: the return that brings its
    /// goods back.
    pub return_delivery_id: Option<String>,
    /// The tip (docs/couriers.md "Tips"); 0 without one.
    pub tip_cents: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
