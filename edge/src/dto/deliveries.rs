//! Delivery shapes (docs/guide.md "Deliveries").

use std::collections::HashMap;

use courier::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use courier::json::{CourierJson, DeliveryJson, NotificationLanguage};

use super::common::{
    ItemBody, ListQuery, SelectedExtraBody, TimeWindowBody, WaypointBody, WaypointChangeBody, fixed_member, items_in,
    not_null, present, time_in, waypoint_change_in, window_change_in, window_in,
};
use crate::error::{ApiError, ErrorJson};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = PickupProofInput)]
pub struct PickupProofBody {
    pub photos: Option<i32>,
    pub signature: Option<bool>,
    pub sender_name: Option<bool>,
    pub barcode: Option<bool>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = DropoffProofInput)]
pub struct DropoffProofBody {
    pub photos: Option<i32>,
    pub signature: Option<bool>,
    pub recipient_name: Option<bool>,
    pub barcode: Option<bool>,
    pub age_check: Option<bool>,
    pub leave_at_door: Option<bool>,
    /// A 4-digit `dropoff_pin` the recipient tells the courier, who enters
    /// it to hand over; not with `leave_at_door`.
    pub pin: Option<bool>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ProofOfDeliveryInput)]
pub struct ProofBody {
    pub pickup: Option<PickupProofBody>,
    pub dropoff: Option<DropoffProofBody>,
}

/// Test keys only: how the simulated delivery ends; omitted, it runs through
/// every status to `delivered`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = TestScenario)]
pub enum TestScenarioBody {
    NoCourierFound,
    CourierCancelled,
    PickupNoShow,
    DeliveryFailed,
    /// The simulated courier runs late: `delivery.delayed`, then delivered.
    Delayed,
    /// The handover fails and a return delivery brings the goods back to
    /// the pickup, where it is delivered.
    Returned,
}

/// What a failed handover does with the goods; omitted,
/// `return_to_pickup`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = UndeliverableAction)]
pub enum UndeliverableActionBody {
    /// The same courier brings them back to the pickup as a return
    /// delivery, billed at 60 % of the route price.
    ReturnToPickup,
    /// The courier disposes of them.
    Dispose,
}

/// Whether the delivery may share its courier with other jobs; omitted,
/// `allowed`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = BatchingInput)]
pub enum BatchingBody {
    Allowed,
    /// Rides alone: its courier carries no other job meanwhile.
    Never,
}

/// The delivery's own choice of recipient notifications over its
/// workspace's settings (docs/guide.md "Notifications"); an omitted member
/// keeps the workspace's.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = NotificationPreferencesInput)]
pub struct NotificationPreferencesBody {
    /// `false`: no message to the dropoff's contact.
    pub recipient: Option<bool>,
    /// `false`: no message to the pickup's contact.
    pub sender: Option<bool>,
    /// The messages' language.
    pub language: Option<NotificationLanguage>,
}

impl From<NotificationPreferencesBody> for pb::NotificationPreferences {
    fn from(b: NotificationPreferencesBody) -> Self {
        pb::NotificationPreferences {
            recipient: b.recipient,
            sender: b.sender,
            language: b.language.map(|l| l.as_str().to_owned()),
        }
    }
}

/// `POST /v1/deliveries` body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = CreateDeliveryRequest)]
pub struct CreateDeliveryBody {
    pub quote_id: Option<String>,
    pub pickup: WaypointBody,
    pub dropoff: WaypointBody,
    pub stops: Option<Vec<WaypointBody>>,
    pub vehicle_type_id: String,
    pub extras: Option<Vec<SelectedExtraBody>>,
    pub items: Option<Vec<ItemBody>>,
    pub external_id: Option<String>,
    pub notes: Option<String>,
    /// Pickup time, 1 minute to 30 days ahead; omit for immediate.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub scheduled_at: Option<String>,
    pub proof_of_delivery: Option<ProofBody>,
    pub test_scenario: Option<TestScenarioBody>,
    /// When the pickup may happen; not with `scheduled_at`.
    pub pickup_window: Option<TimeWindowBody>,
    /// When the dropoff is promised.
    pub dropoff_window: Option<TimeWindowBody>,
    pub batching: Option<BatchingBody>,
    /// SMS and email to the recipient and sender; omitted, the workspace's
    /// settings alone.
    pub notifications: Option<NotificationPreferencesBody>,
    pub undeliverable_action: Option<UndeliverableActionBody>,
    /// A tip for the courier, in minor units of the delivery's currency,
    /// all of it theirs once they deliver it; billed on the workspace's
    /// statement.
    pub tip_cents: Option<i64>,
}

