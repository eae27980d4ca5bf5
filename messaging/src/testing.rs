//! Real protocol peers on loopback, for the tests of every crate and the
//! benchmark: [`TwilioStandIn`], an HTTP server answering as Twilio's
//! Messages API documents (and sending its signed callbacks), and
//! [`SmtpServer`], Debian's aiosmtpd writing what it receives to a
//! Maildir. Waits have deadlines, never fixed sleeps.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use chrono::{DateTime, NaiveDate, Utc};
use serde_json::{Value, json};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::sms::IDEMPOTENCY_HEADER;
use crate::twilio_signature;

/// The number a Messaging Service send goes out from, and the platform's
/// number an inbound text is to when no message went to its sender: one of
/// Twilio's documented test numbers.
pub const POOL_NUMBER: &str = "+15005550006";

/// Twilio's longest message body, in characters.
const MAX_BODY_CHARS: usize = 1600;

/// A message the stand-in accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedSms {
    /// `SM` and 32 hex digits.
    pub sid: String,
    pub to: String,
    /// The From sent, if one was (not with a Messaging Service).
    pub from: Option<String>,
    pub messaging_service_sid: Option<String>,
    pub body: String,
    pub status_callback: Option<String>,
    /// The `I-Twilio-Idempotency-Token` sent with it.
    pub idempotency_token: Option<String>,
    /// `queued` (`accepted` with a Messaging Service), then the last status
    /// [`TwilioStandIn::send_status`] sent.
    pub status: String,
}

/// An HTTP server on 127.0.0.1 answering as Twilio's Messages API for one
/// account; stopped on drop. A repeated `I-Twilio-Idempotency-Token` gets
/// the first answer again and records no second message: the deduplication
/// the outbox's resend after a crash relies on, which Twilio's own API does
/// not document ([`crate::sms::Twilio::send`]).
///
/// It lists the messages it took as Twilio does (GET, newest first, `To`
/// and `DateSent` filters, pages; [`crate::sms::Twilio::find_sent`]), with
/// one difference: Twilio sets a message's sent date when the message
/// leaves its queue and does not say whether `DateSent` finds one still
/// queued; the stand-in's `DateSent` is the day it took the message.
pub struct TwilioStandIn {
    base_url: String,
    shared: Arc<Shared>,
    client: reqwest::Client,
    server: JoinHandle<()>,
}

struct Shared {
    account_sid: String,
    auth_token: String,
    ledger: Mutex<Ledger>,
    /// Told of every message accepted.
    arrived: Notify,
}

#[derive(Default)]
struct Ledger {
    messages: Vec<Taken>,
    /// Each accepted idempotency token and the answer it got.
    answers: HashMap<String, Value>,
    /// Message-create POSTs.
    requests: usize,
    /// List GETs.
    lookups: usize,
    failures_left: usize,
    holds_left: usize,
    hold_for: Duration,
}

/// A message as the stand-in keeps it.
struct Taken {
    sms: ReceivedSms,
    date_created: DateTime<Utc>,
}

impl Shared {
    fn ledger(&self) -> MutexGuard<'_, Ledger> {
        self.ledger.lock().expect("the stand-in's ledger")
    }
}

impl TwilioStandIn {
    /// Listens on a free port of 127.0.0.1 for `account_sid`, whose
    /// requests must carry `auth_token`.
    pub async fn start(account_sid: &str, auth_token: &str) -> TwilioStandIn {
        let shared = Arc::new(Shared {
            account_sid: account_sid.to_owned(),
            auth_token: auth_token.to_owned(),
            ledger: Mutex::default(),
            arrived: Notify::new(),
        });
        let router = Router::new()
            .route(
                "/2010-04-01/Accounts/{account}/Messages.json",
                post(create_message).get(list_messages),
            )
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("the stand-in binds 127.0.0.1:0");
        let address: SocketAddr = listener.local_addr().expect("the stand-in's address");
        let server = tokio::spawn(async move {
            axum::serve(listener, router).await.expect("the stand-in serves");
        });
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(Duration::from_secs(10))
            .build()
            .expect("the stand-in's callback client");
        TwilioStandIn {
            base_url: format!("http://{address}"),
            shared,
            client,
            server,
        }
    }

    /// For [`crate::sms::TwilioConfig::base_url`].
    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// Each accepted message, in the order accepted.
    pub fn messages(&self) -> Vec<ReceivedSms> {
        let ledger = self.shared.ledger();
        ledger.messages.iter().map(|taken| taken.sms.clone()).collect()
    }

