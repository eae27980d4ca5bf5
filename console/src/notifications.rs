//! A business workspace's recipient notifications (docs/console.md
//! "Notifications"): which messages go out to whom on which channel, the
//! default language, quiet hours and the emails' sender, the texts per
//! trigger and language with a preview on a sample delivery, and the test
//! inbox of the workspace's test-mode messages. Every page is a
//! `NotificationSettingsService` call with the session: members read,
//! owners and admins change (the core decides; members see no forms).

use askama::Template;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use courier::internal::v1 as ipb;
use courier::names::PublicName;
use courier::v1 as pb;
use serde::Deserialize;

use crate::ConsoleState;
use crate::flash::Flash;
use crate::labels;
use crate::page::{Layout, ModeQuery, Refusal, Signed, field, fields, mode_named, next_page, render};
use crate::times::Moment;

/// The audiences and channels of the settings' grid, in its column order.
const COLUMNS: [(pb::NotificationAudience, pb::NotificationChannel); 4] = [
    (pb::NotificationAudience::Recipient, pb::NotificationChannel::Sms),
    (pb::NotificationAudience::Recipient, pb::NotificationChannel::Email),
    (pb::NotificationAudience::Sender, pb::NotificationChannel::Sms),
    (pb::NotificationAudience::Sender, pb::NotificationChannel::Email),
];

/// The languages of the texts, as the core names them.
const LANGUAGES: [&str; 2] = ["en", "de"];

/// How many test messages a page of the inbox shows.
const INBOX_PAGE: i32 = 20;

fn base(state: &ConsoleState, workspace: &str) -> String {
    format!("{}/w/{workspace}/notifications", state.root)
}

/// A rule's form value: `arriving.recipient.sms`.
fn rule_value(
    trigger: pb::NotificationTrigger,
    audience: pb::NotificationAudience,
    channel: pb::NotificationChannel,
) -> String {
    format!(
        "{}.{}.{}",
        trigger.public_name().unwrap_or_default(),
        audience.public_name().unwrap_or_default(),
        channel.public_name().unwrap_or_default()
    )
}

/// A column's words: "SMS to the recipient".
fn column_words(audience: pb::NotificationAudience, channel: pb::NotificationChannel) -> String {
    format!(
        "{} to the {}",
        labels::notification_channel(channel),
        labels::notification_audience(audience).to_lowercase()
    )
}

/// One box of the grid.
pub(crate) struct RuleCell {
    value: String,
    /// What the box says on a phone, where the grid's header is not shown.
    words: String,
    /// The box's name for assistive technology: trigger and column.
    label: String,
    checked: bool,
}

/// One trigger of the settings page: its row of the grid and its texts.
pub(crate) struct TriggerRow {
    name: &'static str,
    words: &'static str,
    about: &'static str,
    cells: Vec<RuleCell>,
    /// `(language, its words, the workspace wrote its own text)`.
    texts: Vec<(&'static str, &'static str, bool)>,
}

/// What the settings form shows: the saved settings, or what was sent and
/// refused.
pub(crate) struct Draft {
    /// The ticked rules' form values.
    rules: Vec<String>,
    language: String,
    quiet: bool,
    quiet_start: String,
    quiet_end: String,
    email_from_name: String,
    reply_to: String,
}

impl Draft {
    fn of(settings: &ipb::NotificationSettings) -> Draft {
        let quiet = settings.quiet_hours.as_ref();
        Draft {
            rules: settings
                .rules
                .iter()
                .map(|r| rule_value(r.trigger(), r.audience(), r.channel()))
                .collect(),
            language: settings.language.clone(),
            quiet: quiet.is_some(),
            quiet_start: quiet.map_or_else(|| "21:00".to_owned(), |q| q.start.clone()),
            quiet_end: quiet.map_or_else(|| "08:00".to_owned(), |q| q.end.clone()),
            email_from_name: settings.email_from_name.clone().unwrap_or_default(),
            reply_to: settings.reply_to.clone().unwrap_or_default(),
        }
    }

