//! The OpenAPI 3.1 document of the public `/v1` API, served at
//! `GET /v1/openapi.json` and rendered by `GET /v1/docs`.
//!
//! Everything in it comes from the code: paths, parameters, bodies and
//! success answers from the `#[utoipa::path]` annotations of the handlers in
//! `routes/`, schemas from the DTOs' `#[derive(ToSchema)]`, enum values from
//! `courier::names`, and error answers from the error catalogue
//! (`courier::errors`), grouped by the HTTP status each code carries. Three
//! things utoipa does not model are added here, once: the error answers of
//! each operation ([`operation_errors`]), the webhook requests (one per event
//! type), and the rule that success bodies always carry every field.

use std::collections::{BTreeMap, BTreeSet};

use courier::errors::ErrorCode;
use courier::names::{PublicName, string_enum};
use courier::v1 as pb;
use serde_json::{Map, Value, json};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::dto;
use crate::routes::{deliveries, events, fleet, proofs, quotes, vehicle_types, webhooks};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Courier Delivery Booking API",
        version = "1",
        description = "Same-day courier deliveries: quotes, deliveries, tracking, proof of delivery, \
webhooks and events. Every request authenticates with an API key (`x-api-key` or \
`Authorization: Bearer`); the key's mode (live or test) decides what it creates and sees. \
Amounts are integer cents including VAT; times are RFC 3339 in UTC. Errors answer \
`{error: {code, message, param, doc_url}, request_id}`; branch on `code`."
    ),
    paths(
        vehicle_types::list,
        quotes::create,
        deliveries::create,
        deliveries::list,
        deliveries::get,
        deliveries::cancel,
        deliveries::tracking,
        proofs::proof_of_delivery,
        proofs::file,
        webhooks::create,
        webhooks::list,
        webhooks::update,
        webhooks::delete,
        webhooks::test,
        webhooks::replay,
        events::list,
        events::get,
        fleet::create,
        fleet::get,
    ),
    components(schemas(crate::error::ErrorBodyJson, dto::events::EventJson, courier::json::DeliveryJson<Option<courier::json::CourierJson>>, courier::json::DeliveryJson<Option<courier::json::CourierNameJson>>)),
    modifiers(&SecuritySchemes),
    tags(
        (name = "Vehicle types", description = "What can carry the goods, and the extras on offer."),
        (name = "Quotes", description = "Prices for a route, valid 5 minutes."),
        (name = "Deliveries", description = "Booking, reading, tracking and cancelling deliveries; proof of delivery."),
        (name = "Webhooks", description = "Endpoints that receive events, signed per Standard Webhooks."),
        (name = "Events", description = "Every event of the last 30 days, whether or not an endpoint received it."),
        (name = "Fleet orders", description = "Orders of a fleet's own customers onto its dispatch board (live fleet keys)."),
    )
)]
struct ApiDoc;

/// The two ways to send an API key (contract section 5).
struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "partnerApiKey",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "x-api-key",
                "The API key (`mm_live_…` or `mm_test_…`). Used when both headers are sent.",
            ))),
        );
        components.add_security_scheme(
            "partnerBearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("The API key as `Authorization: Bearer <key>`."))
                    .build(),
            ),
        );
    }
}

/// Refusals of the key check (contract section 5) and the rate limit.
const AUTHENTICATION: &[ErrorCode] = &[
    ErrorCode::MissingApiKey,
    ErrorCode::InvalidApiKey,
    ErrorCode::ApiAccessDisabled,
    ErrorCode::RateLimited,
];

/// Failures of the service itself, possible on every operation.
const SERVICE: &[ErrorCode] = &[
    ErrorCode::InternalError,
    ErrorCode::UpstreamError,
    ErrorCode::ServiceUnavailable,
];

