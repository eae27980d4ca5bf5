//! The HTTP/1.1 server of the API and the console ([`crate::serve_router`]):
//! TCP_NODELAY, a graceful shutdown, and slow clients cut off
//! (docs/guide.md "Limits"), each bound configurable ([`HttpTimeouts`]):
//!
//! - The header block must arrive within the header timeout, counted while
//!   the server waits for a request, so an idle kept-alive connection is
//!   closed after it too. The HTTP server then closes the connection without
//!   an answer: it cannot render one before the request is read.
//! - The body must arrive within the body timeout of the headers: reading it
//!   then fails, the answer is `408 request_timeout` in the error shape, and
//!   the connection is closed.
//! - The answer's headers must be ready within the request deadline of the
//!   request's headers: else `408 request_timeout` while the body is still
//!   arriving, `503 service_unavailable` once it is all in (the service, not
//!   the client, was slow). A stream already answering (a console page's
//!   server-sent events) is not cut.
//!
//! A connection that opens with the HTTP/2 preface is answered `400`
//! without a body and closed, as any request line that is not HTTP/1.
//!
//! The server also gives each request its id (`middleware::RequestId`), so
//! that an answer made here quotes the same id as the service's logs.

use std::convert::Infallible;
use std::error::Error as StdError;
use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, Request, Response, header};
use axum::response::IntoResponse;
use courier::client_address::Peer;
use courier::errors::ErrorCode;
use http_body::Frame;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tower::ServiceExt;

use crate::error::ApiError;
use crate::middleware::{self, RequestId};

/// How long a client may take over a request (docs/guide.md "Limits").
#[derive(clap::Args, Clone, Copy, Debug, PartialEq, Eq)]
pub struct HttpTimeouts {
    /// How long a client may take to send a request's header block, also the
    /// longest an idle kept-alive connection stays open (e.g. `20s`); the
    /// connection is then closed.
    #[arg(long = "http-header-timeout", env = "COURIER_HTTP_HEADER_TIMEOUT", default_value = "20s", value_parser = courier::time::parse_duration)]
    pub header: Duration,

    /// How long a client may take to send a request's body once its headers
    /// are in: then `408 request_timeout`, and the connection is closed.
    #[arg(long = "http-body-timeout", env = "COURIER_HTTP_BODY_TIMEOUT", default_value = "30s", value_parser = courier::time::parse_duration)]
    pub body: Duration,

    /// How long a request may take from its headers to the answer's headers:
    /// then `408 request_timeout` while its body still arrives, else `503
    /// service_unavailable`.
    #[arg(long = "http-request-timeout", env = "COURIER_HTTP_REQUEST_TIMEOUT", default_value = "60s", value_parser = courier::time::parse_duration)]
    pub request: Duration,
}

impl Default for HttpTimeouts {
    /// The documented defaults (the flags' own, checked by a test).
    fn default() -> HttpTimeouts {
        HttpTimeouts {
            header: Duration::from_secs(20),
            body: Duration::from_secs(30),
            request: Duration::from_secs(60),
        }
    }
}

/// Serves `router` on `listener` until `shutdown` completes: then new
/// connections are refused, idle ones closed, and requests in flight
/// finish. `base_url` is the public API's (without a trailing slash), for
/// the `doc_url` of the answers made here.
pub async fn serve(
    router: Router,
    listener: TcpListener,
    timeouts: HttpTimeouts,
    base_url: Arc<str>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let service = Deadlines {
        router,
        timeouts,
        base_url,
        peer: None,
    };
    let (closing, closed) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut shutdown = pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    accept_failed(&error).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Answers are written as soon as they are ready, never held back
        // waiting for the client's delayed ACK.
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "TCP_NODELAY not set");
        }
        let service = Deadlines {
            peer: Some(Peer(peer)),
            ..service.clone()
        };
        connections.spawn(serve_connection(stream, service, timeouts, closed.clone()));
        while connections.try_join_next().is_some() {}
    }
    drop(listener);
    // Receivers are gone only when every connection has ended.
    let _ = closing.send(true);
    while connections.join_next().await.is_some() {}
    Ok(())
}

