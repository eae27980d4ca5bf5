//! The `proof_artifacts` table: the files of a checkpoint, their bytes in the
//! blob store under `blob_key`.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "proof_artifacts")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub delivery_id: String,
    /// The checkpoint kind the file belongs to.
    pub checkpoint: String,
    /// Order within the checkpoint, as submitted.
    pub position: i32,
    /// `photo`, `signature`, `signed_delivery_note` or `document`.
    pub kind: String,
    pub file_name: String,
    pub content_type: String,
    pub blob_key: String,
    pub size_bytes: i64,
    pub created_at: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