impl TryFrom<CreateDeliveryBody> for pb::CreateDeliveryRequest {
    type Error = ApiError;

    fn try_from(b: CreateDeliveryBody) -> Result<Self, ApiError> {
        Ok(pb::CreateDeliveryRequest {
            scheduled_at: time_in("scheduled_at", b.scheduled_at.as_deref())?,
            pickup_window: window_in("pickup_window", b.pickup_window)?,
            dropoff_window: window_in("dropoff_window", b.dropoff_window)?,
            batching: match b.batching {
                None | Some(BatchingBody::Allowed) => pb::Batching::Allowed,
                Some(BatchingBody::Never) => pb::Batching::Never,
            } as i32,
            notifications: b.notifications.map(Into::into),
            undeliverable_action: match b.undeliverable_action {
                None | Some(UndeliverableActionBody::ReturnToPickup) => pb::UndeliverableAction::ReturnToPickup,
                Some(UndeliverableActionBody::Dispose) => pb::UndeliverableAction::Dispose,
            } as i32,
            tip_cents: b.tip_cents,
            quote_id: b.quote_id,
            pickup: Some(b.pickup.into()),
            dropoff: Some(b.dropoff.into()),
            stops: b.stops.unwrap_or_default().into_iter().map(Into::into).collect(),
            vehicle_type_id: b.vehicle_type_id,
            extras: b.extras.unwrap_or_default().into_iter().map(Into::into).collect(),
            items: items_in(b.items),
            external_id: b.external_id,
            notes: b.notes,
            proof_of_delivery: b.proof_of_delivery.map(|p| pb::ProofOfDeliveryRequest {
                pickup: p.pickup.map(|x| pb::PickupProofRequest {
                    photos: x.photos,
                    signature: x.signature,
                    sender_name: x.sender_name,
                    barcode: x.barcode,
                }),
                dropoff: p.dropoff.map(|x| pb::DropoffProofRequest {
                    photos: x.photos,
                    signature: x.signature,
                    recipient_name: x.recipient_name,
                    barcode: x.barcode,
                    age_check: x.age_check,
                    leave_at_door: x.leave_at_door,
                    pin: x.pin,
                }),
            }),
            test_scenario: test_scenario_in(b.test_scenario) as i32,
        })
    }
}

/// `POST /v1/deliveries/batch` body (docs/guide.md "Create in bulk").
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = BatchCreateDeliveriesRequest)]
pub struct BatchCreateDeliveriesBody {
    /// 1 to 100 deliveries, each created or refused on its own.
    #[schema(value_type = Vec<BatchDeliveryItemBody>)]
    pub deliveries: Vec<serde_json::Value>,
}

/// One delivery of a batch: a create's body with its own idempotency key
/// (what a create takes as its `Idempotency-Key` header, in the same scope).
#[derive(Debug, Deserialize, ToSchema)]
#[schema(as = BatchDeliveryItem)]
pub struct BatchDeliveryItemBody {
    /// 1 to 255 characters, kept 24 hours: a batch sent again answers each
    /// item from its key.
    pub idempotency_key: String,
    #[serde(flatten)]
    pub delivery: CreateDeliveryBody,
}

/// A batch's answer: one result per item, in order.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = BatchCreateDeliveriesResponse)]
pub struct BatchResultsJson {
    pub results: Vec<BatchResultJson>,
}

/// One item's result: the delivery created (or replayed from its key), in
/// a dry run what it would cost (`checked`), or the item's error, whose
/// `param` starts with `deliveries.<index>`.
#[derive(Debug, Default, Serialize, ToSchema)]
#[schema(as = BatchDeliveryResult)]
pub struct BatchResultJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<DeliveryJson<Option<CourierJson>>>)]
    pub delivery: Option<DeliveryJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checked: Option<BatchCheckJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorJson>,
}

/// A valid delivery of a dry run (`validate_only=true`): the price its
/// create would book.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = BatchDeliveryCheck)]
pub struct BatchCheckJson {
    pub amount_cents: i64,
    pub currency: String,
    pub distance_km: f64,
    pub duration_min: i64,
}

impl From<pb::BatchCreateDeliveryCheck> for BatchCheckJson {
    fn from(c: pb::BatchCreateDeliveryCheck) -> Self {
        BatchCheckJson {
            amount_cents: c.amount_cents,
            currency: c.currency,
            distance_km: c.distance_km,
            duration_min: c.duration_min,
        }
    }
}

