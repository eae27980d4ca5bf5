//! The public error catalogue (docs/guide.md "Errors"): every machine code with
//! its HTTP status, its gRPC code and its documentation. The core encodes domain
//! errors into a gRPC status with [`to_status`]; the edge decodes them with
//! [`from_status`] and renders the public shape. `/v1/docs/errors` is generated
//! from [`ErrorCode::ALL`].

use std::collections::HashMap;

use prost::Message;
use tonic_types::{ErrorDetails, StatusExt};

use crate::metadata;
use crate::v1::ErrorDetail;

macro_rules! error_codes {
    ($( $variant:ident => ($code:literal, $http:literal, $grpc:ident, $doc:literal), )*) => {
        /// A stable, machine-readable public error code.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $( $variant, )*
        }

        impl ErrorCode {
            /// Every code, in catalogue order.
            pub const ALL: &'static [ErrorCode] = &[$( ErrorCode::$variant, )*];

            /// The code as it appears on the wire.
            pub fn as_str(self) -> &'static str {
                match self { $( ErrorCode::$variant => $code, )* }
            }

            /// The HTTP status the public API answers with.
            pub fn http_status(self) -> u16 {
                match self { $( ErrorCode::$variant => $http, )* }
            }

            /// The gRPC status code the core answers with.
            pub fn grpc_code(self) -> tonic::Code {
                match self { $( ErrorCode::$variant => tonic::Code::$grpc, )* }
            }

            /// What the code means, for the error catalogue.
            pub fn description(self) -> &'static str {
                match self { $( ErrorCode::$variant => $doc, )* }
            }

            /// The code for its wire name.
            pub fn parse(code: &str) -> Option<ErrorCode> {
                match code { $( $code => Some(ErrorCode::$variant), )* _ => None }
            }
        }
    };
}

