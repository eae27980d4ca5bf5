//! Text messages through Twilio's Messages API: one POST per message to
//! `/2010-04-01/Accounts/{AccountSid}/Messages.json`, HTTP basic auth with
//! the account's sid and auth token, the message as a form; Twilio answers
//! 201 with the message resource (its `SM…` sid and status), or an error
//! object `{code, message, more_info, status}`. A GET of the same URL lists
//! the account's messages ([`Twilio::find_sent`]).

use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use serde::Deserialize;
use url::Url;

use crate::{Accepted, ConfigError, SendError, is_loopback};

/// Where Twilio's REST API is.
pub const DEFAULT_BASE_URL: &str = "https://api.twilio.com";

/// The header that names one send across its retries.
pub const IDEMPOTENCY_HEADER: &str = "I-Twilio-Idempotency-Token";

/// Messages per page of [`Twilio::find_sent`]'s list (Twilio's default).
const LOOKUP_PAGE_SIZE: usize = 50;

/// The pages [`Twilio::find_sent`] reads at most.
const LOOKUP_PAGES: usize = 4;

/// How far Twilio's clock may be behind ours: [`Twilio::find_sent`] looks
/// this much before its `since`.
const CLOCK_SKEW: TimeDelta = TimeDelta::minutes(1);

/// The account a [`Twilio`] client sends from.
#[derive(Clone)]
pub struct TwilioConfig {
    /// [`DEFAULT_BASE_URL`], or a stand-in's on loopback
    /// ([`crate::testing::TwilioStandIn`]).
    pub base_url: String,
    pub account_sid: String,
    pub auth_token: String,
    /// The sender: an E.164 number (`+4930…`), or a Messaging Service SID
    /// (`MG` and 32 hex digits), which is then sent as MessagingServiceSid
    /// so that Twilio picks the number from the service's pool.
    pub from: String,
    /// How long one send may take, connecting included.
    pub timeout: Duration,
}

impl std::fmt::Debug for TwilioConfig {
    // Without the auth token: settings are logged at start-up.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TwilioConfig")
            .field("base_url", &self.base_url)
            .field("account_sid", &self.account_sid)
            .field("from", &self.from)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// One text message to send.
#[derive(Debug, Clone)]
pub struct Sms {
    /// E.164 (`+4915…`).
    pub to: String,
    pub body: String,
    /// The same for every attempt at this message (the outbox message's id):
    /// sent as [`IDEMPOTENCY_HEADER`].
    pub idempotency_key: String,
    /// Where Twilio posts the message's status changes (signed,
    /// [`crate::twilio_signature`]).
    pub status_callback: Option<String>,
}

/// A client of Twilio's Messages API for one account.
#[derive(Clone)]
pub struct Twilio {
    messages_url: Url,
    account_sid: String,
    auth_token: String,
    sender: Sender,
    client: reqwest::Client,
}

impl std::fmt::Debug for Twilio {
    // Without the auth token.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Twilio")
            .field("messages_url", &self.messages_url.as_str())
            .field("sender", &self.sender)
            .finish_non_exhaustive()
    }
}

/// Who a message is from, as the form names it.
#[derive(Debug, Clone)]
enum Sender {
    Number(String),
    MessagingService(String),
}

