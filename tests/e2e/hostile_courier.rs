//! The courier app's API as a hostile client calls it over gRPC: request
//! bytes that do not decode, on unary and streaming methods (and on every
//! other service's methods), messages of absurd sizes, ids that name nothing, and a flood of small reports on one
//! connection. Every answer is a documented status in the error model
//! (docs/API.md "gRPC"), never `INTERNAL` or `UNKNOWN`, and the core keeps
//! serving, the flood's connection included (docs/scaling.md "HTTP/2
//! settings").

use std::pin::Pin;
use std::time::{Duration, Instant};

use courier::app::v1 as apb;
use courier::app::v1::courier_app_service_client::CourierAppServiceClient;
use courier::errors::ErrorCode;
use prost::Message;
use prost::bytes::Bytes;
use tonic::Code;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::codegen::http;
use tonic::transport::Channel;
use tonic_types::StatusExt;

use crate::couriers::{App, join};
use crate::harness::TestApp;

const APP: &str = "/courier.app.v1.CourierAppService";

/// The two byte strings of the report: a length-delimited field 1 that
/// announces 127 bytes and has one, and a key that is no varint.
const UNDECODABLE: [&[u8]; 2] = [&[0x0a, 0x7f, 0x41], &[0xff, 0xff, 0xff, 0xff, 0xff]];

/// Messages as bytes, sent as they are.
#[derive(Clone, Copy, Default)]
struct Raw;

impl Codec for Raw {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = Raw;
    type Decoder = Raw;

    fn encoder(&mut self) -> Raw {
        Raw
    }

    fn decoder(&mut self) -> Raw {
        Raw
    }
}

impl Encoder for Raw {
    type Item = Vec<u8>;
    type Error = tonic::Status;

    fn encode(&mut self, item: Vec<u8>, dst: &mut EncodeBuf<'_>) -> Result<(), tonic::Status> {
        prost::bytes::BufMut::put_slice(dst, &item);
        Ok(())
    }
}

impl Decoder for Raw {
    type Item = Vec<u8>;
    type Error = tonic::Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, tonic::Status> {
        let mut bytes = vec![0; prost::bytes::Buf::remaining(src)];
        prost::bytes::Buf::copy_to_slice(src, &mut bytes);
        Ok(Some(bytes))
    }
}

/// One method of the protos: its path and shape.
struct Method {
    path: String,
    client_streaming: bool,
    server_streaming: bool,
}

/// Every method the protos declare.
fn declared_methods() -> Vec<Method> {
    let set = prost_types::FileDescriptorSet::decode(courier::FILE_DESCRIPTOR_SET).expect("descriptor set");
    let mut methods = Vec::new();
    for file in &set.file {
        for service in &file.service {
            for method in &service.method {
                methods.push(Method {
                    path: format!("/{}.{}/{}", file.package(), service.name(), method.name()),
                    client_streaming: method.client_streaming(),
                    server_streaming: method.server_streaming(),
                });
            }
        }
    }
    methods
}

async fn channel(app: &TestApp) -> Channel {
    Channel::from_shared(app.grpc_url.clone())
        .expect("url")
        .connect()
        .await
        .expect("channel")
}

/// Calls `method` with `message` as its (only) message's bytes and the
/// `authorization` bearer `token`: the refusal, if any (a stream answered
/// is `Ok`).
async fn call(channel: &Channel, method: &Method, token: &str, message: &[u8]) -> Result<(), tonic::Status> {
    let mut grpc = tonic::client::Grpc::new(channel.clone());
    grpc.ready()
        .await
        .map_err(|e| tonic::Status::unavailable(e.to_string()))?;
    let path: http::uri::PathAndQuery = method.path.parse().expect("path");
    let request = |message| with_bearer(message, token);
    let stream = |message: &[u8]| with_bearer(tokio_stream::iter(vec![message.to_vec()]), token);
    match (method.client_streaming, method.server_streaming) {
        (false, false) => grpc.unary(request(message.to_vec()), path, Raw).await.map(drop),
        (false, true) => grpc
            .server_streaming(request(message.to_vec()), path, Raw)
            .await
            .map(drop),
        (true, false) => grpc.client_streaming(stream(message), path, Raw).await.map(drop),
        (true, true) => grpc.streaming(stream(message), path, Raw).await.map(drop),
    }
}

fn with_bearer<T>(message: T, token: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    let bearer = format!("Bearer {token}").parse().expect("metadata");
    request.metadata_mut().insert("authorization", bearer);
    request
}

/// One gRPC frame holding `message`.
fn frame(message: &[u8]) -> Vec<u8> {
    let mut bytes = vec![0];
    bytes.extend_from_slice(&u32::try_from(message.len()).expect("length").to_be_bytes());
    bytes.extend_from_slice(message);
    bytes
}