error_codes! {
    InvalidRequest => ("invalid_request", 400, InvalidArgument, "A field is missing or invalid, or the body is not a JSON object. `param` names the field as a dot path (`stops.2.latitude`) or the header."),
    MethodNotAllowed => ("method_not_allowed", 405, Unimplemented, "The path exists but not with this HTTP method; the `Allow` header lists the methods it takes."),
    RequestTimeout => ("request_timeout", 408, DeadlineExceeded, "The request's body did not arrive within the time allowed (30 seconds by default); the connection is closed. Send the request again."),
    RequestTooLarge => ("request_too_large", 413, InvalidArgument, "The request body is larger than 1 MiB: refused as soon as that is known (a larger `Content-Length` before any of the body is read), and the connection is closed."),
    HeadersTooLarge => ("headers_too_large", 431, InvalidArgument, "The request's headers take more than 32 KiB; `param` names the largest. (`x-api-key`, `Authorization` and `Idempotency-Key` have their own codes.)"),
    QuoteMismatch => ("quote_mismatch", 400, InvalidArgument, "The request differs from the quote in route, vehicle type, extras, items, `scheduled_at` or a window. Request a new quote."),
    QuoteNotFound => ("quote_not_found", 400, InvalidArgument, "No quote with that id exists for this key's workspace and mode."),
    QuoteExpired => ("quote_expired", 400, InvalidArgument, "The quote is older than 5 minutes. Request a new quote."),
    WindowNotFeasible => ("window_not_feasible", 400, InvalidArgument, "The dropoff window closes before the goods can arrive: the earliest pickup plus the route's duration lies after `dropoff_window.end`. `param` names the window."),
    ServiceAreaUnavailable => ("service_area_unavailable", 400, InvalidArgument, "A waypoint lies outside every service area, or the waypoints lie in different service areas. `param` names the waypoint."),
    VehicleDoesNotFit => ("vehicle_does_not_fit", 400, InvalidArgument, "The vehicle type cannot carry the items: too heavy, an item fits in no orientation, or the total volume exceeds the cargo space."),
    InvalidItems => ("invalid_items", 400, InvalidArgument, "The items cannot be evaluated: quantities, weights or dimensions are zero, negative, not finite or absurd."),
    MissingIdempotencyKey => ("missing_idempotency_key", 400, InvalidArgument, "The `Idempotency-Key` header is required on delivery and fleet order creates and on delivery changes (`PATCH /v1/deliveries/{id}`)."),
    InvalidIdempotencyKey => ("invalid_idempotency_key", 400, InvalidArgument, "The `Idempotency-Key` header is longer than 255 characters."),
    InvalidPageToken => ("invalid_page_token", 400, InvalidArgument, "The `page_token` is not one this service issued for the same filters and key mode. Pass `next_page_token` unchanged, with the same filters."),
    InvalidWebhookUrl => ("invalid_webhook_url", 400, InvalidArgument, "The webhook URL is not a public HTTPS URL: private, local and reserved network targets are refused at registration and before every send."),
    MissingServiceToken => ("missing_service_token", 401, Unauthenticated, "Internal gRPC services: no service token was sent in `authorization: Bearer <token>`."),
    InvalidServiceToken => ("invalid_service_token", 401, Unauthenticated, "Internal gRPC services: the service token is malformed, forged, expired or of an unknown role."),
    InvalidCredentials => ("invalid_credentials", 401, Unauthenticated, "Console: the email or the password is wrong."),
    InvalidSession => ("invalid_session", 401, Unauthenticated, "Console: the session is unknown, signed out or expired; sign in again."),
    InvalidCsrfToken => ("invalid_csrf_token", 403, PermissionDenied, "Console: the form did not carry the session's CSRF token; reload the page and try again."),
    InvalidCourierSession => ("invalid_courier_session", 401, Unauthenticated, "Courier app: the session is unknown, signed out, expired or of a suspended courier; sign in again."),
    CourierUnavailable => ("courier_unavailable", 409, FailedPrecondition, "Dispatch: the courier cannot take the job: suspended, busy with another job, of another fleet, or with a vehicle that does not serve the job's vehicle type."),
    OfferExpired => ("offer_expired", 409, FailedPrecondition, "Courier app: the offer's time to answer ran out; the job went to the next courier."),
    PinIncorrect => ("pin_incorrect", 400, InvalidArgument, "Courier app: the dropoff PIN entered is not the delivery's; the message says how many tries are left before the handover is blocked."),
    HandoverBlocked => ("handover_blocked", 409, FailedPrecondition, "Courier app: 5 wrong dropoff PINs were entered; the handover waits until a dispatcher resets the count (or the courier reports the handover failed)."),
    OfferWithdrawn => ("offer_withdrawn", 409, FailedPrecondition, "Courier app: the offer was withdrawn (the job was cancelled or given to another courier)."),
    LastOwner => ("last_owner", 409, FailedPrecondition, "Console: a workspace keeps at least one owner; make another member owner first."),
    MissingApiKey => ("missing_api_key", 401, Unauthenticated, "No API key was sent in `x-api-key` or `Authorization: Bearer`."),
    InvalidApiKey => ("invalid_api_key", 401, Unauthenticated, "The API key is unknown, expired or revoked."),
    InvoiceCreditLimitExceeded => ("invoice_credit_limit_exceeded", 402, FailedPrecondition, "The live delivery would take the workspace's open amount over its credit limit. Settle open statements first."),
    InvoiceStatementOverdue => ("invoice_statement_overdue", 402, FailedPrecondition, "An invoice statement is overdue. Settle it before creating live deliveries."),
    PermissionDenied => ("permission_denied", 403, PermissionDenied, "The key lacks the permission the operation needs."),
    ApiAccessDisabled => ("api_access_disabled", 403, PermissionDenied, "The workspace's plan has no API access."),
    InvoiceBillingNotEnabled => ("invoice_billing_not_enabled", 403, PermissionDenied, "The workspace is not approved for invoice billing: live deliveries cannot be created; quotes still work."),
    FleetKeyRequired => ("fleet_key_required", 403, PermissionDenied, "Fleet orders need a key of a fleet workspace."),
    LiveKeyRequired => ("live_key_required", 403, PermissionDenied, "Fleet orders need a live key; test keys get this on create and read."),
    FleetOrdersNotAvailable => ("fleet_orders_not_available", 403, PermissionDenied, "The fleet's plan lacks order intake."),
    PodNotAvailable => ("pod_not_available", 403, PermissionDenied, "The workspace's plan lacks proof of delivery."),
    NotFound => ("not_found", 404, NotFound, "The resource does not exist for this key's workspace and mode, or no route matches the path."),
    NoProofOfDelivery => ("no_proof_of_delivery", 404, NotFound, "The courier has not submitted proof of delivery yet."),
    NotCancellable => ("not_cancellable", 409, FailedPrecondition, "The courier has already picked up the goods; the delivery can no longer be cancelled."),
    NotEditable => ("not_editable", 409, FailedPrecondition, "The delivery's status no longer allows changing the member `param` names: notes, contacts and instructions change until delivered, the dropoff window until pickup, the dropoff's place until the courier is at the dropoff, the pickup's place until a courier is assigned."),
    NotRedeliverable => ("not_redeliverable", 409, FailedPrecondition, "Only a cancelled delivery can be delivered again (`POST /v1/deliveries/{id}/redeliver`); one still under way is changed instead (`PATCH /v1/deliveries/{id}`)."),
    PriceChanged => ("price_changed", 409, FailedPrecondition, "The change moves the delivery's price: send it again with `accept_amount_cents` equal to the new total, which the error's `amount_cents` carries (the same `Idempotency-Key` may be reused; this refusal is not kept under it)."),
    Conflict => ("conflict", 409, FailedPrecondition, "The resource's state does not allow the request."),
    IdempotencyKeyReused => ("idempotency_key_reused", 409, AlreadyExists, "The `Idempotency-Key` was used before with a different body."),
    RequestInProgress => ("request_in_progress", 409, Aborted, "The first request with this `Idempotency-Key` is still running. Retry the same request shortly."),
    DuplicateExternalId => ("duplicate_external_id", 409, AlreadyExists, "The `external_id` is already used by another delivery in this mode."),
    EndpointLimitReached => ("endpoint_limit_reached", 409, ResourceExhausted, "The workspace already has the maximum of 10 webhook endpoints in this mode."),
    EndpointDisabled => ("endpoint_disabled", 409, FailedPrecondition, "The webhook endpoint is disabled. Set `status` to `active` first."),
    NothingToBill => ("nothing_to_bill", 409, FailedPrecondition, "Billing service: the workspace has no delivered live delivery and no live SMS notification on no statement, so no statement can be closed."),
    StatementNotOpen => ("statement_not_open", 409, FailedPrecondition, "Billing service: the statement is already paid or void; only an open statement can be paid or voided."),
    PreconditionFailed => ("precondition_failed", 412, FailedPrecondition, "The delivery changed since the `updated_at` sent in `If-Match`: read it again, then send the change again (the same `Idempotency-Key` may be reused; this refusal is not kept under it)."),
    RateLimited => ("rate_limited", 429, ResourceExhausted, "Too many requests. Wait the number of seconds in the `Retry-After` header."),
    InternalError => ("internal_error", 500, Internal, "Unexpected error. Retry with backoff, reusing the same `Idempotency-Key` on creates."),
    VerificationFailed => ("verification_failed", 500, Internal, "Unexpected verification error. Retry with backoff."),
    UpstreamError => ("upstream_error", 502, Unavailable, "An internal service failed. Retry with backoff, reusing the same `Idempotency-Key` on creates."),
    ServiceUnavailable => ("service_unavailable", 503, Unavailable, "The service is temporarily unavailable. Retry with backoff."),
}

