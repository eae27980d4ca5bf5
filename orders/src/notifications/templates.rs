//! The texts of messages: one per trigger and language, with placeholders
//! in braces (`{tracking_url}`), the English and German texts the platform
//! ships, and the one renderer. No storage: `settings` keeps a workspace's
//! own texts.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Language, Trigger};
use courier_store::{CoreError, CoreResult};

/// The placeholders a text may use, each with what it becomes.
pub const PLACEHOLDERS: [(&str, &str); 8] = [
    ("business_name", "the workspace's name"),
    ("recipient_name", "the dropoff contact's name"),
    ("sender_name", "the pickup contact's name"),
    ("courier_first_name", "the courier's first name"),
    ("eta", "the expected dropoff, in the area's local time (14:35)"),
    ("tracking_url", "the delivery's tracking page"),
    ("dropoff_address", "the dropoff address"),
    ("external_id", "the business's own reference, when it gave one"),
];

/// An SMS text is at most this long (four segments of a long message).
pub const MAX_SMS_CHARS: usize = 612;
pub const MAX_SUBJECT_CHARS: usize = 200;
pub const MAX_EMAIL_CHARS: usize = 5_000;

/// One trigger's texts in one language.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Text {
    pub sms: String,
    pub email_subject: String,
    pub email_body: String,
}

/// What the placeholders of one message become.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Values(pub BTreeMap<&'static str, String>);

impl Values {
    /// A made-up delivery, for previews.
    pub fn sample(business_name: &str, language: Language) -> Values {
        let eta = "14:35".to_owned();
        let (recipient, sender, courier) = match language {
            Language::En => ("Jana Novak", "Corner Bakery", "Sam"),
            Language::De => ("Jana Nowak", "Bäckerei am Eck", "Sami"),
        };
        Values(BTreeMap::from([
            ("business_name", business_name.to_owned()),
            ("recipient_name", recipient.to_owned()),
            ("sender_name", sender.to_owned()),
            ("courier_first_name", courier.to_owned()),
            ("eta", eta),
            ("tracking_url", "https://courier.example/t/sample".to_owned()),
            ("dropoff_address", "Oranienstraße 25, 10999 Berlin".to_owned()),
            ("external_id", "ORDER-1042".to_owned()),
        ]))
    }
}