    /// How many messages it accepted, without copying them.
    pub fn message_count(&self) -> usize {
        self.shared.ledger().messages.len()
    }

    /// Every POST seen (a message to create), including refused and
    /// replayed ones; lookups are [`TwilioStandIn::lookups`].
    pub fn requests(&self) -> usize {
        self.shared.ledger().requests
    }

    /// Every GET of the list of messages seen, including refused ones.
    pub fn lookups(&self) -> usize {
        self.shared.ledger().lookups
    }

    /// The next `n` sends answer 500 with Twilio's error 20500.
    pub fn fail_next(&self, n: usize) {
        self.shared.ledger().failures_left = n;
    }

    /// The next `n` POSTs are handled as they come (a message among them
    /// recorded, and listed, at once, as Twilio takes it), but each is
    /// answered only `answer_after` later: the sender can be stopped, or
    /// time out, while Twilio has the message and the sender no answer.
    pub fn hold_next(&self, n: usize, answer_after: Duration) {
        let mut ledger = self.shared.ledger();
        ledger.holds_left = n;
        ledger.hold_for = answer_after;
    }

    /// The accepted messages once there are at least `n`; panics with those
    /// there are after `deadline`.
    pub async fn wait_for_messages(&self, n: usize, deadline: Duration) -> Vec<ReceivedSms> {
        let until = tokio::time::Instant::now() + deadline;
        loop {
            let arrived = self.shared.arrived.notified();
            tokio::pin!(arrived);
            // Registered before looking, so a message accepted in between
            // still wakes us.
            arrived.as_mut().enable();
            let messages = self.messages();
            if messages.len() >= n {
                return messages;
            }
            if tokio::time::timeout_at(until, arrived).await.is_err() {
                panic!("waited {deadline:?} for {n} messages at the Twilio stand-in; it has {messages:#?}");
            }
        }
    }

    /// Sends Twilio's status callback for `sid` (form MessageSid,
    /// MessageStatus, AccountSid, To, From, ErrorCode when failed or
    /// undelivered, and their Sms* twins) to that message's StatusCallback
    /// URL, signed with X-Twilio-Signature; returns the HTTP status.
    pub async fn send_status(&self, sid: &str, status: &str) -> u16 {
        let (url, params) = {
            let mut ledger = self.shared.ledger();
            let message = ledger
                .messages
                .iter_mut()
                .map(|taken| &mut taken.sms)
                .find(|message| message.sid == sid)
                .unwrap_or_else(|| panic!("the Twilio stand-in accepted no message {sid}"));
            message.status = status.to_owned();
            let url = message
                .status_callback
                .clone()
                .unwrap_or_else(|| panic!("message {sid} was sent without a StatusCallback"));
            let mut params = vec![
                ("MessageSid", sid.to_owned()),
                ("SmsSid", sid.to_owned()),
                ("MessageStatus", status.to_owned()),
                ("SmsStatus", status.to_owned()),
                ("AccountSid", self.shared.account_sid.clone()),
                ("To", message.to.clone()),
                ("From", message.from.clone().unwrap_or_else(|| POOL_NUMBER.to_owned())),
                ("ApiVersion", "2010-04-01".to_owned()),
            ];
            if status == "failed" || status == "undelivered" {
                // Unreachable destination handset.
                params.push(("ErrorCode", "30003".to_owned()));
            }
            (url, params)
        };
        self.post_signed(&url, params).await
    }

    /// Sends an inbound SMS (form MessageSid, AccountSid, From, To, Body) to
    /// `url`, signed; returns the HTTP status. It is to the number that last
    /// texted `from`, else [`POOL_NUMBER`].
    pub async fn send_inbound(&self, url: &str, from: &str, body: &str) -> u16 {
        let to = {
            let ledger = self.shared.ledger();
            ledger
                .messages
                .iter()
                .map(|taken| &taken.sms)
                .rev()
                .find(|message| message.to == from)
                .and_then(|message| message.from.clone())
                .unwrap_or_else(|| POOL_NUMBER.to_owned())
        };
        let sid = new_sid();
        let params = vec![
            ("MessageSid", sid.clone()),
            ("SmsSid", sid),
            ("AccountSid", self.shared.account_sid.clone()),
            ("From", from.to_owned()),
            ("To", to),
            ("Body", body.to_owned()),
            ("NumMedia", "0".to_owned()),
            ("ApiVersion", "2010-04-01".to_owned()),
        ];
        self.post_signed(url, params).await
    }

