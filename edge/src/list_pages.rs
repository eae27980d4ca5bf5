//! The list answers with the most items (`GET /v1/deliveries`,
//! `GET /v1/events`), rendered from the core's answer as it came over the
//! wire: each item stays encoded until its JSON is needed, and the JSON of
//! an item is kept under its encoded bytes ([`Renderings`]).
//!
//! An item's JSON is a pure function of its encoded message, so a kept
//! rendering is exact for as long as the same bytes come again, and nothing
//! needs invalidating: a delivery that changed comes as other bytes, an
//! event never changes. The first page of a list is asked for again and
//! again (dashboards, integrators polling), and a page holds up to a
//! hundred items, so rendering each item once instead of on every page is
//! most of a page's cost at the edge (docs/scaling.md, "List pages").
//!
//! The answer is the same, byte for byte, as serialising the list's JSON
//! shape (`DeliveryListJson`, `EventListJson`); the tests check it.

use std::hash::{BuildHasher, RandomState};
use std::sync::{Mutex, PoisonError};

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use courier::errors::ErrorCode;
use prost::Message;
use prost::bytes::Bytes;
use serde::Serialize;
use tonic::client::Grpc;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::transport::Channel;
use tonic_prost::ProstCodec;

use crate::error::ApiError;

/// A list answer with its items still encoded. Its fields have the tags of
/// `ListDeliveriesResponse` and `ListEventsResponse` (items 1, next page
/// token 2), whose wire format it reads: a repeated message field is a
/// repeated length-delimited field.
#[derive(Clone, PartialEq, Message)]
struct WireList {
    #[prost(bytes = "bytes", repeated, tag = "1")]
    pub items: Vec<Bytes>,
    #[prost(string, tag = "2")]
    pub next_page_token: String,
}

/// One list RPC of the core, answered as a [`WireList`].
pub struct ListRpc {
    pub service: &'static str,
    pub method: &'static str,
    /// `/service/method`.
    pub path: &'static str,
    /// The items' field in the JSON answer.
    pub field: &'static str,
}

pub const LIST_DELIVERIES: ListRpc = ListRpc {
    service: "courier.v1.DeliveryService",
    method: "ListDeliveries",
    path: "/courier.v1.DeliveryService/ListDeliveries",
    field: "deliveries",
};

pub const LIST_EVENTS: ListRpc = ListRpc {
    service: "courier.v1.EventService",
    method: "ListEvents",
    path: "/courier.v1.EventService/ListEvents",
    field: "events",
};

/// The answer of a list route: `rpc` called with `request`, each `Item`
/// rendered as `Json` through `renderings`. The core's refusal of
/// `page_size` names the query's `limit`.
pub async fn answer<Request, Item, Json>(
    channel: Channel,
    rpc: &ListRpc,
    renderings: &RenderingCache,
    request: tonic::Request<Request>,
) -> Result<Response, ApiError>
where
    Request: Message + Send + Sync + 'static,
    Item: Message + Default,
    Json: Serialize + From<Item>,
{
    let list =
        (call(channel, rpc, request).await).map_err(|status| ApiError::from(status).renaming("page_size", "limit"))?;
    let items = (list.items.iter())
        .map(|item| renderings.json::<Item, Json>(item))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(page(rpc.field, &items, &list.next_page_token))
}

/// Calls `rpc` on `channel` as the generated client would, and answers the
/// list with its items encoded.
async fn call<Request: Message + Send + Sync + 'static>(
    channel: Channel,
    rpc: &ListRpc,
    mut request: tonic::Request<Request>,
) -> Result<WireList, tonic::Status> {
    let mut grpc = Grpc::new(channel);
    grpc.ready()
        .await
        .map_err(|error| tonic::Status::unavailable(format!("The core is not reachable: {error}")))?;
    request
        .extensions_mut()
        .insert(tonic::GrpcMethod::new(rpc.service, rpc.method));
    let codec = ProstCodec::<Request, WireList>::default();
    Ok(grpc
        .unary(request, PathAndQuery::from_static(rpc.path), codec)
        .await?
        .into_inner())
}

/// Renderings kept per kind of item.
pub struct Renderings {
    pub deliveries: RenderingCache,
    pub events: RenderingCache,
}

