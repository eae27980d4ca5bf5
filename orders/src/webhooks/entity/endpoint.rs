//! The `webhook_endpoints` table, and an endpoint as the rest of the
//! webhooks module reads it: `endpoints` changes them, `queue` fans events
//! out to them, the dispatcher sends to them.

use sea_orm::entity::prelude::*;

use crate::events::EventType;
use crate::{CoreError, CoreResult};
use courier_identity::auth::Mode;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "webhook_endpoints")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub workspace_id: String,
    pub mode: String,
    pub url: String,
    /// JSON array of event type names; empty means every type.
    pub events: String,
    pub description: Option<String>,
    pub secret: String,
    pub status: String,
    pub disabled_reason: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndpointStatus {
    Active,
    Disabled,
}

impl EndpointStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            EndpointStatus::Active => "active",
            EndpointStatus::Disabled => "disabled",
        }
    }

    pub fn parse(text: &str) -> Option<EndpointStatus> {
        [EndpointStatus::Active, EndpointStatus::Disabled]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

/// Why an endpoint is disabled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DisabledReason {
    /// Its owner disabled it.
    Manual,
    /// Its latest events all failed for a long time.
    Failing,
}

impl DisabledReason {
    pub fn as_str(self) -> &'static str {
        match self {
            DisabledReason::Manual => "manual",
            DisabledReason::Failing => "failing",
        }
    }

    pub fn parse(text: &str) -> Option<DisabledReason> {
        [DisabledReason::Manual, DisabledReason::Failing]
            .into_iter()
            .find(|r| r.as_str() == text)
    }
}

/// A webhook endpoint (its secret stays in the database, shown once at
/// creation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    pub id: String,
    pub workspace_id: String,
    pub mode: Mode,
    pub url: String,
    /// Subscribed types; empty means every type.
    pub events: Vec<EventType>,
    pub description: Option<String>,
    pub status: EndpointStatus,
    pub disabled_reason: Option<DisabledReason>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl Endpoint {
    /// Whether events of `event_type` go to this endpoint.
    pub fn subscribes_to(&self, event_type: EventType) -> bool {
        self.events.is_empty() || self.events.contains(&event_type)
    }
}

/// The endpoint a row stores; a row it cannot read is an internal error.
pub fn from_model(model: Model) -> CoreResult<Endpoint> {
    let corrupt = |what: &str| CoreError::Internal(format!("webhook endpoint {} has an invalid {what}", model.id));
    let names: Vec<String> = serde_json::from_str(&model.events).map_err(|_| corrupt("events list"))?;
    let events = names
        .iter()
        .map(|name| EventType::parse(name).ok_or_else(|| corrupt("event type")))
        .collect::<CoreResult<Vec<_>>>()?;
    Ok(Endpoint {
        mode: Mode::parse(&model.mode).ok_or_else(|| corrupt("mode"))?,
        status: EndpointStatus::parse(&model.status).ok_or_else(|| corrupt("status"))?,
        disabled_reason: model
            .disabled_reason
            .as_deref()
            .map(|r| DisabledReason::parse(r).ok_or_else(|| corrupt("disabled reason")))
            .transpose()?,
        events,
        id: model.id,
        workspace_id: model.workspace_id,
        url: model.url,
        description: model.description,
        created_at: model.created_at,
        updated_at: model.updated_at,
    })
}
