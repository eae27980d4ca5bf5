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
//!
//! Routes that are not for integrators are left out: the tracking page
//! (`/t/{token}`, for recipients), the SMS provider's callbacks
//! (`/v1/notifications/sms/…`, for Twilio) and the unsubscribe page of
//! notification emails (`/v1/notifications/unsubscribe/{token}`, for
//! recipients; docs/notifications.md).

use std::collections::{BTreeMap, BTreeSet};

use courier::errors::ErrorCode;
use courier::limits::{self, Chars, Count};
use courier::names::PublicName;
use courier::v1 as pb;
use serde_json::{Map, Value, json};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::dto;
use crate::routes::{couriers, deliveries, events, fleet, notifications, proofs, quotes, vehicle_types, webhooks};

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
        deliveries::batch,
        deliveries::list,
        deliveries::get,
        deliveries::cancel,
        deliveries::update,
        deliveries::redeliver,
        deliveries::tracking,
        notifications::list,
        proofs::proof_of_delivery,
        proofs::file,
        couriers::photo,
        webhooks::create,
        webhooks::list,
        webhooks::update,
        webhooks::delete,
        webhooks::test,
        webhooks::replay,
        events::list,
        events::get,
        events::stream,
        fleet::create,
        fleet::get,
        fleet::update,
    ),
    components(schemas(crate::error::ErrorBodyJson, dto::events::EventJson, courier::v1::PromiseState, courier::v1::Batching, courier::v1::UndeliverableAction, courier::json::DeliveryJson<Option<courier::json::CourierJson>>, courier::json::DeliveryJson<Option<courier::json::CourierNameJson>>)),
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

/// The two ways to send an API key (docs/guide.md "Authentication").
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

/// Refusals of the key check (docs/guide.md "Authentication") and the rate limit.
const AUTHENTICATION: &[ErrorCode] = &[
    ErrorCode::MissingApiKey,
    ErrorCode::InvalidApiKey,
    ErrorCode::ApiAccessDisabled,
    ErrorCode::RateLimited,
];

/// Refusals of the request as such, made before it is routed (the
/// request policy and the server's timeouts), possible on every operation.
const REQUEST: &[ErrorCode] = &[
    ErrorCode::InvalidRequest,
    ErrorCode::InvalidApiKey,
    ErrorCode::InvalidIdempotencyKey,
    ErrorCode::RequestTimeout,
    ErrorCode::RequestTooLarge,
    ErrorCode::HeadersTooLarge,
];

/// Failures of the service itself, possible on every operation.
const SERVICE: &[ErrorCode] = &[
    ErrorCode::InternalError,
    ErrorCode::UpstreamError,
    ErrorCode::ServiceUnavailable,
];

