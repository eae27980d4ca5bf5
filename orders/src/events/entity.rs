use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "events")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub workspace_id: String,
    pub mode: String,
    pub delivery_id: String,
    pub r#type: String,
    pub version: String,
    /// The delivery as the transport wrote it (`Wire::event_snapshot`).
    pub data: Vec<u8>,
    /// On `delivery.updated`: the members that changed, dot paths joined
    /// by commas (`super::join_fields`); null on every other type.
    pub changed_fields: Option<String>,
    pub created_at: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