/// The `ErrorInfo.domain` of every public error.
pub const ERROR_DOMAIN: &str = "courier";
/// The `ErrorInfo.metadata` key of the field or header concerned.
const PARAM_KEY: &str = "param";

/// A gRPC status carrying a public error in the standard rich error model:
/// `grpc-status-details-bin` holds a `google.rpc.Status` whose details are a
/// `google.rpc.ErrorInfo` (reason: the public code, domain `courier`,
/// metadata `param`) and, for a field error, a `google.rpc.BadRequest`
/// field violation naming it. For plain gRPC tooling the code and `param`
/// are also in the `x-error-code` / `x-error-param` metadata.
pub fn to_status(code: ErrorCode, message: &str, param: Option<&str>) -> tonic::Status {
    status_of(code, message, param, None, &[])
}

/// The `ErrorInfo.metadata` key of how much of a refused call's work was
/// done before the refusal (a report stream's accepted positions).
pub const ACCEPTED_KEY: &str = "accepted";

/// The `ErrorInfo.metadata` key of the price a refused change would set
/// (`price_changed`), in cents.
pub const AMOUNT_CENTS_KEY: &str = "amount_cents";

/// [`to_status`] with `info` added to the `ErrorInfo`'s metadata (such as
/// [`AMOUNT_CENTS_KEY`]).
pub fn to_status_with(code: ErrorCode, message: &str, param: Option<&str>, info: &[(&str, String)]) -> tonic::Status {
    status_of(code, message, param, None, info)
}

