//! What the platform accepts of a name, a text, a phone number or an email
//! address (docs/guide.md "Conventions", "Limits"): the rules every request
//! field passes, for accounts here and for deliveries, couriers and the
//! server's request check above. Every refusal names its field.

use courier::limits::{self, Chars};
use courier_store::{CoreError, CoreResult};

/// Within `limit` (characters), else `invalid_request`.
pub fn text_within(param: &str, value: &str, limit: Chars) -> CoreResult<()> {
    text_length(param, value, limit.min, limit.max)
}

/// `min..=max` characters (Unicode scalar values), else `invalid_request`.
pub fn text_length(param: &str, value: &str, min: usize, max: usize) -> CoreResult<()> {
    let count = value.chars().count();
    if count < min || count > max {
        let rule = if min == 0 {
            format!("at most {max}")
        } else {
            format!("{min} to {max}")
        };
        return Err(CoreError::invalid(
            param,
            format!("{param} must be {rule} characters (got {count})."),
        ));
    }
    Ok(())
}

/// What a text field may hold besides printable characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextKind {
    /// Written by people to be read by people (an address, instructions,
    /// notes, a description): tabs and line breaks are part of it.
    Free,
    /// Everything else (names, ids, codes, filters, URLs): one line.
    Line,
}

/// Whether a request field called `name` holds free text
/// (`limits::FREE_TEXT_FIELDS`).
pub fn text_kind(name: &str) -> TextKind {
    if limits::FREE_TEXT_FIELDS.contains(&name) {
        TextKind::Free
    } else {
        TextKind::Line
    }
}

/// Whether `bytes` are valid text of a request field (docs/guide.md
/// "Conventions"): UTF-8 without a control character (NUL, the other C0
/// controls, DEL, the C1 controls), except tab, line feed and carriage
/// return in free text. PostgreSQL refuses a NUL and SQLite would keep it
/// unseen; the others break log lines, CSV files and pages. Applied to every
/// string of every request before a handler reads it
/// (`courier_server::grpc::request_text`).
pub fn is_text(bytes: &[u8], kind: TextKind) -> bool {
    std::str::from_utf8(bytes).is_ok_and(|text| forbidden_character(text, kind).is_none())
}

/// [`is_text`], else `invalid_request` about `param` saying why not.
pub fn text(param: &str, bytes: &[u8], kind: TextKind) -> CoreResult<()> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Err(CoreError::invalid(param, format!("{param} is not valid UTF-8 text.")));
    };
    match forbidden_character(text, kind) {
        Some(control) => Err(CoreError::invalid(
            param,
            format!(
                "{param} must not contain control characters (found U+{:04X}).",
                u32::from(control)
            ),
        )),
        None => Ok(()),
    }
}

fn forbidden_character(text: &str, kind: TextKind) -> Option<char> {
    let allowed = |c: char| kind == TextKind::Free && matches!(c, '\t' | '\n' | '\r');
    text.chars().find(|&c| c.is_control() && !allowed(c))
}

/// 5 to 32 characters in international format: `+`, then at least four
/// digits with optional spaces, dashes, dots or parentheses
/// (`limits::PHONE_PATTERN`).
pub fn phone(param: &str, phone: &str) -> CoreResult<()> {
    text_within(param, phone, limits::PHONE)?;
    if !is_phone_spelling(phone) {
        return Err(CoreError::invalid(
            param,
            "phone must be in international format, e.g. +49 30 1234567.",
        ));
    }
    Ok(())
}

/// Whether `phone` is spelt as an international number, whatever its
/// length: `+`, then digits (4 at least) and the separators people type.
pub fn is_phone_spelling(phone: &str) -> bool {
    let digits = phone.chars().filter(char::is_ascii_digit).count();
    let allowed = phone
        .chars()
        .skip(1)
        .all(|c| c.is_ascii_digit() || matches!(c, ' ' | '-' | '.' | '(' | ')'));
    phone.starts_with('+') && allowed && digits >= 4
}

