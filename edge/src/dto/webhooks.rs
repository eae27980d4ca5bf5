//! Webhook endpoint shapes (docs/guide.md "Webhooks").

use courier::json::time_out;
use courier::names::PublicName;
use courier::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::common::{not_null, present};
use crate::error::ApiError;

/// `POST /v1/webhooks` body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = CreateWebhookEndpointRequest)]
pub struct CreateWebhookBody {
    /// Public HTTPS URL, 12 to 2000 characters.
    pub url: String,
    /// At most 8 distinct types; empty or omitted means every type.
    #[schema(value_type = Option<Vec<pb::EventType>>)]
    pub events: Option<Vec<String>>,
    /// At most 500 characters.
    pub description: Option<String>,
}

impl TryFrom<CreateWebhookBody> for pb::CreateWebhookEndpointRequest {
    type Error = ApiError;

    fn try_from(b: CreateWebhookBody) -> Result<Self, ApiError> {
        Ok(pb::CreateWebhookEndpointRequest {
            url: b.url,
            events: events_in(b.events.unwrap_or_default())?,
            description: b.description,
        })
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = UpdateWebhookEndpointStatus)]
pub enum EndpointStatusBody {
    Active,
    Disabled,
}

/// `PATCH /v1/webhooks/{id}` body: an absent field stays as it is.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = UpdateWebhookEndpointRequest)]
pub struct UpdateWebhookBody {
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = String)]
    pub url: Option<Option<String>>,
    /// `[]` means every event type.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Vec<pb::EventType>)]
    pub events: Option<Option<Vec<String>>>,
    /// `null` (or `""`) removes the description.
    #[serde(default, deserialize_with = "present")]
    pub description: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = EndpointStatusBody)]
    pub status: Option<Option<EndpointStatusBody>>,
}

/// The update request for `webhook_id`.
pub fn update_request(webhook_id: String, b: UpdateWebhookBody) -> Result<pb::UpdateWebhookEndpointRequest, ApiError> {
    let events = not_null(b.events, "events", "; send [] to receive every event type")?;
    Ok(pb::UpdateWebhookEndpointRequest {
        webhook_id,
        url: not_null(b.url, "url", "")?,
        events: events
            .map(|list| events_in(list).map(|events| pb::EventTypeList { events }))
            .transpose()?,
        description: b.description.map(Option::unwrap_or_default),
        status: match not_null(b.status, "status", "")? {
            None => pb::WebhookEndpointStatus::Unspecified,
            Some(EndpointStatusBody::Active) => pb::WebhookEndpointStatus::Active,
            Some(EndpointStatusBody::Disabled) => pb::WebhookEndpointStatus::Disabled,
        } as i32,
    })
}

/// Event type names → enum values; an unknown name is refused at its index.
fn events_in(names: Vec<String>) -> Result<Vec<i32>, ApiError> {
    names
        .iter()
        .enumerate()
        .map(|(index, name)| {
            pb::EventType::from_public_name(name).map(|t| t as i32).ok_or_else(|| {
                ApiError::invalid(
                    format!("events.{index}"),
                    format!("events.{index} must be one of {}.", pb::EventType::public_names()),
                )
            })
        })
        .collect()
}

/// A body that must be empty or `{}` (`test`, `replay`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EmptyBody {}

/// A webhook endpoint record.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = WebhookEndpoint)]
pub struct WebhookEndpointJson {
    pub id: String,
    pub url: String,
    /// The subscribed types; empty means every type.
    #[schema(value_type = Vec<pb::EventType>)]
    pub events: Vec<&'static str>,
    pub description: Option<String>,
    #[schema(value_type = pb::WebhookEndpointStatus)]
    pub status: Option<&'static str>,
    #[schema(value_type = Option<pb::WebhookDisabledReason>)]
    pub disabled_reason: Option<&'static str>,
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Option<String>,
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: Option<String>,
}

impl From<pb::WebhookEndpoint> for WebhookEndpointJson {
    fn from(e: pb::WebhookEndpoint) -> Self {
        WebhookEndpointJson {
            events: e.events().filter_map(PublicName::public_name).collect(),
            status: e.status().public_name(),
            disabled_reason: e.disabled_reason().public_name(),
            created_at: time_out(e.created_at.as_ref()),
            updated_at: time_out(e.updated_at.as_ref()),
            id: e.id,
            url: e.url,
            description: e.description,
        }
    }
}

/// The create answer: the record plus its secret, shown this once.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = CreatedWebhookEndpoint)]
pub struct CreatedWebhookJson {
    #[serde(flatten)]
    pub endpoint: WebhookEndpointJson,
    /// Signing secret (`whsec_…`), shown only in this answer.
    pub secret: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = WebhookEndpointList)]
pub struct WebhookListJson {
    pub webhooks: Vec<WebhookEndpointJson>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = DeletedWebhookEndpoint)]
pub struct DeletedWebhookJson {
    pub id: String,
    pub deleted: bool,
}

/// The result of the sample event.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = WebhookTestResult)]
pub struct WebhookTestJson {
    pub event_id: String,
    pub succeeded: bool,
    pub response_code: Option<i32>,
    pub latency_ms: Option<i64>,
    pub error: Option<String>,
}

impl From<pb::TestWebhookEndpointResponse> for WebhookTestJson {
    fn from(r: pb::TestWebhookEndpointResponse) -> Self {
        WebhookTestJson {
            event_id: r.event_id,
            succeeded: r.succeeded,
            response_code: r.response_code,
            latency_ms: r.latency_ms,
            error: r.error,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = WebhookReplayResult)]
pub struct ReplayJson {
    /// How many failed events were queued again.
    pub queued: i64,
}
