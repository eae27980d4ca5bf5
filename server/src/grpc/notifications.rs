//! `courier.v1.NotificationService` (a delivery's notifications,
//! deliveries:read) and `courier.internal.v1.NotificationSettingsService`
//! (a workspace's settings and test inbox): decode, grant, call
//! `courier_orders::notifications`, encode.

use chrono::NaiveTime;
use courier::internal::v1 as ipb;
use courier::internal::v1::notification_settings_service_server::NotificationSettingsService;
use courier::time::micros_to_proto;
use courier::v1 as pb;
use courier::v1::notification_service_server::NotificationService;
use tonic::{Request, Response, Status};

use super::enums::{ToProto, from_proto};
use crate::caller;
use courier_core::{Core, CoreError, CoreResult};
use courier_identity::access::{Permission, act};
use courier_orders::notifications::settings::{self, QuietHours, Rule, Settings};
use courier_orders::notifications::templates::{PLACEHOLDERS, Text};
use courier_orders::notifications::{Audience, Channel, Language, Trigger, messages};

pub struct NotificationApi(pub Core);

pub struct NotificationSettingsApi(pub Core);

/// A message as the API shows it (its address masked).
pub fn notification_out(m: &messages::Message) -> pb::Notification {
    pb::Notification {
        id: m.id.clone(),
        channel: m.channel.to_proto() as i32,
        audience: m.audience.to_proto() as i32,
        trigger: m.trigger.to_proto() as i32,
        address: m.masked_address(),
        status: m.status.to_proto() as i32,
        language: m.language.as_str().to_owned(),
        subject: m.subject.clone(),
        body: m.body.clone(),
        created_at: Some(micros_to_proto(m.created_at)),
        sent_at: m.sent_at.map(micros_to_proto),
        error: m.error.clone(),
        delivery_id: m.delivery_id.clone(),
        attempts: m.attempts,
    }
}

#[tonic::async_trait]
impl NotificationService for NotificationApi {
    async fn list_delivery_notifications(
        &self,
        request: Request<pb::ListDeliveryNotificationsRequest>,
    ) -> Result<Response<pb::ListDeliveryNotificationsResponse>, Status> {
        let principal = caller::api(&self.0, &request, Some(Permission::DeliveriesRead)).await?;
        let sent = messages::for_delivery(&self.0, &principal, &request.into_inner().delivery_id).await?;
        Ok(Response::new(pb::ListDeliveryNotificationsResponse {
            notifications: sent.iter().map(notification_out).collect(),
        }))
    }
}

fn trigger_in(param: &str, number: i32) -> CoreResult<Trigger> {
    from_proto(&Trigger::ALL, number).ok_or_else(|| CoreError::invalid(param, format!("{param} is not a trigger.")))
}

fn language_in(param: &str, text: &str) -> CoreResult<Language> {
    Language::parse(text).ok_or_else(|| CoreError::invalid(param, format!("{param} must be en or de.")))
}

fn time_in(param: &str, text: &str) -> CoreResult<NaiveTime> {
    NaiveTime::parse_from_str(text, "%H:%M")
        .map_err(|_| CoreError::invalid(param, format!("{param} must be a time such as 21:00.")))
}

fn settings_out(workspace_id: &str, s: &Settings) -> ipb::NotificationSettings {
    let mut texts = Vec::new();
    for language in Language::ALL {
        for trigger in Trigger::ALL {
            let text = s.text(trigger, language);
            texts.push(ipb::NotificationText {
                trigger: trigger.to_proto() as i32,
                language: language.as_str().to_owned(),
                sms: text.sms,
                email_subject: text.email_subject,
                email_body: text.email_body,
                custom: s.texts.contains_key(&(language, trigger)),
                reset: false,
            });
        }
    }
    ipb::NotificationSettings {
        workspace_id: workspace_id.to_owned(),
        rules: s
            .rules
            .iter()
            .map(|r| ipb::NotificationRule {
                trigger: r.trigger.to_proto() as i32,
                audience: r.audience.to_proto() as i32,
                channel: r.channel.to_proto() as i32,
            })
            .collect(),
        texts,
        language: s.language.as_str().to_owned(),
        quiet_hours: s.quiet_hours.map(|q| ipb::QuietHours {
            start: q.start.format("%H:%M").to_string(),
            end: q.end.format("%H:%M").to_string(),
        }),
        email_from_name: s.email_from_name.clone(),
        reply_to: s.reply_to.clone(),
    }
}

/// The settings an update asks for: its rules and quiet hours whole, its
/// texts over the current ones.
fn settings_in(current: Settings, r: ipb::NotificationSettings) -> CoreResult<Settings> {
    let mut rules = std::collections::BTreeSet::new();
    for (i, rule) in r.rules.iter().enumerate() {
        rules.insert(Rule {
            trigger: trigger_in(&format!("rules[{i}].trigger"), rule.trigger)?,
            audience: from_proto(&Audience::ALL, rule.audience).ok_or_else(|| {
                CoreError::invalid(format!("rules[{i}].audience"), "audience must be recipient or sender.")
            })?,
            channel: from_proto(&Channel::ALL, rule.channel)
                .ok_or_else(|| CoreError::invalid(format!("rules[{i}].channel"), "channel must be sms or email."))?,
        });
    }
    let mut texts = current.texts;
    for (i, text) in r.texts.into_iter().enumerate() {
        let key = (
            language_in(&format!("texts[{i}].language"), &text.language)?,
            trigger_in(&format!("texts[{i}].trigger"), text.trigger)?,
        );
        if text.reset {
            texts.remove(&key);
            continue;
        }
        texts.insert(
            key,
            Text {
                sms: text.sms,
                email_subject: text.email_subject,
                email_body: text.email_body,
            },
        );
    }
    let quiet_hours = match r.quiet_hours {
        Some(q) => Some(QuietHours {
            start: time_in("quiet_hours.start", &q.start)?,
            end: time_in("quiet_hours.end", &q.end)?,
        }),
        None => None,
    };
    let blank_is_none = |v: Option<String>| v.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    Ok(Settings {
        rules,
        texts,
        language: language_in("language", &r.language)?,
        quiet_hours,
        email_from_name: blank_is_none(r.email_from_name),
        reply_to: blank_is_none(r.reply_to),
    })
}

