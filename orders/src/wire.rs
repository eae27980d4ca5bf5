//! What the transport writes for the domain to keep (docs/API.md, "What
//! the core keeps of an answer"): a create's answer, replayed byte for byte
//! under its idempotency key; a delivery's snapshot, stored with each event;
//! a webhook's body. The domain stores and hands back these bytes and never
//! reads them, so no rule depends on a wire format; `courier-server`
//! implements [`Wire`] with the public protobuf and JSON shapes, and a test
//! core with [`crate::testing`]'s.

use crate::deliveries::model::Delivery;
use crate::events::Event;
use crate::fleet::model::FleetOrder;
use courier_identity::modes::Mode;
use courier_store::CoreResult;

pub trait Wire: Send + Sync + 'static {
    /// A delivery as its create answers it.
    fn delivery(&self, delivery: &Delivery) -> Vec<u8>;

    /// A fleet order as its create answers it.
    fn fleet_order(&self, order: &FleetOrder) -> Vec<u8>;

    /// A delivery right after a change, as its event keeps it.
    fn event_snapshot(&self, delivery: &Delivery) -> Vec<u8>;

    /// The body of a webhook request about a stored `event`.
    fn webhook_body(&self, event: &Event) -> CoreResult<Vec<u8>>;

    /// The body of a sample webhook request (`POST /v1/webhooks/{id}/test`):
    /// event `id`, about a made-up delivery in `mode`, at `now`.
    fn sample_webhook_body(&self, id: &str, mode: Mode, now: i64) -> CoreResult<Vec<u8>>;
}