/// Every refusal an operation can answer, by operation id: its own, plus
/// [`AUTHENTICATION`] when it takes a key, plus [`REQUEST`] and [`SERVICE`],
/// each code once. `None` for an
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
        "batchCreateDeliveries" => (&[InvalidRequest, PermissionDenied], true),
        "createDelivery" => (
            &[
                InvalidRequest,
                PermissionDenied,
                MissingIdempotencyKey,
                InvalidIdempotencyKey,
                QuoteMismatch,
                QuoteNotFound,
                QuoteExpired,
                WindowNotFeasible,
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
        "streamEvents" => (&[InvalidRequest, PermissionDenied], true),
        "listDeliveryNotifications" => (&[InvalidRequest, PermissionDenied, NotFound], true),
        "getDelivery" | "getDeliveryTracking" | "getEvent" | "deleteWebhookEndpoint" => {
            (&[PermissionDenied, NotFound], true)
        }
        "cancelDelivery" => (
            &[InvalidRequest, PermissionDenied, NotFound, NotCancellable, Conflict],
            true,
        ),
        "updateDelivery" => (
            &[
                InvalidRequest,
                PermissionDenied,
                NotFound,
                MissingIdempotencyKey,
                InvalidIdempotencyKey,
                WindowNotFeasible,
                ServiceAreaUnavailable,
                InvoiceCreditLimitExceeded,
                InvoiceStatementOverdue,
                InvoiceBillingNotEnabled,
                PreconditionFailed,
                NotEditable,
                PriceChanged,
                IdempotencyKeyReused,
                RequestInProgress,
            ],
            true,
        ),
        "redeliverDelivery" => (
            &[
                InvalidRequest,
                PermissionDenied,
                NotFound,
                MissingIdempotencyKey,
                InvalidIdempotencyKey,
                NotRedeliverable,
                WindowNotFeasible,
                ServiceAreaUnavailable,
                InvoiceCreditLimitExceeded,
                InvoiceStatementOverdue,
                InvoiceBillingNotEnabled,
                IdempotencyKeyReused,
                RequestInProgress,
                DuplicateExternalId,
            ],
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
                WindowNotFeasible,
                IdempotencyKeyReused,
                RequestInProgress,
            ],
            true,
        ),
        "updateFleetOrder" => (
            &[
                InvalidRequest,
                FleetKeyRequired,
                LiveKeyRequired,
                FleetOrdersNotAvailable,
                PermissionDenied,
                NotFound,
                MissingIdempotencyKey,
                InvalidIdempotencyKey,
                WindowNotFeasible,
                PreconditionFailed,
                NotEditable,
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
        "getCourierPhoto" => (&[InvalidRequest, NotFound], false),
        _ => return None,
    };
    let authentication = if keyed { AUTHENTICATION } else { &[] };
    let mut codes: Vec<ErrorCode> = Vec::new();
    for &code in own.iter().chain(authentication).chain(REQUEST).chain(SERVICE) {
        if !codes.contains(&code) {
            codes.push(code);
        }
    }
    Some(codes)
}

/// The document, as served.
pub fn document() -> Result<Value, serde_json::Error> {
    let mut doc = serde_json::to_value(ApiDoc::openapi())?;
    for (composed, name) in RENAMED {
        rename_schema(&mut doc, composed, name);
    }
    add_error_responses(&mut doc);
    optional_bodies_are_objects(&mut doc);
    add_request_rules(&mut doc);
    add_text_patterns(&mut doc);
    add_delivery_waypoint(&mut doc);
    add_batch_item(&mut doc);
    add_examples(&mut doc);
    add_request_id_headers(&mut doc);
    add_webhooks(&mut doc);
    require_every_response_field(&mut doc);
    add_changed_fields(&mut doc);
    Ok(doc)
}

/// The two renderings of a delivery share one generic type, whose schemas
/// utoipa names after their type arguments; the guide's names instead
/// (docs/guide.md "Deliveries", "Events").
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
/// codes it can answer there listed as `examples` of `error.code` (an open
/// string: a code added within v1 still validates).
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
                            { "properties": { "error": { "properties": { "code": { "examples": names } } } } },
                        ]
                    } } }
                }),
            );
        }
    }
}

/// A text length as JSON Schema states it.
fn text(limit: Chars) -> Value {
    let mut rule = json!({ "maxLength": limit.max });
    if limit.min > 0 {
        rule["minLength"] = json!(limit.min);
    }
    rule
}

/// A whole number's range.
fn range(count: Count) -> Value {
    json!({ "minimum": count.min, "maximum": count.max })
}

/// A list's size; `unique` when the core refuses an entry given twice.
fn entries(count: Count, unique: bool) -> Value {
    let mut rule = json!({ "maxItems": count.max });
    if count.min > 0 {
        rule["minItems"] = json!(count.min);
    }
    if unique {
        rule["uniqueItems"] = json!(true);
    }
    rule
}

fn with(mut rule: Value, extra: Value) -> Value {
    if let (Some(rule), Some(extra)) = (rule.as_object_mut(), extra.as_object()) {
        rule.extend(extra.clone());
    }
    rule
}