    async fn post_signed(&self, url: &str, params: Vec<(&str, String)>) -> u16 {
        let params: Vec<(String, String)> = params
            .into_iter()
            .map(|(name, value)| (name.to_owned(), value))
            .collect();
        let signature = twilio_signature::sign(&self.shared.auth_token, url, &params);
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&params)
            .finish();
        self.client
            .post(url)
            .header(twilio_signature::HEADER, signature)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .unwrap_or_else(|error| panic!("the Twilio stand-in's POST to {url} failed: {error}"))
            .status()
            .as_u16()
    }
}

impl Drop for TwilioStandIn {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// POST /2010-04-01/Accounts/{account}/Messages.json: taken at once
/// ([`create`]), answered at once or, if held, later
/// ([`TwilioStandIn::hold_next`]).
async fn create_message(
    State(shared): State<Arc<Shared>>,
    UrlPath(account): UrlPath<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (answer, hold) = {
        let mut ledger = shared.ledger();
        ledger.requests += 1;
        let hold = (ledger.holds_left > 0).then(|| {
            ledger.holds_left -= 1;
            ledger.hold_for
        });
        (create(&shared, &mut ledger, &account, &headers, &body), hold)
    };
    shared.arrived.notify_waiters();
    if let Some(delay) = hold {
        tokio::time::sleep(delay).await;
    }
    answer
}

/// An injected failure first ([`TwilioStandIn::fail_next`]), then Twilio's
/// checks in its order: credentials, account, the message.
fn create(shared: &Shared, ledger: &mut Ledger, account: &str, headers: &HeaderMap, body: &[u8]) -> Response {
    if ledger.failures_left > 0 {
        ledger.failures_left -= 1;
        return twilio_error(StatusCode::INTERNAL_SERVER_ERROR, 20500, "Internal Server Error".into());
    }
    if let Some(refused) = refused(shared, account, headers) {
        return refused;
    }
    let token = headers
        .get(IDEMPOTENCY_HEADER)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    if let Some(first) = token.as_ref().and_then(|token| ledger.answers.get(token)) {
        return (StatusCode::CREATED, axum::Json(first.clone())).into_response();
    }

    let form: HashMap<String, String> = url::form_urlencoded::parse(body).into_owned().collect();
    let field = |name: &str| form.get(name).filter(|value| !value.is_empty()).cloned();
    let Some(to) = field("To") else {
        return twilio_error(
            StatusCode::BAD_REQUEST,
            21604,
            "A 'To' phone number is required.".into(),
        );
    };
    let (from, messaging_service_sid) = (field("From"), field("MessagingServiceSid"));
    if from.is_none() && messaging_service_sid.is_none() {
        return twilio_error(
            StatusCode::BAD_REQUEST,
            21603,
            "A 'From' phone number is required.".into(),
        );
    }
    let Some(text) = field("Body") else {
        return twilio_error(StatusCode::BAD_REQUEST, 21602, "Message body is required.".into());
    };
    if !is_e164(&to) {
        return twilio_error(
            StatusCode::BAD_REQUEST,
            21211,
            format!("Invalid 'To' Phone Number: {to}"),
        );
    }
    if text.chars().count() > MAX_BODY_CHARS {
        return twilio_error(
            StatusCode::BAD_REQUEST,
            21617,
            "The concatenated message body exceeds the 1600 character limit.".into(),
        );
    }

    // Twilio answers `accepted` while a Messaging Service picks the sender.
    let status = if from.is_none() { "accepted" } else { "queued" };
    let taken = Taken {
        sms: ReceivedSms {
            sid: new_sid(),
            to,
            from,
            messaging_service_sid,
            body: text,
            status_callback: field("StatusCallback"),
            idempotency_token: token.clone(),
            status: status.to_owned(),
        },
        date_created: Utc::now(),
    };
    let answer = message_resource(&shared.account_sid, &taken);
    ledger.messages.push(taken);
    if let Some(token) = token {
        ledger.answers.insert(token, answer.clone());
    }
    (StatusCode::CREATED, axum::Json(answer)).into_response()
}

/// GET /2010-04-01/Accounts/{account}/Messages.json: the account's messages,
/// newest first, as Twilio lists them: filtered by `To` and by `DateSent`
/// (a GMT day; `DateSent>=` and `DateSent<=` for days on or after, on or
/// before it), `PageSize` of them (50 unless said, at most 1000) a page,
/// with `next_page_uri` carrying a `PageToken` (after which message) while
/// there are more.
async fn list_messages(
    State(shared): State<Arc<Shared>>,
    UrlPath(account): UrlPath<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let mut ledger = shared.ledger();
    ledger.lookups += 1;
    if let Some(refused) = refused(&shared, &account, &headers) {
        return refused;
    }
    let params: Vec<(String, String)> = url::form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .into_owned()
        .collect();
    let param = |name: &str| {
        params
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    };
    // Not an answer Twilio documents for these: our client never sends one.
    let invalid =
        |name: &str, value: &str| twilio_error(StatusCode::BAD_REQUEST, 20001, format!("Invalid {name}: {value}"));
    let mut days: Vec<(&str, NaiveDate)> = Vec::new();
    for name in ["DateSent", "DateSent>", "DateSent<"] {
        if let Some(value) = param(name) {
            match NaiveDate::parse_from_str(value, "%Y-%m-%d") {
                Ok(day) => days.push((name, day)),
                Err(_) => return invalid(name, value),
            }
        }
    }
    let page_size = match param("PageSize").map(str::parse::<usize>) {
        None => 50,
        Some(Ok(size)) if (1..=1000).contains(&size) => size,
        Some(_) => return invalid("PageSize", param("PageSize").unwrap_or_default()),
    };
    let page = match param("Page").map(str::parse::<usize>) {
        None => 0,
        Some(Ok(page)) => page,
        Some(Err(_)) => return invalid("Page", param("Page").unwrap_or_default()),
    };
    let to = param("To");

    let listed: Vec<&Taken> = ledger
        .messages
        .iter()
        .rev()
        .filter(|taken| to.is_none_or(|to| taken.sms.to == to))
        .filter(|taken| {
            let day = taken.date_created.date_naive();
            days.iter().all(|(name, on)| match *name {
                "DateSent>" => day >= *on,
                "DateSent<" => day <= *on,
                _ => day == *on,
            })
        })
        .collect();
    // A token names the last message of the page before; else the page's
    // index counts.
    let start = match param("PageToken") {
        Some(token) => match listed
            .iter()
            .position(|taken| token.strip_prefix("PA") == Some(taken.sms.sid.as_str()))
        {
            Some(last) => last + 1,
            None => return invalid("PageToken", token),
        },
        None => page.saturating_mul(page_size),
    };
    let on_page: Vec<&Taken> = listed.iter().skip(start).take(page_size).copied().collect();

    // The list's own URIs: its filters, then where the page is.
    let list_uri = |page: usize, token: Option<&str>| {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        if let Some(to) = to {
            query.append_pair("To", to);
        }
        for (name, day) in &days {
            query.append_pair(name, &day.format("%Y-%m-%d").to_string());
        }
        query.append_pair("PageSize", &page_size.to_string());
        query.append_pair("Page", &page.to_string());
        if let Some(token) = token {
            query.append_pair("PageToken", token);
        }
        format!(
            "/2010-04-01/Accounts/{}/Messages.json?{}",
            shared.account_sid,
            query.finish()
        )
    };
    let next_page_uri = match on_page.last() {
        Some(last) if start + on_page.len() < listed.len() => {
            Some(list_uri(page + 1, Some(&format!("PA{}", last.sms.sid))))
        }
        _ => None,
    };
    let body = json!({
        "end": (start + on_page.len()).saturating_sub(1),
        "first_page_uri": list_uri(0, None),
        "messages": on_page
            .iter()
            .map(|taken| message_resource(&shared.account_sid, taken))
            .collect::<Vec<_>>(),
        "next_page_uri": next_page_uri,
        "page": page,
        "page_size": page_size,
        "previous_page_uri": null,
        "start": start,
        "uri": list_uri(page, param("PageToken")),
    });
    (StatusCode::OK, axum::Json(body)).into_response()
}

/// Twilio's answer to a request of another account or with the wrong
/// credentials, if it is one.
fn refused(shared: &Shared, account: &str, headers: &HeaderMap) -> Option<Response> {
    if basic_auth(headers) != Some((shared.account_sid.clone(), shared.auth_token.clone())) {
        return Some(twilio_error(StatusCode::UNAUTHORIZED, 20003, "Authenticate".into()));
    }
    if account != shared.account_sid {
        return Some(twilio_error(
            StatusCode::NOT_FOUND,
            20404,
            format!("The requested resource /2010-04-01/Accounts/{account}/Messages.json was not found"),
        ));
    }
    None
}

/// Twilio's message resource. `date_sent` stays null while the message is
/// queued (`queued`, `accepted`); the stand-in does not send, so a message
/// moved on by [`TwilioStandIn::send_status`] counts as sent when taken.
fn message_resource(account_sid: &str, taken: &Taken) -> Value {
    let sms = &taken.sms;
    let created = twilio_date(taken.date_created);
    let sent = (sms.status != "queued" && sms.status != "accepted").then(|| created.clone());
    json!({
        "account_sid": account_sid,
        "api_version": "2010-04-01",
        "body": sms.body,
        "date_created": created,
        "date_sent": sent,
        "date_updated": created,
        "direction": "outbound-api",
        "error_code": null,
        "error_message": null,
        "from": sms.from,
        "messaging_service_sid": sms.messaging_service_sid,
        "num_media": "0",
        "sid": sms.sid,
        "status": sms.status,
        "to": sms.to,
        "uri": format!("/2010-04-01/Accounts/{account_sid}/Messages/{}.json", sms.sid),
    })
}

/// RFC 2822 as Twilio writes it: `Tue, 01 Dec 2026 02:10:00 +0000` (two
/// digits for the day, where chrono's `to_rfc2822` writes one).
fn twilio_date(at: DateTime<Utc>) -> String {
    at.format("%a, %d %b %Y %H:%M:%S %z").to_string()
}

/// Twilio's error object.
fn twilio_error(status: StatusCode, code: u32, message: String) -> Response {
    let body = json!({
        "code": code,
        "message": message,
        "more_info": format!("https://www.twilio.com/docs/errors/{code}"),
        "status": status.as_u16(),
    });
    (status, axum::Json(body)).into_response()
}

/// The user and password of an `Authorization: Basic …` header.
fn basic_auth(headers: &HeaderMap) -> Option<(String, String)> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let encoded = value.strip_prefix("Basic ")?;
    let decoded = String::from_utf8(BASE64.decode(encoded.trim()).ok()?).ok()?;
    let (user, password) = decoded.split_once(':')?;
    Some((user.to_owned(), password.to_owned()))
}