/// The value `key` of a public error's `ErrorInfo` metadata, if it carries one.
pub fn error_info(status: &tonic::Status, key: &str) -> Option<String> {
    status.get_details_error_info()?.metadata.get(key).cloned()
}

/// A refusal to be tried again after `retry_after` ([`to_status`] plus a
/// `google.rpc.RetryInfo` detail with that delay), with `info` added to the
/// `ErrorInfo`'s metadata (such as [`ACCEPTED_KEY`]).
pub fn to_retry_status(
    code: ErrorCode,
    message: &str,
    retry_after: std::time::Duration,
    info: &[(&str, String)],
) -> tonic::Status {
    status_of(code, message, None, Some(retry_after), info)
}

/// The delay a refusal asks the caller to wait (its `RetryInfo`), if any.
pub fn retry_delay(status: &tonic::Status) -> Option<std::time::Duration> {
    status.get_details_retry_info()?.retry_delay
}

fn status_of(
    code: ErrorCode,
    message: &str,
    param: Option<&str>,
    retry_after: Option<std::time::Duration>,
    extra: &[(&str, String)],
) -> tonic::Status {
    let message = clipped(message);
    let param = param.map(clipped);
    let (message, param) = (message.as_str(), param.as_deref());
    let mut info = HashMap::new();
    if let Some(param) = param {
        info.insert(PARAM_KEY.to_owned(), param.to_owned());
    }
    for (key, value) in extra {
        info.insert((*key).to_owned(), clipped(value));
    }
    let mut details = ErrorDetails::with_error_info(code.as_str(), ERROR_DOMAIN, info);
    if let Some(delay) = retry_after {
        details.set_retry_info(Some(delay));
    }
    if let Some(field) = param
        .filter(|p| is_field_path(p))
        .filter(|_| code.grpc_code() == tonic::Code::InvalidArgument)
    {
        details.add_bad_request_violation(field, message);
    }
    let mut metadata = tonic::metadata::MetadataMap::new();
    if let Ok(value) = code.as_str().parse() {
        metadata.insert(metadata::ERROR_CODE, value);
    }
    if let Some(value) = param.and_then(|p| p.parse().ok()) {
        metadata.insert(metadata::ERROR_PARAM, value);
    }
    tonic::Status::with_error_details_and_metadata(code.grpc_code(), message.to_owned(), details, metadata)
}

