//! Webhook endpoint shapes (contract 4.10; DECISIONS.md "Webhooks").

use courier::json::time_out;
use courier::v1 as pb;
use serde::{Deserialize, Deserializer, Serialize};

use super::events::{event_type_in, event_type_name, event_type_names};
use crate::error::ApiError;

/// `POST /v1/webhooks` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateWebhookBody {
    pub url: String,
    pub events: Option<Vec<String>>,
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

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndpointStatusBody {
    Active,
    Disabled,
}

/// `PATCH /v1/webhooks/{id}` body: an absent field stays as it is.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpdateWebhookBody {
    #[serde(default, deserialize_with = "present")]
    pub url: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    pub events: Option<Option<Vec<String>>>,
    /// `null` (or `""`) removes the description.
    #[serde(default, deserialize_with = "present")]
    pub description: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    pub status: Option<Option<EndpointStatusBody>>,
}

/// A field that is present, possibly `null` (absent fields stay `None`
/// through `#[serde(default)]`).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(deserializer).map(Some)
}

fn not_null<T>(value: Option<Option<T>>, param: &str, hint: &str) -> Result<Option<T>, ApiError> {
    match value {
        Some(None) => Err(ApiError::invalid(param, format!("{param} cannot be null{hint}."))),
        Some(Some(value)) => Ok(Some(value)),
        None => Ok(None),
    }
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
            event_type_in(name).map(|t| t as i32).ok_or_else(|| {
                ApiError::invalid(
                    format!("events.{index}"),
                    format!("events.{index} must be one of {}.", event_type_names()),
                )
            })
        })
        .collect()
}

/// A body that must be empty or `{}` (`test`, `replay`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmptyBody {}

/// A webhook endpoint record.
#[derive(Debug, Serialize)]
pub struct WebhookEndpointJson {
    pub id: String,
    pub url: String,
    pub events: Vec<&'static str>,
    pub description: Option<String>,
    pub status: Option<&'static str>,
    pub disabled_reason: Option<&'static str>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
}

impl From<pb::WebhookEndpoint> for WebhookEndpointJson {
    fn from(e: pb::WebhookEndpoint) -> Self {
        WebhookEndpointJson {
            events: e.events().filter_map(event_type_name).collect(),
            status: match e.status() {
                pb::WebhookEndpointStatus::Unspecified => None,
                pb::WebhookEndpointStatus::Active => Some("active"),
                pb::WebhookEndpointStatus::Disabled => Some("disabled"),
            },
            disabled_reason: match e.disabled_reason() {
                pb::WebhookDisabledReason::Unspecified => None,
                pb::WebhookDisabledReason::Manual => Some("manual"),
                pb::WebhookDisabledReason::Failing => Some("failing"),
            },
            created_at: time_out(e.created_at.as_ref()),
            updated_at: time_out(e.updated_at.as_ref()),
            id: e.id,
            url: e.url,
            description: e.description,
        }
    }
}

/// The create answer: the record plus its secret, shown this once.
#[derive(Debug, Serialize)]
pub struct CreatedWebhookJson {
    #[serde(flatten)]
    pub endpoint: WebhookEndpointJson,
    pub secret: String,
}

#[derive(Debug, Serialize)]
pub struct WebhookListJson {
    pub webhooks: Vec<WebhookEndpointJson>,
}

#[derive(Debug, Serialize)]
pub struct DeletedWebhookJson {
    pub id: String,
    pub deleted: bool,
}

/// The result of the sample event.
#[derive(Debug, Serialize)]
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

#[derive(Debug, Serialize)]
pub struct ReplayJson {
    pub queued: i64,
}