/// `+`, then 7 to 15 digits, the first not 0.
fn is_e164(number: &str) -> bool {
    number.strip_prefix('+').is_some_and(|digits| {
        (7..=15).contains(&digits.len()) && digits.chars().all(|c| c.is_ascii_digit()) && !digits.starts_with('0')
    })
}

/// `SM` and 32 hex digits, as Twilio names messages.
fn new_sid() -> String {
    format!("SM{:032x}", rand::random::<u128>())
}

/// A message the SMTP server received, as a mail client reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedEmail {
    /// The first To address.
    pub to: String,
    /// The From address, and its display name.
    pub from: String,
    pub from_name: Option<String>,
    pub reply_to: Option<String>,
    /// Decoded (RFC 2047).
    pub subject: String,
    /// Without the angle brackets.
    pub message_id: String,
    /// The raw header values, unfolded.
    pub list_unsubscribe: Option<String>,
    pub list_unsubscribe_post: Option<String>,
    pub content_type: String,
    /// The body text, its transfer encoding undone.
    pub text: String,
}

/// A real SMTP server on 127.0.0.1: Debian's python3-aiosmtpd, run as
/// `python3 -m aiosmtpd -n -l 127.0.0.1:{port} -c aiosmtpd.handlers.Mailbox
/// {maildir}` in a temporary directory; killed on drop.
pub struct SmtpServer {
    // Declared first: the server goes before its directory.
    server: tokio::process::Child,
    port: u16,
    directory: tempfile::TempDir,
}