/// Whether `param` names a request field (`stops.2.latitude`), not a header
/// (`Idempotency-Key`) or the body as a whole.
fn is_field_path(param: &str) -> bool {
    param != "body" && param.starts_with(|c: char| c.is_ascii_lowercase())
}

/// A request error as the edge forwards it (see `metadata::REQUEST_ERROR`).
pub fn encode_request_error(code: ErrorCode, message: &str, param: Option<&str>) -> Vec<u8> {
    ErrorDetail {
        code: code.as_str().to_owned(),
        param: param.map(clipped).unwrap_or_default(),
        message: clipped(message),
    }
    .encode_to_vec()
}

/// The longest message or `param` of an error that crosses gRPC, in bytes.
const MAX_ERROR_TEXT: usize = 1024;

/// `text` cut to at most [`MAX_ERROR_TEXT`] bytes (on a character boundary),
/// marked `…` where cut. Errors travel in header blocks (metadata, trailers)
/// whose size HTTP/2 limits: a message quoting a huge field of a request
/// (an unknown member's name, an unknown id) must not make its refusal a
/// transport failure.
fn clipped(text: &str) -> String {
    if text.len() <= MAX_ERROR_TEXT {
        return text.to_owned();
    }
    let mut end = MAX_ERROR_TEXT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// The code, message and `param` of a forwarded request error.
pub fn decode_request_error(bytes: &[u8]) -> Option<(ErrorCode, String, Option<String>)> {
    let detail = ErrorDetail::decode(bytes).ok()?;
    let code = ErrorCode::parse(&detail.code)?;
    Some((code, detail.message, (!detail.param.is_empty()).then_some(detail.param)))
}

/// The public error a status carries (its code and `param`), if the core
/// put one there.
pub fn public_error(status: &tonic::Status) -> Option<(ErrorCode, Option<String>)> {
    let info = status.get_details_error_info()?;
    if info.domain != ERROR_DOMAIN {
        return None;
    }
    let code = ErrorCode::parse(&info.reason)?;
    Some((code, info.metadata.get(PARAM_KEY).cloned()))
}

/// The public error of any status: the one it carries, or, for a status
/// without one (a transport failure, a proxy's answer), `service_unavailable`
/// or `upstream_error` by its gRPC code.
pub fn from_status(status: &tonic::Status) -> (ErrorCode, Option<String>) {
    public_error(status).unwrap_or_else(|| {
        let code = match status.code() {
            tonic::Code::Unavailable | tonic::Code::DeadlineExceeded => ErrorCode::ServiceUnavailable,
            _ => ErrorCode::UpstreamError,
        };
        (code, None)
    })
}

/// A refusal of the core as a page of a web front shows it: its message,
/// and the form field its `param` names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub param: Option<String>,
    pub message: String,
}

impl Refusal {
    pub fn of(status: &tonic::Status) -> Refusal {
        let (_, param) = from_status(status);
        Refusal {
            param,
            message: status.message().to_owned(),
        }
    }

    /// The message, when the refusal is about the form's `field` (a `param`
    /// such as `events.0` is about the field `events`).
    pub fn at(&self, field: &str) -> Option<&str> {
        let param = self.param.as_deref()?;
        let about = param
            .strip_prefix(field)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']));
        about.then_some(self.message.as_str())
    }
}

