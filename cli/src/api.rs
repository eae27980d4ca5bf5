//! The public API over HTTP: requests with the key, and failures told as the
//! contract tells them (code, message, request id).

use std::time::Duration;

use serde_json::Value;

/// How long a plain request may take (the stream has no such limit).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// The API refused the request: its error shape.
    #[error("{code}: {message}{}{}", param.as_ref().map(|p| format!(" (param {p})")).unwrap_or_default(), request_id.as_ref().map(|id| format!(" [request {id}]")).unwrap_or_default())]
    Refused {
        status: u16,
        code: String,
        message: String,
        param: Option<String>,
        request_id: Option<String>,
    },
    /// The service could not be reached, or its answer could not be read.
    #[error("cannot reach the Courier API at {base_url}: {reason}")]
    Unreachable { base_url: String, reason: String },
    /// A mistake in the command itself.
    #[error("{0}")]
    Usage(String),
    /// A local file or directory could not be used.
    #[error("{0}")]
    Local(String),
    /// Rows of an import were refused (each said before).
    #[error("{0} rows were refused")]
    Rows(usize),
}

impl Failure {
    /// The process exit status: 2 for a mistake in the command, else 1.
    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::Usage(_) => 2,
            _ => 1,
        }
    }
}

/// A client of one API base URL with one key.
#[derive(Clone)]
pub struct Api {
    pub base_url: String,
    key: String,
    pub http: reqwest::Client,
}

impl Api {
    pub fn new(base_url: &str, key: &str) -> Result<Api, Failure> {
        let http = reqwest::Client::builder()
            .user_agent(concat!("courier-cli/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|error| Failure::Local(format!("HTTP client: {error}")))?;
        Ok(Api {
            base_url: base_url.trim_end_matches('/').to_owned(),
            key: key.to_owned(),
            http,
        })
    }

    /// A request to `path` (from `/v1`) with the key.
    pub fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, format!("{}{path}", self.base_url))
            .header("x-api-key", &self.key)
    }

    pub async fn get(&self, path: &str) -> Result<Value, Failure> {
        self.send(self.request(reqwest::Method::GET, path)).await
    }

    pub async fn post(&self, path: &str, body: &Value, idempotency_key: Option<&str>) -> Result<Value, Failure> {
        let mut request = self.request(reqwest::Method::POST, path).json(body);
        if let Some(key) = idempotency_key {
            request = request.header("idempotency-key", key);
        }
        self.send(request).await
    }

    /// A change of `path`: always with an idempotency key, and with the
    /// `updated_at` it was made against when given (`If-Match`).
    pub async fn patch(
        &self,
        path: &str,
        body: &Value,
        idempotency_key: &str,
        if_match: Option<&str>,
    ) -> Result<Value, Failure> {
        let mut request = self
            .request(reqwest::Method::PATCH, path)
            .json(body)
            .header("idempotency-key", idempotency_key);
        if let Some(updated_at) = if_match {
            request = request.header("if-match", updated_at);
        }
        self.send(request).await
    }

    /// Sends `request` and answers its JSON body, or the refusal it carries.
    pub async fn send(&self, request: reqwest::RequestBuilder) -> Result<Value, Failure> {
        let response = request
            .timeout(REQUEST_TIMEOUT)
            .send()
            .await
            .map_err(|error| self.unreachable(&error))?;
        let response = self.accepted(response).await?;
        response.json().await.map_err(|error| self.unreachable(&error))
    }

    /// `response` if it is a success, else its refusal.
    pub async fn accepted(&self, response: reqwest::Response) -> Result<reqwest::Response, Failure> {
        if response.status().is_success() {
            return Ok(response);
        }
        let status = response.status().as_u16();
        let header_id = response
            .headers()
            .get("request-id")
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        let body: Value = response.json().await.unwrap_or(Value::Null);
        let text = |value: &Value| value.as_str().map(str::to_owned);
        Err(Failure::Refused {
            status,
            code: text(&body["error"]["code"]).unwrap_or_else(|| format!("http_{status}")),
            message: text(&body["error"]["message"])
                .unwrap_or_else(|| "The service answered without an error body.".into()),
            param: text(&body["error"]["param"]),
            request_id: text(&body["request_id"]).or(header_id),
        })
    }

    pub fn unreachable(&self, error: &reqwest::Error) -> Failure {
        let mut reason = error.to_string();
        let mut source = std::error::Error::source(error);
        while let Some(cause) = source {
            reason = format!("{reason}: {cause}");
            source = cause.source();
        }
        Failure::Unreachable {
            base_url: self.base_url.clone(),
            reason,
        }
    }
}

/// A new idempotency key for one intended create.
pub fn new_idempotency_key() -> String {
    use rand::RngExt;
    let bytes: [u8; 16] = rand::rng().random();
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("cli_{hex}")
}
