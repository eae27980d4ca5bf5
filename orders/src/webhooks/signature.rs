//! Webhook signatures, following the Standard Webhooks specification
//! (<https://www.standardwebhooks.com>), so that any Standard Webhooks verifier
//! library accepts our requests without custom code (docs/guide.md "Webhooks").
//!
//! - The endpoint secret is `whsec_` followed by the base64 of the raw key; the
//!   HMAC key is the decoded part, not the text.
//! - The signed content is `{webhook-id}.{webhook-timestamp}.{raw body}`, the
//!   timestamp in unix seconds; signing the timestamp lets receivers refuse
//!   replays of old requests.
//! - The `webhook-signature` header holds `v1,<base64 HMAC-SHA256>`; a header may
//!   carry several space-separated signatures (for example during a secret
//!   rotation) and a receiver accepts the request when any one matches.
//!
//! [`verify`] is written as a receiver would write it (it parses the header
//! rather than re-using [`sign`]), so the unit tests check the sender against an
//! independent reading of the specification and its published test vector.

use base64::Engine;
use base64::alphabet;
use base64::engine::DecodePaddingMode;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use hmac::{Hmac, KeyInit, Mac};
use rand::Rng;
use sha2::Sha256;

use courier_store::error::{CoreError, CoreResult};

/// Header carrying the message id (the event id; stable across retries).
pub const HEADER_WEBHOOK_ID: &str = "webhook-id";
/// Header carrying the signing time in unix seconds.
pub const HEADER_WEBHOOK_TIMESTAMP: &str = "webhook-timestamp";
/// Header carrying the space-separated `v1,<base64>` signatures.
pub const HEADER_WEBHOOK_SIGNATURE: &str = "webhook-signature";

/// Prefix of every endpoint secret.
pub const SECRET_PREFIX: &str = "whsec_";

/// Version tag of HMAC-SHA256 signatures in the signature header.
const SIGNATURE_VERSION: &str = "v1";

/// Number of random key bytes in a new secret (the SHA-256 output size).
const SECRET_KEY_BYTES: usize = 32;

/// Standard alphabet; decoding accepts the key with or without `=` padding,
/// since secrets written by hand or by other tools are not always padded.
const LENIENT_STANDARD: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

type HmacSha256 = Hmac<Sha256>;

/// The three signing headers of one webhook request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedHeaders {
    /// Value of `webhook-id`.
    pub webhook_id: String,
    /// Value of `webhook-timestamp` (unix seconds).
    pub webhook_timestamp: String,
    /// Value of `webhook-signature` (`v1,<base64>`).
    pub webhook_signature: String,
}

/// A fresh endpoint secret: `whsec_` and the base64 (standard alphabet, padded)
/// of 32 random bytes from the thread-local CSPRNG.
pub fn new_secret() -> String {
    let mut key = [0u8; SECRET_KEY_BYTES];
    rand::rng().fill_bytes(&mut key);
    format!("{SECRET_PREFIX}{}", STANDARD.encode(key))
}

/// The `webhook-signature` value (`v1,<base64>`) of `body` sent as message
/// `msg_id` at `timestamp` (unix seconds).
///
/// A secret that is not `whsec_<base64>` is a stored-data bug, hence
/// [`CoreError::Internal`].
pub fn sign(secret: &str, msg_id: &str, timestamp: i64, body: &[u8]) -> CoreResult<String> {
    let mac = signed_content_mac(secret, msg_id, &timestamp.to_string(), body)
        .ok_or_else(|| CoreError::Internal("webhook secret is not a valid whsec_ secret".into()))?;
    let signature = STANDARD.encode(mac.finalize().into_bytes());
    Ok(format!("{SIGNATURE_VERSION},{signature}"))
}

/// All three signing headers for one request.
pub fn headers(secret: &str, msg_id: &str, timestamp: i64, body: &[u8]) -> CoreResult<SignedHeaders> {
    Ok(SignedHeaders {
        webhook_id: msg_id.to_owned(),
        webhook_timestamp: timestamp.to_string(),
        webhook_signature: sign(secret, msg_id, timestamp, body)?,
    })
}

/// Whether a received request is authentic, as a Standard Webhooks receiver
/// checks it: `timestamp` (the `webhook-timestamp` header) must be an integer
/// within `tolerance_secs` of `now` in either direction, and at least one `v1`
/// signature of `signature_header` must match (compared in constant time).
/// Signatures of other versions are ignored; a malformed secret never verifies.
pub fn verify(
    secret: &str,
    msg_id: &str,
    timestamp: &str,
    signature_header: &str,
    body: &[u8],
    now: i64,
    tolerance_secs: i64,
) -> bool {
    let Ok(sent_at) = timestamp.parse::<i64>() else {
        return false;
    };
    let Ok(tolerance) = u64::try_from(tolerance_secs) else {
        return false;
    };
    if now.abs_diff(sent_at) > tolerance {
        return false;
    }
    let Some(expected) = signed_content_mac(secret, msg_id, timestamp, body) else {
        return false;
    };
    signature_header
        .split(' ')
        .filter_map(|entry| entry.split_once(','))
        .filter(|(version, _)| *version == SIGNATURE_VERSION)
        .filter_map(|(_, encoded)| LENIENT_STANDARD.decode(encoded).ok())
        .any(|candidate| expected.clone().verify_slice(&candidate).is_ok())
}

/// The HMAC key of a `whsec_<base64>` secret; `None` when the prefix is
/// missing, the base64 is invalid or the key is empty.
fn secret_key(secret: &str) -> Option<Vec<u8>> {
    let encoded = secret.strip_prefix(SECRET_PREFIX)?;
    LENIENT_STANDARD.decode(encoded).ok().filter(|key| !key.is_empty())
}