    fn from_form(form: &[(String, String)]) -> Draft {
        Draft {
            rules: form
                .iter()
                .filter(|(name, _)| name == "rule")
                .map(|(_, value)| value.clone())
                .collect(),
            language: field(form, "language").to_owned(),
            quiet: field(form, "quiet") == "on",
            quiet_start: field(form, "quiet_start").to_owned(),
            quiet_end: field(form, "quiet_end").to_owned(),
            email_from_name: field(form, "email_from_name").to_owned(),
            reply_to: field(form, "reply_to").to_owned(),
        }
    }

    /// The settings to save: these choices, and no text, so the saved
    /// texts stay as they are (an update changes only the texts it gives).
    /// A rule the console does not know (a forged value) is left out.
    fn settings(&self, workspace: &str) -> ipb::NotificationSettings {
        let rules = self
            .rules
            .iter()
            .filter_map(|value| {
                let mut parts = value.split('.');
                let (trigger, audience, channel) = (parts.next()?, parts.next()?, parts.next()?);
                Some(ipb::NotificationRule {
                    trigger: pb::NotificationTrigger::from_public_name(trigger)? as i32,
                    audience: pb::NotificationAudience::from_public_name(audience)? as i32,
                    channel: pb::NotificationChannel::from_public_name(channel)? as i32,
                })
            })
            .collect();
        ipb::NotificationSettings {
            workspace_id: workspace.to_owned(),
            rules,
            texts: Vec::new(),
            language: self.language.clone(),
            quiet_hours: self.quiet.then(|| ipb::QuietHours {
                start: self.quiet_start.trim().to_owned(),
                end: self.quiet_end.trim().to_owned(),
            }),
            email_from_name: Some(self.email_from_name.clone()),
            reply_to: Some(self.reply_to.clone()),
        }
    }
}

/// The fields of the settings form a refusal may name (else it is the
/// page's banner), with their words for the core's message.
const SETTINGS_FIELDS: [(&str, &str); 5] = [
    ("language", "The default language"),
    ("quiet_hours.start", "The start of quiet hours"),
    ("quiet_hours.end", "The end of quiet hours"),
    ("email_from_name", "The sender name"),
    ("reply_to", "The reply-to address"),
];

/// The core's refusal in the page's words: the `param` it starts with
/// replaced by what the form calls the field.
fn worded(refusal: Refusal, fields: &[(&str, &str)]) -> Refusal {
    let Some(param) = refusal.param.clone() else {
        return refusal;
    };
    let Some((_, words)) = fields.iter().find(|(name, _)| *name == param) else {
        return refusal;
    };
    let message = match refusal.message.strip_prefix(param.as_str()) {
        Some(rest) => format!("{words}{rest}"),
        None => refusal.message.replace(param.as_str(), &words.to_lowercase()),
    };
    Refusal {
        param: Some(param),
        message,
    }
}

#[derive(Template)]
#[template(path = "notifications.html")]
pub(crate) struct SettingsPage {
    layout: Layout,
    base: String,
    manages: bool,
    sms_live: bool,
    email_live: bool,
    /// The grid's column headings.
    columns: Vec<String>,
    triggers: Vec<TriggerRow>,
    /// `(code, words)` of the languages.
    languages: Vec<(&'static str, &'static str)>,
    draft: Draft,
    refusal: Option<Refusal>,
}

impl SettingsPage {
    fn field_error(&self, field: &str) -> Option<&str> {
        self.refusal.as_ref().and_then(|r| r.at(field))
    }
}

/// The workspace's settings as the core answers them.
async fn settings(
    state: &ConsoleState,
    signed: &Signed,
    workspace: &str,
) -> Result<ipb::GetNotificationSettingsResponse, tonic::Status> {
    let request = signed.request(
        ipb::GetNotificationSettingsRequest {
            workspace_id: workspace.to_owned(),
        },
        None,
    );
    Ok(state
        .notifications
        .clone()
        .get_notification_settings(request)
        .await?
        .into_inner())
}