/// Every request rule JSON Schema can express, as (schema, property, rule),
/// from `courier::limits`: the constants the core checks against.
fn request_rules() -> Vec<(&'static str, &'static str, Value)> {
    let (min_latitude, max_latitude) = limits::LATITUDE;
    let (min_longitude, max_longitude) = limits::LONGITUDE;
    let positive_up_to = |max: f64| json!({ "exclusiveMinimum": 0, "maximum": max });
    let mut rules = Vec::new();
    for schema in ["Address", "WaypointInput", "WaypointChangeInput"] {
        rules.push((schema, "address", text(limits::ADDRESS)));
        rules.push((
            schema,
            "latitude",
            json!({ "minimum": min_latitude, "maximum": max_latitude }),
        ));
        rules.push((
            schema,
            "longitude",
            json!({ "minimum": min_longitude, "maximum": max_longitude }),
        ));
    }
    rules.push(("WaypointInput", "instructions", text(limits::INSTRUCTIONS)));
    rules.push(("ContactInput", "name", text(limits::CONTACT_NAME)));
    rules.push((
        "ContactInput",
        "phone",
        with(text(limits::PHONE), json!({ "pattern": limits::PHONE_PATTERN })),
    ));
    rules.push((
        "ContactInput",
        "email",
        with(
            text(limits::EMAIL),
            json!({ "format": "email", "pattern": limits::EMAIL_PATTERN }),
        ),
    ));
    for schema in ["CreateQuoteRequest", "CreateDeliveryRequest", "CreateFleetOrderRequest"] {
        rules.push((schema, "stops", entries(limits::STOPS, false)));
        rules.push((schema, "items", entries(limits::ITEMS, false)));
    }
    for schema in ["CreateQuoteRequest", "CreateDeliveryRequest"] {
        rules.push((schema, "extras", entries(limits::EXTRAS, true)));
    }
    for schema in ["CreateQuoteRequest", "CreateDeliveryRequest", "CreateFleetOrderRequest"] {
        rules.push((
            schema,
            "vehicle_type_id",
            json!({ "minLength": limits::VEHICLE_TYPE_ID_MIN }),
        ));
    }
    rules.push((
        "BatchCreateDeliveriesRequest",
        "deliveries",
        entries(limits::BATCH_DELIVERIES, false),
    ));
    rules.push(("CreateDeliveryRequest", "external_id", text(limits::EXTERNAL_ID)));
    rules.push(("CreateDeliveryRequest", "notes", text(limits::NOTES)));
    rules.push(("RedeliverDeliveryRequest", "external_id", text(limits::EXTERNAL_ID)));
    rules.push(("UpdateDeliveryRequest", "notes", text(limits::NOTES)));
    rules.push(("UpdateFleetOrderRequest", "notes", text(limits::NOTES)));
    rules.push(("UpdateFleetOrderRequest", "reference", text(limits::FLEET_REFERENCE)));
    rules.push(("WaypointChangeInput", "instructions", text(limits::INSTRUCTIONS)));
    rules.push(("CreateFleetOrderRequest", "reference", text(limits::FLEET_REFERENCE)));
    rules.push(("CreateFleetOrderRequest", "notes", text(limits::NOTES)));
    rules.push(("CreateFleetOrderRequest", "customer_timezone", text(limits::TIME_ZONE)));
    rules.push((
        "CreateFleetOrderRequest",
        "requested_pickup_date",
        json!({ "format": "date", "pattern": limits::PICKUP_DATE_PATTERN }),
    ));
    rules.push((
        "CreateFleetOrderRequest",
        "requested_pickup_time",
        json!({ "pattern": limits::PICKUP_TIME_PATTERN }),
    ));
    for schema in ["CreateDeliveryRequest", "UpdateDeliveryRequest"] {
        rules.push((schema, "tip_cents", range(limits::TIP_CENTS)));
    }
    rules.push(("SelectedExtra", "quantity", range(limits::EXTRA_QUANTITY)));
    rules.push(("ShipmentItem", "description", text(limits::ITEM_DESCRIPTION)));
    rules.push(("ShipmentItem", "quantity", range(limits::ITEM_QUANTITY)));
    rules.push(("ShipmentItem", "weight_kg", positive_up_to(limits::MAX_ITEM_WEIGHT_KG)));
    for dimension in ["length_cm", "width_cm", "height_cm"] {
        rules.push(("ShipmentItem", dimension, positive_up_to(limits::MAX_ITEM_DIMENSION_CM)));
    }
    for schema in ["PickupProofInput", "DropoffProofInput"] {
        rules.push((schema, "photos", range(limits::PROOF_PHOTOS)));
    }
    for schema in ["CreateWebhookEndpointRequest", "UpdateWebhookEndpointRequest"] {
        rules.push((
            schema,
            "url",
            with(text(limits::WEBHOOK_URL), json!({ "format": "uri" })),
        ));
        rules.push((schema, "description", text(limits::WEBHOOK_DESCRIPTION)));
        rules.push((schema, "events", entries(limits::WEBHOOK_EVENTS, true)));
    }
    rules
}