impl SmtpServer {
    /// Starts the server and waits until it accepts connections. Panics
    /// with a clear message if `python3 -m aiosmtpd` is missing.
    pub async fn start() -> SmtpServer {
        let python = python_with_aiosmtpd().await;
        let directory = tempfile::Builder::new()
            .prefix("courier-smtp-")
            .tempdir()
            .expect("a temporary directory for the SMTP server");
        // Bound and dropped: free for aiosmtpd to take right after.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port on 127.0.0.1")
            .port();
        let log_path = directory.path().join("aiosmtpd.log");
        let log = std::fs::File::create(&log_path).expect("the SMTP server's log file");
        let mut server = tokio::process::Command::new(&python)
            .args(["-m", "aiosmtpd", "-n", "-l"])
            .arg(format!("127.0.0.1:{port}"))
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            .arg(directory.path().join("maildir"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("the SMTP server's log file"))
            .stderr(log)
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|error| panic!("{python} -m aiosmtpd did not start: {error}"));

        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
            let log = || std::fs::read_to_string(&log_path).unwrap_or_default();
            if let Ok(Some(exit)) = server.try_wait() {
                panic!("{python} -m aiosmtpd on port {port} ended ({exit}):\n{}", log());
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{python} -m aiosmtpd did not accept connections on port {port} within 10 s:\n{}",
                log()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        SmtpServer {
            server,
            port,
            directory,
        }
    }

    /// For [`crate::email::Smtp::from_url`]: plain SMTP to loopback.
    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// Each message received, in the order received.
    pub fn messages(&self) -> Vec<ReceivedEmail> {
        let maildir = self.directory.path().join("maildir");
        let mut files: Vec<(u64, PathBuf)> = ["new", "cur"]
            .iter()
            .filter_map(|folder| std::fs::read_dir(maildir.join(folder)).ok())
            .flatten()
            .map(|entry| entry.expect("a Maildir entry").path())
            .map(|path| (arrival(&path), path))
            .collect();
        files.sort();
        files.iter().map(|(_, path)| read_email(path)).collect()
    }

    /// The messages once there are at least `n`, looking every 20 ms;
    /// panics with those there are after `deadline`.
    pub async fn wait_for_messages(&self, n: usize, deadline: Duration) -> Vec<ReceivedEmail> {
        let until = tokio::time::Instant::now() + deadline;
        loop {
            let messages = self.messages();
            if messages.len() >= n {
                return messages;
            }
            assert!(
                tokio::time::Instant::now() < until,
                "waited {deadline:?} for {n} emails at the SMTP server; it has {messages:#?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl std::fmt::Debug for SmtpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpServer")
            .field("port", &self.port)
            .field("pid", &self.server.id())
            .finish()
    }
}

/// `python3` where it can import aiosmtpd, else Debian's own: a python3
/// first on PATH (pyenv, a virtual environment) does not see the packages
/// apt installs.
async fn python_with_aiosmtpd() -> String {
    for python in ["python3", "/usr/bin/python3"] {
        let found = tokio::process::Command::new(python)
            .args(["-c", "import aiosmtpd"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .await
            .is_ok_and(|status| status.success());
        if found {
            return python.to_owned();
        }
    }
    panic!("python3 -m aiosmtpd is missing, the SMTP server of the tests: apt-get install python3-aiosmtpd");
}

/// Where a Maildir file came in: Python's `mailbox.Maildir` names each
/// `{time}.M{µs}P{pid}Q{count}.{host}`, and one server process writes them
/// all, so its count is the order of arrival.
fn arrival(path: &Path) -> u64 {
    let name = path.file_name().and_then(|name| name.to_str()).unwrap_or_default();
    name.split_once('Q')
        .and_then(|(_, rest)| rest.split('.').next())
        .and_then(|count| count.parse().ok())
        .unwrap_or(u64::MAX)
}

fn read_email(path: &Path) -> ReceivedEmail {
    let raw = std::fs::read(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let message = mail_parser::MessageParser::default()
        .parse(&raw)
        .unwrap_or_else(|| panic!("{} is not an email", path.display()));
    fn first<'x>(address: Option<&'x mail_parser::Address<'x>>) -> Option<&'x mail_parser::Addr<'x>> {
        address.and_then(|address| address.first())
    }
    let from = first(message.from());
    let raw_header = |name: &'static str| {
        message
            .header_raw(name)
            .map(|value| value.replace(['\r', '\n'], "").trim().to_owned())
    };
    ReceivedEmail {
        to: first(message.to())
            .and_then(|to| to.address().map(str::to_owned))
            .unwrap_or_default(),
        from: from
            .and_then(|from| from.address().map(str::to_owned))
            .unwrap_or_default(),
        from_name: from.and_then(|from| from.name().map(str::to_owned)),
        reply_to: first(message.reply_to()).and_then(|reply_to| reply_to.address().map(str::to_owned)),
        subject: message.subject().unwrap_or_default().to_owned(),
        message_id: message.message_id().unwrap_or_default().to_owned(),
        list_unsubscribe: raw_header("List-Unsubscribe"),
        list_unsubscribe_post: raw_header("List-Unsubscribe-Post"),
        content_type: raw_header("Content-Type").unwrap_or_default(),
        text: message.body_text(0).unwrap_or_default().into_owned(),
    }
}
