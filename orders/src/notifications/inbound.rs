//! What comes back from recipients and providers (docs/notifications.md
//! "Opting out", "Delivery reports"): Twilio's status callbacks and inbound
//! messages, both signed by Twilio and checked here, and the unsubscribe
//! link of emails.

use courier::errors::ErrorCode;
use courier_messaging::twilio_signature::{self, Inbound};

use super::messages;
use super::opt_outs::{self, Source};
use super::{Channel, MessageStatus};
use crate::{CoreError, CoreResult, Orders};

/// A request Twilio made to the edge: the URL it called, its form, and its
/// `X-Twilio-Signature`.
pub struct SignedRequest {
    pub url: String,
    pub fields: Vec<(String, String)>,
    pub signature: String,
}

impl SignedRequest {
    /// The form, once its signature is Twilio's over this platform's
    /// account (refused as `permission_denied` otherwise, and while SMS are
    /// not set up: nobody could have signed it).
    fn checked(&self, orders: &Orders) -> CoreResult<&[(String, String)]> {
        let token = orders.notification_providers.sms_auth_token().ok_or_else(|| {
            CoreError::new(
                ErrorCode::PermissionDenied,
                "SMS are not set up on this platform: no callback is expected.",
            )
        })?;
        if !twilio_signature::verify(token, &self.url, &self.fields, &self.signature) {
            return Err(CoreError::new(
                ErrorCode::PermissionDenied,
                "The X-Twilio-Signature does not match this request.",
            ));
        }
        Ok(&self.fields)
    }
}

/// A status callback: a message the provider delivered, or could not.
/// Other statuses (queued, sent) change nothing; an unknown message id is
/// no error (Twilio would retry it for nothing).
pub async fn sms_status(orders: &Orders, request: &SignedRequest) -> CoreResult<()> {
    let fields = request.checked(orders)?;
    let callback = twilio_signature::status_callback(fields)
        .ok_or_else(|| CoreError::invalid("MessageSid", "A status callback names MessageSid and MessageStatus."))?;
    let (status, error) = match callback.status.as_str() {
        "delivered" => (MessageStatus::Delivered, None),
        "undelivered" | "failed" => (
            MessageStatus::Failed,
            Some(match callback.error_code {
                Some(code) => format!("The provider could not deliver it ({}, error {code}).", callback.status),
                None => format!("The provider could not deliver it ({}).", callback.status),
            }),
        ),
        _ => return Ok(()),
    };
    messages::provider_status(
        &orders.writer,
        &callback.message_sid,
        status,
        error,
        orders.clock.now_micros(),
    )
    .await?;
    Ok(())
}

/// An inbound SMS: `STOP` (and Twilio's other opt-out words) opts the
/// number out of the workspace that last wrote to it, `START` takes that
/// back; anything else is not for us.
pub async fn sms_inbound(orders: &Orders, request: &SignedRequest) -> CoreResult<()> {
    let fields = request.checked(orders)?;
    let inbound = twilio_signature::inbound(fields)
        .ok_or_else(|| CoreError::invalid("From", "An inbound message names From and Body."))?;
    let (from, opt_out) = match &inbound {
        Inbound::OptOut { from } => (from, true),
        Inbound::OptIn { from } => (from, false),
        Inbound::Other { .. } => return Ok(()),
    };
    let Some(latest) = messages::latest_sms_to(&orders.db, from).await? else {
        return Ok(());
    };
    if opt_out {
        opt_outs::opt_out(
            &orders.writer,
            &latest.workspace_id,
            Channel::Sms,
            from,
            Source::SmsStop,
            orders.clock.now_micros(),
        )
        .await
    } else {
        opt_outs::opt_in(&orders.writer, &latest.workspace_id, Channel::Sms, from).await
    }
}

/// Whom an unsubscribe link is for: the workspace's name, the masked
/// address, and whether it already opted out.
pub struct UnsubscribeLink {
    pub business_name: String,
    pub masked_address: String,
    pub opted_out: bool,
}

/// Reads an unsubscribe link (`not_found` for one that is not ours).
pub async fn unsubscribe_link(orders: &Orders, token: &str) -> CoreResult<UnsubscribeLink> {
    let (workspace_id, address) = opt_outs::read_unsubscribe_token(&orders.secrets.unsubscribe_link, token)?;
    let settings = super::settings::get(&orders.db, &workspace_id).await?;
    Ok(UnsubscribeLink {
        business_name: settings.business_name(&orders.db, &workspace_id).await?,
        masked_address: super::mask(Channel::Email, &address),
        opted_out: opt_outs::is_opted_out(&orders.db, &workspace_id, Channel::Email, &address).await?,
    })
}

/// Opts a link's address out of its workspace's emails (again: nothing
/// changes).
pub async fn unsubscribe(orders: &Orders, token: &str) -> CoreResult<UnsubscribeLink> {
    let (workspace_id, address) = opt_outs::read_unsubscribe_token(&orders.secrets.unsubscribe_link, token)?;
    opt_outs::opt_out(
        &orders.writer,
        &workspace_id,
        Channel::Email,
        &address,
        Source::EmailLink,
        orders.clock.now_micros(),
    )
    .await?;
    unsubscribe_link(orders, token).await
}
