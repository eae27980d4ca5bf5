//! Every string of every request is valid text (`courier_identity::text::is_text`) before
//! a handler reads it: a layer of the gRPC server reads each request message
//! on the wire with the protos' own descriptors, so no service, field or
//! filter is left out, a new one included. A refusal names the field as a dot
//! path in the API's words (`pickup.contact.name`, `stops.2.address`, and
//! `items.0.description`: a wrapper message holding one list of its own name
//! adds no step).
//!
//! The layer runs once the caller is read (`crate::caller`). The public
//! API's keyed services report the refusal after the permission checks too,
//! as they report a body the edge could not parse (`courier_core::caller::api`):
//! the layer leaves it on the request as a `Refusal` (`courier_core::caller`). Every other service
//! (internal, console, courier app, the keyless public reads) is answered at
//! once. A client stream is checked message by message and ends with the
//! refusal.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll, ready};

use bytes::{Buf, Bytes, BytesMut};
use http_body::Frame;
use http_body_util::BodyExt;
use prost::Message;
use prost_types::FileDescriptorSet;
use prost_types::field_descriptor_proto::{Label, Type};
use tonic::body::Body;
use tonic::codegen::http;

use crate::caller::Refusal;
use courier_core::CoreError;
use courier_identity::text::{self, TextKind};

/// A gRPC message is at most this long here; a longer one is left unread for
/// tonic to refuse (its own limit is 4 MiB).
const MAX_MESSAGE: usize = 64 * 1024 * 1024;

/// prost refuses messages nested deeper than this; so the walk stops there.
const MAX_DEPTH: usize = 100;

/// The layer that checks the text of every request (`server::serve`).
#[derive(Clone, Copy, Debug, Default)]
pub struct CheckText;

impl<S> tower::Layer<S> for CheckText {
    type Service = TextChecked<S>;

    fn layer(&self, inner: S) -> TextChecked<S> {
        TextChecked { inner }
    }
}

#[derive(Clone, Debug)]
pub struct TextChecked<S> {
    inner: S,
}

impl<S, R> tower::Service<http::Request<Body>> for TextChecked<S>
where
    S: tower::Service<http::Request<Body>, Response = http::Response<R>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Send,
    R: Default + Send + 'static,
{
    type Response = http::Response<R>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<http::Response<R>, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        // The clone is ready in its turn; the one polled ready serves this call.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let index = index();
        let Some(method) = index.methods.get(request.uri().path()).copied() else {
            return Box::pin(inner.call(request));
        };
        if !index.messages.get(method.input).is_some_and(|m| m.has_text) {
            return Box::pin(inner.call(request));
        }
        if method.streaming {
            let request = request.map(|body| Body::new(CheckedStream::new(body, method.input)));
            return Box::pin(inner.call(request));
        }
        Box::pin(async move {
            let (mut parts, body) = request.into_parts();
            let (head, rest) = match first_frame(body).await {
                Ok(read) => read,
                Err(status) => return Ok(status.into_http()),
            };
            if let Some(refusal) = frame_refusal(&head, method.input) {
                if !method.deferred {
                    return Ok(tonic::Status::from(CoreError::from(refusal)).into_http());
                }
                parts.extensions.insert(refusal);
            }
            let body = Body::new(Prefixed {
                head: Some(head).filter(|head| !head.is_empty()),
                rest,
            });
            inner.call(http::Request::from_parts(parts, body)).await
        })
    }
}

/// The bytes of a request body up to the end of its first gRPC frame (or of
/// the body), and the body after them.
async fn first_frame(mut body: Body) -> Result<(Bytes, Body), tonic::Status> {
    let mut head = BytesMut::new();
    while !frame_complete(&head) {
        match body.frame().await {
            Some(Ok(frame)) => match frame.into_data() {
                Ok(data) => head.extend_from_slice(&data),
                // Trailers: nothing more to read.
                Err(_) => break,
            },
            Some(Err(status)) => return Err(status),
            None => break,
        }
    }
    Ok((head.freeze(), body))
}