/// A batch's `validate_only` query parameter (the only one it takes).
pub fn validate_only_in(query: &HashMap<String, String>) -> Result<bool, ApiError> {
    if let Some(unknown) = query.keys().find(|k| k.as_str() != "validate_only") {
        return Err(ApiError::invalid(
            unknown.clone(),
            format!("{unknown} is not a known query parameter."),
        ));
    }
    match query.get("validate_only").map(String::as_str) {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(_) => Err(ApiError::invalid("validate_only", "validate_only is true or false.")),
    }
}

/// The batch request for `b`: each item read on its own, an item that
/// cannot be read carrying its error for the core to answer (which also
/// checks the count, `courier::limits::BATCH_DELIVERIES`).
pub fn batch_request(b: BatchCreateDeliveriesBody) -> pb::BatchCreateDeliveriesRequest {
    pb::BatchCreateDeliveriesRequest {
        items: b.deliveries.into_iter().map(batch_item).collect(),
        validate_only: false,
    }
}

fn batch_item(value: serde_json::Value) -> pb::BatchCreateDeliveryItem {
    let refused = |idempotency_key: String, error: ApiError| pb::BatchCreateDeliveryItem {
        idempotency_key,
        delivery: None,
        request_error: Some(pb::ErrorDetail {
            code: error.code.as_str().to_owned(),
            param: error.param.filter(|p| p != "body").unwrap_or_default(),
            message: error.message,
        }),
    };
    let serde_json::Value::Object(mut members) = value else {
        return refused(
            String::new(),
            ApiError::invalid("body", "Each delivery of a batch is a JSON object."),
        );
    };
    let idempotency_key = match members.remove("idempotency_key") {
        None => String::new(),
        Some(serde_json::Value::String(key)) => key,
        Some(_) => {
            return refused(
                String::new(),
                ApiError::invalid("idempotency_key", "idempotency_key is a string."),
            );
        }
    };
    let body = serde_json::to_vec(&serde_json::Value::Object(members)).unwrap_or_default();
    match crate::json::parse::<CreateDeliveryBody>(&body).and_then(pb::CreateDeliveryRequest::try_from) {
        Ok(delivery) => pb::BatchCreateDeliveryItem {
            idempotency_key,
            delivery: Some(delivery),
            request_error: None,
        },
        Err(error) => refused(idempotency_key, error),
    }
}

/// The path of `param`, within item `index`, in the batch's body.
pub fn item_param(index: usize, param: &str) -> String {
    match param {
        "" => format!("deliveries.{index}"),
        param => format!("deliveries.{index}.{param}"),
    }
}

fn test_scenario_in(scenario: Option<TestScenarioBody>) -> pb::TestScenario {
    match scenario {
        None => pb::TestScenario::Unspecified,
        Some(TestScenarioBody::NoCourierFound) => pb::TestScenario::NoCourierFound,
        Some(TestScenarioBody::CourierCancelled) => pb::TestScenario::CourierCancelled,
        Some(TestScenarioBody::PickupNoShow) => pb::TestScenario::PickupNoShow,
        Some(TestScenarioBody::DeliveryFailed) => pb::TestScenario::DeliveryFailed,
        Some(TestScenarioBody::Delayed) => pb::TestScenario::Delayed,
        Some(TestScenarioBody::Returned) => pb::TestScenario::Returned,
    }
}

/// `POST /v1/deliveries/{id}/redeliver` body (optional; docs/guide.md
/// "Deliver again"): the new delivery's own times, `external_id` and
/// `test_scenario`; everything else is the original's.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = RedeliverDeliveryRequest)]
pub struct RedeliverDeliveryBody {
    /// Pickup time, 1 minute to 30 days ahead; omit for immediate.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub scheduled_at: Option<String>,
    /// When the pickup may happen; not with `scheduled_at`.
    pub pickup_window: Option<TimeWindowBody>,
    /// When the dropoff is promised.
    pub dropoff_window: Option<TimeWindowBody>,
    pub external_id: Option<String>,
    pub test_scenario: Option<TestScenarioBody>,
}

pub fn redeliver_request(
    delivery_id: String,
    b: RedeliverDeliveryBody,
) -> Result<pb::RedeliverDeliveryRequest, ApiError> {
    Ok(pb::RedeliverDeliveryRequest {
        delivery_id,
        scheduled_at: time_in("scheduled_at", b.scheduled_at.as_deref())?,
        pickup_window: window_in("pickup_window", b.pickup_window)?,
        dropoff_window: window_in("dropoff_window", b.dropoff_window)?,
        external_id: b.external_id,
        test_scenario: test_scenario_in(b.test_scenario) as i32,
    })
}