/// Every refusal an operation can answer, by operation id: its own, plus
/// [`AUTHENTICATION`] when it takes a key, plus [`SERVICE`]. `None` for an
/// operation this table does not know (a unit test requires an entry for
/// every operation of the document).
pub fn operation_errors(operation_id: &str) -> Option<Vec<ErrorCode>> {
    use ErrorCode::*;
    let (own, keyed): (&[ErrorCode], bool) = match operation_id {
        "listVehicleTypes" => (&[], true),
        "createQuote" => (
            &[
                InvalidRequest,
                PermissionDenied,
                ServiceAreaUnavailable,
                VehicleDoesNotFit,
                InvalidItems,
            ],
            true,
        ),
        "createDelivery" => (
            &[
                InvalidRequest,
                PermissionDenied,
                MissingIdempotencyKey,
                InvalidIdempotencyKey,
                QuoteMismatch,
                QuoteNotFound,
                QuoteExpired,
                ServiceAreaUnavailable,
                VehicleDoesNotFit,
                InvalidItems,
                InvoiceCreditLimitExceeded,
                InvoiceStatementOverdue,
                InvoiceBillingNotEnabled,
                IdempotencyKeyReused,
                RequestInProgress,
                DuplicateExternalId,
            ],
            true,
        ),
        "listDeliveries" | "listEvents" => (&[InvalidRequest, PermissionDenied, InvalidPageToken], true),
        "getDelivery" | "getDeliveryTracking" | "getEvent" | "deleteWebhookEndpoint" => {
            (&[PermissionDenied, NotFound], true)
        }
        "cancelDelivery" => (
            &[InvalidRequest, PermissionDenied, NotFound, NotCancellable, Conflict],
            true,
        ),
        "getProofOfDelivery" => (&[PermissionDenied, NotFound, PodNotAvailable, NoProofOfDelivery], true),
        "createWebhookEndpoint" => (
            &[
                InvalidRequest,
                PermissionDenied,
                InvalidWebhookUrl,
                EndpointLimitReached,
            ],
            true,
        ),
        "listWebhookEndpoints" => (&[InvalidRequest, PermissionDenied], true),
        "updateWebhookEndpoint" => (&[InvalidRequest, PermissionDenied, InvalidWebhookUrl, NotFound], true),
        "testWebhookEndpoint" | "replayWebhookEndpoint" => {
            (&[InvalidRequest, PermissionDenied, NotFound, EndpointDisabled], true)
        }
        "createFleetOrder" => (
            &[
                InvalidRequest,
                FleetKeyRequired,
                LiveKeyRequired,
                FleetOrdersNotAvailable,
                PermissionDenied,
                MissingIdempotencyKey,
                InvalidIdempotencyKey,
                InvalidItems,
                VehicleDoesNotFit,
                IdempotencyKeyReused,
                RequestInProgress,
            ],
            true,
        ),
        "getFleetOrder" => (
            &[
                FleetKeyRequired,
                LiveKeyRequired,
                FleetOrdersNotAvailable,
                PermissionDenied,
                NotFound,
            ],
            true,
        ),
        // Keyless: the signed link is checked instead of a key.
        "downloadProofFile" => (&[InvalidRequest, NotFound], false),
        _ => return None,
    };
    let authentication = if keyed { AUTHENTICATION } else { &[] };
    Some(own.iter().chain(authentication).chain(SERVICE).copied().collect())
}

/// The `code` of the Error schema: every public code of the catalogue.
pub fn error_code_schema() -> RefOr<Schema> {
    string_enum(
        ErrorCode::ALL.iter().map(|code| code.as_str()),
        "Stable machine-readable code (see `/v1/docs/errors`). New codes can appear within v1; \
handle unknown codes by HTTP status.",
    )
}

/// The document, as served.
pub fn document() -> Result<Value, serde_json::Error> {
    let mut doc = serde_json::to_value(ApiDoc::openapi())?;
    for (composed, name) in RENAMED {
        rename_schema(&mut doc, composed, name);
    }
    add_error_responses(&mut doc);
    optional_bodies_are_objects(&mut doc);
    add_request_id_headers(&mut doc);
    add_webhooks(&mut doc);
    require_every_response_field(&mut doc);
    Ok(doc)
}

/// The two renderings of a delivery share one generic type, whose schemas
/// utoipa names after their type arguments; the contract's names instead.
const RENAMED: [(&str, &str); 2] = [
    ("Delivery_Option_Courier", "Delivery"),
    ("Delivery_Option_EventCourier", "DeliveryEventData"),
];

fn rename_schema(doc: &mut Value, from: &str, to: &str) {
    let Some(schemas) = doc.pointer_mut("/components/schemas").and_then(Value::as_object_mut) else {
        return;
    };
    if let Some(schema) = schemas.remove(from) {
        schemas.insert(to.to_owned(), schema);
    }
    let (old, new) = (
        format!("#/components/schemas/{from}"),
        format!("#/components/schemas/{to}"),
    );
    replace_refs(doc, &old, &new);
}

fn replace_refs(value: &mut Value, old: &str, new: &str) {
    match value {
        Value::Object(map) => {
            if map.get("$ref").and_then(Value::as_str) == Some(old) {
                map.insert("$ref".into(), Value::String(new.to_owned()));
            }
            map.values_mut().for_each(|v| replace_refs(v, old, new));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| replace_refs(v, old, new)),
        _ => {}
    }
}

fn operations(doc: &mut Value) -> impl Iterator<Item = &mut Map<String, Value>> {
    doc.get_mut("paths")
        .and_then(Value::as_object_mut)
        .into_iter()
        .flat_map(|paths| paths.values_mut())
        .filter_map(Value::as_object_mut)
        .flat_map(|item| item.values_mut())
        .filter_map(Value::as_object_mut)
}