/// States the request rules on the request schemas, and the header and
/// query parameter rules on every operation.
fn add_request_rules(doc: &mut Value) {
    for (schema, property, rule) in request_rules() {
        let pointer = format!("/components/schemas/{schema}/properties/{property}");
        if let (Some(Value::Object(target)), Value::Object(rule)) = (doc.pointer_mut(&pointer), rule) {
            target.extend(rule);
        }
    }
    // A change names one member at least, on the pickup and dropoff too.
    for schema in [
        "UpdateDeliveryRequest",
        "UpdateFleetOrderRequest",
        "WaypointChangeInput",
    ] {
        if let Some(Value::Object(change)) = doc.pointer_mut(&format!("/components/schemas/{schema}")) {
            change.insert("minProperties".into(), json!(1));
        }
    }
    // Goods left at the door cannot have their buyer's age checked, nor
    // be handed over against a PIN.
    if let Some(Value::Object(dropoff)) = doc.pointer_mut("/components/schemas/DropoffProofInput") {
        let at_the_door_with = |other: &str| {
            json!({ "not": {
                "required": ["leave_at_door", other],
                "properties": { "leave_at_door": { "const": true }, other: { "const": true } }
            } })
        };
        dropoff.insert(
            "allOf".into(),
            json!([at_the_door_with("age_check"), at_the_door_with("pin")]),
        );
    }
    for operation in operations(doc) {
        for parameter in parameters(operation) {
            let rule = match parameter.get("name").and_then(Value::as_str) {
                Some("Idempotency-Key") => text(limits::IDEMPOTENCY_KEY),
                Some("If-Match") => json!({ "pattern": limits::IF_MATCH_PATTERN }),
                Some("limit") => range(limits::PAGE_SIZE),
                _ => continue,
            };
            if let (Some(Value::Object(schema)), Value::Object(rule)) = (parameter.get_mut("schema"), rule) {
                schema.extend(rule);
            }
        }
    }
}

/// Every string a request carries is text (docs/guide.md "Text"): a pattern
/// on each string property of the request bodies' schemas (free text's on
/// the fields `limits::FREE_TEXT_FIELDS` names) and on each string query and
/// path parameter. Beside a pattern a field has already, in `allOf`.
fn add_text_patterns(doc: &mut Value) {
    let mut pending = Vec::new();
    for operation in operations(doc) {
        if let Some(schema) = operation.get("requestBody") {
            collect_refs(schema, &mut pending);
        }
    }
    let mut requests = BTreeSet::new();
    while let Some(name) = pending.pop() {
        if requests.insert(name.clone())
            && let Some(schema) = doc.pointer(&format!("/components/schemas/{name}"))
        {
            collect_refs(schema, &mut pending);
        }
    }
    for name in requests {
        let pointer = format!("/components/schemas/{name}/properties");
        if let Some(Value::Object(properties)) = doc.pointer_mut(&pointer) {
            for (field, property) in properties.iter_mut() {
                add_text_pattern(property, field);
            }
        }
    }
    for operation in operations(doc) {
        for parameter in parameters(operation) {
            let text = |key: &str| {
                parameter
                    .get(key)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            };
            let (place, name) = (text("in"), text("name"));
            if let (true, Some(schema)) = (place == "query" || place == "path", parameter.get_mut("schema")) {
                add_text_pattern(schema, &name);
            }
        }
    }
}

/// The text pattern on `schema`, a field or parameter called `name`, when
/// it is a string of any value (not an enum).
fn add_text_pattern(schema: &mut Value, name: &str) {
    let is_string = match schema.get("type") {
        Some(Value::String(kind)) => kind == "string",
        Some(Value::Array(kinds)) => kinds.contains(&json!("string")),
        _ => false,
    };
    let Some(schema) = schema.as_object_mut().filter(|s| is_string && !s.contains_key("enum")) else {
        return;
    };
    let pattern = if limits::FREE_TEXT_FIELDS.contains(&name) {
        limits::FREE_TEXT_PATTERN
    } else {
        limits::TEXT_PATTERN
    };
    if schema.contains_key("pattern") {
        let all_of = schema.entry("allOf").or_insert_with(|| json!([]));
        if let Some(all_of) = all_of.as_array_mut() {
            all_of.push(json!({ "pattern": pattern }));
        }
    } else {
        schema.insert("pattern".into(), json!(pattern));
    }
}

