//! Recipient notifications (docs/notifications.md): SMS and email to a
//! delivery's recipient and sender at the moments that matter, sent through
//! a durable outbox like webhooks.
//!
//! Read top-down: `templates` (the texts and their placeholders, no
//! storage), `settings` (each workspace's choices), `opt_outs` (addresses
//! that said stop, and the signed unsubscribe link), `providers` (Twilio and
//! SMTP from the core's settings), `messages` (the outbox:
//! a row per message written in its trigger's transaction), `triggers`
//! (which change of a delivery fires what), `sender` (the worker that claims
//! due messages and hands them to the providers), `inbound` (delivery
//! reports, `STOP`, the unsubscribe link).

pub mod inbound;
pub mod messages;
pub mod opt_outs;
pub mod providers;
pub mod sender;
pub mod settings;
pub mod templates;
pub mod triggers;

use serde::{Deserialize, Serialize};

/// The moments a message may go out (DECISIONS "Recipient notifications").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// A courier took the delivery; the text carries the tracking link.
    CourierAssigned,
    PickedUp,
    /// The dropoff is at most 5 minutes or 300 m away (once).
    Arriving,
    Delivered,
    /// The promised dropoff will be missed (`delivery.delayed`).
    Delayed,
    /// The delivery ended without reaching the recipient after its pickup.
    Failed,
}

impl Trigger {
    pub const ALL: [Trigger; 6] = [
        Trigger::CourierAssigned,
        Trigger::PickedUp,
        Trigger::Arriving,
        Trigger::Delivered,
        Trigger::Delayed,
        Trigger::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::CourierAssigned => "courier_assigned",
            Trigger::PickedUp => "picked_up",
            Trigger::Arriving => "arriving",
            Trigger::Delivered => "delivered",
            Trigger::Delayed => "delayed",
            Trigger::Failed => "failed",
        }
    }

    pub fn parse(text: &str) -> Option<Trigger> {
        Trigger::ALL.into_iter().find(|t| t.as_str() == text)
    }

    /// Whether quiet hours hold it until morning: everything but the
    /// courier at the door, which is only worth something now.
    pub fn can_wait(self) -> bool {
        self != Trigger::Arriving
    }

    /// Whether it still means something once the delivery ended: news of
    /// progress does not (an `arriving` after `delivered` is dropped).
    pub fn outlives_the_delivery(self) -> bool {
        matches!(self, Trigger::Delivered | Trigger::Failed)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    Sms,
    Email,
}

impl Channel {
    pub const ALL: [Channel; 2] = [Channel::Sms, Channel::Email];

    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Sms => "sms",
            Channel::Email => "email",
        }
    }

    pub fn parse(text: &str) -> Option<Channel> {
        Channel::ALL.into_iter().find(|c| c.as_str() == text)
    }
}

/// Who a message is for: the dropoff's contact or the pickup's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Audience {
    Recipient,
    Sender,
}

impl Audience {
    pub const ALL: [Audience; 2] = [Audience::Recipient, Audience::Sender];

    pub fn as_str(self) -> &'static str {
        match self {
            Audience::Recipient => "recipient",
            Audience::Sender => "sender",
        }
    }

    pub fn parse(text: &str) -> Option<Audience> {
        Audience::ALL.into_iter().find(|a| a.as_str() == text)
    }
}

/// The languages whose texts ship with the platform.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Language {
    #[default]
    En,
    De,
}

impl Language {
    pub const ALL: [Language; 2] = [Language::En, Language::De];

    pub fn as_str(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::De => "de",
        }
    }

    pub fn parse(text: &str) -> Option<Language> {
        Language::ALL.into_iter().find(|l| l.as_str() == text)
    }
}

/// Where a message stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MessageStatus {
    /// Waiting for the sender (or being sent).
    Queued,
    /// Held by quiet hours until they end.
    Held,
    /// Taken by the provider (in test mode: put in the test inbox).
    Sent,
    /// The provider reported it delivered.
    Delivered,
    /// Refused for good, or every attempt used up.
    Failed,
    /// Not sent: the delivery ended before it could go out.
    Dropped,
    /// Not sent: the address asked this workspace for no more messages.
    OptedOut,
}

impl MessageStatus {
    pub const ALL: [MessageStatus; 7] = [
        MessageStatus::Queued,
        MessageStatus::Held,
        MessageStatus::Sent,
        MessageStatus::Delivered,
        MessageStatus::Failed,
        MessageStatus::Dropped,
        MessageStatus::OptedOut,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            MessageStatus::Queued => "queued",
            MessageStatus::Held => "held",
            MessageStatus::Sent => "sent",
            MessageStatus::Delivered => "delivered",
            MessageStatus::Failed => "failed",
            MessageStatus::Dropped => "dropped",
            MessageStatus::OptedOut => "opted_out",
        }
    }

    pub fn parse(text: &str) -> Option<MessageStatus> {
        MessageStatus::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// Whether the sender still has something to do with it.
    pub fn is_waiting(self) -> bool {
        matches!(self, MessageStatus::Queued | MessageStatus::Held)
    }
}

/// A delivery's own choice over its workspace's settings: recipient or
/// sender messages off, or another language. `None` keeps the workspace's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Preferences {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipient: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Language>,
}

impl Preferences {
    /// Whether messages to `audience` may go out (the workspace's rules
    /// decide which).
    pub fn allows(&self, audience: Audience) -> bool {
        match audience {
            Audience::Recipient => self.recipient != Some(false),
            Audience::Sender => self.sender != Some(false),
        }
    }

    pub fn is_empty(&self) -> bool {
        *self == Preferences::default()
    }
}

/// `+49********12`, `j***@example.com`: an address as lists show it.
pub fn mask(channel: Channel, address: &str) -> String {
    match channel {
        Channel::Sms => {
            let chars: Vec<char> = address.chars().collect();
            if chars.len() <= 5 {
                return "*".repeat(chars.len());
            }
            let head: String = chars[..3].iter().collect();
            let tail: String = chars[chars.len() - 2..].iter().collect();
            format!("{head}{}{tail}", "*".repeat(chars.len() - 5))
        }
        Channel::Email => match address.split_once('@') {
            Some((local, domain)) => {
                let first: String = local.chars().take(1).collect();
                format!("{first}***@{domain}")
            }
            None => "***".to_owned(),
        },
    }
}

#[cfg(test)]
mod tests;