impl Twilio {
    /// Checks the settings and builds the HTTP client. Plain `http://` is
    /// allowed to loopback only: the auth token goes in every request.
    pub fn new(config: TwilioConfig) -> Result<Twilio, ConfigError> {
        let account_sid = required("the Twilio account SID", &config.account_sid)?;
        let auth_token = required("the Twilio auth token", &config.auth_token)?;
        let from = required("the Twilio sender (From)", &config.from)?;
        if !account_sid.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(ConfigError(format!(
                "the Twilio account SID {account_sid:?} is not a SID (letters and digits, `AC…`)"
            )));
        }
        let messages_url = messages_url(&config.base_url, &account_sid)?;
        let sender = if is_messaging_service_sid(&from) {
            Sender::MessagingService(from)
        } else {
            Sender::Number(from)
        };
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(config.timeout)
            .build()
            .map_err(|error| ConfigError(format!("the Twilio HTTP client: {error}")))?;
        Ok(Twilio {
            messages_url,
            account_sid,
            auth_token,
            sender,
            client,
        })
    }

    /// The account's auth token: what Twilio signs its callbacks with
    /// ([`crate::twilio_signature::verify`]).
    pub fn auth_token(&self) -> &str {
        &self.auth_token
    }

    /// Creates the message at Twilio. 4xx answers are the message's fault
    /// and final ([`SendError::Rejected`]), except 429 (too many requests)
    /// and 401 (our credentials, not the message: retried once they are
    /// fixed); 5xx, timeouts and connection failures are
    /// [`SendError::Unavailable`].
    ///
    /// The [`IDEMPOTENCY_HEADER`] carries `sms.idempotency_key`. Twilio
    /// documents that header on the webhooks it sends us, not as a promise
    /// of its Messages API: its error 20500 page says a retried SMS create
    /// may be delivered twice. Our stand-in answers a repeated token with
    /// the first message, which is what the outbox wants of a resend after
    /// a crash; against Twilio itself a resend whose first attempt did
    /// reach it can send the message a second time, unless
    /// [`Twilio::find_sent`] finds it first.
    pub async fn send(&self, sms: &Sms) -> Result<Accepted, SendError> {
        let idempotency_token = reqwest::header::HeaderValue::from_str(&sms.idempotency_key).map_err(|_| {
            SendError::Rejected(format!(
                "the idempotency key {:?} cannot be an HTTP header",
                sms.idempotency_key
            ))
        })?;
        let mut form: Vec<(&str, &str)> = vec![("To", &sms.to), ("Body", &sms.body)];
        form.push(match &self.sender {
            Sender::Number(number) => ("From", number),
            Sender::MessagingService(sid) => ("MessagingServiceSid", sid),
        });
        if let Some(url) = &sms.status_callback {
            form.push(("StatusCallback", url));
        }
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&form)
            .finish();
        let request = self
            .client
            .post(self.messages_url.clone())
            .header(IDEMPOTENCY_HEADER, idempotency_token)
            .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body);
        let (status, text) = self.exchange(request).await?;
        // A 2xx we cannot read is retried: the same idempotency token goes
        // with it.
        let message: CreatedMessage = serde_json::from_str(&text).map_err(|error| unreadable(status, &error, &text))?;
        Ok(Accepted {
            provider_message_id: message.sid,
            status: message.status,
        })
    }

    /// The message this account already sent to `to` with this `body` at
    /// or after `since`, the newest if there are several: its sid and its
    /// status now. `None`: Twilio lists no such message.
    ///
    /// Twilio's Messages API takes no idempotency key when a message is
    /// created ([`Twilio::send`]): a send cut off by a crash or a timeout
    /// may have reached Twilio without its answer reaching us, and sending
    /// it again would text the customer twice. So a send whose outcome is
    /// not known is looked up here before it is made again, with `since`
    /// the time of its first attempt.
    ///
    /// One GET of `Messages.json?To={to}&PageSize=50`, with the same
    /// credentials and timeout as a send, and of each `next_page_uri` Twilio
    /// answers, up to 4 pages, newest first, until a page reaches messages
    /// created before `since` less a minute (Twilio's clock and ours may
    /// differ). No `DateSent` filter: Twilio sets a message's sent date only
    /// when it leaves Twilio's queue, and a message still queued, the likely
    /// state of one cut off mid-send, must be found too. A match has exactly
    /// this body, was created in that window, and is from our sender: the
    /// From number, or the Messaging Service.
    ///
    /// Errors are split as [`Twilio::send`] splits them. Four pages read,
    /// more left and the message not among them is
    /// [`SendError::Unavailable`], not `None`: it may be on a page not read.
    /// A body Twilio changed (a Messaging Service's Smart Encoding, message
    /// redaction) is not found.
    pub async fn find_sent(&self, to: &str, body: &str, since: DateTime<Utc>) -> Result<Option<Accepted>, SendError> {
        let from = since - CLOCK_SKEW;
        let mut url = self.messages_url.clone();
        url.query_pairs_mut()
            .append_pair("To", to)
            .append_pair("PageSize", &LOOKUP_PAGE_SIZE.to_string());
        let mut newest: Option<(DateTime<Utc>, ListedMessage)> = None;
        for _ in 0..LOOKUP_PAGES {
            let (status, text) = self.exchange(self.client.get(url.clone())).await?;
            let page: MessagePage = serde_json::from_str(&text).map_err(|error| unreadable(status, &error, &text))?;
            let mut reached_older = false;
            for message in page.messages {
                let created = message
                    .date_created
                    .as_deref()
                    .and_then(|date| DateTime::parse_from_rfc2822(date).ok())
                    .ok_or_else(|| {
                        SendError::Unavailable(format!(
                            "Twilio listed message {} with an unreadable date_created {:?}",
                            message.sid, message.date_created
                        ))
                    })?
                    .with_timezone(&Utc);
                if created < from {
                    reached_older = true;
                    continue;
                }
                let ours = match &self.sender {
                    Sender::Number(number) => message.from.as_ref() == Some(number),
                    Sender::MessagingService(sid) => message.messaging_service_sid.as_ref() == Some(sid),
                };
                if !ours || message.to != to || message.body.as_deref() != Some(body) {
                    continue;
                }
                if newest.as_ref().is_none_or(|(newest, _)| created > *newest) {
                    newest = Some((created, message));
                }
            }
            match page.next_page_uri {
                Some(next) if !reached_older => url = self.next_page(&next)?,
                _ => return Ok(newest.map(|(_, message)| message.accepted())),
            }
        }
        match newest {
            Some((_, message)) => Ok(Some(message.accepted())),
            None => Err(SendError::Unavailable(format!(
                "Twilio lists more than {} messages to this number since {}, none of them this one: \
                 whether it went out is not known",
                LOOKUP_PAGES * LOOKUP_PAGE_SIZE,
                from.format("%Y-%m-%d"),
            ))),
        }
    }

    /// Sends `request` with our credentials: Twilio's answer if it is 2xx,
    /// else the error as [`Twilio::send`] splits them.
    async fn exchange(&self, request: reqwest::RequestBuilder) -> Result<(reqwest::StatusCode, String), SendError> {
        let response = request
            .basic_auth(&self.account_sid, Some(&self.auth_token))
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|error| SendError::Unavailable(format!("Twilio could not be reached: {}", describe(&error))))?;
        let status = response.status();
        let text = response
            .text()
            .await
            .map_err(|error| SendError::Unavailable(format!("Twilio's answer was cut off: {}", describe(&error))))?;
        if status.is_success() {
            return Ok((status, text));
        }
        let detail = match serde_json::from_str::<TwilioError>(&text) {
            Ok(TwilioError {
                code: Some(code),
                message,
            }) => format!("Twilio {code}: {}", message.unwrap_or_default()),
            _ => format!("Twilio answered {status}: {}", excerpt(&text)),
        };
        let retry_later = status.is_server_error()
            || status == reqwest::StatusCode::TOO_MANY_REQUESTS
            || status == reqwest::StatusCode::UNAUTHORIZED;
        Err(if retry_later {
            SendError::Unavailable(detail)
        } else {
            SendError::Rejected(detail)
        })
    }

    /// Twilio's `next_page_uri` (`/2010-04-01/Accounts/{sid}/Messages.json?
    /// …&PageToken=…`) on our base URL: only its query is taken, so the
    /// credentials go to no other host or path.
    fn next_page(&self, uri: &str) -> Result<Url, SendError> {
        let (path, query) = uri.split_once('?').unwrap_or((uri, ""));
        let list = format!("/2010-04-01/Accounts/{}/Messages.json", self.account_sid);
        if !path.ends_with(&list) {
            return Err(SendError::Unavailable(format!(
                "Twilio's next page {:?} is not of this account's messages",
                excerpt(uri)
            )));
        }
        let mut url = self.messages_url.clone();
        url.set_query(Some(query).filter(|query| !query.is_empty()));
        Ok(url)
    }
}