/// A batch's item is a create's body and its `idempotency_key`, one object
/// with no other member. utoipa writes it as `allOf` of the two, which no
/// object can satisfy (the create's body admits no member it does not
/// name): the create's schema, rules and all, with the key among its
/// members instead.
fn add_batch_item(doc: &mut Value) {
    let (Some(mut item), Some(described)) = (
        doc.pointer("/components/schemas/CreateDeliveryRequest").cloned(),
        doc.pointer("/components/schemas/BatchDeliveryItem").cloned(),
    ) else {
        return;
    };
    let mut key = described
        .pointer("/allOf/1/properties/idempotency_key")
        .cloned()
        .unwrap_or_else(|| json!({ "type": "string" }));
    if let Value::Object(key) = &mut key {
        key.extend(text(limits::IDEMPOTENCY_KEY).as_object().cloned().unwrap_or_default());
    }
    add_text_pattern(&mut key, "idempotency_key");
    item["description"] = described.get("description").cloned().unwrap_or(Value::Null);
    if let Some(Value::Object(properties)) = item.get_mut("properties") {
        properties.insert("idempotency_key".into(), key);
    }
    if let Some(Value::Array(required)) = item.get_mut("required") {
        required.push(json!("idempotency_key"));
    }
    doc["components"]["schemas"]["BatchDeliveryItem"] = item;
}

/// A delivery's pickup and dropoff must name a contact (stops and fleet
/// order waypoints may): their own schema, `DeliveryWaypoint`, says so.
fn add_delivery_waypoint(doc: &mut Value) {
    let Some(mut waypoint) = doc.pointer("/components/schemas/WaypointInput").cloned() else {
        return;
    };
    waypoint["description"] =
        json!("A delivery's pickup or dropoff: a route point with the contact the courier calls.");
    waypoint["properties"]["contact"] = json!({ "$ref": "#/components/schemas/ContactInput" });
    if let Some(required) = waypoint["required"].as_array_mut() {
        required.push(json!("contact"));
    }
    if let Some(schemas) = doc.pointer_mut("/components/schemas").and_then(Value::as_object_mut) {
        schemas.insert("DeliveryWaypoint".into(), waypoint);
    }
    for end in ["pickup", "dropoff"] {
        let pointer = format!("/components/schemas/CreateDeliveryRequest/properties/{end}");
        if let Some(property) = doc.pointer_mut(&pointer) {
            *property = json!({ "$ref": "#/components/schemas/DeliveryWaypoint" });
        }
    }
}

