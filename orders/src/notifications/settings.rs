//! Each workspace's notification settings (docs/notifications.md
//! "Settings"): which triggers send on which channel to whom, the texts per
//! trigger and language over the shipped ones, the default language, quiet
//! hours, and the name and reply-to address of emails. One row per
//! workspace (`notification_settings`, JSON); a workspace without one has
//! the defaults: SMS to the recipient when a courier is assigned, arriving
//! and delivered, quiet hours 21:00–08:00.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, NaiveTime, TimeZone, Timelike};
use chrono_tz::Tz;
use sea_orm::sea_query::OnConflict;
use sea_orm::{ActiveValue::Set, ConnectionTrait, EntityTrait};
use serde::{Deserialize, Serialize};

use super::templates::{self, MAX_EMAIL_CHARS, MAX_SMS_CHARS, MAX_SUBJECT_CHARS, Text, Values};
use super::{Audience, Channel, Language, Trigger};
use crate::Orders;
use courier_identity::access::{Granted, act};
use courier_identity::audit;
use courier_store::{CoreError, CoreResult};

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "notification_settings")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub workspace_id: String,
        /// `Settings` as JSON.
        pub body: String,
        pub updated_at: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// One kind of message that goes out: a trigger, to whom, how.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Rule {
    pub trigger: Trigger,
    pub audience: Audience,
    pub channel: Channel,
}

/// Hours in which messages that can wait are held: from `start` to `end`
/// on the service area's clock, across midnight when `end` is earlier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuietHours {
    pub start: NaiveTime,
    pub end: NaiveTime,
}

impl QuietHours {
    pub const DEFAULT: QuietHours = QuietHours {
        start: NaiveTime::from_hms_opt(21, 0, 0).expect("a time"),
        end: NaiveTime::from_hms_opt(8, 0, 0).expect("a time"),
    };

    /// When a message held at `now` may go out, on `zone`'s clock; `None`
    /// outside quiet hours.
    pub fn until(&self, now: DateTime<chrono::Utc>, zone: Tz) -> Option<DateTime<chrono::Utc>> {
        let local = now.with_timezone(&zone);
        let time = local.time().with_nanosecond(0)?;
        let inside = if self.start <= self.end {
            time >= self.start && time < self.end
        } else {
            time >= self.start || time < self.end
        };
        if !inside {
            return None;
        }
        let day = if time >= self.end {
            local.date_naive() + Duration::days(1)
        } else {
            local.date_naive()
        };
        // A clock change at the end's minute: the first instant that exists.
        let end = day.and_time(self.end);
        let end = zone
            .from_local_datetime(&end)
            .earliest()
            .or_else(|| zone.from_local_datetime(&(end + Duration::hours(1))).earliest())?;
        Some(end.with_timezone(&chrono::Utc))
    }
}

/// A workspace's notification settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// The messages that go out; anything not listed does not.
    pub rules: BTreeSet<Rule>,
    /// The workspace's own texts; the shipped one where it has none.
    #[serde(with = "texts_as_list")]
    pub texts: BTreeMap<(Language, Trigger), Text>,
    /// For deliveries that choose none.
    pub language: Language,
    /// `None`: messages go out at any hour.
    pub quiet_hours: Option<QuietHours>,
    /// The name the business signs with: `{business_name}` in the texts and
    /// the name emails come from; the workspace's name when `None`.
    pub email_from_name: Option<String>,
    /// Where the recipient's answers to an email go.
    pub reply_to: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        let sms_to_recipient = |trigger| Rule {
            trigger,
            audience: Audience::Recipient,
            channel: Channel::Sms,
        };
        Settings {
            rules: [Trigger::CourierAssigned, Trigger::Arriving, Trigger::Delivered]
                .into_iter()
                .map(sms_to_recipient)
                .collect(),
            texts: BTreeMap::new(),
            language: Language::En,
            quiet_hours: Some(QuietHours::DEFAULT),
            email_from_name: None,
            reply_to: None,
        }
    }
}

impl Settings {
    pub fn sends(&self, trigger: Trigger, audience: Audience, channel: Channel) -> bool {
        self.rules.contains(&Rule {
            trigger,
            audience,
            channel,
        })
    }

    /// The name `workspace_id` signs with: its sender name, or the
    /// workspace's own.
    pub async fn business_name(&self, db: &impl ConnectionTrait, workspace_id: &str) -> CoreResult<String> {
        match &self.email_from_name {
            Some(name) => Ok(name.clone()),
            None => Ok(courier_identity::workspaces::get(db, workspace_id).await?.name),
        }
    }