/// An HMAC-SHA256 that has absorbed `{msg_id}.{timestamp}.{body}`.
fn signed_content_mac(secret: &str, msg_id: &str, timestamp: &str, body: &[u8]) -> Option<HmacSha256> {
    let key = secret_key(secret)?;
    let mut mac = <HmacSha256 as KeyInit>::new_from_slice(&key).ok()?;
    mac.update(msg_id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.as_bytes());
    mac.update(b".");
    mac.update(body);
    Some(mac)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test vector published with the Standard Webhooks reference libraries.
    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const MSG_ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const TIMESTAMP: i64 = 1_614_265_330;
    const BODY: &[u8] = br#"{"test": 2432232314}"#;
    const EXPECTED: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
    const TOLERANCE: i64 = 300;

    fn verify_vector(msg_id: &str, timestamp: &str, header: &str, body: &[u8]) -> bool {
        verify(SECRET, msg_id, timestamp, header, body, TIMESTAMP, TOLERANCE)
    }

    #[test]
    fn signs_the_published_test_vector() {
        let signature = sign(SECRET, MSG_ID, TIMESTAMP, BODY).expect("valid secret");
        assert_eq!(signature, EXPECTED);
    }

    #[test]
    fn headers_carry_id_timestamp_and_signature() {
        let signed = headers(SECRET, MSG_ID, TIMESTAMP, BODY).expect("valid secret");
        assert_eq!(
            signed,
            SignedHeaders {
                webhook_id: MSG_ID.to_owned(),
                webhook_timestamp: "1614265330".to_owned(),
                webhook_signature: EXPECTED.to_owned(),
            }
        );
    }

    #[test]
    fn verifies_the_published_test_vector() {
        assert!(verify_vector(MSG_ID, "1614265330", EXPECTED, BODY));
    }

    #[test]
    fn changed_body_id_or_timestamp_fails() {
        assert!(!verify_vector(
            MSG_ID,
            "1614265330",
            EXPECTED,
            br#"{"test": 2432232315}"#
        ));
        assert!(!verify_vector(
            "msg_p5jXN8AQM9LWM0D4loKWxJeK",
            "1614265330",
            EXPECTED,
            BODY
        ));
        // Within the tolerance, but not the signed timestamp.
        assert!(!verify_vector(MSG_ID, "1614265331", EXPECTED, BODY));
    }

    #[test]
    fn other_secret_fails() {
        let other = new_secret();
        assert!(!verify(
            other.as_str(),
            MSG_ID,
            "1614265330",
            EXPECTED,
            BODY,
            TIMESTAMP,
            TOLERANCE
        ));
    }

    #[test]
    fn timestamps_outside_the_tolerance_fail() {
        let at = |now: i64| verify(SECRET, MSG_ID, "1614265330", EXPECTED, BODY, now, TOLERANCE);
        assert!(at(TIMESTAMP + TOLERANCE));
        assert!(at(TIMESTAMP - TOLERANCE));
        assert!(!at(TIMESTAMP + TOLERANCE + 1));
        assert!(!at(TIMESTAMP - TOLERANCE - 1));
        assert!(!verify(SECRET, MSG_ID, "1614265330", EXPECTED, BODY, TIMESTAMP, -1));
        assert!(!verify_vector(MSG_ID, "not-a-number", EXPECTED, BODY));
        assert!(!verify(
            SECRET,
            MSG_ID,
            "1614265330",
            EXPECTED,
            BODY,
            i64::MIN,
            i64::MAX
        ));
    }

    #[test]
    fn any_matching_signature_of_several_is_accepted() {
        let stale = sign(&new_secret(), MSG_ID, TIMESTAMP, BODY).expect("valid secret");
        assert!(verify_vector(
            MSG_ID,
            "1614265330",
            &format!("{stale} {EXPECTED}"),
            BODY
        ));
        assert!(verify_vector(
            MSG_ID,
            "1614265330",
            &format!("{EXPECTED} {stale}"),
            BODY
        ));
        assert!(verify_vector(
            MSG_ID,
            "1614265330",
            &format!("v1a,AAAA {stale} {EXPECTED}"),
            BODY
        ));
        assert!(!verify_vector(MSG_ID, "1614265330", &stale, BODY));
    }

    #[test]
    fn malformed_signature_headers_fail() {
        let bare = EXPECTED.trim_start_matches("v1,");
        for header in [
            "",
            " ",
            "v1,",
            bare,
            &format!("v2,{bare}"),
            "v1,!!!notbase64",
            "v1,AAAA",
        ] {
            assert!(!verify_vector(MSG_ID, "1614265330", header, BODY), "{header:?}");
        }
    }

    #[test]
    fn new_secret_round_trips_to_32_bytes() {
        let secret = new_secret();
        assert!(secret.starts_with("whsec_"));
        let key = STANDARD
            .decode(&secret["whsec_".len()..])
            .expect("standard padded base64");
        assert_eq!(key.len(), 32);
        assert_ne!(new_secret(), secret);

        let signature = sign(&secret, MSG_ID, TIMESTAMP, BODY).expect("own secret is valid");
        assert!(verify(
            &secret,
            MSG_ID,
            "1614265330",
            &signature,
            BODY,
            TIMESTAMP,
            TOLERANCE
        ));
    }

    #[test]
    fn invalid_secrets_are_internal_errors() {
        for secret in ["", "whsec_", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_not base64!"] {
            let error = sign(secret, MSG_ID, TIMESTAMP, BODY).expect_err(secret);
            assert!(matches!(error, CoreError::Internal(_)), "{secret:?}: {error:?}");
            assert!(!verify(
                secret,
                MSG_ID,
                "1614265330",
                EXPECTED,
                BODY,
                TIMESTAMP,
                TOLERANCE
            ));
        }
    }
}
