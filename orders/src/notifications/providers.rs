//! The providers messages go out through (docs/notifications.md
//! "Providers"): Twilio's Messages API for SMS and an SMTP server for
//! email, from the core's settings; a channel left unset sends nothing live.

use std::time::Duration;

use super::Channel;
use courier_messaging::email::Smtp;
use courier_messaging::sms::{Twilio, TwilioConfig};
use courier_store::config::NotificationConfig;
use courier_store::{CoreError, CoreResult};

/// The providers this process sends through.
pub struct Providers {
    pub sms: Option<Twilio>,
    pub email: Option<Smtp>,
    /// The address emails come from.
    pub from_address: String,
    /// Where Twilio reports what became of an SMS.
    pub status_callback: String,
    /// How long one call to a provider may take.
    pub timeout: Duration,
    /// Multiplier of the retry schedule.
    pub retry_scale: f64,
}

impl Providers {
    /// The providers `config` names. A channel left unset sends nothing; a
    /// setting that is wrong stops the start with what is wrong.
    pub fn from_config(config: &NotificationConfig, public_base_url: &str) -> CoreResult<Providers> {
        let invalid = |what: &str, e: &dyn std::fmt::Display| CoreError::Internal(format!("{what}: {e}"));
        let sms = match (
            &config.twilio_account_sid,
            &config.twilio_auth_token,
            &config.twilio_from,
        ) {
            (Some(account_sid), Some(auth_token), Some(from)) => Some(
                Twilio::new(TwilioConfig {
                    base_url: config.twilio_base_url.clone(),
                    account_sid: account_sid.clone(),
                    auth_token: auth_token.clone(),
                    from: from.clone(),
                    timeout: config.timeout,
                })
                .map_err(|e| invalid("COURIER_TWILIO_*", &e))?,
            ),
            _ => None,
        };
        let email = match config.smtp_url.as_deref().filter(|url| !url.is_empty()) {
            Some(url) => Some(Smtp::from_url(url, config.timeout).map_err(|e| invalid("COURIER_SMTP_URL", &e))?),
            None => None,
        };
        if email.is_some() {
            courier_identity::text::email("COURIER_SMTP_FROM", &config.smtp_from)?;
        }
        Ok(Providers {
            sms,
            email,
            from_address: config.smtp_from.clone(),
            status_callback: format!("{}/v1/notifications/sms/status", public_base_url.trim_end_matches('/')),
            timeout: config.timeout,
            retry_scale: config.retry_scale,
        })
    }

    /// Whether live messages of `channel` go out from this platform.
    pub fn is_live(&self, channel: Channel) -> bool {
        match channel {
            Channel::Sms => self.sms.is_some(),
            Channel::Email => self.email.is_some(),
        }
    }

    /// The Twilio auth token that signs Twilio's callbacks, when SMS are on.
    pub fn sms_auth_token(&self) -> Option<&str> {
        self.sms.as_ref().map(Twilio::auth_token)
    }
}
