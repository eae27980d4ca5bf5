//! Recipient notifications (docs/guide.md "Notifications"): a delivery's
//! messages as the list shows them, addresses masked.

use courier::json::{NotificationLanguage, time_out};
use courier::names::PublicName;
use courier::v1 as pb;
use serde::Serialize;
use utoipa::ToSchema;

/// One message to a delivery's recipient or sender.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Notification)]
pub struct NotificationJson {
    /// The message's id (`ntf_…`).
    pub id: String,
    /// The delivery it is about.
    pub delivery_id: String,
    #[schema(value_type = pb::NotificationChannel)]
    pub channel: Option<&'static str>,
    #[schema(value_type = pb::NotificationAudience)]
    pub audience: Option<&'static str>,
    #[schema(value_type = pb::NotificationTrigger)]
    pub trigger: Option<&'static str>,
    /// The phone number or email address, masked (`+49********12`,
    /// `j***@example.com`).
    pub address: String,
    #[schema(value_type = pb::NotificationStatus)]
    pub status: Option<&'static str>,
    #[schema(value_type = NotificationLanguage)]
    pub language: String,
    /// An email's subject; `null` for an SMS.
    pub subject: Option<String>,
    /// The text as it went (or will go) out.
    pub body: String,
    /// Attempts made to hand it to the provider.
    pub attempts: i32,
    /// Why it failed or was dropped, or the last attempt's error while it is
    /// retried; `null` otherwise.
    pub error: Option<String>,
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Option<String>,
    /// When the provider took it (test mode: when it was put in the test
    /// inbox); `null` until then.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub sent_at: Option<String>,
}

impl From<pb::Notification> for NotificationJson {
    fn from(n: pb::Notification) -> Self {
        NotificationJson {
            channel: n.channel().public_name(),
            audience: n.audience().public_name(),
            trigger: n.trigger().public_name(),
            status: n.status().public_name(),
            created_at: time_out(n.created_at.as_ref()),
            sent_at: time_out(n.sent_at.as_ref()),
            id: n.id,
            delivery_id: n.delivery_id,
            address: n.address,
            language: n.language,
            subject: n.subject,
            body: n.body,
            attempts: n.attempts,
            error: n.error,
        }
    }
}

/// `GET /v1/deliveries/{id}/notifications`: every message of the delivery,
/// oldest first, in the shape of the API's lists.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = NotificationList)]
pub struct NotificationListJson {
    pub notifications: Vec<NotificationJson>,
    /// Always `null`: a delivery's notifications fit one page.
    pub next_page_token: Option<String>,
}

impl From<pb::ListDeliveryNotificationsResponse> for NotificationListJson {
    fn from(r: pb::ListDeliveryNotificationsResponse) -> Self {
        NotificationListJson {
            notifications: r.notifications.into_iter().map(Into::into).collect(),
            next_page_token: None,
        }
    }
}