/// Whether `bytes` hold a whole frame, or its header announces more than is
/// read here.
fn frame_complete(bytes: &[u8]) -> bool {
    frame_length(bytes).is_some_and(|length| length > MAX_MESSAGE || bytes.len() >= 5 + length)
}

/// The message length a frame's 5-byte header announces.
fn frame_length(bytes: &[u8]) -> Option<usize> {
    let header: [u8; 4] = bytes.get(1..5)?.try_into().ok()?;
    usize::try_from(u32::from_be_bytes(header)).ok()
}

/// The refusal of the first frame in `bytes`, a message of type `message`;
/// `None` when its text is valid, or when it is compressed, too long or
/// malformed (tonic and prost refuse those).
fn frame_refusal(bytes: &[u8], message: usize) -> Option<Refusal> {
    let length = frame_length(bytes)?;
    if bytes.first() != Some(&0) || length > MAX_MESSAGE {
        return None;
    }
    let body = bytes.get(5..5 + length)?;
    let mut path = Vec::new();
    index().first_refusal(message, body, &mut path)
}

/// A body that yields `head`, then `rest`.
struct Prefixed {
    head: Option<Bytes>,
    rest: Body,
}

impl http_body::Body for Prefixed {
    type Data = Bytes;
    type Error = tonic::Status;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, tonic::Status>>> {
        if let Some(head) = self.head.take() {
            return Poll::Ready(Some(Ok(Frame::data(head))));
        }
        Pin::new(&mut self.rest).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.head.is_none() && self.rest.is_end_stream()
    }
}

/// A client stream passed on one whole checked message at a time; it ends
/// with the refusal of the first message whose text is not valid.
struct CheckedStream {
    inner: Body,
    message: usize,
    buffer: BytesMut,
    ended: bool,
}

impl CheckedStream {
    fn new(inner: Body, message: usize) -> CheckedStream {
        CheckedStream {
            inner,
            message,
            buffer: BytesMut::new(),
            ended: false,
        }
    }

    /// The whole frames at the start of the buffer, checked.
    fn take_frames(&mut self) -> Result<Option<Bytes>, tonic::Status> {
        let mut end = 0;
        while let Some(length) = frame_length(&self.buffer[end..]) {
            if length > MAX_MESSAGE {
                // Left for tonic to refuse, unread.
                end = self.buffer.len();
                break;
            }
            let next = end + 5 + length;
            if self.buffer.len() < next {
                break;
            }
            if let Some(refusal) = frame_refusal(&self.buffer[end..next], self.message) {
                return Err(CoreError::from(refusal).into());
            }
            end = next;
        }
        Ok((end > 0).then(|| self.buffer.split_to(end).freeze()))
    }
}

impl http_body::Body for CheckedStream {
    type Data = Bytes;
    type Error = tonic::Status;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, tonic::Status>>> {
        loop {
            if let Some(frames) = self.take_frames()? {
                return Poll::Ready(Some(Ok(Frame::data(frames))));
            }
            if self.ended {
                // What is left is an incomplete frame: tonic refuses it.
                let rest = std::mem::take(&mut self.buffer);
                return Poll::Ready((!rest.is_empty()).then(|| Ok(Frame::data(rest.freeze()))));
            }
            match ready!(Pin::new(&mut self.inner).poll_frame(cx)) {
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) => self.buffer.extend_from_slice(&data),
                    Err(trailers) => return Poll::Ready(Some(Ok(trailers))),
                },
                Some(Err(status)) => return Poll::Ready(Some(Err(status))),
                None => self.ended = true,
            }
        }
    }
}

/// The request messages of every method, as their descriptors describe
/// them.
struct Index {
    methods: HashMap<String, MethodShape>,
    messages: Vec<MessageShape>,
}

#[derive(Clone, Copy, Debug)]
struct MethodShape {
    /// The request message.
    input: usize,
    /// A client stream.
    streaming: bool,
    /// A public API method with a key: its refusal waits for the key check.
    deferred: bool,
}

