//! What Twilio posts to us: message status callbacks and inbound texts,
//! each signed with `X-Twilio-Signature` under our account's auth token
//! (Twilio's "Webhooks security" guide). A callback is acted on only once
//! [`verify`] holds: its URL is public, so anyone can post to it.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{KeyInit, Mac};

/// The header Twilio signs its requests with.
pub const HEADER: &str = "X-Twilio-Signature";

type HmacSha1 = hmac::Hmac<sha1::Sha1>;

/// X-Twilio-Signature as Twilio documents it: base64(HMAC-SHA1(auth_token,
/// url + concat of sorted (key+value) POST params)). `url` is the full URL
/// Twilio was given, query string included, exactly as configured.
pub fn sign(auth_token: &str, url: &str, params: &[(String, String)]) -> String {
    BASE64.encode(mac(auth_token, url, params).finalize().into_bytes())
}

/// Whether `signature` is [`sign`]'s for this request; compared in constant
/// time, so that an attacker learns nothing from how long a refusal took.
pub fn verify(auth_token: &str, url: &str, params: &[(String, String)], signature: &str) -> bool {
    let Ok(claimed) = BASE64.decode(signature.trim()) else {
        return false;
    };
    mac(auth_token, url, params).verify_slice(&claimed).is_ok()
}

/// The MAC over `url` and the parameters sorted by name (a repeated name
/// by value, as Twilio's own libraries sort them), each name right before
/// its value.
fn mac(auth_token: &str, url: &str, params: &[(String, String)]) -> HmacSha1 {
    let mut sorted: Vec<&(String, String)> = params.iter().collect();
    sorted.sort();
    // HMAC takes a key of any length: this cannot fail.
    let mut mac = HmacSha1::new_from_slice(auth_token.as_bytes()).expect("HMAC accepts any key length");
    mac.update(url.as_bytes());
    for (name, value) in sorted {
        mac.update(name.as_bytes());
        mac.update(value.as_bytes());
    }
    mac
}

/// A status callback's form (MessageSid, MessageStatus, ErrorCode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusCallback {
    pub message_sid: String,
    /// `queued`, `sent`, `delivered`, `undelivered`, `failed`, …
    pub status: String,
    /// Twilio's error code when the message failed or was not delivered
    /// (30003: unreachable handset, …).
    pub error_code: Option<String>,
}

/// The status callback in a verified form, or `None` when the form is not
/// one (no MessageSid or MessageStatus).
pub fn status_callback(params: &[(String, String)]) -> Option<StatusCallback> {
    Some(StatusCallback {
        message_sid: param(params, "MessageSid")?.to_owned(),
        status: param(params, "MessageStatus")?.to_owned(),
        error_code: param(params, "ErrorCode")
            .filter(|code| !code.is_empty())
            .map(str::to_owned),
    })
}

/// An inbound message's form (From, To, Body): whether it is one of
/// Twilio's opt-out keywords (STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT,
/// case-insensitive, trimmed) or opt-in (START, UNSTOP, YES). Twilio acts on
/// these itself (it stops delivering to a number that sent STOP and answers
/// 21610 to our sends), so the platform records them to stop trying too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inbound {
    OptOut { from: String },
    OptIn { from: String },
    Other { from: String },
}

const OPT_OUT: [&str; 6] = ["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT"];
const OPT_IN: [&str; 3] = ["START", "UNSTOP", "YES"];

/// The inbound text in a verified form, or `None` when the form has no
/// From.
pub fn inbound(params: &[(String, String)]) -> Option<Inbound> {
    let from = param(params, "From")?.to_owned();
    let body = param(params, "Body").unwrap_or_default().trim();
    let is = |keywords: &[&str]| keywords.iter().any(|word| body.eq_ignore_ascii_case(word));
    Some(if is(&OPT_OUT) {
        Inbound::OptOut { from }
    } else if is(&OPT_IN) {
        Inbound::OptIn { from }
    } else {
        Inbound::Other { from }
    })
}

fn param<'a>(params: &'a [(String, String)], name: &str) -> Option<&'a str> {
    params
        .iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect()
    }

    /// The worked example of Twilio's "Webhooks security" guide.
    #[test]
    fn twilios_documented_example_signs_and_verifies() {
        let url = "https://mycompany.com/myapp.php?foo=1&bar=2";
        // Out of order on purpose: the signature sorts them.
        let params = form(&[
            ("To", "+18005551212"),
            ("CallSid", "CA1234567890ABCDE"),
            ("Digits", "1234"),
            ("From", "+12349013030"),
            ("Caller", "+12349013030"),
        ]);
        assert_eq!(sign("12345", url, &params), "0/KCTR6DLpKmkAf8muzZqo1nDgQ=");
        assert!(verify("12345", url, &params, "0/KCTR6DLpKmkAf8muzZqo1nDgQ="));

        assert!(
            !verify("12346", url, &params, "0/KCTR6DLpKmkAf8muzZqo1nDgQ="),
            "another token"
        );
        assert!(
            !verify(
                "12345",
                "https://mycompany.com/myapp.php?foo=1&bar=3",
                &params,
                "0/KCTR6DLpKmkAf8muzZqo1nDgQ="
            ),
            "another URL"
        );
        let mut tampered = params.clone();
        tampered[2].1 = "9999".into();
        assert!(
            !verify("12345", url, &tampered, "0/KCTR6DLpKmkAf8muzZqo1nDgQ="),
            "another Digits"
        );
        assert!(
            !verify("12345", url, &params, "0/KCTR6DLpKmkAf8muzZqo1nDgQ"),
            "cut short"
        );
        assert!(!verify("12345", url, &params, "not base64!"));
        assert!(!verify("12345", url, &params, ""));
    }

    #[test]
    fn a_status_callback_is_read_with_its_error_code_when_there_is_one() {
        let delivered = form(&[
            ("MessageSid", "SM0123"),
            ("MessageStatus", "delivered"),
            ("AccountSid", "AC1"),
            ("ErrorCode", ""),
        ]);
        assert_eq!(
            status_callback(&delivered),
            Some(StatusCallback {
                message_sid: "SM0123".into(),
                status: "delivered".into(),
                error_code: None
            })
        );
        let failed = form(&[
            ("MessageStatus", "undelivered"),
            ("MessageSid", "SM0123"),
            ("ErrorCode", "30003"),
        ]);
        assert_eq!(
            status_callback(&failed).and_then(|callback| callback.error_code),
            Some("30003".into())
        );
        assert_eq!(status_callback(&form(&[("MessageSid", "SM0123")])), None);
        assert_eq!(status_callback(&form(&[("MessageStatus", "sent")])), None);
    }

    #[test]
    fn inbound_keywords_are_whole_trimmed_words_in_any_case() {
        let text = |body: &str| inbound(&form(&[("From", "+4915112345678"), ("To", "+4930123"), ("Body", body)]));
        let from = "+4915112345678".to_string();
        for body in ["STOP", " stop\n", "StopAll", "unsubscribe", "Cancel", "end", "QUIT"] {
            assert_eq!(text(body), Some(Inbound::OptOut { from: from.clone() }), "{body:?}");
        }
        for body in ["START", "unstop", " Yes "] {
            assert_eq!(text(body), Some(Inbound::OptIn { from: from.clone() }), "{body:?}");
        }
        for body in ["please stop", "STOP!", "HELP", "", "yes please"] {
            assert_eq!(text(body), Some(Inbound::Other { from: from.clone() }), "{body:?}");
        }
        assert_eq!(inbound(&form(&[("Body", "STOP")])), None, "no From");
    }
}