/// The part of Twilio's message resource we keep.
#[derive(Deserialize)]
struct CreatedMessage {
    sid: String,
    status: String,
}

/// A page of Twilio's list of messages; `page`, `uri` and the rest are not
/// needed.
#[derive(Deserialize)]
struct MessagePage {
    messages: Vec<ListedMessage>,
    next_page_uri: Option<String>,
}

/// The part of a listed message [`Twilio::find_sent`] reads.
#[derive(Deserialize)]
struct ListedMessage {
    sid: String,
    to: String,
    from: Option<String>,
    messaging_service_sid: Option<String>,
    /// Null when redacted.
    body: Option<String>,
    status: String,
    /// RFC 2822: `Tue, 01 Dec 2026 02:10:00 +0000`.
    date_created: Option<String>,
}

impl ListedMessage {
    fn accepted(self) -> Accepted {
        Accepted {
            provider_message_id: self.sid,
            status: self.status,
        }
    }
}

/// A 2xx answer we cannot read: retried.
fn unreadable(status: reqwest::StatusCode, error: &serde_json::Error, text: &str) -> SendError {
    SendError::Unavailable(format!(
        "Twilio answered {status} with an unreadable body ({error}): {}",
        excerpt(text)
    ))
}

/// Twilio's error object; `more_info` and `status` are not needed.
#[derive(Deserialize)]
struct TwilioError {
    code: Option<i64>,
    message: Option<String>,
}

fn required(what: &str, value: &str) -> Result<String, ConfigError> {
    let value = value.trim();
    if value.is_empty() {
        return Err(ConfigError(format!("{what} is empty")));
    }
    Ok(value.to_owned())
}