/// A failed accept: a connection that went away before it was taken is
/// skipped; anything else (out of file descriptors) waits a moment, as the
/// failure would repeat at once.
async fn accept_failed(error: &std::io::Error) {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if !matches!(error.kind(), ConnectionAborted | ConnectionRefused | ConnectionReset) {
        tracing::warn!(%error, "accepting a connection failed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn serve_connection(
    stream: tokio::net::TcpStream,
    service: Deadlines,
    timeouts: HttpTimeouts,
    mut closing: watch::Receiver<bool>,
) {
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(timeouts.header);
    let mut connection = builder.serve_connection(TokioIo::new(stream), service);
    let mut draining = false;
    let served = loop {
        tokio::select! {
            served = &mut connection => break served,
            changed = closing.wait_for(|closing| *closing), if !draining => {
                draining = true;
                if changed.is_ok() {
                    Pin::new(&mut connection).graceful_shutdown();
                }
            }
        }
    };
    match served {
        Err(error) if error.is_parse_version_h2() => refuse_http2(connection.into_parts().io.into_inner()).await,
        Err(error) => tracing::debug!(%error, "connection ended"),
        Ok(()) => {}
    }
}

/// The answer to a connection that opens with the HTTP/2 preface: the
/// server speaks HTTP/1.1 only, and refuses it as it refuses any request
/// line that is not HTTP/1 (docs/guide.md "Refusals before routing").
const HTTP2_REFUSAL: &[u8] = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";

/// Answers a connection that sent the HTTP/2 preface [`HTTP2_REFUSAL`] (the
/// HTTP server itself closes it without a word), then closes it: the write
/// side first, then the rest, once the client closed too or after a second,
/// so that bytes it sent after the preface do not reset the connection
/// before the answer is read.
async fn refuse_http2(mut stream: tokio::net::TcpStream) {
    use tokio::io::AsyncWrite;
    tracing::debug!("HTTP/2 preface on the HTTP/1.1 port: 400");
    let mut answer = HTTP2_REFUSAL;
    while !answer.is_empty() {
        match std::future::poll_fn(|cx| Pin::new(&mut stream).poll_write(cx, answer)).await {
            Ok(0) | Err(_) => return,
            Ok(written) => answer = &answer[written..],
        }
    }
    let closed = std::future::poll_fn(|cx| Pin::new(&mut stream).poll_shutdown(cx)).await;
    if closed.is_err() {
        return;
    }
    let drained = async {
        let mut buffer = [0; 4096];
        loop {
            if stream.readable().await.is_err() {
                return;
            }
            match stream.try_read(&mut buffer) {
                Ok(0) => return,
                Err(error) if error.kind() != std::io::ErrorKind::WouldBlock => return,
                _ => {}
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), drained).await;
}

/// Runs each request under the body timeout and the request deadline,
/// with its connection's peer address in its extensions.
#[derive(Clone)]
struct Deadlines {
    router: Router,
    timeouts: HttpTimeouts,
    base_url: Arc<str>,
    peer: Option<Peer>,
}

type Answer = Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>;

impl hyper::service::Service<Request<Incoming>> for Deadlines {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Answer;

    fn call(&self, request: Request<Incoming>) -> Answer {
        let request_id = middleware::new_request_id();
        let arrival = Arc::new(BodyArrival::default());
        let (mut parts, body) = request.into_parts();
        parts.extensions.insert(RequestId(request_id.clone()));
        if let Some(peer) = self.peer {
            parts.extensions.insert(peer);
        }
        let body = TimedBody {
            inner: body,
            deadline: Box::pin(tokio::time::sleep(self.timeouts.body)),
            arrival: arrival.clone(),
        };
        if http_body::Body::is_end_stream(&body.inner) {
            arrival.complete.store(true, Ordering::Relaxed);
        }
        let request = Request::from_parts(parts, Body::new(body));
        let (router, deadline, base_url) = (self.router.clone(), self.timeouts.request, self.base_url.clone());
        Box::pin(async move {
            let answered = tokio::time::timeout(deadline, router.oneshot(request)).await;
            let too_slow = match answered {
                Ok(Ok(response)) if !arrival.timed_out.load(Ordering::Relaxed) => return Ok(response),
                Ok(Ok(response)) if response.status().as_u16() == ErrorCode::RequestTimeout.http_status() => {
                    return Ok(closing(response));
                }
                Ok(Err(never)) => match never {},
                Ok(Ok(_)) => ApiError::new(
                    ErrorCode::RequestTimeout,
                    "The request body did not arrive in time; send the request again.",
                ),
                Err(_elapsed) if !arrival.complete.load(Ordering::Relaxed) => ApiError::new(
                    ErrorCode::RequestTimeout,
                    "The request did not arrive in time; send it again.",
                ),
                Err(_elapsed) => ApiError::new(
                    ErrorCode::ServiceUnavailable,
                    format!(
                        "The request could not be answered within {} seconds; retry with backoff.",
                        deadline.as_secs()
                    ),
                ),
            };
            tracing::info!(request_id = %request_id, code = too_slow.code.as_str(), "request cut off: too slow");
            let mut response = too_slow.into_response();
            middleware::render_error(&mut response, &request_id, &base_url);
            if let Ok(value) = HeaderValue::from_str(&request_id) {
                response.headers_mut().insert("request-id", value);
            }
            Ok(closing(response))
        })
    }
}

/// `response`, after which the connection is closed (its request's body is
/// not read to the end).
fn closing(mut response: Response<Body>) -> Response<Body> {
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// How a request's body arrived: all of it, or not in time.
#[derive(Debug, Default)]
struct BodyArrival {
    complete: AtomicBool,
    timed_out: AtomicBool,
}

/// A request body that fails with [`BodyTimeout`] when it has not arrived
/// by its deadline.
struct TimedBody {
    inner: Incoming,
    deadline: Pin<Box<tokio::time::Sleep>>,
    arrival: Arc<BodyArrival>,
}

/// The error of a request body that did not arrive in time.
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive in time")]
pub struct BodyTimeout;

impl BodyTimeout {
    /// Whether `error` (an error reading a request body) is, or was caused
    /// by, a [`BodyTimeout`].
    pub fn caused(error: &(dyn StdError + 'static)) -> bool {
        let mut current = Some(error);
        while let Some(error) = current {
            if error.is::<BodyTimeout>() {
                return true;
            }
            current = error.source();
        }
        false
    }
}

impl http_body::Body for TimedBody {
    type Data = Bytes;
    type Error = Box<dyn StdError + Send + Sync>;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match Pin::new(&mut self.inner).poll_frame(cx) {
            Poll::Ready(None) => {
                self.arrival.complete.store(true, Ordering::Relaxed);
                Poll::Ready(None)
            }
            Poll::Ready(Some(frame)) => Poll::Ready(Some(frame.map_err(Into::into))),
            Poll::Pending => match self.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    self.arrival.timed_out.store(true, Ordering::Relaxed);
                    Poll::Ready(Some(Err(Box::new(BodyTimeout))))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        http: HttpTimeouts,
    }

    #[test]
    fn the_flags_defaults_are_the_documented_ones() {
        let flags = Flags::try_parse_from(["edge"]).expect("defaults parse");
        // A variable set in the environment would change them.
        if std::env::vars().all(|(name, _)| !name.starts_with("COURIER_HTTP_")) {
            assert_eq!(flags.http, HttpTimeouts::default());
        }
    }

    /// Serves `router` with short timeouts; its address.
    async fn serving(router: Router) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("addr").to_string();
        let timeouts = HttpTimeouts {
            header: Duration::from_secs(2),
            body: Duration::from_millis(300),
            request: Duration::from_millis(600),
        };
        tokio::spawn(serve(
            router,
            listener,
            timeouts,
            "http://api".into(),
            std::future::pending(),
        ));
        address
    }

    /// Writes `request`, reads until the server closes the connection.
    async fn exchange(address: &str, request: &str) -> (Duration, String) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut stream = tokio::net::TcpStream::connect(address).await.expect("connect");
        stream.write_all(request.as_bytes()).await.expect("write");
        let started = std::time::Instant::now();
        let mut answer = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer)).await;
        assert!(read.is_ok(), "closed within 5 s");
        (started.elapsed(), String::from_utf8_lossy(&answer).into_owned())
    }

    fn code_of(answer: &str) -> String {
        let body = answer.split_once("\r\n\r\n").map(|(_, body)| body).unwrap_or_default();
        let json: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
        assert!(
            json["request_id"]
                .as_str()
                .is_some_and(|id| answer.contains(&format!("request-id: {id}"))),
            "{answer}"
        );
        json["error"]["code"].as_str().unwrap_or_default().to_owned()
    }

    #[tokio::test]
    async fn a_slow_answer_is_cut_off_with_503_and_a_slow_body_with_408() {
        use axum::routing::{get, post};
        // A router of its own, as the console is: it renders no error shape,
        // and reads a body as a form would, refusing in plain text.
        let router = Router::new()
            .route("/slow", get(|| tokio::time::sleep(Duration::from_secs(5))))
            .route(
                "/form",
                post(|body: Body| async move {
                    match axum::body::to_bytes(body, 1024).await {
                        Ok(_) => (axum::http::StatusCode::OK, "read"),
                        Err(_) => (axum::http::StatusCode::BAD_REQUEST, "unreadable"),
                    }
                }),
            );
        let address = serving(router).await;
        let (waited, answer) = exchange(&address, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n").await;
        assert!(answer.starts_with("HTTP/1.1 503 "), "{answer}");
        assert_eq!(code_of(&answer), "service_unavailable");
        assert!(
            waited >= Duration::from_millis(550) && waited < Duration::from_secs(2),
            "{waited:?}"
        );
        let request = "POST /form HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc";
        let (waited, answer) = exchange(&address, request).await;
        assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
        assert!(answer.contains("connection: close"), "{answer}");
        assert_eq!(code_of(&answer), "request_timeout");
        assert!(answer.contains("http://api/v1/docs/errors#request_timeout"), "{answer}");
        assert!(
            waited >= Duration::from_millis(250) && waited < Duration::from_secs(2),
            "{waited:?}"
        );
        // A whole body in time is answered as the router answers.
        let (_, answer) = exchange(
            &address,
            "POST /form HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 3\r\n\r\nabc",
        )
        .await;
        assert!(
            answer.starts_with("HTTP/1.1 200 ") && answer.ends_with("read"),
            "{answer}"
        );
    }

    #[test]
    fn a_timeout_is_found_behind_other_errors() {
        let wrapped = axum::Error::new(BodyTimeout);
        assert!(BodyTimeout::caused(&wrapped));
        assert!(!BodyTimeout::caused(&std::io::Error::other("reset")));
    }
}