/// Sends `chunks` as the body of one call to `path` on `channel`, each chunk
/// a DATA frame of its own, whatever gRPC frames they hold: the call's
/// status (`OK` included) and the answer's bytes.
async fn raw_call(channel: &Channel, path: &str, token: &str, chunks: Vec<Bytes>) -> (tonic::Status, Vec<u8>) {
    use tonic::codegen::{Body, Service};
    let chunks = tokio_stream::iter(chunks.into_iter().map(Ok::<_, std::convert::Infallible>));
    let request = http::Request::builder()
        .method("POST")
        .uri(path)
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .header("authorization", format!("Bearer {token}"))
        .body(tonic::body::Body::new(axum::body::Body::from_stream(chunks)))
        .expect("request");
    let mut channel = channel.clone();
    let lost = |error: tonic::transport::Error| (tonic::Status::from_error(Box::new(error)), Vec::new());
    if let Err(error) = std::future::poll_fn(|cx| channel.poll_ready(cx)).await {
        return lost(error);
    }
    let response = match channel.call(request).await {
        Ok(response) => response,
        Err(error) => return lost(error),
    };
    if let Some(status) = tonic::Status::from_header_map(response.headers()) {
        return (status, Vec::new());
    }
    let mut body = response.into_body();
    let mut data = Vec::new();
    loop {
        match std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
            Some(Ok(frame)) => match frame.into_data() {
                Ok(bytes) => data.extend_from_slice(&bytes),
                Err(frame) => {
                    let trailers = frame.into_trailers().unwrap_or_default();
                    let status = tonic::Status::from_header_map(&trailers)
                        .unwrap_or_else(|| tonic::Status::unknown("trailers without a grpc-status"));
                    return (status, data);
                }
            },
            Some(Err(status)) => return (status, data),
            None => return (tonic::Status::unknown("the answer ended without a status"), data),
        }
    }
}

/// Asserts that `status` is a refusal with `code` in the error model (its
/// `ErrorInfo` reason the public `error`).
#[track_caller]
fn assert_refused(status: &tonic::Status, code: Code, error: ErrorCode, what: &str) {
    let reason = status.get_details_error_info().map(|info| info.reason);
    assert_eq!(
        (status.code(), reason.as_deref()),
        (code, Some(error.as_str())),
        "{what}: {status:?}"
    );
}

/// Asserts that `status` is one the courier app documents (the proto's
/// comments, docs/API.md "gRPC"): a refusal in the error model, or tonic's
/// `OUT_OF_RANGE` for a message over the size limit; never `INTERNAL` or
/// `UNKNOWN`.
#[track_caller]
fn assert_documented(status: &tonic::Status, what: &str) {
    let documented = [
        Code::InvalidArgument,
        Code::NotFound,
        Code::FailedPrecondition,
        Code::Unauthenticated,
        Code::ResourceExhausted,
    ];
    if status.code() == Code::OutOfRange {
        assert!(status.message().contains("too large"), "{what}: {status:?}");
        return;
    }
    assert!(documented.contains(&status.code()), "{what}: {status:?}");
    assert!(
        status.get_details_error_info().is_some(),
        "{what}: no ErrorInfo: {status:?}"
    );
}

/// The core still answers the courier (and health) on a new connection.
async fn still_serving(app: &TestApp, courier: &App) {
    let mut client = crate::couriers::app_client(app).await;
    let profile = client.get_profile(courier.request(apb::GetProfileRequest {})).await;
    assert_eq!(
        profile.expect("profile").into_inner().courier.map(|c| c.id),
        Some(courier.courier.id.clone())
    );
    let health =
        courier_server::serving::probe(app.grpc_url.trim_start_matches("http://"), Duration::from_secs(5)).await;
    assert_eq!(health, Ok(()));
}

/// A one-position report in its frame, the `n`th of a run.
fn report_frame(app: &TestApp, n: i64) -> Bytes {
    let at = app.clock.now().timestamp_millis() - 3_600_000 + n * 30;
    let report = apb::ReportLocationsRequest {
        positions: vec![apb::Position {
            latitude: 52.40 + (n % 1000) as f64 * 0.00001,
            longitude: 13.30 + (n / 1000) as f64 * 0.00001,
            accuracy_m: None,
            heading_deg: None,
            speed_mps: None,
            recorded_at: Some(prost_types::Timestamp {
                seconds: at.div_euclid(1000),
                nanos: (at.rem_euclid(1000) * 1_000_000) as i32,
            }),
        }],
    };
    Bytes::from(frame(&report.encode_to_vec()))
}