/// `{base_url}/2010-04-01/Accounts/{account_sid}/Messages.json`.
fn messages_url(base_url: &str, account_sid: &str) -> Result<Url, ConfigError> {
    let bad = |why: &str| ConfigError(format!("the Twilio base URL {base_url:?} {why}"));
    let mut url = Url::parse(base_url.trim()).map_err(|error| bad(&format!("is not a URL: {error}")))?;
    let host = url.host().ok_or_else(|| bad("has no host"))?;
    match url.scheme() {
        "https" => {}
        "http" if is_loopback(&host) => {}
        "http" => {
            return Err(bad(
                "is plain http to another machine: use https (http is for loopback only)",
            ));
        }
        _ => return Err(bad("is not http(s)")),
    }
    if url.query().is_some() || url.fragment().is_some() || !url.username().is_empty() || url.password().is_some() {
        return Err(bad(
            "has a query, a fragment or credentials: give the scheme, host and port only",
        ));
    }
    url.path_segments_mut()
        .map_err(|()| bad("cannot take a path"))?
        .pop_if_empty()
        .extend(["2010-04-01", "Accounts", account_sid, "Messages.json"]);
    Ok(url)
}

/// `MG` and 32 hex digits: a Messaging Service, not an alphanumeric sender
/// that happens to start with MG.
fn is_messaging_service_sid(from: &str) -> bool {
    from.strip_prefix("MG")
        .is_some_and(|rest| rest.len() == 32 && rest.chars().all(|c| c.is_ascii_hexdigit()))
}