fn layout(state: &ConsoleState, signed: &Signed, title: &str, workspace: &str, mode: &'static str) -> Layout {
    let mut layout = signed.layout(state, title, Some(workspace), mode);
    layout.section = "notifications";
    layout
}

async fn settings_view(
    state: &ConsoleState,
    signed: &Signed,
    (workspace, mode): (&str, &'static str),
    draft: Option<Draft>,
    refusal: Option<Refusal>,
) -> Response {
    let answer = match settings(state, signed, workspace).await {
        Ok(answer) => answer,
        Err(status) => return signed.failure(state, &status, workspace),
    };
    let saved = answer.settings.unwrap_or_default();
    let draft = draft.unwrap_or_else(|| Draft::of(&saved));
    let mut layout = layout(state, signed, "Notifications", workspace, mode);
    let manages = layout.workspace.as_ref().is_some_and(|w| w.manages);
    if let Some(refusal) = refusal
        .as_ref()
        .filter(|r| SETTINGS_FIELDS.iter().all(|(f, _)| r.at(f).is_none()))
    {
        layout.error = Some(refusal.message.clone());
    }
    let custom = |trigger: pb::NotificationTrigger, language: &str| {
        saved
            .texts
            .iter()
            .any(|t| t.trigger() == trigger && t.language == language && t.custom)
    };
    let triggers = pb::NotificationTrigger::NAMES
        .iter()
        .map(|&(trigger, name)| {
            let words = labels::notification_trigger(trigger);
            TriggerRow {
                name,
                words,
                about: labels::notification_trigger_about(trigger),
                cells: COLUMNS
                    .iter()
                    .map(|&(audience, channel)| {
                        let value = rule_value(trigger, audience, channel);
                        RuleCell {
                            checked: draft.rules.contains(&value),
                            value,
                            words: column_words(audience, channel),
                            label: format!("{words}: {}", column_words(audience, channel)),
                        }
                    })
                    .collect(),
                texts: LANGUAGES
                    .iter()
                    .map(|&code| (code, labels::language(code), custom(trigger, code)))
                    .collect(),
            }
        })
        .collect();
    let status = if refusal.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    render(
        SettingsPage {
            layout,
            base: base(state, workspace),
            manages,
            sms_live: answer.sms_live,
            email_live: answer.email_live,
            columns: COLUMNS.iter().map(|&(a, c)| column_words(a, c)).collect(),
            triggers,
            languages: LANGUAGES.iter().map(|&code| (code, labels::language(code))).collect(),
            draft,
            refusal,
        },
        status,
    )
}

/// `…/notifications`: which messages go out, the language, quiet hours,
/// the emails' sender, and links to the texts and the test inbox.
pub(crate) async fn page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ModeQuery>,
) -> Response {
    settings_view(&state, &signed, (&workspace, query.mode()), None, None).await
}

/// Saves the settings form (the texts stay as they are).
pub(crate) async fn save(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let mode = query.mode();
    let draft = Draft::from_form(&form);
    let message = ipb::UpdateNotificationSettingsRequest {
        settings: Some(draft.settings(&workspace)),
    };
    let request = signed.request(message, Some(field(&form, "csrf")));
    match state.notifications.clone().update_notification_settings(request).await {
        Ok(_) => signed.redirect_with(
            Flash::notice("Notification settings saved."),
            &format!("{}?mode={mode}", base(&state, &workspace)),
        ),
        Err(status) if status.code() == tonic::Code::InvalidArgument => {
            let refusal = worded(Refusal::of(&status), &SETTINGS_FIELDS);
            settings_view(&state, &signed, (&workspace, mode), Some(draft), Some(refusal)).await
        }
        Err(status) => signed.failure(&state, &status, &workspace),
    }
}

