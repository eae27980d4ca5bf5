use std::collections::HashMap;

use axum::Json;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use courier::errors::ErrorCode;
use courier::v1 as pb;

use crate::EdgeState;
use crate::context::CallContext;
use crate::path_id::PathId;
use courier::json::{CourierJson, DeliveryJson};

use crate::dto::common::time_in;
use crate::dto::deliveries::{
    self, BatchCreateDeliveriesBody, BatchResultJson, BatchResultsJson, CancelDeliveryBody, CreateDeliveryBody,
    DeliveryListJson, RedeliverDeliveryBody, UpdateDeliveryBody,
};
use crate::dto::tracking::TrackingJson;
use crate::error::{ApiError, ErrorJson};
use crate::json::{JsonBody, OptionalJsonBody};
use crate::list_pages;

fn missing(what: &str) -> ApiError {
    ApiError::new(ErrorCode::UpstreamError, format!("The core answered without a {what}."))
}

/// Create a delivery
///
/// Books a delivery (status `pending`). A test key creates a simulated
/// delivery that the courier simulator moves through its statuses. A retry
/// with the same `Idempotency-Key` and body replays the first answer.
#[utoipa::path(
    post,
    path = "/v1/deliveries",
    operation_id = "createDelivery",
    tag = "Deliveries",
    params(
        ("Idempotency-Key" = String, Header,
            description = "Required. At most 255 characters; scope: workspace, mode and endpoint; kept 24 hours."),
    ),
    request_body = CreateDeliveryBody,
    responses((status = 201, description = "The delivery, status `pending`.", body = DeliveryJson<Option<CourierJson>>,
        headers(("Idempotent-Replayed" = String, description = "`true` when the answer is replayed for a retried key.")))),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn create(
    State(state): State<EdgeState>,
    ctx: CallContext,
    body: Result<JsonBody<CreateDeliveryBody>, ApiError>,
) -> Result<(StatusCode, HeaderMap, Json<DeliveryJson>), ApiError> {
    let request = ctx.request_for(body, |JsonBody(b)| pb::CreateDeliveryRequest::try_from(b));
    let answer = state.core.deliveries.clone().create_delivery(request).await?;
    let headers = super::replay_headers(answer.metadata());
    let delivery = answer.into_inner().delivery.ok_or_else(|| missing("delivery"))?;
    Ok((StatusCode::CREATED, headers, Json(delivery.into())))
}

/// Create deliveries in bulk
///
/// Books up to 100 deliveries in one call, each with its own
/// `idempotency_key`, in order; each is created or refused on its own, and
/// the answer lists each one's delivery or error (its `param` starting with
/// `deliveries.<index>`). The rate limit counts each delivery. Sent again,
/// a batch answers each delivery from its key.
#[utoipa::path(
    post,
    path = "/v1/deliveries/batch",
    operation_id = "batchCreateDeliveries",
    tag = "Deliveries",
    params(("validate_only" = Option<bool>, Query, description = "`true`: a dry run. Each delivery is checked and priced as its create would be, and nothing is stored (no delivery, no key used, no billing check); a valid one answers `checked`.")),
    request_body = BatchCreateDeliveriesBody,
    responses((status = 200, description = "One result per delivery, in order.", body = BatchResultsJson)),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn batch(
    State(state): State<EdgeState>,
    ctx: CallContext,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Result<JsonBody<BatchCreateDeliveriesBody>, ApiError>,
) -> Result<Json<BatchResultsJson>, ApiError> {
    let parsed = parse_query(query.as_deref())
        .and_then(|q| deliveries::validate_only_in(&q))
        .and_then(|validate_only| {
            body.map(|JsonBody(b)| pb::BatchCreateDeliveriesRequest {
                validate_only,
                ..deliveries::batch_request(b)
            })
        });
    if let Ok(request) = &parsed {
        // The middleware took the batch's first token; each further item costs one.
        let more = u32::try_from(request.items.len().saturating_sub(1)).unwrap_or(u32::MAX);
        crate::ratelimit::charge_writes(&state.limits, &headers, more).await;
    }
    let request = ctx.request_for(parsed, Ok);
    let answer = state
        .core
        .deliveries
        .clone()
        .batch_create_deliveries(request)
        .await
        .map_err(|status| {
            // A text check of the whole call names the item's field in the gRPC's words.
            let mut error = ApiError::from(status);
            error.param = error.param.map(|param| batch_param(&param));
            error
        })?;
    let results = answer
        .into_inner()
        .results
        .into_iter()
        .enumerate()
        .map(|(index, result)| match result.result {
            Some(pb::batch_create_delivery_result::Result::Delivery(delivery)) => BatchResultJson {
                delivery: Some((*delivery).into()),
                ..BatchResultJson::default()
            },
            Some(pb::batch_create_delivery_result::Result::Checked(checked)) => BatchResultJson {
                checked: Some(checked.into()),
                ..BatchResultJson::default()
            },
            Some(pb::batch_create_delivery_result::Result::Error(error)) => BatchResultJson {
                error: Some(item_error(&state.base_url, index, error)),
                ..BatchResultJson::default()
            },
            None => BatchResultJson {
                error: Some(item_error(
                    &state.base_url,
                    index,
                    pb::ErrorDetail {
                        code: ErrorCode::UpstreamError.as_str().to_owned(),
                        param: String::new(),
                        message: "The core answered this delivery with nothing.".into(),
                    },
                )),
                ..BatchResultJson::default()
            },
        })
        .collect();
    Ok(Json(BatchResultsJson { results }))
}