/// Why the client cancels; omitted means `other`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = CancelReason)]
pub enum CancelReasonBody {
    FoundAnotherService,
    WaitedTooLong,
    BookedByMistake,
    NoLongerNeeded,
    ChangeDetails,
    Other,
}

/// `POST /v1/deliveries/{id}/cancel` body (optional).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = CancelDeliveryRequest)]
pub struct CancelDeliveryBody {
    pub reason: Option<CancelReasonBody>,
}

pub fn cancel_reason_in(reason: Option<CancelReasonBody>) -> pb::CancelReason {
    match reason {
        None => pb::CancelReason::Unspecified,
        Some(CancelReasonBody::FoundAnotherService) => pb::CancelReason::FoundAnotherService,
        Some(CancelReasonBody::WaitedTooLong) => pb::CancelReason::WaitedTooLong,
        Some(CancelReasonBody::BookedByMistake) => pb::CancelReason::BookedByMistake,
        Some(CancelReasonBody::NoLongerNeeded) => pb::CancelReason::NoLongerNeeded,
        Some(CancelReasonBody::ChangeDetails) => pb::CancelReason::ChangeDetails,
        Some(CancelReasonBody::Other) => pb::CancelReason::Other,
    }
}

/// `PATCH /v1/deliveries/{id}` body (docs/guide.md "Change a delivery"):
/// an absent member stays as it is; at least one is sent.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = UpdateDeliveryRequest)]
pub struct UpdateDeliveryBody {
    /// `null` (or `""`) removes the notes. Until the delivery is delivered
    /// or cancelled.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub notes: Option<Option<String>>,
    /// Until the delivery is delivered or cancelled.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = WaypointChangeBody)]
    pub pickup: Option<Option<WaypointChangeBody>>,
    /// Until the delivery is delivered or cancelled.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = WaypointChangeBody)]
    pub dropoff: Option<Option<WaypointChangeBody>>,
    /// `null` removes the window. Until the goods are picked up; it must
    /// still be reachable, and it moves the promised dropoff.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<TimeWindowBody>)]
    pub dropoff_window: Option<Option<TimeWindowBody>>,
    /// The delivery's total after this change, in cents. A change that
    /// moves a position prices the delivery again: when the total changes,
    /// the change needs it here, else `409 price_changed` answers with the
    /// new total in the error's `amount_cents`. Checked whenever sent.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = i64, minimum = 0)]
    pub accept_amount_cents: Option<Option<i64>>,
    /// The tip as it is to be; `null` removes it. Any amount until the
    /// delivery is delivered, then only a higher one, until 7 days after;
    /// not on a cancelled delivery.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<i64>)]
    pub tip_cents: Option<Option<i64>>,
}

/// The update request for `delivery_id`, checked against `if_updated_at`
/// (the `If-Match` header) when given.
pub fn update_request(
    delivery_id: String,
    if_updated_at: Option<prost_types::Timestamp>,
    b: UpdateDeliveryBody,
) -> Result<pb::UpdateDeliveryRequest, ApiError> {
    let (dropoff_window, clear_dropoff_window) = window_change_in(b.dropoff_window)?;
    Ok(pb::UpdateDeliveryRequest {
        delivery_id,
        notes: b.notes.map(Option::unwrap_or_default),
        pickup: waypoint_change_in("pickup", b.pickup)?,
        dropoff: waypoint_change_in("dropoff", b.dropoff)?,
        dropoff_window,
        clear_dropoff_window,
        if_updated_at,
        accept_amount_cents: not_null(b.accept_amount_cents, "accept_amount_cents", "; send the new total")?,
        tip_cents: b.tip_cents.map(Option::unwrap_or_default),
    })
}

/// Members of a Delivery (and of a create) that no change can set.
const READ_ONLY: &[&str] = &[
    "id",
    "status",
    "mode",
    "external_id",
    "quote_id",
    "amount_cents",
    "currency",
    "tax_behavior",
    "breakdown",
    "stops",
    "vehicle_type_id",
    "extras",
    "items",
    "scheduled_at",
    "proof_of_delivery",
    "test_scenario",
    "tracking_available_at",
    "tracking_url",
    "courier",
    "created_at",
    "updated_at",
    "cancelled_at",
    "cancellation_reason",
    "delivered_at",
    "pickup_window",
    "pickup_eta",
    "dropoff_eta",
    "batching",
    "notifications",
    "dropoff_pin",
];

