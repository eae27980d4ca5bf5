//! Plain field moves between protobuf messages and domain types.

use courier::v1 as pb;

use courier_core::CoreError;
use courier_orders::edits::WaypointEdit;
use courier_orders::proofs::{ArtifactKind, Checkpoint, ProofFile};
use courier_orders::quotes::{Quote, RouteInput};
use courier_orders::validate::{ContactInput, WaypointInput};
use courier_orders::windows::{Window, Windows};
use courier_pricing::items::ItemInput;
use courier_pricing::prices::ExtraSelection;

/// A required message field: absent is `invalid_request` naming it.
pub fn required<T>(value: Option<T>, param: &str) -> Result<T, CoreError> {
    value.ok_or_else(|| CoreError::invalid(param, format!("{param} is required.")))
}

pub fn timestamp(
    value: Option<prost_types::Timestamp>,
    param: &str,
) -> Result<Option<chrono::DateTime<chrono::Utc>>, CoreError> {
    value
        .map(|ts| {
            courier::time::from_proto(&ts).ok_or_else(|| CoreError::invalid(param, format!("{param} is out of range.")))
        })
        .transpose()
}

/// An optional timestamp as unix microseconds, as the database stores it.
pub fn micros(value: Option<prost_types::Timestamp>, param: &str) -> Result<Option<i64>, CoreError> {
    Ok(timestamp(value, param)?.map(|t| t.timestamp_micros()))
}

pub fn contact_in(c: pb::Contact) -> ContactInput {
    ContactInput {
        name: c.name,
        phone: c.phone,
        email: c.email,
    }
}

pub fn waypoint_in(w: pb::Waypoint) -> WaypointInput {
    WaypointInput {
        address: w.address,
        latitude: w.latitude,
        longitude: w.longitude,
        contact: w.contact.map(contact_in),
        instructions: w.instructions,
    }
}

pub fn extra_in(e: pb::SelectedExtra) -> ExtraSelection {
    ExtraSelection {
        extra_id: e.extra_id,
        option_id: e.option_id,
        quantity: e.quantity.unwrap_or(1),
    }
}

pub fn items_in(items: Option<pb::ShipmentItems>) -> Option<Vec<ItemInput>> {
    items.map(|list| {
        list.items
            .into_iter()
            .map(|i| ItemInput {
                description: i.description,
                quantity: i.quantity,
                weight_kg: i.weight_kg,
                length_cm: i.length_cm,
                width_cm: i.width_cm,
                height_cm: i.height_cm,
            })
            .collect()
    })
}

pub fn item_out(i: &ItemInput) -> pb::ShipmentItem {
    pb::ShipmentItem {
        description: i.description.clone(),
        quantity: i.quantity,
        weight_kg: i.weight_kg,
        length_cm: i.length_cm,
        width_cm: i.width_cm,
        height_cm: i.height_cm,
    }
}

/// The route fields shared by quote and delivery requests.
pub struct RouteParts {
    pub pickup: Option<pb::Waypoint>,
    pub dropoff: Option<pb::Waypoint>,
    pub stops: Vec<pb::Waypoint>,
    pub vehicle_type_id: String,
    pub extras: Vec<pb::SelectedExtra>,
    pub items: Option<pb::ShipmentItems>,
    pub scheduled_at: Option<prost_types::Timestamp>,
    pub pickup_window: Option<pb::TimeWindow>,
    pub dropoff_window: Option<pb::TimeWindow>,
}

pub fn route_in(parts: RouteParts) -> Result<RouteInput, CoreError> {
    Ok(RouteInput {
        pickup: waypoint_in(required(parts.pickup, "pickup")?),
        dropoff: waypoint_in(required(parts.dropoff, "dropoff")?),
        stops: parts.stops.into_iter().map(waypoint_in).collect(),
        vehicle_type_id: parts.vehicle_type_id,
        extras: parts.extras.into_iter().map(extra_in).collect(),
        items: items_in(parts.items),
        scheduled_at: timestamp(parts.scheduled_at, "scheduled_at")?,
        windows: Windows {
            pickup: window_in(parts.pickup_window, "pickup_window")?,
            dropoff: window_in(parts.dropoff_window, "dropoff_window")?,
        },
    })
}