/// `text` with every placeholder replaced; one without a value becomes
/// empty (an `external_id` the business never gave).
pub fn render(text: &str, values: &Values) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) if is_name(&after[..close]) => {
                if let Some(value) = values.0.get(&after[..close]) {
                    out.push_str(value);
                }
                rest = &after[close + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn is_name(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_lowercase() || c == '_')
}

/// The placeholders `text` uses, in order.
fn placeholders(text: &str) -> impl Iterator<Item = &str> {
    text.split('{').skip(1).filter_map(|part| {
        let (name, _) = part.split_once('}')?;
        is_name(name).then_some(name)
    })
}

/// Checks one text a workspace saves: not empty, within `max` characters,
/// and every placeholder one of [`PLACEHOLDERS`] (an unknown one is refused
/// by name, naming `param`).
pub fn check(param: &str, text: &str, max: usize) -> CoreResult<()> {
    if text.trim().is_empty() {
        return Err(CoreError::invalid(param, format!("{param} must not be empty.")));
    }
    if text.chars().count() > max {
        return Err(CoreError::invalid(
            param,
            format!("{param} must be at most {max} characters."),
        ));
    }
    for name in placeholders(text) {
        if !PLACEHOLDERS.iter().any(|(known, _)| *known == name) {
            let known: Vec<String> = PLACEHOLDERS.iter().map(|(n, _)| format!("{{{n}}}")).collect();
            return Err(CoreError::invalid(
                param,
                format!("Unknown placeholder {{{name}}} in {param}; use {}.", known.join(", ")),
            ));
        }
    }
    Ok(())
}

/// The platform's text of `trigger` in `language`.
pub fn shipped(trigger: Trigger, language: Language) -> Text {
    let (sms, subject, body) = match (language, trigger) {
        (Language::En, Trigger::CourierAssigned) => (
            "{business_name}: {courier_first_name} is on the way with your delivery, expected at {eta}. Follow it: {tracking_url}",
            "{business_name}: your delivery is on its way",
            "Hello {recipient_name},\n\n{courier_first_name} is bringing your delivery from {business_name}, expected at {eta}.\n\nFollow it live: {tracking_url}",
        ),
        (Language::En, Trigger::PickedUp) => (
            "{business_name}: {courier_first_name} picked up your delivery, expected at {eta}. {tracking_url}",
            "{business_name}: your delivery was picked up",
            "Hello {recipient_name},\n\n{courier_first_name} picked up your delivery from {business_name}. It is expected at {eta}.\n\nFollow it live: {tracking_url}",
        ),
        (Language::En, Trigger::Arriving) => (
            "{business_name}: {courier_first_name} is arriving with your delivery in a few minutes. {tracking_url}",
            "{business_name}: your delivery is arriving",
            "Hello {recipient_name},\n\n{courier_first_name} is a few minutes away from {dropoff_address} with your delivery from {business_name}.\n\n{tracking_url}",
        ),
        (Language::En, Trigger::Delivered) => (
            "{business_name}: your delivery was delivered. Thank you!",
            "{business_name}: delivered",
            "Hello {recipient_name},\n\nyour delivery from {business_name} was delivered to {dropoff_address}.\n\nDetails: {tracking_url}",
        ),
        (Language::En, Trigger::Delayed) => (
            "{business_name}: your delivery is running late, now expected at {eta}. {tracking_url}",
            "{business_name}: your delivery is running late",
            "Hello {recipient_name},\n\nwe are sorry: your delivery from {business_name} is running late. It is now expected at {eta}.\n\nFollow it live: {tracking_url}",
        ),
        (Language::En, Trigger::Failed) => (
            "{business_name}: we could not deliver your delivery today. {business_name} will be in touch.",
            "{business_name}: your delivery could not be completed",
            "Hello {recipient_name},\n\nwe could not deliver your delivery from {business_name} to {dropoff_address}. {business_name} will be in touch about what happens next.\n\n{tracking_url}",
        ),
        (Language::De, Trigger::CourierAssigned) => (
            "{business_name}: {courier_first_name} ist mit Ihrer Lieferung unterwegs, erwartet um {eta}. Verfolgen: {tracking_url}",
            "{business_name}: Ihre Lieferung ist unterwegs",
            "Hallo {recipient_name},\n\n{courier_first_name} bringt Ihre Lieferung von {business_name}, erwartet um {eta}.\n\nLive verfolgen: {tracking_url}",
        ),
        (Language::De, Trigger::PickedUp) => (
            "{business_name}: {courier_first_name} hat Ihre Lieferung abgeholt, erwartet um {eta}. {tracking_url}",
            "{business_name}: Ihre Lieferung wurde abgeholt",
            "Hallo {recipient_name},\n\n{courier_first_name} hat Ihre Lieferung von {business_name} abgeholt. Sie wird um {eta} erwartet.\n\nLive verfolgen: {tracking_url}",
        ),
        (Language::De, Trigger::Arriving) => (
            "{business_name}: {courier_first_name} ist in wenigen Minuten mit Ihrer Lieferung da. {tracking_url}",
            "{business_name}: Ihre Lieferung ist gleich da",
            "Hallo {recipient_name},\n\n{courier_first_name} ist wenige Minuten von {dropoff_address} entfernt, mit Ihrer Lieferung von {business_name}.\n\n{tracking_url}",
        ),
        (Language::De, Trigger::Delivered) => (
            "{business_name}: Ihre Lieferung wurde zugestellt. Vielen Dank!",
            "{business_name}: zugestellt",
            "Hallo {recipient_name},\n\nIhre Lieferung von {business_name} wurde an {dropoff_address} zugestellt.\n\nDetails: {tracking_url}",
        ),
        (Language::De, Trigger::Delayed) => (
            "{business_name}: Ihre Lieferung verspätet sich, jetzt erwartet um {eta}. {tracking_url}",
            "{business_name}: Ihre Lieferung verspätet sich",
            "Hallo {recipient_name},\n\nes tut uns leid: Ihre Lieferung von {business_name} verspätet sich. Sie wird jetzt um {eta} erwartet.\n\nLive verfolgen: {tracking_url}",
        ),
        (Language::De, Trigger::Failed) => (
            "{business_name}: Ihre Lieferung konnte heute nicht zugestellt werden. {business_name} meldet sich bei Ihnen.",
            "{business_name}: Ihre Lieferung konnte nicht zugestellt werden",
            "Hallo {recipient_name},\n\nIhre Lieferung von {business_name} an {dropoff_address} konnte nicht zugestellt werden. {business_name} meldet sich bei Ihnen, wie es weitergeht.\n\n{tracking_url}",
        ),
    };
    Text {
        sms: sms.to_owned(),
        email_subject: subject.to_owned(),
        email_body: body.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_text_passes_its_own_check() {
        for trigger in Trigger::ALL {
            for language in Language::ALL {
                let text = shipped(trigger, language);
                check("sms", &text.sms, MAX_SMS_CHARS).expect("a test value");
                check("email_subject", &text.email_subject, MAX_SUBJECT_CHARS).expect("a test value");
                check("email_body", &text.email_body, MAX_EMAIL_CHARS).expect("a test value");
            }
        }
    }

    #[test]
    fn placeholders_are_replaced_and_stray_braces_kept() {
        let values = Values::sample("Acme", Language::En);
        assert_eq!(
            render("{business_name}: {eta} {unknown} {a b} {", &values),
            "Acme: 14:35  {a b} {"
        );
    }

    #[test]
    fn an_unknown_placeholder_is_refused_by_name() {
        let error = check("templates.en.arriving.sms", "Hi {first_name}", MAX_SMS_CHARS).expect_err("refused");
        let text = error.to_string();
        assert!(text.contains("{first_name}"), "{text}");
        assert!(text.contains("templates.en.arriving.sms"), "{text}");
    }
}