    /// The text of `trigger` in `language`: the workspace's, or the shipped one.
    pub fn text(&self, trigger: Trigger, language: Language) -> Text {
        self.texts
            .get(&(language, trigger))
            .cloned()
            .unwrap_or_else(|| templates::shipped(trigger, language))
    }

    /// Whether the settings may be saved: every text within its length with
    /// known placeholders only (an unknown one refused by name), a reply-to
    /// address that is one, a sender name of 1 to 100 characters.
    pub fn check(&self) -> CoreResult<()> {
        for ((language, trigger), text) in &self.texts {
            let param = |part: &str| format!("templates.{}.{}.{part}", language.as_str(), trigger.as_str());
            templates::check(&param("sms"), &text.sms, MAX_SMS_CHARS)?;
            templates::check(&param("email_subject"), &text.email_subject, MAX_SUBJECT_CHARS)?;
            templates::check(&param("email_body"), &text.email_body, MAX_EMAIL_CHARS)?;
        }
        if let Some(reply_to) = &self.reply_to {
            courier_identity::text::email("reply_to", reply_to)?;
        }
        if let Some(name) = &self.email_from_name {
            courier_identity::text::text_length("email_from_name", name, 1, 100)?;
            if name.contains(['<', '>', '"', '\r', '\n']) {
                return Err(CoreError::invalid(
                    "email_from_name",
                    "email_from_name must not contain <, >, quotes or line breaks.",
                ));
            }
        }
        if let Some(quiet) = &self.quiet_hours
            && quiet.start == quiet.end
        {
            return Err(CoreError::invalid(
                "quiet_hours",
                "quiet_hours must end at another time than they start.",
            ));
        }
        Ok(())
    }
}

/// `texts` as a list of `{language, trigger, sms, email_subject,
/// email_body}`: JSON keys are strings.
mod texts_as_list {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::super::{Language, Trigger};
    use super::Text;

    #[derive(Serialize, Deserialize)]
    struct Entry {
        language: Language,
        trigger: Trigger,
        #[serde(flatten)]
        text: Text,
    }

