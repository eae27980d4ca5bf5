//! Email over SMTP (lettre): one plain-text message per send, with the
//! headers a bulk sender needs: one-click unsubscribe (RFC 8058), a
//! Message-ID of ours that stays the same across resends.

use std::time::Duration;

use lettre::message::header::{ContentType, Header, HeaderName, HeaderValue};
use lettre::message::{Mailbox, MessageBuilder};
use lettre::transport::smtp::Error as SmtpError;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use url::Url;

use crate::{Accepted, ConfigError, SendError, is_loopback};

/// What the right-hand side of our Message-IDs is.
const MESSAGE_ID_DOMAIN: &str = "courier";

/// One email to send.
#[derive(Debug, Clone)]
pub struct Email {
    pub to: String,
    pub from_name: String,
    pub from_address: String,
    pub reply_to: Option<String>,
    pub subject: String,
    /// The body, plain text.
    pub text: String,
    /// Where one click (a POST, RFC 8058) unsubscribes the recipient:
    /// `https://…`.
    pub unsubscribe_url: String,
    /// Stable per outbox message, our idempotency: the same Message-ID on
    /// a resend (after a reply lost to a timeout), so that mailboxes that
    /// deduplicate by Message-ID show the message once.
    /// Letters, digits and `.-_` (it becomes `<{message_id}@courier>`).
    pub message_id: String,
}

/// An SMTP relay to send through (the provider's submission port).
#[derive(Clone)]
pub struct Smtp {
    transport: AsyncSmtpTransport<Tokio1Executor>,
}

impl std::fmt::Debug for Smtp {
    // The transport holds the password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Smtp").finish_non_exhaustive()
    }
}

impl Smtp {
    /// `COURIER_SMTP_URL`: `smtps://user:pass@host:465` (implicit TLS),
    /// `smtp://user:pass@host:587?tls=required` (STARTTLS), or
    /// `smtp://127.0.0.1:2525` (plain, refused unless the host is loopback:
    /// the password and the mail would cross the network in clear). User and
    /// password are percent-encoded; a path (`/mail.example.com`) names us
    /// in EHLO. `timeout` bounds each step of the conversation.
    pub fn from_url(url: &str, timeout: Duration) -> Result<Smtp, ConfigError> {
        let parsed = Url::parse(url).map_err(|error| ConfigError(format!("COURIER_SMTP_URL is not a URL: {error}")))?;
        let host = parsed
            .host()
            .ok_or_else(|| ConfigError("COURIER_SMTP_URL has no host".into()))?;
        let tls = parsed
            .query_pairs()
            .find(|(name, _)| name == "tls")
            .map(|(_, value)| value.into_owned());
        match (parsed.scheme(), tls.as_deref()) {
            ("smtps", _) | ("smtp", Some("required")) => {}
            ("smtp", None) if is_loopback(&host) => {}
            ("smtp", None) => {
                return Err(ConfigError(format!(
                    "COURIER_SMTP_URL is plain SMTP to {host}, which is not loopback: the password and the mail \
                     would cross the network in clear; use smtps://…:465 or smtp://…:587?tls=required"
                )));
            }
            ("smtp", Some(other)) => {
                return Err(ConfigError(format!(
                    "COURIER_SMTP_URL asks for tls={other}: only tls=required (STARTTLS) is accepted, or smtps://"
                )));
            }
            (scheme, _) => {
                return Err(ConfigError(format!(
                    "COURIER_SMTP_URL has the scheme {scheme:?}: use smtps:// (implicit TLS) or smtp:// \
                     (with ?tls=required, or plain to loopback)"
                )));
            }
        }
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|error| ConfigError(format!("COURIER_SMTP_URL: {error}")))?
            .timeout(Some(timeout))
            .build();
        Ok(Smtp { transport })
    }

    /// Hands the email to the relay. A permanent reply (5xx) to the message
    /// is [`SendError::Rejected`]; a transient one (4xx), a failed
    /// connection or TLS handshake, a timeout, and a refused login (our
    /// credentials, not the message: retried once they are fixed) are
    /// [`SendError::Unavailable`]. An email that cannot be written (a
    /// malformed address) is rejected before any connection.
    pub async fn send(&self, email: &Email) -> Result<Accepted, SendError> {
        let message_id = format!("{}@{MESSAGE_ID_DOMAIN}", email.message_id);
        let message = compose(email, &message_id).map_err(SendError::Rejected)?;
        self.transport.send(message).await.map_err(|error| {
            let detail = format!("SMTP: {}", describe(&error));
            if error.is_permanent() && !is_login_refused(&error) {
                SendError::Rejected(detail)
            } else {
                SendError::Unavailable(detail)
            }
        })?;
        Ok(Accepted {
            provider_message_id: message_id,
            status: "sent".into(),
        })
    }
}