/// Page size of the test inbox: 1 to 100, 0 meaning 50.
fn inbox_page_size(page_size: i32) -> CoreResult<u64> {
    match page_size {
        0 => Ok(50),
        1..=100 => Ok(page_size as u64),
        _ => Err(CoreError::invalid("page_size", "page_size must be 1 to 100.")),
    }
}

#[tonic::async_trait]
impl NotificationSettingsService for NotificationSettingsApi {
    async fn get_notification_settings(
        &self,
        request: Request<ipb::GetNotificationSettingsRequest>,
    ) -> Result<Response<ipb::GetNotificationSettingsResponse>, Status> {
        let workspace_id = request.get_ref().workspace_id.clone();
        let granted =
            caller::grant::<act::ReadNotifications, _>(&self.0, &request, Some(&workspace_id), "workspace").await?;
        let s = settings::read(&self.0, &granted, &workspace_id).await?;
        let providers = &self.0.notification_providers;
        Ok(Response::new(ipb::GetNotificationSettingsResponse {
            settings: Some(settings_out(&workspace_id, &s)),
            sms_live: providers.is_live(Channel::Sms),
            email_live: providers.is_live(Channel::Email),
            placeholders: PLACEHOLDERS
                .iter()
                .map(|(name, description)| ipb::Placeholder {
                    name: (*name).to_owned(),
                    description: (*description).to_owned(),
                })
                .collect(),
        }))
    }

    async fn update_notification_settings(
        &self,
        request: Request<ipb::UpdateNotificationSettingsRequest>,
    ) -> Result<Response<ipb::UpdateNotificationSettingsResponse>, Status> {
        let workspace_id = request
            .get_ref()
            .settings
            .as_ref()
            .map(|s| s.workspace_id.clone())
            .unwrap_or_default();
        let granted =
            caller::grant::<act::ManageNotifications, _>(&self.0, &request, Some(&workspace_id), "workspace").await?;
        let wanted = request
            .into_inner()
            .settings
            .ok_or_else(|| CoreError::invalid("settings", "settings are required."))?;
        let current = settings::get(&self.0.db, &workspace_id).await?;
        let saved = settings::update(&self.0, &granted, &workspace_id, settings_in(current, wanted)?).await?;
        Ok(Response::new(ipb::UpdateNotificationSettingsResponse {
            settings: Some(settings_out(&workspace_id, &saved)),
        }))
    }

    async fn preview_notification(
        &self,
        request: Request<ipb::PreviewNotificationRequest>,
    ) -> Result<Response<ipb::PreviewNotificationResponse>, Status> {
        let workspace_id = request.get_ref().workspace_id.clone();
        let granted =
            caller::grant::<act::ReadNotifications, _>(&self.0, &request, Some(&workspace_id), "workspace").await?;
        let r = request.into_inner();
        let trigger = trigger_in("trigger", r.trigger)?;
        let language = language_in("language", &r.language)?;
        let text = r.text.map(|t| Text {
            sms: t.sms,
            email_subject: t.email_subject,
            email_body: t.email_body,
        });
        let shown = settings::preview(&self.0, &granted, &workspace_id, trigger, language, text).await?;
        Ok(Response::new(ipb::PreviewNotificationResponse {
            sms: shown.sms,
            email_subject: shown.email_subject,
            email_body: shown.email_body,
        }))
    }

    async fn list_test_messages(
        &self,
        request: Request<ipb::ListTestMessagesRequest>,
    ) -> Result<Response<ipb::ListTestMessagesResponse>, Status> {
        let workspace_id = request.get_ref().workspace_id.clone();
        let granted =
            caller::grant::<act::ReadNotifications, _>(&self.0, &request, Some(&workspace_id), "workspace").await?;
        let r = request.into_inner();
        let limit = inbox_page_size(r.page_size)?;
        // The token is the creation time of the last message shown.
        let before = match r.page_token.as_str() {
            "" => None,
            token => Some(
                token
                    .parse::<i64>()
                    .map_err(|_| CoreError::invalid("page_token", "page_token is not one this list gave."))?,
            ),
        };
        let inbox = messages::test_inbox(&self.0, &granted, &workspace_id, limit, before).await?;
        let next_page_token = match inbox.last() {
            Some(last) if inbox.len() as u64 == limit => last.created_at.to_string(),
            _ => String::new(),
        };
        Ok(Response::new(ipb::ListTestMessagesResponse {
            messages: inbox.iter().map(notification_out).collect(),
            next_page_token,
        }))
    }
}