#[derive(Debug, Default)]
struct MessageShape {
    fields: HashMap<u32, FieldShape>,
    /// The name of its one field when that is a list: a wrapper that keeps
    /// "omitted" and "empty" apart, and adds no step to a path.
    list_of: Option<String>,
    /// Whether it holds a string at any depth: a request without one (a
    /// stream of positions) passes unread.
    has_text: bool,
}

#[derive(Debug)]
struct FieldShape {
    name: String,
    repeated: bool,
    kind: FieldKind,
}

#[derive(Clone, Copy, Debug)]
enum FieldKind {
    Text(TextKind),
    Message(usize),
    /// Numbers, enums, bytes: nothing to check.
    Other,
}

/// One step of a field's path.
enum Step<'a> {
    Field(&'a str),
    Entry(usize),
}

/// `messages` with `has_text` set where a string is reachable (repeated
/// until nothing changes: messages may hold each other).
fn with_text_marked(mut messages: Vec<MessageShape>) -> Vec<MessageShape> {
    loop {
        let marked: Vec<bool> = messages
            .iter()
            .map(|message| {
                message.fields.values().any(|field| match field.kind {
                    FieldKind::Text(_) => true,
                    FieldKind::Message(child) => messages.get(child).is_some_and(|c| c.has_text),
                    FieldKind::Other => false,
                })
            })
            .collect();
        let changed = messages.iter().zip(&marked).any(|(m, &now)| m.has_text != now);
        for (message, now) in messages.iter_mut().zip(marked) {
            message.has_text = now;
        }
        if !changed {
            return messages;
        }
    }
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| Index::new(courier::FILE_DESCRIPTOR_SET))
}

impl Index {
    fn new(encoded: &[u8]) -> Index {
        let files = match FileDescriptorSet::decode(encoded) {
            Ok(set) => set.file,
            Err(error) => {
                // Built into the binary by build.rs: cannot happen but by a build fault.
                tracing::error!(%error, "descriptor set unreadable: request text is not checked");
                Vec::new()
            }
        };
        let mut names = HashMap::new();
        let mut descriptors = Vec::new();
        for file in &files {
            let package = file.package();
            for message in &file.message_type {
                collect(&format!(".{package}"), message, &mut names, &mut descriptors);
            }
        }
        let messages = descriptors
            .iter()
            .map(|descriptor| {
                let fields: HashMap<u32, FieldShape> = descriptor
                    .field
                    .iter()
                    .filter_map(|field| {
                        let number = u32::try_from(field.number()).ok()?;
                        let kind = match field.r#type() {
                            Type::String => FieldKind::Text(text::text_kind(field.name())),
                            Type::Message => names
                                .get(field.type_name())
                                .map_or(FieldKind::Other, |&m| FieldKind::Message(m)),
                            _ => FieldKind::Other,
                        };
                        let shape = FieldShape {
                            name: field.name().to_owned(),
                            repeated: field.label() == Label::Repeated,
                            kind,
                        };
                        Some((number, shape))
                    })
                    .collect();
                let list_of = match fields.values().collect::<Vec<_>>().as_slice() {
                    [only] if only.repeated => Some(only.name.clone()),
                    _ => None,
                };
                MessageShape {
                    fields,
                    list_of,
                    has_text: false,
                }
            })
            .collect();
        let messages = with_text_marked(messages);
        let public = courier::v1::public_service_server::SERVICE_NAME;
        let mut methods = HashMap::new();
        for file in &files {
            for service in &file.service {
                let service_name = format!("{}.{}", file.package(), service.name());
                let deferred = file.package() == "courier.v1" && service_name != public;
                for method in &service.method {
                    let Some(&input) = names.get(method.input_type()) else {
                        continue;
                    };
                    let shape = MethodShape {
                        input,
                        streaming: method.client_streaming(),
                        deferred,
                    };
                    methods.insert(format!("/{service_name}/{}", method.name()), shape);
                }
            }
        }
        Index { methods, messages }
    }

    /// The first string field of `bytes`, a message of type `message` at
    /// `path`, that is not valid text.
    fn first_refusal<'a>(&'a self, message: usize, mut bytes: &[u8], path: &mut Vec<Step<'a>>) -> Option<Refusal> {
        if path.len() > MAX_DEPTH {
            return None;
        }
        let shape = self.messages.get(message)?;
        let mut entries: Vec<(u32, usize)> = Vec::new();
        while !bytes.is_empty() {
            // A malformed message ends the walk: prost refuses it.
            let key = varint(&mut bytes)?;
            let number = u32::try_from(key >> 3).ok()?;
            match key & 7 {
                0 => {
                    varint(&mut bytes)?;
                }
                1 => bytes = bytes.get(8..)?,
                5 => bytes = bytes.get(4..)?,
                2 => {
                    let length = usize::try_from(varint(&mut bytes)?).ok()?;
                    let value = bytes.get(..length)?;
                    bytes = &bytes[length..];
                    let Some(field) = shape.fields.get(&number) else {
                        continue;
                    };
                    let steps = path.len();
                    path.push(Step::Field(&field.name));
                    if field.repeated {
                        let entry = match entries.iter_mut().find(|(n, _)| *n == number) {
                            Some((_, count)) => {
                                *count += 1;
                                *count
                            }
                            None => {
                                entries.push((number, 0));
                                0
                            }
                        };
                        path.push(Step::Entry(entry));
                    }
                    let refusal = match field.kind {
                        FieldKind::Text(kind) if !text::is_text(value, kind) => {
                            let param = render(path);
                            text::text(&param, value, kind)
                                .err()
                                .map(|error| refusal_of(error, param))
                        }
                        FieldKind::Message(child) => {
                            if self.messages.get(child).and_then(|c| c.list_of.as_deref()) == Some(field.name.as_str())
                            {
                                // The wrapper's list takes the wrapper's place.
                                path.pop();
                            }
                            self.first_refusal(child, value, path)
                        }
                        _ => None,
                    };
                    if refusal.is_some() {
                        return refusal;
                    }
                    path.truncate(steps);
                }
                _ => return None,
            }
        }
        None
    }
}