/// A plausible address: one `@`, a non-empty local part, a dotted domain and
/// no white space (`limits::EMAIL_PATTERN`).
pub fn email(param: &str, email: &str) -> CoreResult<()> {
    let valid = (limits::EMAIL.min..=limits::EMAIL.max).contains(&email.chars().count())
        && !email.chars().any(char::is_whitespace)
        && email.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && !domain.contains('@')
                && domain.split('.').count() >= 2
                && domain.split('.').all(|label| !label.is_empty())
        });
    if !valid {
        return Err(CoreError::invalid(param, "email must be an email address."));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param_of(result: CoreResult<()>) -> Option<String> {
        match result {
            Err(CoreError::Rejected { param, .. }) => param,
            _ => None,
        }
    }

    #[test]
    fn phone_and_email_formats() {
        assert!(phone("p", "+4930").is_ok());
        assert!(phone("p", "+49 (30) 123-4567").is_ok());
        assert!(phone("p", "030 1234567").is_err());
        assert!(phone("p", "+49").is_err());
        assert!(phone("p", &format!("+{}", "1".repeat(31))).is_ok());
        assert!(phone("p", &format!("+{}", "1".repeat(32))).is_err());
        assert!(email("e", "a@b.de").is_ok());
        assert!(email("e", "a@b").is_err());
        assert!(email("e", "a b@c.de").is_err());
        assert!(email("e", "@c.de").is_err());
    }

    #[test]
    fn text_refuses_controls_but_lets_free_text_break_lines() {
        let free = |text: &str| text_of("notes", text, TextKind::Free);
        assert_eq!(free("Ring twice.\nThen wait.\r\n\tThanks"), None);
        assert_eq!(text_of("name", "Käse 🚚", TextKind::Line), None);
        for bad in ["a\u{0}b", "\u{1b}[31m", "x\u{7f}", "\u{85}"] {
            assert_eq!(free(bad).as_deref(), Some("notes"), "{bad:?}");
        }
        for line_break in ["a\nb", "a\tb", "a\rb"] {
            assert!(text_of("name", line_break, TextKind::Line).is_some(), "{line_break:?}");
        }
        assert_eq!(text_kind("instructions"), TextKind::Free);
        assert_eq!(text_kind("external_id"), TextKind::Line);
        assert!(text("id", b"del_\xff", TextKind::Line).is_err());
        assert!(!is_text(b"del_\xff", TextKind::Line));
        assert!(is_text(b"del_1", TextKind::Line));
    }

    fn text_of(param: &str, value: &str, kind: TextKind) -> Option<String> {
        assert_eq!(
            is_text(value.as_bytes(), kind),
            text(param, value.as_bytes(), kind).is_ok()
        );
        param_of(text(param, value.as_bytes(), kind))
    }

    proptest::proptest! {
        /// The text patterns the OpenAPI document states accept exactly
        /// what the text check accepts.
        #[test]
        fn documented_text_patterns_agree_with_the_check(text in "[a\u{0}-\u{1f}\u{7f}-\u{a0}é]{0,8}") {
            for (kind, pattern) in [(TextKind::Line, limits::TEXT_PATTERN), (TextKind::Free, limits::FREE_TEXT_PATTERN)] {
                let pattern = regex::Regex::new(pattern).expect("text pattern");
                proptest::prop_assert_eq!(is_text(text.as_bytes(), kind), pattern.is_match(&text), "{:?} {:?}", kind, text);
            }
        }

        /// The patterns the OpenAPI document states accept exactly what
        /// the checks accept (lengths aside, which both take from `limits`).
        #[test]
        fn documented_patterns_agree_with_the_checks(
            phone_text in "[+]?[0-9 ().a-]{4,31}",
            email_text in "[a-z@. ]{1,12}",
        ) {
            let phone_pattern = regex::Regex::new(limits::PHONE_PATTERN).expect("phone pattern");
            proptest::prop_assert_eq!(phone("p", &phone_text).is_ok(), phone_pattern.is_match(&phone_text), "{}", phone_text);
            let email_pattern = regex::Regex::new(limits::EMAIL_PATTERN).expect("email pattern");
            let fits = (limits::EMAIL.min..=limits::EMAIL.max).contains(&email_text.chars().count());
            proptest::prop_assert_eq!(email("e", &email_text).is_ok(), fits && email_pattern.is_match(&email_text), "{}", email_text);
        }
    }
}