/// A change's body refusal in the guide's words: a member of the Delivery
/// that is not "unknown" but cannot change after booking.
pub fn read_only(error: ApiError) -> ApiError {
    fixed_member(error, READ_ONLY, "after booking")
}

/// `GET /v1/deliveries` query.
pub fn list_request(query: &HashMap<String, String>) -> Result<pb::ListDeliveriesRequest, ApiError> {
    let query = ListQuery::parse(query, &["status", "external_id", "promise"])?;
    let status = query.public_name("status", pb::DeliveryStatus::Unspecified)?;
    let promise = query.public_name("promise", pb::PromiseState::Unspecified)?;
    Ok(pb::ListDeliveriesRequest {
        page_size: query.page_size,
        page_token: query.page_token,
        status: status as i32,
        external_id: query.filters.get("external_id").map(|id| (*id).to_owned()),
        created_after: query.created_after,
        created_before: query.created_before,
        promise: promise as i32,
    })
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = DeliveryList)]
pub struct DeliveryListJson {
    pub deliveries: Vec<DeliveryJson<Option<CourierJson>>>,
    pub next_page_token: Option<String>,
}

impl From<pb::ListDeliveriesResponse> for DeliveryListJson {
    fn from(r: pb::ListDeliveriesResponse) -> Self {
        DeliveryListJson {
            deliveries: r.deliveries.into_iter().map(Into::into).collect(),
            next_page_token: (!r.next_page_token.is_empty()).then_some(r.next_page_token),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use courier::errors::ErrorCode;

    fn refusal(body: &str) -> ApiError {
        match crate::json::parse::<UpdateDeliveryBody>(body.as_bytes()) {
            Ok(parsed) => panic!("{body} parsed: {parsed:?}"),
            Err(error) => read_only(error),
        }
    }

    #[test]
    fn members_that_cannot_change_are_named_so() {
        for (body, param, message) in [
            (
                r#"{"status":"delivered"}"#,
                "status",
                "status cannot be changed after booking.",
            ),
            (r#"{"stops":[]}"#, "stops", "stops cannot be changed after booking."),
            (
                r#"{"amount_cents":900}"#,
                "amount_cents",
                "amount_cents cannot be changed after booking.",
            ),
            (r#"{"notez":"x"}"#, "notez", "notez is not a known field."),
            (
                r#"{"dropoff":{"floor":3}}"#,
                "dropoff.floor",
                "dropoff.floor is not a known field.",
            ),
        ] {
            let error = refusal(body);
            assert_eq!(error.code, ErrorCode::InvalidRequest, "{body}");
            assert_eq!(error.param.as_deref(), Some(param), "{body}");
            assert_eq!(error.message, message, "{body}");
        }
    }

    #[test]
    fn null_removes_texts_and_the_window_but_not_a_contact() {
        let parse = |body: &str| {
            let parsed = crate::json::parse::<UpdateDeliveryBody>(body.as_bytes()).expect("parsed");
            update_request("del_1".into(), None, parsed)
        };
        let cleared =
            parse(r#"{"notes":null,"dropoff":{"instructions":null},"dropoff_window":null}"#).expect("request");
        assert_eq!(cleared.notes.as_deref(), Some(""));
        assert_eq!(cleared.dropoff.and_then(|d| d.instructions).as_deref(), Some(""));
        assert!(cleared.clear_dropoff_window && cleared.dropoff_window.is_none());
        assert!(cleared.pickup.is_none());
        let error = parse(r#"{"pickup":{"contact":null}}"#).expect_err("null contact");
        assert_eq!(error.param.as_deref(), Some("pickup.contact"));
        let error = parse(r#"{"dropoff":null}"#).expect_err("null dropoff");
        assert_eq!(error.param.as_deref(), Some("dropoff"));
        let error = parse(r#"{"dropoff":{"latitude":null}}"#).expect_err("null latitude");
        assert_eq!(error.param.as_deref(), Some("dropoff.latitude"));
        let error = parse(r#"{"accept_amount_cents":null}"#).expect_err("null total");
        assert_eq!(error.param.as_deref(), Some("accept_amount_cents"));
        let moved =
            parse(r#"{"dropoff":{"address":"Rua B 2","latitude":38.7,"longitude":-9.1},"accept_amount_cents":990}"#)
                .expect("request");
        let dropoff = moved.dropoff.expect("dropoff");
        assert_eq!((dropoff.latitude, dropoff.longitude), (Some(38.7), Some(-9.1)));
        assert_eq!(dropoff.address.as_deref(), Some("Rua B 2"));
        assert_eq!(moved.accept_amount_cents, Some(990));
    }
}