/// A text a change sets: `""` removes it.
pub fn set_or_removed(text: Option<String>) -> Option<Option<String>> {
    text.map(|text| (!text.is_empty()).then_some(text))
}

/// What a change sets on the pickup or the dropoff.
pub fn waypoint_edit_in(change: Option<pb::WaypointChange>) -> WaypointEdit {
    let change = change.unwrap_or_default();
    WaypointEdit {
        contact: change.contact.map(contact_in),
        instructions: set_or_removed(change.instructions),
        address: change.address,
        latitude: change.latitude,
        longitude: change.longitude,
    }
}

/// A change of the dropoff window: a new one, its removal
/// (`clear_dropoff_window`), or neither; both are refused.
pub fn window_change_in(window: Option<pb::TimeWindow>, clear: bool) -> Result<Option<Option<Window>>, CoreError> {
    match (window, clear) {
        (Some(_), true) => Err(CoreError::invalid(
            "dropoff_window",
            "Send either dropoff_window or clear_dropoff_window, not both.",
        )),
        (None, true) => Ok(Some(None)),
        (window, false) => Ok(window_in(window, "dropoff_window")?.map(Some)),
    }
}

/// A window sent as `param`: both ends required.
pub fn window_in(window: Option<pb::TimeWindow>, param: &str) -> Result<Option<Window>, CoreError> {
    let Some(window) = window else {
        return Ok(None);
    };
    let end = |value, name: &str| -> Result<i64, CoreError> {
        let param = format!("{param}.{name}");
        Ok(required(timestamp(value, &param)?, &param)?.timestamp_micros())
    };
    Ok(Some(Window {
        start: end(window.start, "start")?,
        end: end(window.end, "end")?,
    }))
}

pub fn quote_out(q: &Quote) -> pb::Quote {
    use super::delivery_out::window_out;
    let plan = q.plan();
    pb::Quote {
        id: q.id.clone(),
        amount_cents: q.amount_cents,
        currency: q.currency.clone(),
        breakdown: Some(super::delivery_out::breakdown_out(&q.breakdown)),
        distance_km: Some(q.distance_km),
        duration_min: q.duration_min,
        valid_until: Some(courier::time::micros_to_proto(q.valid_until)),
        created_at: Some(courier::time::micros_to_proto(q.created_at)),
        pickup_window: window_out(q.route.windows.pickup),
        dropoff_window: window_out(q.route.windows.dropoff),
        pickup_eta: Some(courier::time::micros_to_proto(plan.pickup_at)),
        dropoff_eta: Some(courier::time::micros_to_proto(plan.dropoff_at)),
    }
}

/// The checkpoint of a proof submission (courier app or dispatch).
pub fn checkpoint_in(kind: i32) -> Result<Checkpoint, CoreError> {
    match pb::CheckpointKind::try_from(kind) {
        Ok(pb::CheckpointKind::Pickup) => Ok(Checkpoint::Pickup),
        Ok(pb::CheckpointKind::Dropoff) => Ok(Checkpoint::Dropoff),
        _ => Err(CoreError::invalid(
            "checkpoint",
            "checkpoint must be pickup or dropoff.",
        )),
    }
}

/// File `index` of a proof submission (courier app or dispatch).
pub fn proof_file_in(
    index: usize,
    kind: i32,
    file_name: String,
    content_type: String,
    content: Vec<u8>,
) -> Result<ProofFile, CoreError> {
    let kind = match pb::ArtifactKind::try_from(kind) {
        Ok(pb::ArtifactKind::Photo) => ArtifactKind::Photo,
        Ok(pb::ArtifactKind::Signature) => ArtifactKind::Signature,
        Ok(pb::ArtifactKind::SignedDeliveryNote) => ArtifactKind::SignedDeliveryNote,
        Ok(pb::ArtifactKind::Document) => ArtifactKind::Document,
        _ => {
            return Err(CoreError::invalid(
                format!("files.{index}.kind"),
                "Unknown or missing file kind.",
            ));
        }
    };
    Ok(ProofFile {
        kind,
        file_name,
        content_type,
        content,
    })
}