/// One trigger's texts in one language as the form holds them.
#[derive(Default)]
pub(crate) struct TextDraft {
    sms: String,
    email_subject: String,
    email_body: String,
}

impl TextDraft {
    fn from_form(form: &[(String, String)]) -> TextDraft {
        // A textarea sends its line breaks as CRLF; the core keeps LF.
        let text = |name: &str| field(form, name).replace("\r\n", "\n");
        TextDraft {
            sms: text("sms"),
            email_subject: text("email_subject"),
            email_body: text("email_body"),
        }
    }

    fn message(&self, trigger: pb::NotificationTrigger, language: &str) -> ipb::NotificationText {
        ipb::NotificationText {
            trigger: trigger as i32,
            language: language.to_owned(),
            sms: self.sms.clone(),
            email_subject: self.email_subject.clone(),
            email_body: self.email_body.clone(),
            custom: true,
            reset: false,
        }
    }
}

/// The texts rendered for a sample delivery.
pub(crate) struct Preview {
    sms: String,
    email_subject: String,
    email_body: String,
    /// Rendered from the form's text, not yet saved.
    unsaved: bool,
}

#[derive(Template)]
#[template(path = "notification_text.html")]
pub(crate) struct TextPage {
    layout: Layout,
    base: String,
    manages: bool,
    trigger: &'static str,
    trigger_words: &'static str,
    about: &'static str,
    language: &'static str,
    language_words: &'static str,
    /// `(code, words)` of the other languages, for their links.
    other_languages: Vec<(&'static str, &'static str)>,
    /// The workspace wrote its own text (else the platform's is used).
    custom: bool,
    draft: TextDraft,
    /// `({name}, what it becomes)`.
    placeholders: Vec<(String, String)>,
    preview: Option<Preview>,
    refusal: Option<Refusal>,
    sms_live: bool,
    email_live: bool,
}

impl TextPage {
    /// The refusal's message when it is about `part` (`sms`,
    /// `email_subject`, `email_body`) of this text.
    fn field_error(&self, part: &str) -> Option<&str> {
        let param = format!("templates.{}.{}.{part}", self.language, self.trigger);
        self.refusal.as_ref().and_then(|r| r.at(&param))
    }
}

#[derive(Deserialize)]
pub(crate) struct TextPath {
    workspace: String,
    language: String,
    trigger: String,
}

/// The trigger and language a path names, if it names one.
fn text_of(path: &TextPath) -> Option<(pb::NotificationTrigger, &'static str)> {
    let trigger = pb::NotificationTrigger::from_public_name(&path.trigger)?;
    let language = LANGUAGES.into_iter().find(|code| *code == path.language)?;
    Some((trigger, language))
}

/// The page of a path that names no text.
fn no_such_text(state: &ConsoleState, signed: &Signed, workspace: &str) -> Response {
    let status = courier::errors::to_status(
        courier::errors::ErrorCode::NotFound,
        "Notifications have no such text.",
        None,
    );
    signed.failure(state, &status, workspace)
}

/// The words of a text's part for a refusal: "the SMS text".
const TEXT_PARTS: [(&str, &str); 3] = [
    ("sms", "the SMS text"),
    ("email_subject", "the email subject"),
    ("email_body", "the email body"),
];

/// A refusal of one text in the page's words: its `param`
/// (`templates.en.arriving.sms`) said as the field it names.
fn text_refusal(status: &tonic::Status, trigger: pb::NotificationTrigger, language: &str) -> Refusal {
    let refusal = Refusal::of(status);
    let prefix = format!("templates.{language}.{}.", trigger.public_name().unwrap_or_default());
    let Some(param) = refusal.param.clone() else {
        return refusal;
    };
    let Some((_, words)) = param
        .strip_prefix(&prefix)
        .and_then(|part| TEXT_PARTS.iter().find(|(name, _)| *name == part))
    else {
        return refusal;
    };
    let message = match refusal.message.strip_prefix(param.as_str()) {
        Some(rest) => {
            let mut words = words.to_string();
            words[..1].make_ascii_uppercase();
            format!("{words}{rest}")
        }
        None => refusal.message.replace(param.as_str(), words),
    };
    Refusal {
        param: Some(param),
        message,
    }
}