impl Default for Renderings {
    fn default() -> Self {
        Renderings {
            deliveries: RenderingCache::new(SLOTS),
            events: RenderingCache::new(SLOTS),
        }
    }
}

/// Slots of each cache. A rendering is about twice its encoded item (a
/// delivery: 1 KB encoded, 2 KB of JSON), so a full cache holds about
/// 12 MB.
const SLOTS: usize = 4096;

/// The bytes of an item that choose its slot: its first field (the id)
/// is among them, so items spread over the slots; equality is then checked
/// on all of its bytes.
const SLOT_KEY_BYTES: usize = 64;

/// JSON renderings of one kind of item, each under the item's encoded
/// bytes, in a fixed number of slots: an item takes the slot its bytes
/// choose, replacing whatever was there, so memory stays bounded without
/// any bookkeeping of use.
pub struct RenderingCache {
    slots: Box<[Mutex<Option<Rendering>>]>,
    hasher: RandomState,
}

struct Rendering {
    encoded: Bytes,
    json: Bytes,
}

impl RenderingCache {
    fn new(slots: usize) -> RenderingCache {
        RenderingCache {
            slots: (0..slots).map(|_| Mutex::new(None)).collect(),
            hasher: RandomState::new(),
        }
    }

    /// The JSON of the `Item` encoded as `encoded`, rendered as `Json`:
    /// kept from before when these bytes came already.
    pub fn json<Item, Json>(&self, encoded: &Bytes) -> Result<Bytes, ApiError>
    where
        Item: Message + Default,
        Json: Serialize + From<Item>,
    {
        let key = &encoded[..encoded.len().min(SLOT_KEY_BYTES)];
        let index = (self.hasher.hash_one(key) % self.slots.len() as u64) as usize;
        let slot = &self.slots[index];
        if let Some(kept) = slot.lock().unwrap_or_else(PoisonError::into_inner).as_ref()
            && kept.encoded == *encoded
        {
            return Ok(kept.json.clone());
        }
        let item = Item::decode(encoded.as_ref()).map_err(|error| {
            ApiError::new(
                ErrorCode::UpstreamError,
                format!("The core answered a list item that does not decode: {error}."),
            )
        })?;
        let json = Bytes::from(serde_json::to_vec(&Json::from(item)).map_err(|error| {
            ApiError::new(
                ErrorCode::UpstreamError,
                format!("A list item does not render: {error}."),
            )
        })?);
        // A copy, so that the kept bytes do not hold the whole answer's
        // buffer they were sliced from.
        let encoded = Bytes::copy_from_slice(encoded);
        *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(Rendering {
            encoded,
            json: json.clone(),
        });
        Ok(json)
    }
}