/// Item `index`'s error in the contract's shape.
fn item_error(base_url: &str, index: usize, error: pb::ErrorDetail) -> ErrorJson {
    let code = ErrorCode::parse(&error.code).unwrap_or(ErrorCode::UpstreamError);
    ErrorJson {
        code: code.as_str(),
        message: error.message,
        param: Some(deliveries::item_param(index, &error.param)),
        doc_url: format!("{base_url}/v1/docs/errors#{}", code.as_str()),
        amount_cents: None,
    }
}

/// A whole call's `param` in the body's words: `items.3.delivery.notes`
/// (the gRPC request's path) is `deliveries.3.notes`.
fn batch_param(param: &str) -> String {
    let Some(rest) = param.strip_prefix("items.") else {
        return param.to_owned();
    };
    let (index, within) = rest.split_once('.').unwrap_or((rest, ""));
    let within = within
        .strip_prefix("delivery")
        .map(|w| w.trim_start_matches('.'))
        .unwrap_or(within);
    match index.parse() {
        Ok(index) => deliveries::item_param(index, within),
        Err(_) => param.to_owned(),
    }
}

/// Get a delivery
#[utoipa::path(
    get,
    path = "/v1/deliveries/{deliveryId}",
    operation_id = "getDelivery",
    tag = "Deliveries",
    params(("deliveryId" = String, Path, description = "The delivery's id (`del_…`).")),
    responses((status = 200, description = "The delivery.", body = DeliveryJson<Option<CourierJson>>)),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn get(
    State(state): State<EdgeState>,
    ctx: CallContext,
    delivery_id: Result<PathId, ApiError>,
) -> Result<Json<DeliveryJson>, ApiError> {
    let request = ctx.request_for(delivery_id, |PathId(delivery_id)| {
        Ok(pb::GetDeliveryRequest { delivery_id })
    });
    let answer = state.core.deliveries.clone().get_delivery(request).await?;
    let delivery = answer.into_inner().delivery.ok_or_else(|| missing("delivery"))?;
    Ok(Json(delivery.into()))
}

/// Track a delivery
///
/// The authoritative source of `tracking_available_at` and of the courier's
/// location, which is filled once tracking is open.
#[utoipa::path(
    get,
    path = "/v1/deliveries/{deliveryId}/tracking",
    operation_id = "getDeliveryTracking",
    tag = "Deliveries",
    params(("deliveryId" = String, Path, description = "The delivery's id (`del_…`).")),
    responses((status = 200, description = "Status, courier and ETAs.", body = TrackingJson)),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn tracking(
    State(state): State<EdgeState>,
    ctx: CallContext,
    delivery_id: Result<PathId, ApiError>,
) -> Result<Json<TrackingJson>, ApiError> {
    let request = ctx.request_for(delivery_id, |PathId(delivery_id)| {
        Ok(pb::GetDeliveryTrackingRequest { delivery_id })
    });
    let answer = state.core.tracking.clone().get_delivery_tracking(request).await?;
    let tracking = answer.into_inner().tracking.ok_or_else(|| missing("tracking"))?;
    Ok(Json(tracking.into()))
}