/// The message, or why it cannot be written.
fn compose(email: &Email, message_id: &str) -> Result<Message, String> {
    let address = |what: &str, value: &str| {
        value
            .parse()
            .map_err(|error| format!("the {what} address {value:?} is not an email address: {error}"))
    };
    if email.message_id.is_empty()
        || !email
            .message_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
    {
        return Err(format!(
            "the message id {:?} is not letters, digits and .-_",
            email.message_id
        ));
    }
    let unsubscribe = Url::parse(&email.unsubscribe_url)
        .ok()
        .filter(|url| url.scheme() == "https" || url.scheme() == "http")
        .ok_or_else(|| format!("the unsubscribe URL {:?} is not an http(s) URL", email.unsubscribe_url))?;
    let mut builder: MessageBuilder = Message::builder()
        .from(Mailbox::new(
            Some(email.from_name.clone()),
            address("From", &email.from_address)?,
        ))
        .to(Mailbox::new(None, address("To", &email.to)?))
        .subject(email.subject.clone())
        .message_id(Some(format!("<{message_id}>")))
        .header(ListUnsubscribe(unsubscribe.to_string()))
        .header(ListUnsubscribePost)
        .header(ContentType::TEXT_PLAIN);
    if let Some(reply_to) = &email.reply_to {
        builder = builder.reply_to(Mailbox::new(None, address("Reply-To", reply_to)?));
    }
    builder
        .body(email.text.clone())
        .map_err(|error| format!("the email cannot be written: {error}"))
}

/// `List-Unsubscribe: <https://…>`: the link mail clients show as
/// "Unsubscribe".
#[derive(Debug, Clone)]
struct ListUnsubscribe(String);

impl Header for ListUnsubscribe {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("List-Unsubscribe")
    }

    fn parse(s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(ListUnsubscribe(
            s.trim().trim_start_matches('<').trim_end_matches('>').to_owned(),
        ))
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), format!("<{}>", self.0))
    }
}

/// `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058): the
/// link is to be POSTed without a page in between, which the large
/// mailbox providers ask of bulk senders (with a DKIM signature over both
/// headers, the relay's part).
#[derive(Debug, Clone)]
struct ListUnsubscribePost;

impl Header for ListUnsubscribePost {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("List-Unsubscribe-Post")
    }

    fn parse(_: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(ListUnsubscribePost)
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), "List-Unsubscribe=One-Click".into())
    }
}

/// 530, 534, 535, 538: the relay refused our login, whatever the message.
fn is_login_refused(error: &SmtpError) -> bool {
    error
        .status()
        .is_some_and(|code| matches!(u16::from(code), 530 | 534 | 535 | 538))
}