/// A realistic request per operation that succeeds against the demo data
/// (`courier-dev`): Berlin addresses in the service area, the catalogue's
/// vehicle types and extras.
fn add_examples(doc: &mut Value) {
    let alexanderplatz =
        json!({ "address": "Alexanderplatz 1, 10178 Berlin", "latitude": 52.5219, "longitude": 13.4132 });
    let oranienstrasse =
        json!({ "address": "Oranienstraße 25, 10999 Berlin", "latitude": 52.501, "longitude": 13.419 });
    let with_contact = |place: &Value, name: &str, phone: &str, instructions: &str| {
        with(
            place.clone(),
            json!({ "contact": { "name": name, "phone": phone, "email": "orders@example.com" }, "instructions": instructions }),
        )
    };
    let pickup = with_contact(
        &alexanderplatz,
        "Mia Hoffmann",
        "+49 30 1234567",
        "Goods receiving, ring twice.",
    );
    let dropoff = with_contact(
        &oranienstrasse,
        "Jonas Weber",
        "+49 151 2345678",
        "Third floor, left door.",
    );
    let item = json!({ "description": "Box of books", "quantity": 2, "weight_kg": 4.5, "length_cm": 40, "width_cm": 30, "height_cm": 25 });
    let bodies = [
        (
            "createQuote",
            json!({ "pickup": alexanderplatz, "dropoff": oranienstrasse, "vehicle_type_id": "cargo_bike", "items": [item] }),
        ),
        (
            "createDelivery",
            json!({
                "pickup": pickup, "dropoff": dropoff, "vehicle_type_id": "cargo_bike", "items": [item],
                "notes": "Fragile: keep upright.",
                "proof_of_delivery": { "dropoff": { "photos": 1, "recipient_name": true } },
                "notifications": { "language": "de" }
            }),
        ),
        (
            "batchCreateDeliveries",
            json!({ "deliveries": [
                { "idempotency_key": "order-1001", "external_id": "order-1001", "pickup": pickup, "dropoff": dropoff, "vehicle_type_id": "cargo_bike" },
                { "idempotency_key": "order-1002", "external_id": "order-1002", "pickup": pickup, "dropoff": dropoff, "vehicle_type_id": "cargo_bike", "items": [item] },
            ] }),
        ),
        ("cancelDelivery", json!({ "reason": "no_longer_needed" })),
        (
            "updateDelivery",
            json!({ "notes": "Leave with the concierge.", "dropoff": { "instructions": "Concierge desk, ground floor." } }),
        ),
        (
            "createWebhookEndpoint",
            json!({ "url": "https://93.184.215.14/webhooks/courier", "events": ["delivery.delivered", "delivery.cancelled"], "description": "Order system" }),
        ),
        (
            "updateWebhookEndpoint",
            json!({ "description": "Order system (all events)", "events": [] }),
        ),
        ("testWebhookEndpoint", json!({})),
        ("replayWebhookEndpoint", json!({})),
        (
            "createFleetOrder",
            json!({
                "customer": { "name": "Lena Fischer", "phone": "+49 30 9876543", "email": "lena@example.com" },
                "pickup": alexanderplatz, "dropoff": oranienstrasse, "vehicle_type_id": "car",
                "reference": "WEB-10231", "requested_pickup_date": "2026-12-01", "requested_pickup_time": "14:30",
                "customer_timezone": "Europe/Berlin", "items": [item]
            }),
        ),
        (
            "updateFleetOrder",
            json!({ "notes": "Call on arrival.", "dropoff": { "contact": { "name": "Lena Fischer", "phone": "+49 30 9876543" } } }),
        ),
    ];
    for operation in operations(doc) {
        let id = operation
            .get("operationId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if let Some((_, body)) = bodies.iter().find(|(operation_id, _)| *operation_id == id)
            && let Some(media) = operation
                .get_mut("requestBody")
                .and_then(|body| body.pointer_mut("/content/application~1json"))
        {
            media["example"] = body.clone();
        }
        for parameter in parameters(operation) {
            let example = match parameter.get("name").and_then(Value::as_str) {
                Some("Idempotency-Key") => json!("7f3c9a2e-5b1d-4c8e-9f60-2d4b8a1c3e57"),
                Some("limit") => json!(20),
                _ => continue,
            };
            parameter["example"] = example;
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

/// The parameters of an operation.
fn parameters(operation: &mut Map<String, Value>) -> impl Iterator<Item = &mut Value> {
    operation
        .get_mut("parameters")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
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

/// When each event type is sent (docs/guide.md "Delivery states", "Events").
fn event_description(event_type: pb::EventType) -> &'static str {
    use pb::EventType as T;
    match event_type {
        T::DeliveryCreated => "A delivery was created (status `pending`, courier null).",
        T::DeliveryStatusUpdated => {
            "The goods were picked up (`picked_up`), the courier set off to the dropoff (`in_transit`) \
or arrived there (`at_dropoff`). The sample event of `POST /v1/webhooks/{webhookId}/test` is of this type, with `data.test` true."
        }
        T::DeliveryCourierAssigned => "A courier accepted the delivery (`courier_assigned`).",
        T::DeliveryCourierArrived => "The courier arrived at the pickup (`at_pickup`).",
        T::DeliveryEtaUpdated => "The dropoff ETA was set or moved by a minute or more (`in_transit`).",
        T::DeliveryPodSubmitted => "The courier submitted the proof of delivery (`at_dropoff`).",
        T::DeliveryDelivered => "The delivery was completed (`delivered`, `delivered_at` set).",
        T::DeliveryCancelled => "The delivery was cancelled (`cancelled`, `cancellation_reason` set).",
        T::DeliveryDelayed => {
            "The delivery is at risk: its predicted dropoff (`dropoff_eta`) passed `dropoff_window.end`. Sent once per delivery."
        }
        T::DeliveryUpdated => {
            "The client changed the delivery (`PATCH /v1/deliveries/{deliveryId}`); `data.changed_fields` names the members \
that changed, as dot paths (`notes`, `dropoff.contact`, `dropoff_window`)."
        }
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

/// Success schemas whose members are shown only when set: a batch item's
/// result holds its delivery or its error, and an error its `param` only
/// where it has one.
const EITHER_OR: [&str; 2] = ["BatchDeliveryResult", "ErrorDetail"];

/// Success bodies and webhook payloads render every field, `null` where
/// unset (docs/guide.md "Conventions"): every property of every schema they
/// reach is required. Error bodies omit `param` when there is none, so schemas
/// reached only from error answers keep their derived `required`, and so do
/// [`EITHER_OR`].
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
            if !EITHER_OR.contains(&name.as_str()) {
                require_properties(schema);
            }
        }
    }
}

/// `changed_fields` in an event's data: a member of DeliveryEventData that
/// only `delivery.updated` carries, so optional there and required in that
/// webhook's body. Added after the rule that requires every response
/// field, which would require it on every event.
fn add_changed_fields(doc: &mut Value) {
    if let Some(Value::Object(properties)) = doc.pointer_mut("/components/schemas/DeliveryEventData/properties") {
        properties.insert(
            "changed_fields".into(),
            json!({
                "type": "array",
                "items": { "type": "string" },
                "description": "On `delivery.updated` only: the members the change set, as dot paths (`notes`, \
            `pickup.contact`, `dropoff.instructions`, `dropoff_window`).",
                "examples": [["notes", "dropoff.instructions"]]
            }),
        );
    }
    let name = pb::EventType::DeliveryUpdated.public_name().unwrap_or_default();
    let pointer = format!(
        "/webhooks/{}/post/requestBody/content/application~1json/schema/allOf",
        name.replace('~', "~0").replace('/', "~1")
    );
    if let Some(Value::Array(parts)) = doc.pointer_mut(&pointer) {
        parts.push(json!({ "properties": { "data": { "required": ["changed_fields"] } } }));
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
    fn only_delivery_updated_requires_changed_fields() {
        let doc = document().expect("document");
        let data = &doc["components"]["schemas"]["DeliveryEventData"];
        assert_eq!(data["properties"]["changed_fields"]["type"], "array");
        let required = data["required"].as_array().expect("required");
        assert!(required.contains(&json!("status")) && !required.contains(&json!("changed_fields")));
        let body = |event_type: &str| {
            doc["webhooks"][event_type]["post"]["requestBody"]["content"]["application/json"]["schema"]["allOf"].clone()
        };
        assert_eq!(
            body("delivery.updated")[2]["properties"]["data"]["required"],
            json!(["changed_fields"])
        );
        assert_eq!(body("delivery.created").as_array().map(Vec::len), Some(2));
        assert_eq!(
            doc["components"]["schemas"]["UpdateDeliveryRequest"]["minProperties"],
            json!(1)
        );
    }

    #[test]
    fn routes_not_for_integrators_are_left_out() {
        let doc = document().expect("document");
        let paths = doc["paths"].as_object().expect("paths");
        assert!(paths.contains_key("/v1/deliveries/{deliveryId}/notifications"));
        for path in paths.keys() {
            assert!(
                !path.starts_with("/v1/notifications/") && !path.starts_with("/t/"),
                "{path}"
            );
        }
        let created = &doc["components"]["schemas"]["Delivery"]["properties"]["notifications"];
        assert!(created.to_string().contains("NotificationPreferences"), "{created}");
        let input = &doc["components"]["schemas"]["CreateDeliveryRequest"]["properties"]["notifications"];
        assert!(input.to_string().contains("NotificationPreferencesInput"), "{input}");
    }

    #[test]
    fn request_strings_state_the_text_rule() {
        let doc = document().expect("document");
        let schemas = &doc["components"]["schemas"];
        let notes = &schemas["CreateDeliveryRequest"]["properties"]["notes"];
        assert_eq!(notes["pattern"], json!(limits::FREE_TEXT_PATTERN), "{notes}");
        let name = &schemas["ContactInput"]["properties"]["name"];
        assert_eq!(name["pattern"], json!(limits::TEXT_PATTERN), "{name}");
        // Beside a pattern of its own.
        let phone = &schemas["ContactInput"]["properties"]["phone"];
        assert_eq!(phone["allOf"][0]["pattern"], json!(limits::TEXT_PATTERN), "{phone}");
        let get = &doc["paths"]["/v1/deliveries/{deliveryId}"]["get"]["parameters"][0];
        assert_eq!(get["schema"]["pattern"], json!(limits::TEXT_PATTERN), "{get}");
    }

    #[test]
    fn vehicle_type_id_takes_at_least_one_character() {
        let doc = document().expect("document");
        for schema in ["CreateQuoteRequest", "CreateDeliveryRequest", "CreateFleetOrderRequest"] {
            let rule = &doc["components"]["schemas"][schema]["properties"]["vehicle_type_id"];
            assert_eq!(rule["minLength"], json!(1), "{schema}: {rule}");
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