/// One response per HTTP status the operation's refusals carry, with the
/// codes it can answer there as the `enum` of `error.code`.
fn add_error_responses(doc: &mut Value) {
    for operation in operations(doc) {
        let codes = operation
            .get("operationId")
            .and_then(Value::as_str)
            .and_then(operation_errors)
            .unwrap_or_default();
        let mut by_status: BTreeMap<u16, Vec<ErrorCode>> = BTreeMap::new();
        for code in codes {
            by_status.entry(code.http_status()).or_default().push(code);
        }
        let Some(responses) = operation.get_mut("responses").and_then(Value::as_object_mut) else {
            continue;
        };
        for (status, codes) in by_status {
            let listing: Vec<String> = codes
                .iter()
                .map(|code| format!("- `{}`: {}", code.as_str(), code.description()))
                .collect();
            let names: Vec<&str> = codes.iter().map(|code| code.as_str()).collect();
            responses.insert(
                status.to_string(),
                json!({
                    "description": listing.join("\n"),
                    "content": { "application/json": { "schema": {
                        "allOf": [
                            { "$ref": "#/components/schemas/Error" },
                            { "properties": { "error": { "properties": { "code": { "enum": names } } } } },
                        ]
                    } } }
                }),
            );
        }
    }
}

/// An optional body (`Option<T>` in the annotation) may be left out, but when
/// sent it must be the object: utoipa's `null` alternative is dropped.
fn optional_bodies_are_objects(doc: &mut Value) {
    for operation in operations(doc) {
        let Some(body) = operation.get_mut("requestBody") else {
            continue;
        };
        if body.get("required") == Some(&Value::Bool(true)) {
            continue;
        }
        let Some(media) = body.pointer_mut("/content/application~1json") else {
            continue;
        };
        let object = media
            .pointer("/schema/oneOf")
            .and_then(Value::as_array)
            .and_then(|choices| choices.iter().find(|c| c.get("type") != Some(&json!("null"))))
            .cloned();
        if let Some(object) = object {
            media["schema"] = object;
        }
    }
}

/// Every answer carries `Request-Id`.
fn add_request_id_headers(doc: &mut Value) {
    for operation in operations(doc) {
        let Some(responses) = operation.get_mut("responses").and_then(Value::as_object_mut) else {
            continue;
        };
        for response in responses.values_mut().filter_map(Value::as_object_mut) {
            let headers = response.entry("headers").or_insert_with(|| json!({}));
            if let Some(headers) = headers.as_object_mut() {
                headers.insert(
                    "Request-Id".into(),
                    json!({
                        "description": "The request's id (`req_…`); quote it to support.",
                        "schema": { "type": "string" }
                    }),
                );
            }
        }
    }
}

/// When each event type is sent (DECISIONS "Events per transition").
fn event_description(event_type: pb::EventType) -> &'static str {
    use pb::EventType as T;
    match event_type {
        T::DeliveryCreated => "A delivery was created (status `pending`, courier null).",
        T::DeliveryStatusUpdated => {
            "The goods were picked up (`picked_up`) or the courier set off to the dropoff (`in_transit`). \
The sample event of `POST /v1/webhooks/{webhookId}/test` is of this type, with `data.test` true."
        }
        T::DeliveryCourierAssigned => "A courier accepted the delivery (`courier_assigned`).",
        T::DeliveryCourierArrived => "The courier arrived at the pickup (`at_pickup`).",
        T::DeliveryEtaUpdated => "The dropoff ETA was set or moved by a minute or more (`in_transit`).",
        T::DeliveryPodSubmitted => "The courier submitted the proof of delivery (`at_dropoff`).",
        T::DeliveryDelivered => "The delivery was completed (`delivered`, `delivered_at` set).",
        T::DeliveryCancelled => "The delivery was cancelled (`cancelled`, `cancellation_reason` set).",
        T::Unspecified => "",
    }
}