/// An SMTP error with its causes ("Connection error: Connection refused").
fn describe(error: &SmtpError) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.ends_with(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::SmtpServer;
    use crate::within;

    fn email(message_id: &str) -> Email {
        Email {
            to: "kundin@example.de".into(),
            from_name: "Blitzkurier Berlin".into(),
            from_address: "noreply@blitzkurier.example".into(),
            reply_to: Some("hilfe@blitzkurier.example".into()),
            subject: "Ihre Lieferung – unterwegs".into(),
            text: "Grüße aus Köln: Ihre Sendung ist unterwegs.\nAnkunft gegen 14:05 Uhr.\n".into(),
            unsubscribe_url: "https://courier.example/u/abc123?ws=7".into(),
            message_id: message_id.into(),
        }
    }

    #[tokio::test]
    async fn an_email_arrives_with_its_headers() {
        within(async {
            let server = SmtpServer::start().await;
            let smtp = Smtp::from_url(&server.url(), Duration::from_secs(5)).expect("config");
            let accepted = smtp.send(&email("outbox-42")).await.expect("sent");
            assert_eq!(
                accepted,
                Accepted {
                    provider_message_id: "outbox-42@courier".into(),
                    status: "sent".into()
                }
            );

            let received = server.wait_for_messages(1, Duration::from_secs(10)).await;
            let mail = &received[0];
            assert_eq!(mail.to, "kundin@example.de");
            assert_eq!(mail.from, "noreply@blitzkurier.example");
            assert_eq!(mail.from_name.as_deref(), Some("Blitzkurier Berlin"));
            assert_eq!(mail.reply_to.as_deref(), Some("hilfe@blitzkurier.example"));
            assert_eq!(mail.subject, "Ihre Lieferung – unterwegs");
            assert_eq!(mail.message_id, "outbox-42@courier");
            assert_eq!(
                mail.list_unsubscribe.as_deref(),
                Some("<https://courier.example/u/abc123?ws=7>")
            );
            assert_eq!(
                mail.list_unsubscribe_post.as_deref(),
                Some("List-Unsubscribe=One-Click")
            );
            assert_eq!(mail.content_type, "text/plain; charset=utf-8");
            // SMTP's DATA ends the body with a line break of its own.
            assert_eq!(
                mail.text.replace("\r\n", "\n").trim_end(),
                "Grüße aus Köln: Ihre Sendung ist unterwegs.\nAnkunft gegen 14:05 Uhr."
            );
        })
        .await;
    }

    #[tokio::test]
    async fn a_relay_that_is_not_there_is_unavailable() {
        within(async {
            // Bound and dropped: nothing listens there.
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|listener| listener.local_addr())
                .expect("a free port")
                .port();
            let smtp = Smtp::from_url(&format!("smtp://127.0.0.1:{port}"), Duration::from_secs(5)).expect("config");
            match smtp.send(&email("outbox-1")).await {
                Err(SendError::Unavailable(text)) => assert!(text.contains("refused"), "{text}"),
                other => panic!("expected Unavailable, got {other:?}"),
            }
        })
        .await;
    }

    #[tokio::test]
    async fn an_email_that_cannot_be_written_is_rejected_before_connecting() {
        within(async {
            // Nothing listens on port 9: a connection attempt would be Unavailable.
            let smtp = &Smtp::from_url("smtp://127.0.0.1:9", Duration::from_secs(5)).expect("config");
            let rejected = |email: Email| async move {
                match smtp.send(&email).await {
                    Err(SendError::Rejected(text)) => text,
                    other => panic!("expected Rejected, got {other:?}"),
                }
            };
            let bad_to = Email {
                to: "not an address".into(),
                ..email("outbox-1")
            };
            assert!(rejected(bad_to).await.contains("the To address \"not an address\""));
            let bad_id = Email {
                message_id: "a@b>".into(),
                ..email("outbox-1")
            };
            assert!(rejected(bad_id).await.contains("the message id"));
            let bad_link = Email {
                unsubscribe_url: "javascript:alert(1)".into(),
                ..email("outbox-1")
            };
            assert!(rejected(bad_link).await.contains("the unsubscribe URL"));
        })
        .await;
    }

    #[test]
    fn urls_that_cannot_work_are_named() {
        let refused = |url: &str| Smtp::from_url(url, Duration::from_secs(5)).expect_err(url).to_string();
        assert!(refused("smtp://user:pass@smtp.example.com:587").contains("plain SMTP to smtp.example.com"));
        assert!(refused("smtp://10.0.0.5:25").contains("not loopback"));
        assert!(refused("http://smtp.example.com").contains("the scheme \"http\""));
        assert!(refused("smtp://smtp.example.com:587?tls=opportunistic").contains("tls=opportunistic"));
        assert_eq!(refused("smtp.example.com:587"), "COURIER_SMTP_URL has no host");

        for url in [
            "smtps://user:p%40ss@smtp.example.com:465",
            "smtp://user:pass@smtp.example.com:587?tls=required",
            "smtp://127.0.0.1:2525",
            "smtp://localhost:2525",
            "smtp://[::1]:2525",
        ] {
            Smtp::from_url(url, Duration::from_secs(5)).unwrap_or_else(|error| panic!("{url}: {error}"));
        }
    }
}