fn refusal_of(error: CoreError, param: String) -> Refusal {
    let message = match error {
        CoreError::Rejected { message, .. } => message,
        other => other.to_string(),
    };
    Refusal { param, message }
}

/// Gives every message of `descriptor` (itself and the nested ones) its
/// index under its full name (`.courier.v1.Waypoint`).
fn collect<'a>(
    scope: &str,
    descriptor: &'a prost_types::DescriptorProto,
    names: &mut HashMap<String, usize>,
    descriptors: &mut Vec<&'a prost_types::DescriptorProto>,
) {
    let name = format!("{scope}.{}", descriptor.name());
    names.insert(name.clone(), descriptors.len());
    descriptors.push(descriptor);
    for nested in &descriptor.nested_type {
        collect(&name, nested, names, descriptors);
    }
}

fn render(path: &[Step]) -> String {
    let mut text = String::new();
    for step in path {
        if !text.is_empty() {
            text.push('.');
        }
        match step {
            Step::Field(name) => text.push_str(name),
            Step::Entry(entry) => text.push_str(&entry.to_string()),
        }
    }
    text
}

/// A base-128 varint from the front of `bytes`.
fn varint(bytes: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.first()?;
        bytes.advance(1);
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use courier::internal::v1 as internal;
    use courier::v1 as pb;

    fn refusal_of<M: Message>(method: &str, message: &M) -> Option<(String, String)> {
        let shape = index().methods.get(method).copied().expect("method known");
        let body = message.encode_to_vec();
        let mut frame = vec![0];
        frame.extend_from_slice(&u32::try_from(body.len()).expect("short").to_be_bytes());
        frame.extend_from_slice(&body);
        frame_refusal(&frame, shape.input).map(|r| (r.param, r.message))
    }

    fn waypoint(address: &str) -> pb::Waypoint {
        pb::Waypoint {
            address: address.into(),
            latitude: 52.5,
            longitude: 13.4,
            contact: Some(pb::Contact {
                name: "Ada".into(),
                phone: "+49301234567".into(),
                email: None,
            }),
            instructions: Some("Ring twice.\nSecond floor.".into()),
        }
    }

    fn delivery() -> pb::CreateDeliveryRequest {
        pb::CreateDeliveryRequest {
            pickup: Some(waypoint("Alexanderplatz 1\n10178 Berlin")),
            dropoff: Some(waypoint("Oranienstraße 1, 10999 Berlin")),
            stops: vec![waypoint("A 1"), waypoint("B 2")],
            vehicle_type_id: "car".into(),
            items: Some(pb::ShipmentItems {
                items: vec![pb::ShipmentItem {
                    description: "Box".into(),
                    quantity: 1,
                    ..Default::default()
                }],
            }),
            notes: Some("Fragile\tglass".into()),
            ..Default::default()
        }
    }

    const CREATE: &str = "/courier.v1.DeliveryService/CreateDelivery";

    #[test]
    fn valid_text_passes_and_free_text_may_break_lines() {
        assert_eq!(refusal_of(CREATE, &delivery()), None);
    }

    #[test]
    fn a_refusal_names_the_field_as_the_api_does() {
        type Change = fn(&mut pb::CreateDeliveryRequest);
        let cases: [(Change, &str); 6] = [
            (|d| d.notes = Some("a\u{0}b".into()), "notes"),
            (|d| d.external_id = Some("x\ny".into()), "external_id"),
            (|d| d.stops[1].address = "B\u{0}".into(), "stops.1.address"),
            (
                |d| {
                    if let Some(c) = d.pickup.as_mut().and_then(|p| p.contact.as_mut()) {
                        c.name = "Ada\u{1b}".into();
                    }
                },
                "pickup.contact.name",
            ),
            (
                |d| {
                    if let Some(items) = d.items.as_mut() {
                        items.items[0].description = "\u{7f}".into();
                    }
                },
                "items.0.description",
            ),
            (|d| d.vehicle_type_id = "car\u{0}".into(), "vehicle_type_id"),
        ];
        for (change, param) in cases {
            let mut request = delivery();
            change(&mut request);
            let (named, message) = refusal_of(CREATE, &request).expect("refused");
            assert_eq!(named, param);
            assert!(
                message.starts_with(param) && message.contains("control characters"),
                "{message}"
            );
        }
    }

    #[test]
    fn invalid_utf8_is_refused_by_name() {
        // `delivery_id` (field 1) with bytes that are not UTF-8.
        let body = [0x0a, 3, b'd', 0xff, b'x'];
        let mut frame = vec![0, 0, 0, 0, 5];
        frame.extend_from_slice(&body);
        let shape = index().methods["/courier.v1.DeliveryService/GetDelivery"];
        let refusal = frame_refusal(&frame, shape.input).expect("refused");
        assert_eq!(refusal.param, "delivery_id");
        assert_eq!(refusal.message, "delivery_id is not valid UTF-8 text.");
        // Malformed wire data is left to prost.
        assert!(frame_refusal(&[0, 0, 0, 0, 2, 0x0a, 9], shape.input).is_none());
    }

    #[test]
    fn public_services_wait_for_the_key_check_and_the_others_do_not() {
        let methods = &index().methods;
        assert!(methods[CREATE].deferred);
        assert!(methods["/courier.v1.EventService/ListEvents"].deferred);
        assert!(!methods["/courier.v1.PublicService/GetPublicTracking"].deferred);
        assert!(!methods["/courier.internal.v1.ConsoleService/SignIn"].deferred);
        assert!(methods["/courier.internal.v1.DispatchService/StreamCourierLocations"].streaming);
        // A stream of positions holds no text, so it is passed on unread.
        let has_text = |method: &str| index().messages[methods[method].input].has_text;
        assert!(!has_text("/courier.app.v1.CourierAppService/ReportLocations"));
        assert!(has_text(CREATE) && has_text("/courier.app.v1.CourierAppService/SubmitProof"));
        let sign_in = internal::SignInRequest {
            email: "a\u{0}@b.de".into(),
            ..Default::default()
        };
        let (param, _) = refusal_of("/courier.internal.v1.ConsoleService/SignIn", &sign_in).expect("refused");
        assert_eq!(param, "email");
    }
}