/// A sign-in the core refused (wrong credentials, too many attempts, a
/// malformed login), and the HTTP status a sign-in page answers it with;
/// `None` for a failure that is no refusal.
pub fn sign_in_refused(status: &tonic::Status) -> Option<u16> {
    match status.code() {
        tonic::Code::ResourceExhausted => Some(429),
        tonic::Code::Unauthenticated | tonic::Code::InvalidArgument => Some(401),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_is_shown_at_the_field_its_param_names() {
        let status = to_status(ErrorCode::InvalidRequest, "Too short.", Some("events.0"));
        let refusal = Refusal::of(&status);
        assert_eq!(refusal.at("events"), Some("Too short."));
        assert_eq!(refusal.at("event"), None);
        assert_eq!(
            sign_in_refused(&tonic::Status::resource_exhausted("slow down")),
            Some(429)
        );
        assert_eq!(sign_in_refused(&tonic::Status::unavailable("down")), None);
    }

    #[test]
    fn every_code_round_trips_through_a_status() {
        for &code in ErrorCode::ALL {
            let status = to_status(code, "message", Some("stops.2.latitude"));
            assert_eq!(status.code(), code.grpc_code());
            assert_eq!(from_status(&status), (code, Some("stops.2.latitude".to_owned())));
            assert_eq!(ErrorCode::parse(code.as_str()), Some(code));
        }
    }

    #[test]
    fn statuses_follow_the_standard_rich_error_model() {
        let status = to_status(
            ErrorCode::InvalidRequest,
            "latitude must be between -90 and 90.",
            Some("stops.2.latitude"),
        );
        let details = status.get_error_details();
        let info = details.error_info().expect("ErrorInfo");
        assert_eq!(
            (info.reason.as_str(), info.domain.as_str()),
            ("invalid_request", "courier")
        );
        assert_eq!(info.metadata.get("param").map(String::as_str), Some("stops.2.latitude"));
        let violations = &details.bad_request().expect("BadRequest").field_violations;
        assert_eq!(violations.len(), 1);
        assert_eq!(violations[0].field, "stops.2.latitude");
        // A header is no field; a refusal of state has no field violation.
        let header = to_status(ErrorCode::MissingIdempotencyKey, "m", Some("Idempotency-Key"));
        assert!(header.get_details_bad_request().is_none());
        assert!(
            to_status(ErrorCode::Conflict, "m", None)
                .get_details_bad_request()
                .is_none()
        );
        // Another domain's ErrorInfo is not a public error.
        let foreign = tonic::Status::with_error_details(
            tonic::Code::Internal,
            "m",
            ErrorDetails::with_error_info("not_found", "elsewhere", HashMap::new()),
        );
        assert_eq!(public_error(&foreign), None);
    }

    #[test]
    fn a_refusal_to_retry_carries_its_delay_and_what_was_done() {
        let delay = std::time::Duration::from_secs(3);
        let status = to_retry_status(
            ErrorCode::RateLimited,
            "Slow down.",
            delay,
            &[(ACCEPTED_KEY, "40".into())],
        );
        assert_eq!(status.code(), tonic::Code::ResourceExhausted);
        assert_eq!(from_status(&status), (ErrorCode::RateLimited, None));
        assert_eq!(retry_delay(&status), Some(delay));
        let info = status.get_details_error_info().expect("ErrorInfo");
        assert_eq!(info.metadata.get(ACCEPTED_KEY).map(String::as_str), Some("40"));
        assert_eq!(retry_delay(&to_status(ErrorCode::RateLimited, "m", None)), None);
    }

    #[test]
    fn long_texts_are_clipped_on_a_character_boundary() {
        let status = to_status(ErrorCode::InvalidRequest, &"é".repeat(5000), Some(&"p".repeat(5000)));
        assert!(status.message().len() <= MAX_ERROR_TEXT + 3 && status.message().ends_with('…'));
        let (_, param) = from_status(&status);
        assert!(param.is_some_and(|p| p.len() <= MAX_ERROR_TEXT + 3));
        assert_eq!(clipped("short"), "short");
    }

    #[test]
    fn a_bare_status_is_an_upstream_failure() {
        let (code, param) = from_status(&tonic::Status::internal("boom"));
        assert_eq!((code, param), (ErrorCode::UpstreamError, None));
        let (code, _) = from_status(&tonic::Status::unavailable("down"));
        assert_eq!(code, ErrorCode::ServiceUnavailable);
    }
}