    pub fn serialize<S: Serializer>(
        texts: &BTreeMap<(Language, Trigger), Text>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        texts
            .iter()
            .map(|(&(language, trigger), text)| Entry {
                language,
                trigger,
                text: text.clone(),
            })
            .collect::<Vec<_>>()
            .serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<BTreeMap<(Language, Trigger), Text>, D::Error> {
        Ok(Vec::<Entry>::deserialize(deserializer)?
            .into_iter()
            .map(|e| ((e.language, e.trigger), e.text))
            .collect())
    }
}

/// The settings of `workspace_id` (the defaults when it saved none).
pub async fn get(db: &impl ConnectionTrait, workspace_id: &str) -> CoreResult<Settings> {
    match entity::Entity::find_by_id(workspace_id.to_owned()).one(db).await? {
        Some(row) => serde_json::from_str(&row.body)
            .map_err(|e| CoreError::Internal(format!("notification settings of {workspace_id}: {e}"))),
        None => Ok(Settings::default()),
    }
}

/// Saves `settings` for `workspace_id`, checked first (nothing changes
/// when they are refused).
pub async fn save(db: &impl ConnectionTrait, workspace_id: &str, settings: &Settings, now: i64) -> CoreResult<()> {
    settings.check()?;
    let body = serde_json::to_string(settings).map_err(|e| CoreError::Internal(e.to_string()))?;
    entity::Entity::insert(entity::ActiveModel {
        workspace_id: Set(workspace_id.to_owned()),
        body: Set(body),
        updated_at: Set(now),
    })
    .on_conflict(
        OnConflict::column(entity::Column::WorkspaceId)
            .update_columns([entity::Column::Body, entity::Column::UpdatedAt])
            .to_owned(),
    )
    .exec_without_returning(db)
    .await?;
    Ok(())
}

/// A workspace's settings for a caller granted to read them (`not_found`
/// for a workspace that does not exist).
pub async fn read(
    orders: &Orders,
    granted: &Granted<act::ReadNotifications>,
    workspace_id: &str,
) -> CoreResult<Settings> {
    granted.covers(workspace_id)?;
    courier_identity::workspaces::get(&orders.db, workspace_id).await?;
    get(&orders.db, workspace_id).await
}

/// Replaces a workspace's settings (checked; audited as
/// `notifications.update`). A text equal to the platform's is not kept as
/// the workspace's, so a later change of the shipped texts reaches it.
pub async fn update(
    orders: &Orders,
    granted: &Granted<act::ManageNotifications>,
    workspace_id: &str,
    mut settings: Settings,
) -> CoreResult<Settings> {
    granted.covers(workspace_id)?;
    settings
        .texts
        .retain(|&(language, trigger), text| *text != templates::shipped(trigger, language));
    settings.check()?;
    let tx = orders.begin().await?;
    courier_identity::workspaces::get(&*tx, workspace_id).await?;
    save(&*tx, workspace_id, &settings, orders.clock.now_micros()).await?;
    granted
        .record(
            orders,
            &*tx,
            audit::Change {
                action: "notifications.update",
                workspace_id: Some(workspace_id),
                target: workspace_id,
                courier_id: None,
            },
        )
        .await?;
    tx.commit().await?;
    Ok(settings)
}

/// `trigger`'s texts in `language` rendered for a sample delivery: `text`
/// as given (checked as a save would check it), or the workspace's.
pub async fn preview(
    orders: &Orders,
    granted: &Granted<act::ReadNotifications>,
    workspace_id: &str,
    trigger: Trigger,
    language: Language,
    text: Option<Text>,
) -> CoreResult<Text> {
    let settings = read(orders, granted, workspace_id).await?;
    let text = match text {
        Some(text) => {
            let param = |part: &str| format!("templates.{}.{}.{part}", language.as_str(), trigger.as_str());
            templates::check(&param("sms"), &text.sms, MAX_SMS_CHARS)?;
            templates::check(&param("email_subject"), &text.email_subject, MAX_SUBJECT_CHARS)?;
            templates::check(&param("email_body"), &text.email_body, MAX_EMAIL_CHARS)?;
            text
        }
        None => settings.text(trigger, language),
    };
    let business_name = settings.business_name(&orders.db, workspace_id).await?;
    let values = Values::sample(&business_name, language);
    Ok(Text {
        sms: templates::render(&text.sms, &values),
        email_subject: templates::render(&text.email_subject, &values),
        email_body: templates::render(&text.email_body, &values),
    })
}

#[cfg(test)]
mod tests {
    use chrono::Utc;

    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .expect("a test value")
            .with_timezone(&Utc)
    }

    #[test]
    fn quiet_hours_hold_until_the_morning_on_the_areas_clock() {
        let berlin: Tz = "Europe/Berlin".parse().expect("a test value");
        let quiet = QuietHours::DEFAULT;
        // 22:30 in Berlin (winter, UTC+1) → 08:00 the next morning.
        assert_eq!(
            quiet.until(at("2026-12-01T21:30:00Z"), berlin),
            Some(at("2026-12-02T07:00:00Z"))
        );
        // 06:00 in Berlin → 08:00 the same morning.
        assert_eq!(
            quiet.until(at("2026-12-02T05:00:00Z"), berlin),
            Some(at("2026-12-02T07:00:00Z"))
        );
        // 12:00 → not quiet; 08:00 sharp → not quiet.
        assert_eq!(quiet.until(at("2026-12-02T11:00:00Z"), berlin), None);
        assert_eq!(quiet.until(at("2026-12-02T07:00:00Z"), berlin), None);
    }

    #[test]
    fn settings_survive_their_json() {
        let mut settings = Settings::default();
        settings.texts.insert(
            (Language::De, Trigger::Arriving),
            Text {
                sms: "Gleich da: {tracking_url}".into(),
                email_subject: "Gleich da".into(),
                email_body: "Gleich da".into(),
            },
        );
        let json = serde_json::to_string(&settings).expect("a test value");
        assert_eq!(serde_json::from_str::<Settings>(&json).expect("a test value"), settings);
    }

    #[test]
    fn an_unknown_placeholder_is_refused_at_save_with_its_name() {
        let mut settings = Settings::default();
        settings.texts.insert(
            (Language::En, Trigger::Delivered),
            Text {
                sms: "Done, {nickname}!".into(),
                email_subject: "Done".into(),
                email_body: "Done".into(),
            },
        );
        let error = settings.check().expect_err("refused").to_string();
        assert!(
            error.contains("{nickname}") && error.contains("templates.en.delivered.sms"),
            "{error}"
        );
    }
}