/// A reqwest error with its causes: "error sending request" alone does
/// not say whether the connection was refused or timed out.
fn describe(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The start of an answer we could not read, for the error's text.
fn excerpt(text: &str) -> &str {
    let end = text.char_indices().nth(200).map_or(text.len(), |(at, _)| at);
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TwilioStandIn;
    use crate::within;

    const ACCOUNT: &str = "AC0123456789abcdef0123456789abcdef";
    const TOKEN: &str = "stand-in-auth-token";

    fn config(base_url: String) -> TwilioConfig {
        TwilioConfig {
            base_url,
            account_sid: ACCOUNT.into(),
            auth_token: TOKEN.into(),
            from: "+4930555010".into(),
            timeout: Duration::from_secs(5),
        }
    }

    fn sms(to: &str, key: &str) -> Sms {
        Sms {
            to: to.into(),
            body: "Ihre Lieferung ist unterwegs – ETA 14:05".into(),
            idempotency_key: key.into(),
            status_callback: Some("http://127.0.0.1:9/twilio/status?ws=1".into()),
        }
    }

    #[tokio::test]
    async fn a_message_is_posted_as_twilio_documents_it() {
        within(async {
            let twilio_peer = TwilioStandIn::start(ACCOUNT, TOKEN).await;
            let twilio = Twilio::new(config(twilio_peer.base_url())).expect("config");
            let accepted = twilio.send(&sms("+4915112345678", "outbox-1")).await.expect("accepted");
            assert_eq!(accepted.status, "queued");
            assert!(accepted.provider_message_id.starts_with("SM"), "{accepted:?}");
            assert_eq!(accepted.provider_message_id.len(), 34);

            let received = twilio_peer.messages();
            assert_eq!(received.len(), 1);
            let message = &received[0];
            assert_eq!(message.sid, accepted.provider_message_id);
            assert_eq!(message.to, "+4915112345678");
            assert_eq!(message.from.as_deref(), Some("+4930555010"));
            assert_eq!(message.messaging_service_sid, None);
            assert_eq!(message.body, "Ihre Lieferung ist unterwegs – ETA 14:05");
            assert_eq!(
                message.status_callback.as_deref(),
                Some("http://127.0.0.1:9/twilio/status?ws=1")
            );
            assert_eq!(message.idempotency_token.as_deref(), Some("outbox-1"));

            let wrong_token = Twilio::new(TwilioConfig {
                auth_token: "not-the-token".into(),
                ..config(twilio_peer.base_url())
            })
            .expect("config");
            match wrong_token.send(&sms("+4915112345678", "outbox-2")).await {
                Err(SendError::Unavailable(text)) => assert!(text.starts_with("Twilio 20003:"), "{text}"),
                other => panic!("expected a refused login, got {other:?}"),
            }
            assert_eq!(twilio_peer.messages().len(), 1);
            assert_eq!(twilio_peer.requests(), 2);
        })
        .await;
    }

    #[tokio::test]
    async fn a_messaging_service_is_named_as_such() {
        within(async {
            let twilio_peer = TwilioStandIn::start(ACCOUNT, TOKEN).await;
            let service = "MG0123456789abcdef0123456789abcdef";
            let twilio = Twilio::new(TwilioConfig {
                from: service.into(),
                ..config(twilio_peer.base_url())
            })
            .expect("config");
            twilio.send(&sms("+4915112345678", "outbox-1")).await.expect("accepted");
            let message = &twilio_peer.messages()[0];
            assert_eq!(message.messaging_service_sid.as_deref(), Some(service));
            assert_eq!(message.from, None);
        })
        .await;
    }

    #[tokio::test]
    async fn a_server_error_is_retried_later_and_a_bad_number_never() {
        within(async {
            let twilio_peer = TwilioStandIn::start(ACCOUNT, TOKEN).await;
            let twilio = Twilio::new(config(twilio_peer.base_url())).expect("config");

            twilio_peer.fail_next(1);
            match twilio.send(&sms("+4915112345678", "outbox-1")).await {
                Err(SendError::Unavailable(text)) => assert_eq!(text, "Twilio 20500: Internal Server Error"),
                other => panic!("expected Unavailable, got {other:?}"),
            }
            twilio
                .send(&sms("+4915112345678", "outbox-1"))
                .await
                .expect("the retry is taken");

            match twilio.send(&sms("0151 not a number", "outbox-2")).await {
                Err(SendError::Rejected(text)) => assert!(text.starts_with("Twilio 21211: "), "{text}"),
                other => panic!("expected Rejected, got {other:?}"),
            }
            assert_eq!(twilio_peer.messages().len(), 1);
            assert_eq!(twilio_peer.requests(), 3);
        })
        .await;
    }

    #[tokio::test]
    async fn a_resend_with_the_same_token_is_the_first_message() {
        within(async {
            let twilio_peer = TwilioStandIn::start(ACCOUNT, TOKEN).await;
            let twilio = Twilio::new(config(twilio_peer.base_url())).expect("config");
            let first = twilio.send(&sms("+4915112345678", "outbox-7")).await.expect("accepted");
            let again = twilio
                .send(&sms("+4915112345678", "outbox-7"))
                .await
                .expect("answered again");
            assert_eq!(again, first);
            let other = twilio.send(&sms("+4915112345678", "outbox-8")).await.expect("accepted");
            assert_ne!(other.provider_message_id, first.provider_message_id);

            let received = twilio_peer.wait_for_messages(2, Duration::from_secs(5)).await;
            assert_eq!(received.len(), 2);
            assert_eq!(twilio_peer.requests(), 3);
        })
        .await;
    }

    #[tokio::test]
    async fn a_peer_that_is_not_there_is_unavailable() {
        within(async {
            // Bound and dropped: nothing listens there.
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|listener| listener.local_addr())
                .expect("a free port")
                .port();
            let twilio = Twilio::new(config(format!("http://127.0.0.1:{port}"))).expect("config");
            match twilio.send(&sms("+4915112345678", "outbox-1")).await {
                Err(SendError::Unavailable(text)) => assert!(text.starts_with("Twilio could not be reached"), "{text}"),
                other => panic!("expected Unavailable, got {other:?}"),
            }
        })
        .await;
    }

    /// What a receiver of Twilio's callbacks saw: the form, if its
    /// signature held.
    type Seen = tokio::sync::mpsc::UnboundedSender<Vec<(String, String)>>;

    /// A receiver of Twilio's callbacks on loopback that checks each
    /// signature as the platform's would: 204 and the form passed on, or
    /// 403.
    async fn callback_receiver(seen: Seen) -> String {
        use axum::body::Bytes;
        use axum::http::{HeaderMap, StatusCode, Uri};

        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("address"));
        let url_base = base.clone();
        let receive = move |uri: Uri, headers: HeaderMap, body: Bytes| async move {
            let url = format!("{url_base}{uri}");
            let form: Vec<(String, String)> = url::form_urlencoded::parse(&body).into_owned().collect();
            let signature = headers
                .get(crate::twilio_signature::HEADER)
                .and_then(|value| value.to_str().ok())
                .unwrap_or_default();
            if !crate::twilio_signature::verify(TOKEN, &url, &form, signature) {
                return StatusCode::FORBIDDEN;
            }
            seen.send(form).expect("the test listens");
            StatusCode::NO_CONTENT
        };
        let router = axum::Router::new().fallback(axum::routing::post(receive));
        tokio::spawn(async move { axum::serve(listener, router).await.expect("serve") });
        base
    }

    #[tokio::test]
    async fn the_stand_ins_callbacks_are_signed_and_read_back() {
        use crate::twilio_signature::{Inbound, StatusCallback, inbound, status_callback};

        within(async {
            let (seen, mut forms) = tokio::sync::mpsc::unbounded_channel();
            let receiver = callback_receiver(seen).await;
            let twilio_peer = TwilioStandIn::start(ACCOUNT, TOKEN).await;
            let twilio = Twilio::new(config(twilio_peer.base_url())).expect("config");
            let accepted = twilio
                .send(&Sms {
                    status_callback: Some(format!("{receiver}/twilio/status?ws=7&kind=sms")),
                    ..sms("+4915112345678", "outbox-1")
                })
                .await
                .expect("accepted");
            let sid = accepted.provider_message_id;

            assert_eq!(twilio_peer.send_status(&sid, "undelivered").await, 204);
            let form = forms.recv().await.expect("a status callback");
            assert_eq!(
                status_callback(&form),
                Some(StatusCallback {
                    message_sid: sid.clone(),
                    status: "undelivered".into(),
                    error_code: Some("30003".into())
                })
            );
            assert_eq!(twilio_peer.messages()[0].status, "undelivered");
            assert_eq!(twilio_peer.send_status(&sid, "delivered").await, 204);
            let form = forms.recv().await.expect("a status callback");
            assert_eq!(status_callback(&form).and_then(|callback| callback.error_code), None);

            let inbound_url = format!("{receiver}/twilio/inbound");
            assert_eq!(
                twilio_peer.send_inbound(&inbound_url, "+4915112345678", " Stop ").await,
                204
            );
            let form = forms.recv().await.expect("an inbound text");
            assert_eq!(
                inbound(&form),
                Some(Inbound::OptOut {
                    from: "+4915112345678".into()
                })
            );
            let to = form
                .iter()
                .find(|(name, _)| name == "To")
                .map(|(_, value)| value.as_str());
            assert_eq!(to, Some("+4930555010"), "the reply goes to the number that texted");

            // Signed under another token, the receiver refuses it.
            let impostor = TwilioStandIn::start(ACCOUNT, "another-token").await;
            assert_eq!(
                impostor.send_inbound(&inbound_url, "+4915112345678", "START").await,
                403
            );
        })
        .await;
    }

    const BODY: &str = "Ihre Lieferung ist unterwegs – ETA 14:05";

    #[tokio::test]
    async fn a_sent_message_is_found_by_its_number_and_body() {
        within(async {
            let twilio_peer = TwilioStandIn::start(ACCOUNT, TOKEN).await;
            let twilio = Twilio::new(config(twilio_peer.base_url())).expect("config");
            let since = Utc::now();
            let sent = twilio.send(&sms("+4915112345678", "outbox-1")).await.expect("accepted");

            let found = twilio.find_sent("+4915112345678", BODY, since).await.expect("listed");
            assert_eq!(found, Some(sent.clone()));
            assert_eq!((twilio_peer.requests(), twilio_peer.lookups()), (1, 1));

            // Twilio's clock may be up to a minute behind ours.
            let a_little_later = since + TimeDelta::seconds(30);
            let found = twilio
                .find_sent("+4915112345678", BODY, a_little_later)
                .await
                .expect("listed");
            assert_eq!(found, Some(sent.clone()));

            let not_found = [
                ("+4915112345678", "Ihre Lieferung ist zugestellt", since),
                ("+4915199999999", BODY, since),
                ("+4915112345678", BODY, since + TimeDelta::minutes(2)),
            ];
            for (to, body, since) in not_found {
                let found = twilio.find_sent(to, body, since).await.expect("listed");
                assert_eq!(found, None, "to {to}, {body:?}, since {since}");
            }

            // The same text again: the newer is the one found.
            let again = twilio.send(&sms("+4915112345678", "outbox-2")).await.expect("accepted");
            assert_ne!(again.provider_message_id, sent.provider_message_id);
            let found = twilio.find_sent("+4915112345678", BODY, since).await.expect("listed");
            assert_eq!(found, Some(again));
            assert_eq!((twilio_peer.requests(), twilio_peer.lookups()), (2, 6));
        })
        .await;
    }

    #[tokio::test]
    async fn only_our_senders_messages_are_found() {
        within(async {
            let twilio_peer = TwilioStandIn::start(ACCOUNT, TOKEN).await;
            let number = Twilio::new(config(twilio_peer.base_url())).expect("config");
            let service = Twilio::new(TwilioConfig {
                from: "MG0123456789abcdef0123456789abcdef".into(),
                ..config(twilio_peer.base_url())
            })
            .expect("config");
            let since = Utc::now();
            let by_service = service
                .send(&sms("+4915112345678", "outbox-1"))
                .await
                .expect("accepted");
            assert_eq!(by_service.status, "accepted");

            let found = service.find_sent("+4915112345678", BODY, since).await.expect("listed");
            assert_eq!(found, Some(by_service));
            let found = number.find_sent("+4915112345678", BODY, since).await.expect("listed");
            assert_eq!(found, None, "the service's message is not from our number");

            let by_number = number.send(&sms("+4915112345678", "outbox-2")).await.expect("accepted");
            let found = number.find_sent("+4915112345678", BODY, since).await.expect("listed");
            assert_eq!(found, Some(by_number));
        })
        .await;
    }

    #[tokio::test]
    async fn a_held_answer_is_recorded_before_it_is_answered() {
        within(async {
            let twilio_peer = TwilioStandIn::start(ACCOUNT, TOKEN).await;
            let impatient = Twilio::new(TwilioConfig {
                timeout: Duration::from_millis(300),
                ..config(twilio_peer.base_url())
            })
            .expect("config");
            let since = Utc::now();

            // The sender gives up; Twilio has the message all the same.
            twilio_peer.hold_next(1, Duration::from_secs(20));
            match impatient.send(&sms("+4915112345678", "outbox-1")).await {
                Err(SendError::Unavailable(_)) => {}
                other => panic!("expected a timeout, got {other:?}"),
            }
            let taken = twilio_peer.messages();
            assert_eq!(taken.len(), 1);
            let found = impatient
                .find_sent("+4915112345678", BODY, since)
                .await
                .expect("the list is not held");
            assert_eq!(
                found,
                Some(Accepted {
                    provider_message_id: taken[0].sid.clone(),
                    status: "queued".into()
                })
            );

            // A patient sender gets the answer, after the message is there.
            let twilio = Twilio::new(config(twilio_peer.base_url())).expect("config");
            twilio_peer.hold_next(1, Duration::from_secs(2));
            let sending = tokio::spawn(async move { twilio.send(&sms("+4915112345678", "outbox-2")).await });
            let taken = twilio_peer.wait_for_messages(2, Duration::from_secs(5)).await;
            assert!(!sending.is_finished(), "answered before its hold ended");
            let accepted = sending.await.expect("the send ran").expect("accepted");
            assert_eq!(accepted.provider_message_id, taken[1].sid);
            assert_eq!(twilio_peer.requests(), 2);
        })
        .await;
    }

    #[tokio::test]
    async fn the_list_is_read_page_by_page_up_to_four() {
        within(async {
            let twilio_peer = TwilioStandIn::start(ACCOUNT, TOKEN).await;
            let twilio = Twilio::new(config(twilio_peer.base_url())).expect("config");
            let since = Utc::now();
            let first = twilio.send(&sms("+4915112345678", "outbox-0")).await.expect("accepted");
            let send_more = |from: usize, to: usize| {
                let twilio = &twilio;
                async move {
                    for n in from..to {
                        let sms = Sms {
                            body: format!("Ihre Lieferung Nr. {n} ist zugestellt"),
                            ..sms("+4915112345678", &format!("outbox-{n}"))
                        };
                        twilio.send(&sms).await.expect("accepted");
                    }
                }
            };

            // 51 messages: the first is on the second page.
            send_more(1, 51).await;
            let found = twilio.find_sent("+4915112345678", BODY, since).await.expect("listed");
            assert_eq!(found, Some(first));
            assert_eq!(twilio_peer.lookups(), 2);

            // 201: it is on the fifth, which is not read; not knowing is
            // not "not sent".
            send_more(51, 201).await;
            match twilio.find_sent("+4915112345678", BODY, since).await {
                Err(SendError::Unavailable(text)) => {
                    assert!(
                        text.starts_with("Twilio lists more than 200 messages to this number"),
                        "{text}"
                    )
                }
                other => panic!("expected Unavailable, got {other:?}"),
            }
            assert_eq!(twilio_peer.lookups(), 6);
            let newest = twilio
                .find_sent("+4915112345678", "Ihre Lieferung Nr. 200 ist zugestellt", since)
                .await
                .expect("listed");
            assert!(newest.is_some());
        })
        .await;
    }

    #[tokio::test]
    async fn a_lookup_fails_as_a_send_does() {
        within(async {
            let twilio_peer = TwilioStandIn::start(ACCOUNT, TOKEN).await;
            let since = Utc::now();
            let wrong_token = Twilio::new(TwilioConfig {
                auth_token: "not-the-token".into(),
                ..config(twilio_peer.base_url())
            })
            .expect("config");
            match wrong_token.find_sent("+4915112345678", BODY, since).await {
                Err(SendError::Unavailable(text)) => assert!(text.starts_with("Twilio 20003:"), "{text}"),
                other => panic!("expected a refused login, got {other:?}"),
            }
            // Not Twilio's API there: 404, no use trying again.
            let elsewhere = Twilio::new(config(format!("{}/elsewhere", twilio_peer.base_url()))).expect("config");
            match elsewhere.find_sent("+4915112345678", BODY, since).await {
                Err(SendError::Rejected(text)) => assert!(text.starts_with("Twilio answered 404 Not Found"), "{text}"),
                other => panic!("expected Rejected, got {other:?}"),
            }
            assert_eq!((twilio_peer.requests(), twilio_peer.lookups()), (0, 1));

            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|listener| listener.local_addr())
                .expect("a free port")
                .port();
            let nobody = Twilio::new(config(format!("http://127.0.0.1:{port}"))).expect("config");
            match nobody.find_sent("+4915112345678", BODY, since).await {
                Err(SendError::Unavailable(text)) => assert!(text.starts_with("Twilio could not be reached"), "{text}"),
                other => panic!("expected Unavailable, got {other:?}"),
            }
        })
        .await;
    }

    #[tokio::test]
    async fn the_stand_in_lists_as_twilio_does() {
        within(async {
            let twilio_peer = TwilioStandIn::start(ACCOUNT, TOKEN).await;
            let twilio = Twilio::new(config(twilio_peer.base_url())).expect("config");
            let sent = twilio.send(&sms("+4915112345678", "outbox-1")).await.expect("accepted");
            twilio.send(&sms("+4915100000000", "outbox-2")).await.expect("accepted");

            let client = reqwest::Client::new();
            let list = |query: String| {
                let request = client
                    .get(format!(
                        "{}/2010-04-01/Accounts/{ACCOUNT}/Messages.json?{query}",
                        twilio_peer.base_url()
                    ))
                    .basic_auth(ACCOUNT, Some(TOKEN));
                async move {
                    let response = request.send().await.expect("answered");
                    let status = response.status().as_u16();
                    (status, response.json::<serde_json::Value>().await.expect("JSON"))
                }
            };
            let today = Utc::now().date_naive();
            let (status, page) = list(format!("To=%2B4915112345678&DateSent%3E={today}&PageSize=50")).await;
            assert_eq!(status, 200);
            assert_eq!(page["page"], 0);
            assert_eq!(page["page_size"], 50);
            assert_eq!(page["next_page_uri"], serde_json::Value::Null);
            let messages = page["messages"].as_array().expect("messages");
            assert_eq!(messages.len(), 1);
            let message = &messages[0];
            assert_eq!(message["sid"].as_str(), Some(sent.provider_message_id.as_str()));
            assert_eq!(message["to"], "+4915112345678");
            assert_eq!(message["from"], "+4930555010");
            assert_eq!(message["messaging_service_sid"], serde_json::Value::Null);
            assert_eq!(message["body"], BODY);
            assert_eq!(message["status"], "queued");
            let created = message["date_created"].as_str().expect("date_created");
            let parsed = DateTime::parse_from_rfc2822(created).expect("RFC 2822");
            assert_eq!(created, parsed.format("%a, %d %b %Y %H:%M:%S +0000").to_string());

            // Both, newest first; none sent from tomorrow on.
            let (_, page) = list(format!("DateSent%3E={today}")).await;
            let to: Vec<&str> = page["messages"]
                .as_array()
                .expect("messages")
                .iter()
                .filter_map(|message| message["to"].as_str())
                .collect();
            assert_eq!(to, ["+4915100000000", "+4915112345678"]);
            let tomorrow = today.succ_opt().expect("a day after today");
            let (_, page) = list(format!("DateSent%3E={tomorrow}")).await;
            assert_eq!(page["messages"].as_array().map(Vec::len), Some(0));

            let (_, page) = list("PageSize=1".into()).await;
            let next = page["next_page_uri"].as_str().expect("a second page");
            let (_, second) = list(next.split_once('?').expect("a query").1.to_owned()).await;
            assert_eq!(
                second["messages"][0]["sid"].as_str(),
                Some(sent.provider_message_id.as_str())
            );
            assert_eq!(second["next_page_uri"], serde_json::Value::Null);

            let anonymous = client
                .get(format!(
                    "{}/2010-04-01/Accounts/{ACCOUNT}/Messages.json",
                    twilio_peer.base_url()
                ))
                .send()
                .await
                .expect("answered");
            assert_eq!(anonymous.status().as_u16(), 401);
            assert_eq!(twilio_peer.lookups(), 6);
            assert_eq!(twilio_peer.requests(), 2);
        })
        .await;
    }

    #[test]
    fn settings_that_cannot_work_are_named() {
        let refused = |config: TwilioConfig| Twilio::new(config).expect_err("refused").to_string();
        let local = || config("http://127.0.0.1:8080".into());
        assert!(
            refused(TwilioConfig {
                base_url: "http://api.twilio.com".into(),
                ..local()
            })
            .contains("plain http to another machine")
        );
        assert!(
            refused(TwilioConfig {
                base_url: "api.twilio.com".into(),
                ..local()
            })
            .contains("is not a URL")
        );
        assert!(
            refused(TwilioConfig {
                base_url: "ftp://api.twilio.com".into(),
                ..local()
            })
            .contains("is not http(s)")
        );
        assert_eq!(
            refused(TwilioConfig {
                auth_token: " ".into(),
                ..local()
            }),
            "the Twilio auth token is empty"
        );
        assert_eq!(
            refused(TwilioConfig {
                from: String::new(),
                ..local()
            }),
            "the Twilio sender (From) is empty"
        );
        assert!(
            refused(TwilioConfig {
                account_sid: "AC/../x".into(),
                ..local()
            })
            .contains("is not a SID")
        );

        let twilio = Twilio::new(config(DEFAULT_BASE_URL.into())).expect("config");
        assert_eq!(
            twilio.messages_url.as_str(),
            format!("https://api.twilio.com/2010-04-01/Accounts/{ACCOUNT}/Messages.json")
        );
        assert!(is_messaging_service_sid("MG0123456789abcdef0123456789abcdef"));
        assert!(!is_messaging_service_sid("MGSHOP"));
    }
}
