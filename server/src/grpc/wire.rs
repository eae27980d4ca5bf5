//! The core's [`Wire`] in the public API's shapes: a create's answer and an
//! event's snapshot as `courier.v1` protobuf messages, a webhook body as the
//! events API's JSON (`webhook_bodies`).

use prost::Message;

use super::{delivery_out, webhook_bodies};
use courier_core::CoreResult;
use courier_identity::auth::Mode;
use courier_orders::deliveries::Delivery;
use courier_orders::events::Event;
use courier_orders::fleet::FleetOrder;
use courier_orders::wire::Wire;

pub struct ProtoWire {
    /// Where tracking pages are served (`tracking_url`).
    public_base_url: String,
}

impl ProtoWire {
    pub fn new(public_base_url: &str) -> ProtoWire {
        ProtoWire {
            public_base_url: public_base_url.to_owned(),
        }
    }
}

impl Wire for ProtoWire {
    fn delivery(&self, delivery: &Delivery) -> Vec<u8> {
        delivery_out::to_proto(delivery, &self.public_base_url).encode_to_vec()
    }

    fn fleet_order(&self, order: &FleetOrder) -> Vec<u8> {
        delivery_out::fleet_order_out(order).encode_to_vec()
    }

    fn event_snapshot(&self, delivery: &Delivery) -> Vec<u8> {
        delivery_out::event_data(delivery_out::to_proto(delivery, &self.public_base_url)).encode_to_vec()
    }

    fn webhook_body(&self, event: &Event) -> CoreResult<Vec<u8>> {
        webhook_bodies::event_body(event)
    }

    fn sample_webhook_body(&self, id: &str, mode: Mode, now: i64) -> CoreResult<Vec<u8>> {
        webhook_bodies::sample_body(id, mode, now)
    }
}
