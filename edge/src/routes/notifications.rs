//! Recipient notifications (docs/guide.md "Notifications"): the keyed list
//! of a delivery's messages, and the SMS provider's keyless callbacks
//! (`POST /v1/notifications/sms/status`, `POST /v1/notifications/sms/inbound`),
//! which the edge hands to the core as they came: the URL Twilio called,
//! every form field in order and its `X-Twilio-Signature`. The core checks
//! the signature; a request it does not sign is `403 permission_denied` in
//! the error shape.

use axum::Json;
use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use courier::v1 as pb;

use super::deliveries::parse_query;
use crate::EdgeState;
use crate::context::CallContext;
use crate::dto::notifications::NotificationListJson;
use crate::error::ApiError;
use crate::json::read_body;
use crate::path_id::PathId;

/// List a delivery's notifications
///
/// Every SMS and email to the delivery's recipient and sender, sent or
/// waiting, oldest first, addresses masked. In test mode nothing is sent:
/// the messages go to the workspace's test inbox, and show here as `sent`.
#[utoipa::path(
    get,
    path = "/v1/deliveries/{deliveryId}/notifications",
    operation_id = "listDeliveryNotifications",
    tag = "Deliveries",
    params(("deliveryId" = String, Path, description = "The delivery's id (`del_…`).")),
    responses((status = 200, description = "The delivery's notifications.", body = NotificationListJson)),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn list(
    State(state): State<EdgeState>,
    ctx: CallContext,
    delivery_id: Result<PathId, ApiError>,
    RawQuery(query): RawQuery,
) -> Result<Json<NotificationListJson>, ApiError> {
    let parsed = delivery_id.and_then(|id| match parse_query(query.as_deref())?.keys().next() {
        Some(unknown) => Err(ApiError::invalid(
            unknown.clone(),
            format!("{unknown} is not a known query parameter."),
        )),
        None => Ok(id),
    });
    let request = ctx.request_for(parsed, |PathId(delivery_id)| {
        Ok(pb::ListDeliveryNotificationsRequest { delivery_id })
    });
    let answer = state
        .core
        .notifications
        .clone()
        .list_delivery_notifications(request)
        .await?;
    Ok(Json(answer.into_inner().into()))
}

/// The answer Twilio expects from a webhook it calls: TwiML that does
/// nothing (no reply to an inbound message).
const EMPTY_TWIML: &str = r#"<?xml version="1.0" encoding="UTF-8"?><Response></Response>"#;

/// `POST /v1/notifications/sms/status`: a message's delivery report.
pub async fn sms_status(
    State(state): State<EdgeState>,
    ctx: CallContext,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    sms_callback(&state, &ctx, pb::SmsCallbackKind::Status, &uri, &headers, body).await
}

/// `POST /v1/notifications/sms/inbound`: a message from a recipient
/// (`STOP` opts the number out).
pub async fn sms_inbound(
    State(state): State<EdgeState>,
    ctx: CallContext,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    sms_callback(&state, &ctx, pb::SmsCallbackKind::Inbound, &uri, &headers, body).await
}

async fn sms_callback(
    state: &EdgeState,
    ctx: &CallContext,
    kind: pb::SmsCallbackKind,
    uri: &Uri,
    headers: &HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let fields = form_fields(&read_body(body).await?)?;
    // What Twilio signed: the public URL it called, query included.
    let url = match uri.query() {
        Some(query) => format!("{}{}?{query}", state.base_url, uri.path()),
        None => format!("{}{}", state.base_url, uri.path()),
    };
    // Absent or unreadable, the core refuses it as unsigned.
    let signature = headers
        .get("x-twilio-signature")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let request = ctx.request(pb::ReceiveSmsCallbackRequest {
        kind: kind as i32,
        url,
        fields: fields
            .into_iter()
            .map(|(name, value)| pb::FormField { name, value })
            .collect(),
        signature,
    });
    state.core.public.clone().receive_sms_callback(request).await?;
    let mut response = (StatusCode::OK, EMPTY_TWIML).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/xml"));
    Ok(response)
}

/// An `application/x-www-form-urlencoded` body as its fields, in order
/// (a name may repeat); a name or value whose escapes are not UTF-8 is
/// refused.
fn form_fields(bytes: &[u8]) -> Result<Vec<(String, String)>, ApiError> {
    let text =
        std::str::from_utf8(bytes).map_err(|_| ApiError::invalid("body", "The form is not valid UTF-8 text."))?;
    let decode = |text: &str| {
        let spaced = text.replace('+', " ");
        percent_encoding::percent_decode_str(&spaced)
            .decode_utf8()
            .map(|text| text.into_owned())
            .map_err(|_| ApiError::invalid("body", "A form field is not valid UTF-8 text."))
    };
    text.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            Ok((decode(name)?, decode(value)?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_fields_keep_their_order_and_decode() {
        let fields =
            form_fields(b"MessageSid=SM1&Body=Stop+now%21&To=%2B4915112345612&Body=again&&Empty=").unwrap_or_default();
        assert_eq!(
            fields,
            vec![
                ("MessageSid".to_owned(), "SM1".to_owned()),
                ("Body".to_owned(), "Stop now!".to_owned()),
                ("To".to_owned(), "+4915112345612".to_owned()),
                ("Body".to_owned(), "again".to_owned()),
                ("Empty".to_owned(), String::new()),
            ]
        );
        assert!(form_fields(b"Body=%FF").is_err());
        assert_eq!(form_fields(b"").map(|f| f.len()).ok(), Some(0));
    }
}