/// List deliveries
///
/// Newest first. Follow `next_page_token` until it is null, keeping the same
/// filters. Unknown or repeated parameters are refused.
#[utoipa::path(
    get,
    path = "/v1/deliveries",
    operation_id = "listDeliveries",
    tag = "Deliveries",
    params(
        ("limit" = Option<i32>, Query, description = "Page size, 1 to 100; default 20."),
        ("page_token" = Option<String>, Query, description = "The previous page's `next_page_token`, unchanged."),
        ("status" = Option<pb::DeliveryStatus>, Query, description = "Only deliveries in this status."),
        ("external_id" = Option<String>, Query, description = "Only the delivery with this `external_id`."),
        ("created_after" = Option<String>, Query, format = DateTime, description = "Created at or after this time."),
        ("created_before" = Option<String>, Query, format = DateTime, description = "Created before this time."),
        ("promise" = Option<pb::PromiseState>, Query, description = "Only deliveries at risk of breaking their promised dropoff (`at_risk`) or that broke it (`late`); see the guide's \"Windows\"."),
    ),
    responses((status = 200, description = "One page of deliveries.", body = DeliveryListJson)),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn list(
    State(state): State<EdgeState>,
    ctx: CallContext,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let parsed = parse_query(query.as_deref()).and_then(|q| deliveries::list_request(&q));
    let request = ctx.request_for(parsed, Ok);
    let channel = state.core.channel.clone();
    let renderings = &state.renderings.deliveries;
    list_pages::answer::<_, pb::Delivery, DeliveryJson>(channel, &list_pages::LIST_DELIVERIES, renderings, request)
        .await
}

/// Cancel a delivery
///
/// Possible until the courier has picked up the goods. The body is optional.
#[utoipa::path(
    post,
    path = "/v1/deliveries/{deliveryId}/cancel",
    operation_id = "cancelDelivery",
    tag = "Deliveries",
    params(("deliveryId" = String, Path, description = "The delivery's id (`del_…`).")),
    request_body(content = Option<CancelDeliveryBody>, description = "Optional; empty means `{}`."),
    responses((status = 200, description = "The delivery as it now is.", body = DeliveryJson<Option<CourierJson>>)),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn cancel(
    State(state): State<EdgeState>,
    ctx: CallContext,
    delivery_id: Result<PathId, ApiError>,
    body: Result<OptionalJsonBody<CancelDeliveryBody>, ApiError>,
) -> Result<Json<DeliveryJson>, ApiError> {
    let parsed = delivery_id.and_then(|id| Ok((id, body?)));
    let request = ctx.request_for(parsed, |(PathId(delivery_id), OptionalJsonBody(b))| {
        Ok(pb::CancelDeliveryRequest {
            delivery_id,
            reason: deliveries::cancel_reason_in(b.reason) as i32,
        })
    });
    let answer = state.core.deliveries.clone().cancel_delivery(request).await?;
    let delivery = answer.into_inner().delivery.ok_or_else(|| missing("delivery"))?;
    Ok(Json(delivery.into()))
}

/// Deliver again
///
/// Books a cancelled delivery again as a new delivery (status `pending`):
/// the same places, contacts, instructions, goods, vehicle, extras, proof,
/// notes, batching and notifications, priced afresh. Times are not copied:
/// the body may give new ones, else the new delivery is immediate. The
/// body is optional. A retry with the same `Idempotency-Key` and body
/// replays the first answer.
#[utoipa::path(
    post,
    path = "/v1/deliveries/{deliveryId}/redeliver",
    operation_id = "redeliverDelivery",
    tag = "Deliveries",
    params(
        ("deliveryId" = String, Path, description = "The cancelled delivery's id (`del_…`)."),
        ("Idempotency-Key" = String, Header,
            description = "Required. At most 255 characters; scope: workspace, mode and endpoint; kept 24 hours."),
    ),
    request_body(content = Option<RedeliverDeliveryBody>, description = "Optional."),
    responses((status = 201, description = "The new delivery, status `pending`.", body = DeliveryJson<Option<CourierJson>>,
        headers(("Idempotent-Replayed" = String, description = "`true` when the answer is replayed for a retried key.")))),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn redeliver(
    State(state): State<EdgeState>,
    ctx: CallContext,
    delivery_id: Result<PathId, ApiError>,
    body: Result<OptionalJsonBody<RedeliverDeliveryBody>, ApiError>,
) -> Result<(StatusCode, HeaderMap, Json<DeliveryJson>), ApiError> {
    let parsed = delivery_id.and_then(|id| Ok((id, body?)));
    let request = ctx.request_for(parsed, |(PathId(delivery_id), OptionalJsonBody(b))| {
        deliveries::redeliver_request(delivery_id, b)
    });
    let answer = state.core.deliveries.clone().redeliver_delivery(request).await?;
    let headers = super::replay_headers(answer.metadata());
    let delivery = answer.into_inner().delivery.ok_or_else(|| missing("delivery"))?;
    Ok((StatusCode::CREATED, headers, Json(delivery.into())))
}