async fn text_view(
    state: &ConsoleState,
    signed: &Signed,
    (path, mode): (&TextPath, &'static str),
    typed: Option<TextDraft>,
    outcome: Result<Option<Preview>, Refusal>,
) -> Response {
    let Some((trigger, language)) = text_of(path) else {
        return no_such_text(state, signed, &path.workspace);
    };
    let workspace = path.workspace.as_str();
    let answer = match settings(state, signed, workspace).await {
        Ok(answer) => answer,
        Err(status) => return signed.failure(state, &status, workspace),
    };
    let saved = answer
        .settings
        .unwrap_or_default()
        .texts
        .into_iter()
        .find(|t| t.trigger() == trigger && t.language == language)
        .unwrap_or_default();
    let (preview, refusal) = match outcome {
        Ok(Some(preview)) => (Some(preview), None),
        // The saved text's preview, unless the form's was refused.
        Ok(None) => {
            let message = ipb::PreviewNotificationRequest {
                workspace_id: workspace.to_owned(),
                trigger: trigger as i32,
                language: language.to_owned(),
                text: None,
            };
            match state
                .notifications
                .clone()
                .preview_notification(signed.request(message, None))
                .await
            {
                Ok(shown) => {
                    let shown = shown.into_inner();
                    let preview = Preview {
                        sms: shown.sms,
                        email_subject: shown.email_subject,
                        email_body: shown.email_body,
                        unsaved: false,
                    };
                    (Some(preview), None)
                }
                Err(status) => return signed.failure(state, &status, workspace),
            }
        }
        Err(refusal) => (None, Some(refusal)),
    };
    let trigger_words = labels::notification_trigger(trigger);
    let mut layout = layout(
        state,
        signed,
        &format!("{trigger_words} ({})", labels::language(language)),
        workspace,
        mode,
    );
    let manages = layout.workspace.as_ref().is_some_and(|w| w.manages);
    let param = format!("templates.{language}.{}.", path.trigger);
    if let Some(refusal) = refusal
        .as_ref()
        .filter(|r| !r.param.as_deref().is_some_and(|p| p.starts_with(&param)))
    {
        layout.error = Some(refusal.message.clone());
    }
    let status = if refusal.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    let draft = typed.unwrap_or(TextDraft {
        sms: saved.sms,
        email_subject: saved.email_subject,
        email_body: saved.email_body,
    });
    render(
        TextPage {
            layout,
            base: base(state, workspace),
            manages,
            trigger: trigger.public_name().unwrap_or_default(),
            trigger_words,
            about: labels::notification_trigger_about(trigger),
            language,
            language_words: labels::language(language),
            other_languages: LANGUAGES
                .into_iter()
                .filter(|code| *code != language)
                .map(|code| (code, labels::language(code)))
                .collect(),
            custom: saved.custom,
            draft,
            placeholders: answer
                .placeholders
                .into_iter()
                .map(|p| (format!("{{{}}}", p.name), p.description))
                .collect(),
            preview,
            refusal,
            sms_live: answer.sms_live,
            email_live: answer.email_live,
        },
        status,
    )
}

/// `…/notifications/texts/{language}/{trigger}`: the text's form (or, for
/// members, the text) and its preview on a sample delivery.
pub(crate) async fn text_page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(path): Path<TextPath>,
    Query(query): Query<ModeQuery>,
) -> Response {
    text_view(&state, &signed, (&path, query.mode()), None, Ok(None)).await
}