/// The webhook requests, one per event type: a signed `POST` of the Event
/// envelope with that `type`.
fn add_webhooks(doc: &mut Value) {
    let header = |name: &str, description: &str| json!({ "name": name, "in": "header", "required": true, "description": description, "schema": { "type": "string" } });
    let parameters = json!([
        header("webhook-id", "The event id; the same in every attempt."),
        header("webhook-timestamp", "Unix seconds of this attempt."),
        header(
            "webhook-signature",
            "`v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the \
base64-decoded part of the endpoint's secret after `whsec_` (Standard Webhooks).",
        ),
        header("x-event-id", "The event id, equal to the body's `id`."),
    ]);
    let webhooks: Map<String, Value> = pb::EventType::NAMES
        .iter()
        .map(|(event_type, name)| {
            let operation = json!({
                "operationId": format!("webhook.{name}"),
                "tags": ["Webhooks"],
                "summary": format!("{name} event"),
                "description": format!(
                    "{} Sent to every active endpoint of the delivery's mode subscribed to `{name}`. \
            Delivery is at least once and not necessarily in order: deduplicate on `id`, compare `data.updated_at`. \
            Read the body as raw bytes to verify the signature.",
                    event_description(*event_type)
                ),
                "parameters": parameters,
                "requestBody": {
                    "required": true,
                    "content": { "application/json": { "schema": {
                        "allOf": [
                            { "$ref": "#/components/schemas/Event" },
                            { "properties": { "type": { "const": name } } },
                        ]
                    } } }
                },
                "responses": {
                    "2XX": { "description": "Received. Answer within 5 seconds." },
                    "default": {
                        "description": "Any other answer, or none within 5 seconds, fails the attempt. A timeout, a \
            network error, 408, 409, 425, 429 and 5xx are retried (8 attempts in all, at most 15 minutes apart); \
            anything else fails the event at once."
                    }
                }
            });
            ((*name).to_owned(), json!({ "post": operation }))
        })
        .collect();
    if let Some(root) = doc.as_object_mut() {
        root.insert("webhooks".into(), Value::Object(webhooks));
    }
}

/// Success bodies and webhook payloads render every field, `null` where
/// unset (contract 2.1): every property of every schema they reach is
/// required. Error bodies omit `param` when there is none, so schemas reached
/// only from error answers keep their derived `required`.
fn require_every_response_field(doc: &mut Value) {
    let mut pending: Vec<String> = Vec::new();
    let success_schemas = |doc: &Value| -> Vec<Value> {
        let mut found = Vec::new();
        let paths = doc
            .get("paths")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|p| p.values());
        for operation in paths.filter_map(Value::as_object).flat_map(|item| item.values()) {
            let responses = operation
                .get("responses")
                .and_then(Value::as_object)
                .into_iter()
                .flatten();
            for (_, response) in responses.filter(|(status, _)| status.starts_with('2')) {
                found.extend(response.pointer("/content/application~1json/schema").cloned());
            }
        }
        let hooks = doc
            .get("webhooks")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|w| w.values());
        for hook in hooks {
            found.extend(
                hook.pointer("/post/requestBody/content/application~1json/schema")
                    .cloned(),
            );
        }
        found
    };
    for schema in success_schemas(doc) {
        collect_refs(&schema, &mut pending);
    }
    let mut seen = BTreeSet::new();
    while let Some(name) = pending.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let pointer = format!("/components/schemas/{name}");
        if let Some(schema) = doc.pointer_mut(&pointer) {
            collect_refs(schema, &mut pending);
            require_properties(schema);
        }
    }
}

/// The component names `schema` refers to.
fn collect_refs(schema: &Value, names: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                names.push(name.to_owned());
            }
            map.values().for_each(|value| collect_refs(value, names));
        }
        Value::Array(items) => items.iter().for_each(|value| collect_refs(value, names)),
        _ => {}
    }
}

/// Marks every property of `schema` and of the objects inlined in it required.
fn require_properties(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::Object(properties)) = map.get("properties") {
                let names: Vec<Value> = properties.keys().cloned().map(Value::String).collect();
                map.insert("required".into(), Value::Array(names));
            }
            map.values_mut().for_each(require_properties);
        }
        Value::Array(items) => items.iter_mut().for_each(require_properties),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_has_its_errors_and_keyed_ones_a_key() {
        let mut doc = document().expect("document");
        for operation in operations(&mut doc) {
            let id = operation["operationId"].as_str().expect("operationId").to_owned();
            let errors = operation_errors(&id).unwrap_or_else(|| panic!("{id} has no error table entry"));
            // The table and the annotation agree on whether a key is needed.
            let keyed = errors.contains(&ErrorCode::MissingApiKey);
            assert_eq!(operation.contains_key("security"), keyed, "{id}");
        }
    }

    #[test]
    fn success_fields_are_required_and_error_param_is_not() {
        let doc = document().expect("document");
        let schemas = &doc["components"]["schemas"];
        for name in ["Delivery", "DeliveryEventData"] {
            let required = schemas[name]["required"].as_array().expect("required");
            assert!(required.contains(&json!("cancelled_at")), "{name}");
        }
        assert!(!doc.to_string().contains("Delivery_"), "composed names are renamed");
        let detail = &doc["components"]["schemas"]["ErrorDetail"];
        assert!(
            !detail["required"]
                .as_array()
                .expect("required")
                .contains(&json!("param"))
        );
    }
}