/// The answer `{"<field>":[items…],"next_page_token":…}` of a page whose
/// items are rendered already, as `application/json`.
fn page(field: &str, items: &[Bytes], next_page_token: &str) -> Response {
    let token = (!next_page_token.is_empty()).then_some(next_page_token);
    let items_len: usize = items.iter().map(|item| item.len() + 1).sum();
    let mut body = Vec::with_capacity(items_len + field.len() + next_page_token.len() + 40);
    body.extend_from_slice(b"{\"");
    body.extend_from_slice(field.as_bytes());
    body.extend_from_slice(b"\":[");
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            body.push(b',');
        }
        body.extend_from_slice(item);
    }
    body.extend_from_slice(b"],\"next_page_token\":");
    // A string's JSON cannot fail to render.
    if serde_json::to_writer(&mut body, &token).is_err() {
        body.extend_from_slice(b"null");
    }
    body.push(b'}');
    (
        [(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dto::deliveries::DeliveryListJson;
    use crate::dto::events::{EventJson, EventListJson};
    use courier::json::DeliveryJson;
    use courier::v1 as pb;

    fn delivery(id: &str) -> pb::Delivery {
        pb::Delivery {
            id: id.into(),
            status: pb::DeliveryStatus::CourierAssigned as i32,
            mode: pb::Mode::Live as i32,
            external_id: Some("order \"7\" / ü".into()),
            amount_cents: Some(1290),
            currency: Some("EUR".into()),
            pickup: Some(pb::Waypoint {
                address: "Alexanderplatz 1, 10178 Berlin".into(),
                latitude: 52.5219,
                longitude: 13.4132,
                contact: Some(pb::Contact {
                    name: "Ana".into(),
                    phone: "+49 30 1234567".into(),
                    email: None,
                }),
                instructions: Some("Ring twice\nthen wait".into()),
            }),
            courier: Some(pb::Courier {
                name: Some("Kim".into()),
                rating: Some(4.8),
                ..Default::default()
            }),
            created_at: Some(prost_types::Timestamp {
                seconds: 1_790_000_000,
                nanos: 123_456_000,
            }),
            tracking_url: Some("https://example.test/t/tok".into()),
            ..Default::default()
        }
    }

    fn body_of(response: Response) -> Vec<u8> {
        let runtime = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
        runtime
            .block_on(axum::body::to_bytes(response.into_body(), usize::MAX))
            .expect("body")
            .to_vec()
    }

    /// The body of the page `answer`, its items read as `Item` and
    /// rendered as `Json` through `cache`.
    fn rendered<Item, Json>(cache: &RenderingCache, field: &str, answer: &impl Message) -> String
    where
        Item: Message + Default,
        Json: Serialize + From<Item>,
    {
        let wire = WireList::decode(answer.encode_to_vec().as_slice()).expect("decodes");
        let items = (wire.items.iter())
            .map(|item| cache.json::<Item, Json>(item))
            .collect::<Result<Vec<_>, _>>()
            .expect("renders");
        String::from_utf8(body_of(page(field, &items, &wire.next_page_token))).expect("UTF-8")
    }

    #[test]
    fn a_deliveries_page_renders_as_its_json_shape() {
        let answer = pb::ListDeliveriesResponse {
            deliveries: vec![delivery("del_1"), delivery("del_2")],
            next_page_token: "tok.en".into(),
        };
        let expected = serde_json::to_string(&DeliveryListJson::from(answer.clone())).expect("json");
        let cache = RenderingCache::new(8);
        // Rendered, then from the cache.
        for _ in 0..2 {
            assert_eq!(
                rendered::<pb::Delivery, DeliveryJson>(&cache, "deliveries", &answer),
                expected
            );
        }
    }

    #[test]
    fn an_events_page_renders_as_its_json_shape_and_the_last_page_has_no_token() {
        let answer = pb::ListEventsResponse {
            events: vec![pb::Event {
                id: "evt_1".into(),
                r#type: pb::EventType::DeliveryCreated as i32,
                version: "2026-11".into(),
                data: Some(delivery("del_1")),
                ..Default::default()
            }],
            next_page_token: String::new(),
        };
        let expected = serde_json::to_string(&EventListJson::from(answer.clone())).expect("json");
        let cache = RenderingCache::new(8);
        assert_eq!(rendered::<pb::Event, EventJson>(&cache, "events", &answer), expected);
        assert!(expected.ends_with("\"next_page_token\":null}"));
    }

    #[test]
    fn a_changed_item_is_rendered_again() {
        let cache = RenderingCache::new(1);
        let mut changed = delivery("del_1");
        let before = Bytes::from(changed.encode_to_vec());
        let first = cache.json::<pb::Delivery, DeliveryJson>(&before).expect("renders");
        changed.status = pb::DeliveryStatus::Delivered as i32;
        let after = Bytes::from(changed.encode_to_vec());
        let second = cache.json::<pb::Delivery, DeliveryJson>(&after).expect("renders");
        assert_ne!(first, second);
        assert!(String::from_utf8_lossy(&second).contains("\"status\":\"delivered\""));
        let again = cache.json::<pb::Delivery, DeliveryJson>(&before).expect("renders");
        assert_eq!(first, again);
    }

    #[test]
    fn an_item_that_does_not_decode_is_the_cores_fault() {
        let cache = RenderingCache::new(4);
        let error = cache
            .json::<pb::Delivery, DeliveryJson>(&Bytes::from_static(&[0x0a, 0xff]))
            .expect_err("refused");
        assert_eq!(error.code, ErrorCode::UpstreamError);
    }
}