/// The text form: "Preview" shows the typed text on a sample delivery,
/// "Save" keeps it; a refusal (an unknown placeholder) is shown at its
/// field with what was typed kept.
pub(crate) async fn text_post(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(path): Path<TextPath>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let mode = query.mode();
    let Some((trigger, language)) = text_of(&path) else {
        return no_such_text(&state, &signed, &path.workspace);
    };
    let workspace = path.workspace.as_str();
    let typed = TextDraft::from_form(&form);
    let csrf = field(&form, "csrf");
    if field(&form, "action") == "preview" {
        let message = ipb::PreviewNotificationRequest {
            workspace_id: workspace.to_owned(),
            trigger: trigger as i32,
            language: language.to_owned(),
            text: Some(typed.message(trigger, language)),
        };
        let outcome = match state
            .notifications
            .clone()
            .preview_notification(signed.request(message, Some(csrf)))
            .await
        {
            Ok(shown) => {
                let shown = shown.into_inner();
                Ok(Some(Preview {
                    sms: shown.sms,
                    email_subject: shown.email_subject,
                    email_body: shown.email_body,
                    unsaved: true,
                }))
            }
            Err(status) if status.code() == tonic::Code::InvalidArgument => {
                Err(text_refusal(&status, trigger, language))
            }
            Err(status) => return signed.failure(&state, &status, workspace),
        };
        return text_view(&state, &signed, (&path, mode), Some(typed), outcome).await;
    }
    // Saved over the settings as they are: the update replaces the rules
    // and the rest whole, and changes only the texts it gives.
    let current = match settings(&state, &signed, workspace).await {
        Ok(answer) => answer.settings.unwrap_or_default(),
        Err(status) => return signed.failure(&state, &status, workspace),
    };
    // "Use the platform's text" drops the workspace's own.
    let reset = field(&form, "action") == "reset";
    let text = ipb::NotificationText {
        reset,
        ..typed.message(trigger, language)
    };
    let message = ipb::UpdateNotificationSettingsRequest {
        settings: Some(ipb::NotificationSettings {
            workspace_id: workspace.to_owned(),
            texts: vec![text],
            ..current
        }),
    };
    match state
        .notifications
        .clone()
        .update_notification_settings(signed.request(message, Some(csrf)))
        .await
    {
        Ok(_) => signed.redirect_with(
            Flash::notice(format!(
                "The texts for \u{201c}{}\u{201d} in {} are {}.",
                labels::notification_trigger(trigger),
                labels::language(language),
                if reset { "the platform's again" } else { "saved" }
            )),
            &format!(
                "{}/texts/{language}/{}?mode={mode}",
                base(&state, workspace),
                path.trigger
            ),
        ),
        Err(status) if status.code() == tonic::Code::InvalidArgument => {
            let refusal = text_refusal(&status, trigger, language);
            text_view(&state, &signed, (&path, mode), Some(typed), Err(refusal)).await
        }
        Err(status) => signed.failure(&state, &status, workspace),
    }
}

/// One message of the test inbox.
pub(crate) struct MessageRow {
    id: String,
    trigger: &'static str,
    audience: &'static str,
    /// `sms` or `email`, for the page's styles.
    channel: &'static str,
    channel_words: &'static str,
    address: String,
    status: &'static str,
    status_words: &'static str,
    language: &'static str,
    created_at: Moment,
    subject: String,
    body: String,
    error: String,
    delivery_id: String,
}

impl MessageRow {
    fn of(message: &pb::Notification, zone: crate::times::Zone) -> MessageRow {
        MessageRow {
            id: message.id.clone(),
            trigger: labels::notification_trigger(message.trigger()),
            audience: labels::notification_audience(message.audience()),
            channel: message.channel().public_name().unwrap_or("sms"),
            channel_words: labels::notification_channel(message.channel()),
            address: message.address.clone(),
            status: message.status().public_name().unwrap_or("queued"),
            status_words: labels::notification_status(message.status()),
            language: labels::language(&message.language),
            created_at: zone.minute(message.created_at.as_ref(), ""),
            subject: message.subject.clone().unwrap_or_default(),
            body: message.body.clone(),
            error: message.error.clone().unwrap_or_default(),
            delivery_id: message.delivery_id.clone(),
        }
    }
}

