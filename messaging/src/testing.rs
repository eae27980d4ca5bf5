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
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
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
    messages: Vec<ReceivedSms>,
    /// Each accepted idempotency token and the answer it got.
    answers: HashMap<String, Value>,
    requests: usize,
    failures_left: usize,
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
            .route("/2010-04-01/Accounts/{account}/Messages.json", post(create_message))
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
        self.shared.ledger().messages.clone()
    }

    /// Every POST seen, including refused and replayed ones.
    pub fn requests(&self) -> usize {
        self.shared.ledger().requests
    }

    /// The next `n` sends answer 500 with Twilio's error 20500.
    pub fn fail_next(&self, n: usize) {
        self.shared.ledger().failures_left = n;
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

/// POST /2010-04-01/Accounts/{account}/Messages.json: an injected failure
/// first ([`TwilioStandIn::fail_next`]), then Twilio's checks in its order:
/// credentials, account, the message.
async fn create_message(
    State(shared): State<Arc<Shared>>,
    UrlPath(account): UrlPath<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let mut ledger = shared.ledger();
    ledger.requests += 1;
    if ledger.failures_left > 0 {
        ledger.failures_left -= 1;
        return twilio_error(StatusCode::INTERNAL_SERVER_ERROR, 20500, "Internal Server Error".into());
    }
    if basic_auth(&headers) != Some((shared.account_sid.clone(), shared.auth_token.clone())) {
        return twilio_error(StatusCode::UNAUTHORIZED, 20003, "Authenticate".into());
    }
    if account != shared.account_sid {
        return twilio_error(
            StatusCode::NOT_FOUND,
            20404,
            format!("The requested resource /2010-04-01/Accounts/{account}/Messages.json was not found"),
        );
    }
    let token = headers
        .get(IDEMPOTENCY_HEADER)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    if let Some(first) = token.as_ref().and_then(|token| ledger.answers.get(token)) {
        return (StatusCode::CREATED, axum::Json(first.clone())).into_response();
    }

    let form: HashMap<String, String> = url::form_urlencoded::parse(&body).into_owned().collect();
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

    let sid = new_sid();
    // Twilio answers `accepted` while a Messaging Service picks the sender.
    let status = if from.is_none() { "accepted" } else { "queued" };
    let now = chrono::Utc::now().to_rfc2822();
    let answer = json!({
        "account_sid": shared.account_sid,
        "api_version": "2010-04-01",
        "body": text,
        "date_created": now,
        "date_sent": null,
        "date_updated": now,
        "direction": "outbound-api",
        "error_code": null,
        "error_message": null,
        "from": from,
        "messaging_service_sid": messaging_service_sid,
        "num_media": "0",
        "sid": sid,
        "status": status,
        "to": to,
        "uri": format!("/2010-04-01/Accounts/{}/Messages/{sid}.json", shared.account_sid),
    });
    ledger.messages.push(ReceivedSms {
        sid,
        to,
        from,
        messaging_service_sid,
        body: text,
        status_callback: field("StatusCallback"),
        idempotency_token: token.clone(),
        status: status.to_owned(),
    });
    if let Some(token) = token {
        ledger.answers.insert(token, answer.clone());
    }
    drop(ledger);
    shared.arrived.notify_waiters();
    (StatusCode::CREATED, axum::Json(answer)).into_response()
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