e2e! {
    async fn undecodable_request_bytes_are_invalid_argument_on_every_method(app: TestApp) {
        let courier = join(&app, "", "Hostile Hannes", "hannes@example.com", "car").await;
        let channel = channel(&app).await;
        // The bytes of the report, on the methods it named: unary and
        // keyless (SignIn), unary with a session (GetJob).
        for (path, bytes) in [("SignIn", UNDECODABLE[1]), ("GetJob", UNDECODABLE[0])] {
            let method = Method { path: format!("{APP}/{path}"), client_streaming: false, server_streaming: false };
            let refused = call(&channel, &method, &courier.token, bytes).await.expect_err("refused");
            assert_refused(&refused, Code::InvalidArgument, ErrorCode::InvalidRequest, path);
            assert!(refused.message().contains("cannot be decoded"), "{refused:?}");
        }
        // Every method of every service, unary or streaming either way,
        // with the credential its service takes.
        let methods = declared_methods();
        let mut decoded = 0;
        assert!(methods.iter().any(|m| m.client_streaming) && methods.iter().any(|m| m.server_streaming));
        for method in &methods {
            let token = if method.path.starts_with("/courier.app.") {
                courier.token.clone()
            } else if method.path.starts_with("/courier.internal.") {
                app.admin_token.clone()
            } else {
                app.test_key.clone()
            };
            for bytes in UNDECODABLE {
                let refused = call(&channel, method, &token, bytes).await.expect_err("refused");
                if method.path.starts_with("/courier.app.") || refused.code() == Code::InvalidArgument {
                    assert_refused(&refused, Code::InvalidArgument, ErrorCode::InvalidRequest, &method.path);
                    decoded += 1;
                } else {
                    // A caller this credential is not (a console user) is
                    // refused before the request is read.
                    assert!(matches!(refused.code(), Code::Unauthenticated | Code::PermissionDenied), "{}: {refused:?}", method.path);
                    assert!(refused.get_details_error_info().is_some(), "{}: {refused:?}", method.path);
                }
            }
        }
        assert!(decoded >= methods.len(), "{decoded} of {} calls read the request", methods.len() * 2);
        // A report stream whose second message does not decode ends with
        // the refusal; the first was taken.
        let (status, _) = raw_call(&channel, &format!("{APP}/ReportLocations"), &courier.token, vec![
            report_frame(&app, 0),
            Bytes::from(frame(UNDECODABLE[0])),
        ]).await;
        assert_refused(&status, Code::InvalidArgument, ErrorCode::InvalidRequest, "second report");
        still_serving(&app, &courier).await;
    }

    async fn absurd_sizes_and_bad_ids_answer_documented_statuses(app: TestApp) {
        let courier = join(&app, "", "Hostile Hilde", "hilde@example.com", "car").await;
        let other = join(&app, "", "Other Otto", "otto@example.com", "car").await;
        let channel = channel(&app).await;
        let get_job = format!("{APP}/GetJob");
        let report = format!("{APP}/ReportLocations");
        let header = |flag: u8, length: u32| {
            let mut bytes = vec![flag];
            bytes.extend_from_slice(&length.to_be_bytes());
            bytes
        };
        let (status, answer) = raw_call(&channel, &report, &courier.token, vec![]).await;
        assert_eq!(status.code(), Code::Ok, "an empty report stream: {status:?}");
        let accepted = apb::ReportLocationsResponse::decode(answer.get(5..).unwrap_or_default()).expect("answer");
        assert_eq!(accepted.accepted, 0);

        // Sizes: a message announced over the courier app's 32 MiB and
        // over 4 GiB (refused on its header, the body never read); a login,
        // an id and a token far longer than any the service issues.
        for length in [32 * 1024 * 1024 + 1, u32::MAX] {
            for path in [&get_job, &report] {
                let (status, _) = raw_call(&channel, path, &courier.token, vec![Bytes::from(header(0, length))]).await;
                assert_eq!(status.code(), Code::OutOfRange, "{path}: {length} bytes: {status:?}");
                assert_documented(&status, path);
            }
        }
        let mut client = crate::couriers::app_client(&app).await;
        let sign_in = apb::SignInRequest { login: "1".repeat(100_000), password: "p".repeat(100_000), client_address: String::new() };
        let refused = client.sign_in(sign_in).await.expect_err("refused");
        assert_documented(&refused, "a 100,000-character login");

        // Ids that name nothing: empty, unknown, absurdly long, with control
        // characters, another courier's resume token, page token or offer.
        let long = "d".repeat(100_000);
        for job_id in ["", "del_unknown", "job_x", long.as_str(), "del_\u{0}", "../del_1"] {
            let refused = client.get_job(courier.request(apb::GetJobRequest { job_id: job_id.into() })).await.expect_err("refused");
            assert_documented(&refused, &format!("GetJob {:.20}", job_id));
            let moved = client.arrive_at_pickup(courier.request(apb::ArriveAtPickupRequest { job_id: job_id.into() })).await.expect_err("refused");
            assert_documented(&moved, &format!("ArriveAtPickup {:.20}", job_id));
        }
        let long = "o".repeat(10_000);
        for offer_id in ["", "off_unknown", long.as_str()] {
            let refused = client.accept_offer(courier.request(apb::AcceptOfferRequest { offer_id: offer_id.into() })).await.expect_err("refused");
            assert_documented(&refused, &format!("AcceptOffer {:.20}", offer_id));
            let refused = client.decline_offer(courier.request(apb::DeclineOfferRequest { offer_id: offer_id.into() })).await.expect_err("refused");
            assert_documented(&refused, &format!("DeclineOffer {:.20}", offer_id));
        }
        for resume_token in ["abc", "99999999999999999999999", "1e9", "\u{7f}"] {
            let watch = apb::WatchAssignmentsRequest { resume_token: resume_token.into() };
            let refused = client.watch_assignments(courier.request(watch)).await.expect_err("refused");
            assert_refused(&refused, Code::InvalidArgument, ErrorCode::InvalidRequest, resume_token);
        }
        let list = apb::ListJobsRequest { finished: true, page_size: 0, page_token: "not-a-token".into() };
        let refused = client.list_jobs(courier.request(list)).await.expect_err("refused");
        assert_refused(&refused, Code::InvalidArgument, ErrorCode::InvalidPageToken, "page_token");
        // Another courier's session is no key to this one's calls, and a
        // session token that is garbage is refused as one.
        let refused = client.get_job(other.request(apb::GetJobRequest { job_id: "del_unknown".into() })).await.expect_err("refused");
        assert_documented(&refused, "other courier");
        let forged = App { client: client.clone(), token: "not-a-session".into(), courier: courier.courier.clone() };
        let refused = client.get_profile(forged.request(apb::GetProfileRequest {})).await.expect_err("refused");
        assert_refused(&refused, Code::Unauthenticated, ErrorCode::InvalidCourierSession, "forged session");
        still_serving(&app, &courier).await;
    }

    async fn a_flood_of_small_reports_leaves_the_connection_serving(app: TestApp) {
        const REPORTS: i64 = 100_000;
        let courier = join(&app, "", "Flooding Frida", "frida@example.com", "car").await;
        // One connection: the flood, a stream open across it and a call
        // after it share it.
        let channel = channel(&app).await;
        let mut client = CourierAppServiceClient::new(channel.clone());
        let mut watch = client
            .watch_assignments(courier.request(apb::WatchAssignmentsRequest::default()))
            .await
            .expect("watch")
            .into_inner();
        crate::couriers::next(&mut watch).await;

        // Each message in a DATA frame of its own (about 35 bytes), back to
        // back, as fast as the connection takes them; four times, the later
        // floods meeting the courier's report limit at once. With the HTTP/2
        // library's default windows about one flood in four closed the
        // connection.
        let path = format!("{APP}/ReportLocations");
        for round in 0..4 {
            let frames = (0..REPORTS).map(|n| report_frame(&app, n)).collect();
            let started = Instant::now();
            let flood = raw_call(&channel, &path, &courier.token, frames);
            let (status, answer) = tokio::time::timeout(Duration::from_secs(120), flood).await.expect("answered within 2 minutes");
            eprintln!("flood {round}: {REPORTS} reports in {:?}: {:?}", started.elapsed(), status.code());
            match status.code() {
                Code::Ok => {
                    let accepted = apb::ReportLocationsResponse::decode(answer.get(5..).unwrap_or_default()).expect("answer");
                    assert!(accepted.accepted <= REPORTS, "{status:?}");
                }
                // The per-courier limit stops the flood: in the error model,
                // with a delay to wait; never the connection's end.
                _ => assert_refused(&status, Code::ResourceExhausted, ErrorCode::RateLimited, &format!("flood {round}")),
            }
        }

        // The stream opened before the flood is still open (a closed
        // connection would have ended it), and the same channel serves.
        let quiet = tokio::time::timeout(Duration::from_millis(300), watch.message()).await;
        assert!(quiet.is_err(), "the assignment stream still open: {quiet:?}");
        let profile = client.get_profile(courier.request(apb::GetProfileRequest {})).await.expect("profile");
        assert_eq!(profile.into_inner().courier.map(|c| c.id), Some(courier.courier.id.clone()));
        still_serving(&app, &courier).await;
    }
}