#[derive(Template)]
#[template(path = "notification_inbox.html")]
pub(crate) struct InboxPage {
    layout: Layout,
    base: String,
    workspace_id: String,
    messages: Vec<MessageRow>,
    next_page: Option<String>,
    first_page: bool,
}

#[derive(Deserialize)]
pub(crate) struct InboxQuery {
    mode: Option<String>,
    page_token: Option<String>,
}

/// `…/notifications/inbox`: the workspace's test-mode messages, newest
/// first, in pages.
pub(crate) async fn inbox_page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<InboxQuery>,
) -> Response {
    let mode = mode_named(query.mode.as_deref());
    let page_token = query.page_token.clone().unwrap_or_default();
    let message = ipb::ListTestMessagesRequest {
        workspace_id: workspace.clone(),
        page_size: INBOX_PAGE,
        page_token: page_token.clone(),
    };
    let answer = match state
        .notifications
        .clone()
        .list_test_messages(signed.request(message, None))
        .await
    {
        Ok(answer) => answer.into_inner(),
        Err(status) => return signed.failure(&state, &status, &workspace),
    };
    let zone = signed.zone(Some(&workspace));
    render(
        InboxPage {
            layout: layout(&state, &signed, "Test inbox", &workspace, mode),
            base: base(&state, &workspace),
            workspace_id: workspace.clone(),
            messages: answer.messages.iter().map(|m| MessageRow::of(m, zone)).collect(),
            next_page: next_page(&answer.next_page_token).map(|token| format!("mode={mode}&page_token={token}")),
            first_page: page_token.is_empty(),
        },
        StatusCode::OK,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_text_is_named_as_its_field() {
        let status = courier::errors::to_status(
            courier::errors::ErrorCode::InvalidRequest,
            "Unknown placeholder {nickname} in templates.en.courier_assigned.sms; use {business_name}.",
            Some("templates.en.courier_assigned.sms"),
        );
        let refusal = text_refusal(&status, pb::NotificationTrigger::CourierAssigned, "en");
        assert_eq!(
            refusal.message,
            "Unknown placeholder {nickname} in the SMS text; use {business_name}."
        );
        assert_eq!(refusal.param.as_deref(), Some("templates.en.courier_assigned.sms"));
        let status = courier::errors::to_status(
            courier::errors::ErrorCode::InvalidRequest,
            "templates.de.delayed.email_body must not be empty.",
            Some("templates.de.delayed.email_body"),
        );
        let refusal = text_refusal(&status, pb::NotificationTrigger::Delayed, "de");
        assert_eq!(refusal.message, "The email body must not be empty.");
    }

    #[test]
    fn the_settings_form_reads_back_its_rules() {
        let form: Vec<(String, String)> = [
            ("rule", "arriving.recipient.sms"),
            ("rule", "failed.sender.email"),
            ("rule", "teleported.recipient.sms"),
            ("language", "de"),
            ("quiet", "on"),
            ("quiet_start", "22:00"),
            ("quiet_end", "07:30"),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        let settings = Draft::from_form(&form).settings("wks_1");
        assert_eq!(settings.rules.len(), 2, "an unknown trigger is left out");
        assert_eq!(settings.rules[1].trigger(), pb::NotificationTrigger::Failed);
        assert_eq!(settings.rules[1].channel(), pb::NotificationChannel::Email);
        let quiet = settings.quiet_hours.expect("quiet hours on");
        assert_eq!((quiet.start.as_str(), quiet.end.as_str()), ("22:00", "07:30"));
        let refusal = worded(
            Refusal {
                param: Some("reply_to".into()),
                message: "reply_to is not an email address.".into(),
            },
            &SETTINGS_FIELDS,
        );
        assert_eq!(refusal.message, "The reply-to address is not an email address.");
    }
}
