//! The `proof_checkpoints` table: one row per delivery and checkpoint kind.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "proof_checkpoints")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub delivery_id: String,
    /// `pickup` or `dropoff`.
    pub kind: String,
    /// Who handed the goods over (pickup) or received them (dropoff).
    pub person_name: Option<String>,
    pub barcode: Option<String>,
    pub age_checked: bool,
    pub left_at_door: bool,
    pub submitted_at: i64,
    /// The courier app's id of the submission, when it sent one.
    pub submission_id: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