/// Change a delivery
///
/// Sets the notes, the pickup's and dropoff's contact and instructions
/// (until the delivery is delivered or cancelled) and the dropoff window
/// (until the goods are picked up); absent members stay as they are.
/// Recorded as `delivery.updated` with `changed_fields`; a change that
/// changes nothing answers the delivery as it is, with no event. A retry
/// with the same `Idempotency-Key` and body replays the first answer.
#[utoipa::path(
    patch,
    path = "/v1/deliveries/{deliveryId}",
    operation_id = "updateDelivery",
    tag = "Deliveries",
    params(
        ("deliveryId" = String, Path, description = "The delivery's id (`del_…`)."),
        ("Idempotency-Key" = String, Header,
            description = "Required. At most 255 characters; scope: workspace, mode and endpoint; kept 24 hours."),
        ("If-Match" = Option<String>, Header,
            description = "Optional. The delivery's `updated_at` as last read: a delivery changed since is refused with `412 precondition_failed` (not kept under the key). `*` changes it whatever it is now."),
    ),
    request_body = UpdateDeliveryBody,
    responses((status = 200, description = "The delivery as it now is.", body = DeliveryJson<Option<CourierJson>>,
        headers(("Idempotent-Replayed" = String, description = "`true` when the answer is replayed for a retried key.")))),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn update(
    State(state): State<EdgeState>,
    ctx: CallContext,
    headers: HeaderMap,
    delivery_id: Result<PathId, ApiError>,
    body: Result<JsonBody<UpdateDeliveryBody>, ApiError>,
) -> Result<(HeaderMap, Json<DeliveryJson>), ApiError> {
    let parsed = delivery_id.and_then(|id| Ok((id, if_match_in(&headers)?, body.map_err(deliveries::read_only)?)));
    let request = ctx.request_for(parsed, |(PathId(delivery_id), if_updated_at, JsonBody(b))| {
        deliveries::update_request(delivery_id, if_updated_at, b)
    });
    let answer = state.core.deliveries.clone().update_delivery(request).await?;
    let headers = super::replay_headers(answer.metadata());
    let delivery = answer.into_inner().delivery.ok_or_else(|| missing("delivery"))?;
    Ok((headers, Json(delivery.into())))
}

/// The `updated_at` an `If-Match` header sends, quoted or not; `None`
/// without one and for `*`. Sent twice, it must say the same.
pub(crate) fn if_match_in(headers: &HeaderMap) -> Result<Option<prost_types::Timestamp>, ApiError> {
    let malformed = || {
        ApiError::invalid(
            "If-Match",
            "If-Match must be the updated_at as last read (an RFC 3339 date-time), or *.",
        )
    };
    let mut values = headers.get_all("if-match").iter();
    let Some(first) = values.next() else {
        return Ok(None);
    };
    if values.any(|other| other != first) {
        return Err(ApiError::invalid(
            "If-Match",
            "If-Match is given more than once with different values.",
        ));
    }
    let text = first.to_str().map_err(|_| malformed())?.trim();
    if text == "*" {
        return Ok(None);
    }
    let text = text.strip_prefix("W/").unwrap_or(text);
    let text = text
        .strip_prefix('"')
        .and_then(|quoted| quoted.strip_suffix('"'))
        .unwrap_or(text);
    time_in("If-Match", Some(text)).map_err(|_| malformed())
}

/// A query string as name → value; a repeated name, or a name or value
/// whose escapes are not UTF-8, is refused.
pub fn parse_query(query: Option<&str>) -> Result<HashMap<String, String>, ApiError> {
    let mut map = HashMap::new();
    for pair in query.unwrap_or("").split('&').filter(|pair| !pair.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let decode = |text: &str| {
            let spaced = text.replace('+', " ");
            percent_encoding::percent_decode_str(&spaced)
                .decode_utf8()
                .map(|text| text.into_owned())
        };
        let name = decode(name)
            .map_err(|_| ApiError::invalid("query", "A query parameter's name is not valid UTF-8 text."))?;
        let value =
            decode(value).map_err(|_| ApiError::invalid(name.clone(), format!("{name} is not valid UTF-8 text.")))?;
        if map.contains_key(&name) {
            return Err(ApiError::invalid(
                name.clone(),
                format!("{name} is given more than once."),
            ));
        }
        map.insert(name, value);
    }
    Ok(map)
}
