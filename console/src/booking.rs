//! Booking from the console, in the mode of the page's URL: a form of
//! waypoints (pickup, the stops the API allows, dropoff), vehicle, extras and
//! items that first asks the core for a quote (`QuoteService.CreateQuote`
//! with the session: the answer `POST /v1/quotes` gives for the same input)
//! and shows its price breakdown, then books that quote
//! (`DeliveryService.CreateDelivery` with its `quote_id`) under an
//! idempotency key made when the priced page rendered, so a double click or
//! a form sent again books once (docs/console.md "Booking").

use askama::Template;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use courier::names::PublicName;
use courier::v1 as pb;

use courier::internal::v1 as ipb;

use crate::ConsoleState;
use crate::deliveries::{breakdown_lines, money};
use crate::flash::Flash;
use crate::geocoder::{Bounds, Place};
use crate::map::{Area, Projection, Tile};
use crate::page::{Layout, ModeQuery, Refusal, Signed, field, fields, render};
use crate::times::{Moment, Zone};

/// Stops the form can hold: as many as the API allows.
const MAX_STOPS: usize = courier::limits::STOPS.max as usize;
/// Item rows the form can hold.
const MAX_ITEMS: usize = 20;

/// What a member is told when the core refuses them a quote or a booking.
const MEMBER_CANNOT_BOOK: &str =
    "As a member you can follow this workspace's deliveries but not book them; an owner or admin can.";

/// A waypoint as typed.
pub(crate) struct Point {
    /// The form's field prefix (`pickup`, `stop0`, `dropoff`).
    prefix: String,
    /// The API's name of it in a refusal's `param` (`pickup`, `stops.0`).
    param: String,
    legend: String,
    address: String,
    latitude: String,
    longitude: String,
    name: String,
    phone: String,
    instructions: String,
    /// What the address search found for the address, on the answer to
    /// "Find" ("Found: …").
    found: String,
    /// The search's other places for the address, each a button that
    /// sets it: `(label, form value "prefix|latitude|longitude|label")`.
    candidates: Vec<(String, String)>,
}

impl Point {
    fn of(form: &[(String, String)], prefix: &str, param: &str, legend: String) -> Point {
        let value = |name: &str| field(form, &format!("{prefix}_{name}")).to_owned();
        Point {
            prefix: prefix.to_owned(),
            param: param.to_owned(),
            legend,
            address: value("address"),
            latitude: value("latitude"),
            longitude: value("longitude"),
            name: value("name"),
            phone: value("phone"),
            instructions: value("instructions"),
            found: String::new(),
            candidates: Vec::new(),
        }
    }

    fn is_blank(&self) -> bool {
        [
            &self.address,
            &self.latitude,
            &self.longitude,
            &self.name,
            &self.phone,
            &self.instructions,
        ]
        .iter()
        .all(|v| v.trim().is_empty())
    }

    /// The point's coordinates, when both are numbers.
    fn coordinates(&self) -> Option<ipb::MapPoint> {
        Some(ipb::MapPoint {
            latitude: self.latitude.trim().parse().ok()?,
            longitude: self.longitude.trim().parse().ok()?,
        })
    }

    /// Puts the point at `place`, as the address search found it.
    fn place_at(&mut self, place: &Place) {
        self.latitude = decimal(place.latitude);
        self.longitude = decimal(place.longitude);
        self.found = place.label.clone();
    }

    /// The waypoint, with its contact and instructions when given
    /// (`booked`: a quote prices the route alone).
    fn waypoint(&self, booked: bool) -> Result<pb::Waypoint, Refusal> {
        let coordinate = |name: &str, value: &str| {
            value.trim().parse::<f64>().map_err(|_| Refusal {
                param: Some(format!("{}.{name}", self.param)),
                message: format!("The {name} must be a number, such as 52.52."),
            })
        };
        let contact = booked && !(self.name.trim().is_empty() && self.phone.trim().is_empty());
        let instructions = Some(self.instructions.trim()).filter(|i| booked && !i.is_empty());
        Ok(pb::Waypoint {
            address: self.address.trim().to_owned(),
            latitude: coordinate("latitude", &self.latitude)?,
            longitude: coordinate("longitude", &self.longitude)?,
            contact: contact.then(|| pb::Contact {
                name: self.name.trim().to_owned(),
                phone: self.phone.trim().to_owned(),
                email: None,
            }),
            instructions: instructions.map(str::to_owned),
        })
    }
}

/// A coordinate as the form writes it: to the centimetre, no trailing zeros.
fn decimal(value: f64) -> String {
    let text = format!("{value:.7}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// The proof of delivery asked for, as typed: photos left empty and boxes
/// left unticked keep the workspace's defaults (one photo at pickup and at
/// dropoff, nothing else).
pub(crate) struct ProofFields {
    pickup_photos: String,
    dropoff_photos: String,
    /// The boxes: `(form name, label, ticked)`.
    pickup_checks: Vec<(&'static str, &'static str, bool)>,
    dropoff_checks: Vec<(&'static str, &'static str, bool)>,
}

impl ProofFields {
    const PICKUP: [(&'static str, &'static str); 3] = [
        ("proof_pickup_signature", "Signature"),
        ("proof_pickup_sender_name", "Sender's name"),
        ("proof_pickup_barcode", "Barcode scan"),
    ];
    const DROPOFF: [(&'static str, &'static str); 6] = [
        ("proof_dropoff_signature", "Signature"),
        ("proof_dropoff_recipient_name", "Recipient's name"),
        ("proof_dropoff_barcode", "Barcode scan"),
        ("proof_dropoff_age_check", "Age check"),
        ("proof_dropoff_leave_at_door", "May be left at the door"),
        ("proof_dropoff_pin", "Hand over only against the recipient's PIN"),
    ];

    fn of(form: &[(String, String)]) -> ProofFields {
        let ticked = |boxes: &[(&'static str, &'static str)]| {
            boxes
                .iter()
                .map(|&(name, label)| (name, label, field(form, name) == "yes"))
                .collect()
        };
        ProofFields {
            pickup_photos: field(form, "proof_pickup_photos").to_owned(),
            dropoff_photos: field(form, "proof_dropoff_photos").to_owned(),
            pickup_checks: ticked(&ProofFields::PICKUP),
            dropoff_checks: ticked(&ProofFields::DROPOFF),
        }
    }

    /// Whether any box is ticked or any count typed.
    fn is_default(&self) -> bool {
        self.pickup_photos.trim().is_empty()
            && self.dropoff_photos.trim().is_empty()
            && self
                .pickup_checks
                .iter()
                .chain(&self.dropoff_checks)
                .all(|(_, _, on)| !on)
    }

    /// What `proof_of_delivery` is sent: none for the defaults; a box
    /// unticked is left out (it keeps its default).
    fn request(&self) -> Result<Option<pb::ProofOfDeliveryRequest>, Refusal> {
        if self.is_default() {
            return Ok(None);
        }
        let photos = |value: &str, param: &str| match value.trim() {
            "" => Ok(None),
            text => text.parse::<i32>().map(Some).map_err(|_| Refusal {
                param: Some(param.to_owned()),
                message: "The number of photos must be a whole number from 1 to 10.".into(),
            }),
        };
        let on = |checks: &[(&'static str, &'static str, bool)], name: &str| {
            checks
                .iter()
                .any(|(n, _, ticked)| *n == name && *ticked)
                .then_some(true)
        };
        let (p, d) = (&self.pickup_checks, &self.dropoff_checks);
        Ok(Some(pb::ProofOfDeliveryRequest {
            pickup: Some(pb::PickupProofRequest {
                photos: photos(&self.pickup_photos, "proof_of_delivery.pickup.photos")?,
                signature: on(p, "proof_pickup_signature"),
                sender_name: on(p, "proof_pickup_sender_name"),
                barcode: on(p, "proof_pickup_barcode"),
            }),
            dropoff: Some(pb::DropoffProofRequest {
                photos: photos(&self.dropoff_photos, "proof_of_delivery.dropoff.photos")?,
                signature: on(d, "proof_dropoff_signature"),
                recipient_name: on(d, "proof_dropoff_recipient_name"),
                barcode: on(d, "proof_dropoff_barcode"),
                age_check: on(d, "proof_dropoff_age_check"),
                leave_at_door: on(d, "proof_dropoff_leave_at_door"),
                pin: on(d, "proof_dropoff_pin"),
            }),
        }))
    }
}

/// An extra of the catalogue, as the form offers it.
pub(crate) struct ExtraChoice {
    id: String,
    name: String,
    /// `(option id, name, selected)`; none for an extra without options.
    options: Vec<(String, String, bool)>,
    chosen: bool,
    quantity: String,
    error: Option<String>,
}

/// An item row as typed.
pub(crate) struct ItemRow {
    description: String,
    quantity: String,
    weight_kg: String,
    length_cm: String,
    width_cm: String,
    height_cm: String,
}

impl ItemRow {
    fn of(form: &[(String, String)], index: usize) -> ItemRow {
        let value = |name: &str| field(form, &format!("item{index}_{name}")).to_owned();
        ItemRow {
            description: value("description"),
            quantity: value("quantity"),
            weight_kg: value("weight_kg"),
            length_cm: value("length_cm"),
            width_cm: value("width_cm"),
            height_cm: value("height_cm"),
        }
    }

    fn is_blank(&self) -> bool {
        [
            &self.description,
            &self.quantity,
            &self.weight_kg,
            &self.length_cm,
            &self.width_cm,
            &self.height_cm,
        ]
        .iter()
        .all(|v| v.trim().is_empty())
    }
}

/// The quote the page shows, carried in the form until it is booked.
pub(crate) struct QuoteView {
    id: String,
    lines: Vec<(String, String)>,
    total: String,
    valid_until: Moment,
    /// `valid_until` in seconds, for the form.
    valid_until_seconds: i64,
    /// When the pickup and the dropoff are planned (inside the windows),
    /// and in seconds, for the form.
    planned: [(Moment, i64); 2],
}

impl QuoteView {
    fn of(quote: &pb::Quote, zone: Zone) -> QuoteView {
        let planned = |at: Option<&prost_types::Timestamp>| (zone.minute(at, ""), at.map_or(0, |t| t.seconds));
        QuoteView {
            id: quote.id.clone(),
            lines: breakdown_lines(quote.breakdown.as_ref(), &quote.currency),
            total: money(quote.amount_cents, &quote.currency),
            valid_until: zone.at(quote.valid_until.as_ref()),
            valid_until_seconds: quote.valid_until.as_ref().map_or(0, |t| t.seconds),
            planned: [planned(quote.pickup_eta.as_ref()), planned(quote.dropoff_eta.as_ref())],
        }
    }

    /// The quote as the form sent it back (a booking the core refused).
    fn sent(form: &[(String, String)], zone: Zone) -> Option<QuoteView> {
        let id = field(form, "quote_id");
        if id.is_empty() {
            return None;
        }
        let seconds = field(form, "quote_valid_until").parse().unwrap_or(0);
        let planned = |name: &str| {
            let seconds = field(form, name).parse().unwrap_or(0);
            let at = (seconds > 0).then_some(prost_types::Timestamp { seconds, nanos: 0 });
            (zone.minute(at.as_ref(), ""), seconds)
        };
        Some(QuoteView {
            planned: [planned("quote_pickup_eta"), planned("quote_dropoff_eta")],
            id: id.to_owned(),
            lines: form
                .iter()
                .filter(|(name, _)| name == "quote_line")
                .filter_map(|(_, line)| line.split_once('\t'))
                .map(|(label, amount)| (label.to_owned(), amount.to_owned()))
                .collect(),
            total: field(form, "quote_total").to_owned(),
            valid_until: zone.at(Some(&prost_types::Timestamp { seconds, nanos: 0 })),
            valid_until_seconds: seconds,
        })
    }
}

/// A window as typed: start and end on the workspace's clock
/// (`datetime-local`), both empty for none.
pub(crate) struct WindowFields {
    /// `pickup_window` or `dropoff_window`: the field prefix and the API's
    /// name in a refusal.
    name: &'static str,
    start: String,
    end: String,
}

impl WindowFields {
    fn of(form: &[(String, String)], name: &'static str) -> WindowFields {
        WindowFields {
            name,
            start: field(form, &format!("{name}_start")).to_owned(),
            end: field(form, &format!("{name}_end")).to_owned(),
        }
    }

    /// The window, read on `zone`'s clock; a refusal naming the end that is
    /// missing or no time.
    fn window(&self, zone: Zone) -> Result<Option<pb::TimeWindow>, Refusal> {
        let (start, end) = (self.start.trim(), self.end.trim());
        if start.is_empty() && end.is_empty() {
            return Ok(None);
        }
        let at = |text: &str, member: &str| {
            let refusal = |message: String| Refusal {
                param: Some(format!("{}.{member}", self.name)),
                message,
            };
            if text.is_empty() {
                return Err(refusal("Give both the start and the end of the window.".into()));
            }
            zone.typed(text).ok_or_else(|| {
                refusal(format!(
                    "A date and time on the {} clock, such as 2026-12-01T14:00.",
                    zone.name()
                ))
            })
        };
        Ok(Some(pb::TimeWindow {
            start: Some(at(start, "start")?),
            end: Some(at(end, "end")?),
        }))
    }
}

/// The booking form's values, as typed (a test-mode form starts with Berlin
/// sample places and contacts; a live one starts empty).
pub(crate) struct BookingForm {
    pickup: Point,
    stops: Vec<Point>,
    dropoff: Point,
    vehicle_type_id: String,
    extras: Vec<ExtraChoice>,
    items: Vec<ItemRow>,
    external_id: String,
    notes: String,
    /// The tip for the courier, as typed ("3.50"); empty for none.
    tip: String,
    /// The pickup time asked for, on the workspace's clock, as typed
    /// (`datetime-local`); empty for as soon as possible.
    scheduled_at: String,
    /// The promised times, as typed (docs/guide.md "Windows").
    pickup_window: WindowFields,
    dropoff_window: WindowFields,
    proof: ProofFields,
    /// Booked `"batching": "never"`: the courier carries no other job.
    rides_alone: bool,
    scenario: String,
    /// Made when the priced page renders; sent with the booking.
    idempotency_key: String,
    quote: Option<QuoteView>,
}

impl BookingForm {
    /// A new form: in test mode filled with sample places to try the
    /// simulator; in live mode empty but for the vehicle, as a real booking
    /// names real people.
    fn new(mode: &str) -> BookingForm {
        if mode != "test" {
            return BookingForm::of(&[("vehicle_type_id".to_owned(), "cargo_bike".to_owned())]);
        }
        let defaults: Vec<(String, String)> = [
            ("pickup_address", "Alexanderplatz 1, 10178 Berlin"),
            ("pickup_latitude", "52.5219"),
            ("pickup_longitude", "13.4132"),
            ("pickup_name", "Warehouse desk"),
            ("pickup_phone", "+493012345678"),
            ("dropoff_address", "Oranienstraße 25, 10999 Berlin"),
            ("dropoff_latitude", "52.5010"),
            ("dropoff_longitude", "13.4190"),
            ("dropoff_name", "Test Recipient"),
            ("dropoff_phone", "+493087654321"),
            ("vehicle_type_id", "cargo_bike"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        BookingForm::of(&defaults)
    }

    /// The form as sent; `add` (the "add a stop" and "add an item" buttons)
    /// gives one more row.
    fn of(form: &[(String, String)]) -> BookingForm {
        let count = |name: &str, max: usize| field(form, name).parse::<usize>().unwrap_or(0).min(max);
        let add = field(form, "add");
        let stops = (count("stop_count", MAX_STOPS) + usize::from(add == "stop")).min(MAX_STOPS);
        let items = (count("item_count", MAX_ITEMS).max(1) + usize::from(add == "item")).min(MAX_ITEMS);
        BookingForm {
            pickup: Point::of(form, "pickup", "pickup", "Pickup (A)".into()),
            stops: (0..stops)
                .map(|i| {
                    Point::of(
                        form,
                        &format!("stop{i}"),
                        &format!("stops.{i}"),
                        format!("Stop {}", i + 1),
                    )
                })
                .collect(),
            dropoff: Point::of(form, "dropoff", "dropoff", "Dropoff (B)".into()),
            vehicle_type_id: field(form, "vehicle_type_id").to_owned(),
            extras: Vec::new(),
            items: (0..items).map(|i| ItemRow::of(form, i)).collect(),
            external_id: field(form, "external_id").to_owned(),
            notes: field(form, "notes").to_owned(),
            tip: field(form, "tip").to_owned(),
            scheduled_at: field(form, "scheduled_at").to_owned(),
            pickup_window: WindowFields::of(form, "pickup_window"),
            dropoff_window: WindowFields::of(form, "dropoff_window"),
            proof: ProofFields::of(form),
            rides_alone: field(form, "rides_alone") == "yes",
            scenario: field(form, "scenario").to_owned(),
            idempotency_key: field(form, "idempotency_key").to_owned(),
            quote: None,
        }
    }

    /// The catalogue's extras (each once, in the catalogue's order), with
    /// what the form chose.
    fn offer_extras(
        &mut self,
        form: &[(String, String)],
        vehicle_types: &[pb::VehicleType],
        refusal: Option<&Refusal>,
    ) {
        let chosen: Vec<&str> = form
            .iter()
            .filter(|(name, _)| name == "extra")
            .map(|(_, id)| id.as_str())
            .collect();
        let mut seen = std::collections::HashSet::new();
        for extra in vehicle_types.iter().flat_map(|v| &v.extras) {
            if !seen.insert(extra.id.clone()) {
                continue;
            }
            let option = field(form, &format!("extra_{}_option", extra.id));
            let position = chosen.iter().position(|id| *id == extra.id);
            self.extras.push(ExtraChoice {
                id: extra.id.clone(),
                name: extra.name.clone(),
                options: extra
                    .options
                    .iter()
                    .map(|o| (o.id.clone(), o.name.clone(), o.id == option))
                    .collect(),
                chosen: position.is_some(),
                quantity: field(form, &format!("extra_{}_quantity", extra.id)).to_owned(),
                error: position
                    .and_then(|i| refusal.and_then(|r| r.at(&format!("extras.{i}"))))
                    .map(str::to_owned),
            });
        }
    }

    /// The point of the form's field prefix (`pickup`, `stop0`, `dropoff`).
    fn point_mut(&mut self, prefix: &str) -> Option<&mut Point> {
        std::iter::once(&mut self.pickup)
            .chain(self.stops.iter_mut())
            .chain(std::iter::once(&mut self.dropoff))
            .find(|p| p.prefix == prefix)
    }

    /// The two windows, pickup first.
    fn windows(&self) -> [&WindowFields; 2] {
        [&self.pickup_window, &self.dropoff_window]
    }

    /// The pickup time asked for, read on `zone`'s clock.
    fn scheduled(&self, zone: Zone) -> Result<Option<prost_types::Timestamp>, Refusal> {
        match self.scheduled_at.trim() {
            "" => Ok(None),
            text => zone.typed(text).map(Some).ok_or_else(|| Refusal {
                param: Some("scheduled_at".into()),
                message: format!(
                    "The pickup time must be a date and time on the {} clock, such as 2026-12-01T09:30.",
                    zone.name()
                ),
            }),
        }
    }

    /// Pickup, stops and dropoff, as the form lists them.
    fn points(&self) -> Vec<&Point> {
        let mut points = vec![&self.pickup];
        points.extend(&self.stops);
        points.push(&self.dropoff);
        points
    }

    /// The stops of the route, those left blank left out.
    fn route(&self) -> impl Iterator<Item = &Point> {
        self.stops.iter().filter(|stop| !stop.is_blank())
    }

    fn selected_extras(&self) -> Result<Vec<pb::SelectedExtra>, Refusal> {
        self.extras
            .iter()
            .filter(|e| e.chosen)
            .enumerate()
            .map(|(i, extra)| {
                let quantity = match extra.quantity.trim() {
                    "" => None,
                    text => Some(text.parse::<i64>().map_err(|_| Refusal {
                        param: Some(format!("extras.{i}.quantity")),
                        message: "The quantity must be a whole number.".into(),
                    })?),
                };
                let option = extra.options.iter().find(|(_, _, selected)| *selected);
                Ok(pb::SelectedExtra {
                    extra_id: extra.id.clone(),
                    option_id: option.map(|(id, _, _)| id.clone()),
                    quantity,
                })
            })
            .collect()
    }

    fn shipment(&self) -> Result<Option<pb::ShipmentItems>, Refusal> {
        let rows: Vec<&ItemRow> = self.items.iter().filter(|i| !i.is_blank()).collect();
        if rows.is_empty() {
            return Ok(None);
        }
        let mut items = Vec::new();
        for (i, row) in rows.into_iter().enumerate() {
            let number = |name: &str, value: &str| {
                value.trim().parse::<f64>().map_err(|_| Refusal {
                    param: Some(format!("items.{i}.{name}")),
                    message: "This must be a number.".into(),
                })
            };
            items.push(pb::ShipmentItem {
                description: row.description.trim().to_owned(),
                quantity: row.quantity.trim().parse().map_err(|_| Refusal {
                    param: Some(format!("items.{i}.quantity")),
                    message: "The quantity must be a whole number.".into(),
                })?,
                weight_kg: number("weight_kg", &row.weight_kg)?,
                length_cm: number("length_cm", &row.length_cm)?,
                width_cm: number("width_cm", &row.width_cm)?,
                height_cm: number("height_cm", &row.height_cm)?,
            });
        }
        Ok(Some(pb::ShipmentItems { items }))
    }

    /// What `POST /v1/quotes` would be sent for this form.
    fn quote_request(&self, zone: Zone) -> Result<pb::CreateQuoteRequest, Refusal> {
        Ok(pb::CreateQuoteRequest {
            pickup: Some(self.pickup.waypoint(false)?),
            dropoff: Some(self.dropoff.waypoint(false)?),
            stops: self.route().map(|p| p.waypoint(false)).collect::<Result<_, _>>()?,
            vehicle_type_id: self.vehicle_type_id.clone(),
            extras: self.selected_extras()?,
            items: self.shipment()?,
            scheduled_at: self.scheduled(zone)?,
            pickup_window: self.pickup_window.window(zone)?,
            dropoff_window: self.dropoff_window.window(zone)?,
        })
    }

    /// The booking of the form's quote.
    fn delivery_request(&self, mode: &str, zone: Zone) -> Result<pb::CreateDeliveryRequest, Refusal> {
        let text = |value: &str| Some(value.trim().to_owned()).filter(|v| !v.is_empty());
        Ok(pb::CreateDeliveryRequest {
            quote_id: self.quote.as_ref().map(|q| q.id.clone()),
            pickup: Some(self.pickup.waypoint(true)?),
            dropoff: Some(self.dropoff.waypoint(true)?),
            stops: self.route().map(|p| p.waypoint(true)).collect::<Result<_, _>>()?,
            vehicle_type_id: self.vehicle_type_id.clone(),
            extras: self.selected_extras()?,
            items: self.shipment()?,
            external_id: text(&self.external_id),
            notes: text(&self.notes),
            scheduled_at: self.scheduled(zone)?,
            proof_of_delivery: self.proof.request()?,
            test_scenario: if mode == "test" {
                pb::TestScenario::from_public_name(&self.scenario).unwrap_or(pb::TestScenario::Unspecified) as i32
            } else {
                pb::TestScenario::Unspecified as i32
            },
            pickup_window: self.pickup_window.window(zone)?,
            dropoff_window: self.dropoff_window.window(zone)?,
            batching: if self.rides_alone {
                pb::Batching::Never
            } else {
                pb::Batching::Allowed
            } as i32,
            // The workspace's notification settings alone.
            notifications: None,
            undeliverable_action: pb::UndeliverableAction::ReturnToPickup as i32,
            tip_cents: Some(crate::forms::tip_cents(&self.tip)?).filter(|cents| *cents > 0),
        })
    }
}

#[derive(Template)]
#[template(path = "delivery_book.html")]
pub(crate) struct BookingPage {
    layout: Layout,
    workspace_id: String,
    form: BookingForm,
    /// Whether an address search is set up ("Find" beside each address).
    geocoding: bool,
    /// The workspace's clock, which the pickup time is typed on.
    zone_name: &'static str,
    /// The map a click on which sets a point (with script).
    tiles: Vec<Tile>,
    /// Whose map data the tiles show.
    credit: Option<String>,
    areas: Vec<Area>,
    markers: Vec<PointMarker>,
    /// The map's projection, for the script that reads a click.
    zoom: u32,
    left: String,
    top: String,
    vehicle_types: Vec<(String, String)>,
    scenarios: Vec<&'static str>,
    max_stops: usize,
    max_items: usize,
    refusal: Option<Refusal>,
}

impl BookingPage {
    fn field_error(&self, field: &str) -> Option<&str> {
        self.refusal.as_ref().and_then(|r| r.at(field))
    }

    fn point_error(&self, point: &Point, name: &str) -> Option<&str> {
        self.field_error(&format!("{}.{name}", point.param))
    }

    fn item_error(&self, index: impl std::fmt::Display, name: &str) -> Option<&str> {
        self.field_error(&format!("items.{index}.{name}"))
    }
}

/// The fields a refusal may name on this form; any other is the page's
/// banner.
fn shown_at_a_field(refusal: &Refusal) -> bool {
    [
        "pickup",
        "dropoff",
        "stops",
        "vehicle_type_id",
        "extras",
        "items",
        "external_id",
        "notes",
        "tip_cents",
        "scheduled_at",
        "pickup_window",
        "dropoff_window",
        "proof_of_delivery",
        "test_scenario",
    ]
    .iter()
    .any(|f| refusal.at(f).is_some())
}

/// What the form offers: the catalogue's vehicle types (with the extras
/// each offers), and the service areas its map shows.
struct Offered {
    vehicle_types: Vec<pb::VehicleType>,
    areas: Vec<ipb::MapArea>,
}

impl Offered {
    async fn read(
        state: &ConsoleState,
        signed: &Signed,
        (workspace, mode): (&str, &'static str),
    ) -> Result<Offered, Response> {
        let types = signed.acting(pb::ListVehicleTypesRequest {}, workspace, mode, None);
        let areas = signed.acting(ipb::ListServiceAreasRequest {}, workspace, mode, None);
        let (mut catalogue, mut console) = (state.vehicle_types.clone(), state.core.clone());
        let (types, areas) = tokio::join!(catalogue.list_vehicle_types(types), console.list_service_areas(areas));
        match (types, areas) {
            (Ok(types), Ok(areas)) => Ok(Offered {
                vehicle_types: types.into_inner().vehicle_types,
                areas: areas.into_inner().service_areas,
            }),
            (Err(status), _) | (_, Err(status)) => Err(signed.failure(state, &status, workspace)),
        }
    }

    /// The bounds of the service areas, where the address search looks first.
    fn bounds(&self) -> Option<Bounds> {
        Bounds::around(
            self.areas
                .iter()
                .flat_map(|a| &a.outline)
                .map(|p| (p.latitude, p.longitude)),
        )
    }
}

/// A point of the form on its map: "A", a stop's number, "B".
pub(crate) struct PointMarker {
    prefix: String,
    label: String,
    x: String,
    y: String,
    /// Drawn once it has coordinates.
    placed: bool,
}

/// The map fits the points that have coordinates, with the service areas
/// they are in; without any, the areas on the workspace's clock (its own).
fn fitted(form: &BookingForm, areas: &[ipb::MapArea], zone: Zone) -> Projection {
    let placed: Vec<ipb::MapPoint> = form.points().iter().filter_map(|p| p.coordinates()).collect();
    let holds = |area: &ipb::MapArea, point: &ipb::MapPoint| {
        Bounds::around(area.outline.iter().map(|p| (p.latitude, p.longitude))).is_some_and(|b| {
            (b.south..=b.north).contains(&point.latitude) && (b.west..=b.east).contains(&point.longitude)
        })
    };
    let own: Vec<&ipb::MapArea> = areas.iter().filter(|a| a.time_zone == zone.name()).collect();
    let shown: Vec<&ipb::MapArea> = if placed.is_empty() {
        if own.is_empty() { areas.iter().collect() } else { own }
    } else {
        areas.iter().filter(|a| placed.iter().any(|p| holds(a, p))).collect()
    };
    let mut points: Vec<&ipb::MapPoint> = placed.iter().collect();
    points.extend(shown.iter().flat_map(|a| &a.outline));
    Projection::fitting(&points)
}

/// The page of the form `sent` (as `form` holds it), with the refusal of
/// it at its field.
fn booking_view(
    state: &ConsoleState,
    signed: &Signed,
    (workspace, mode, offered): (&str, &'static str, &Offered),
    (mut form, sent): (BookingForm, &[(String, String)]),
    refusal: Option<Refusal>,
) -> Response {
    form.offer_extras(sent, &offered.vehicle_types, refusal.as_ref());
    let zone = signed.zone(Some(workspace));
    let projection = fitted(&form, &offered.areas, zone);
    let (tiles, credit) = state.ground(&projection);
    let stops = form.stops.len();
    let markers = form
        .points()
        .iter()
        .enumerate()
        .map(|(i, point)| {
            let at = point.coordinates().map(|p| projection.at(&p));
            PointMarker {
                prefix: point.prefix.clone(),
                label: match i {
                    0 => "A".to_owned(),
                    i if i > stops => "B".to_owned(),
                    i => i.to_string(),
                },
                x: format!("{:.1}", at.map_or(0.0, |a| a.x)),
                y: format!("{:.1}", at.map_or(0.0, |a| a.y)),
                placed: at.is_some(),
            }
        })
        .collect();
    let title = if mode == "test" {
        "Book a test delivery"
    } else {
        "Book a delivery"
    };
    let mut layout = signed.layout(state, title, Some(workspace), mode);
    layout.section = "deliveries";
    layout.error = refusal
        .as_ref()
        .filter(|r| !shown_at_a_field(r))
        .map(|r| r.message.clone());
    let status = if refusal.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    render(
        BookingPage {
            layout,
            workspace_id: workspace.to_owned(),
            form,
            geocoding: state.geocoder.is_some(),
            zone_name: zone.name(),
            tiles,
            credit,
            areas: offered.areas.iter().map(|a| Area::of(a, &projection)).collect(),
            markers,
            zoom: projection.zoom,
            left: format!("{:.1}", projection.left),
            top: format!("{:.1}", projection.top),
            vehicle_types: offered
                .vehicle_types
                .iter()
                .map(|v| (v.id.clone(), crate::labels::vehicle(&v.id)))
                .collect(),
            scenarios: pb::TestScenario::NAMES.iter().map(|(_, name)| *name).collect(),
            max_stops: MAX_STOPS,
            max_items: MAX_ITEMS,
            refusal,
        },
        status,
    )
}

/// A refusal of the core as the form shows it: a member is told what their
/// role allows, not which permission the session lacks.
fn refusal_of(signed: &Signed, workspace: &str, status: &tonic::Status) -> Option<Refusal> {
    let member = signed
        .session
        .memberships
        .iter()
        .any(|m| m.workspace_id == workspace && m.role() == courier::internal::v1::MemberRole::Member);
    match status.code() {
        tonic::Code::PermissionDenied if member => Some(Refusal {
            param: None,
            message: MEMBER_CANNOT_BOOK.into(),
        }),
        tonic::Code::InvalidArgument
        | tonic::Code::FailedPrecondition
        | tonic::Code::AlreadyExists
        | tonic::Code::PermissionDenied
        | tonic::Code::OutOfRange
        | tonic::Code::Aborted => Some(Refusal::of(status)),
        _ => None,
    }
}

/// `GET …/deliveries/new?mode=`: the form with Berlin addresses filled in.
pub(crate) async fn form_page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ModeQuery>,
) -> Response {
    let mode = query.mode();
    // A member is told what their role allows before filling in a form the
    // core would refuse (the role is the core's, from the session).
    let workspace_link = signed.layout(&state, "", Some(&workspace), mode).workspace;
    if workspace_link.as_ref().is_some_and(|w| !w.manages) {
        let status = courier::errors::to_status(courier::errors::ErrorCode::PermissionDenied, MEMBER_CANNOT_BOOK, None);
        return signed.failure(&state, &status, &workspace);
    }
    match Offered::read(&state, &signed, (&workspace, mode)).await {
        Ok(offered) => booking_view(
            &state,
            &signed,
            (&workspace, mode, &offered),
            (BookingForm::new(mode), &[]),
            None,
        ),
        Err(failed) => failed,
    }
}

/// `POST …/deliveries/quote?mode=`: a row added, a place found for an
/// address or chosen among those found, or the price of the form asked for
/// and shown with a new idempotency key for its booking.
pub(crate) async fn quote(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let mode = query.mode();
    let sent = fields(&body);
    let offered = match Offered::read(&state, &signed, (&workspace, mode)).await {
        Ok(offered) => offered,
        Err(failed) => return failed,
    };
    let page = (workspace.as_str(), mode, &offered);
    if !field(&sent, "add").is_empty() {
        return booking_view(&state, &signed, page, (BookingForm::of(&sent), &sent), None);
    }
    let zone = signed.zone(Some(&workspace));
    let find = field(&sent, "find");
    if !find.is_empty() {
        let mut form = BookingForm::of(&sent);
        let refusal = find_place(&state, &mut form, find, offered.bounds()).await;
        return booking_view(&state, &signed, page, (form, &sent), refusal);
    }
    let chosen = field(&sent, "place");
    if !chosen.is_empty() {
        let mut form = BookingForm::of(&sent);
        if let Some((prefix, place)) = chosen_place(chosen)
            && let Some(point) = form.point_mut(prefix)
        {
            point.place_at(&place);
        }
        return booking_view(&state, &signed, page, (form, &sent), None);
    }
    // The extras chosen are read against the catalogue the page offers.
    let mut priced = BookingForm::of(&sent);
    priced.offer_extras(&sent, &offered.vehicle_types, None);
    let message = match priced.quote_request(zone) {
        Ok(message) => message,
        Err(refusal) => return booking_view(&state, &signed, page, (BookingForm::of(&sent), &sent), Some(refusal)),
    };
    let request = signed.acting(message, &workspace, mode, Some(field(&sent, "csrf")));
    let mut form = BookingForm::of(&sent);
    match state.quotes.clone().create_quote(request).await {
        Ok(answer) => {
            let quote = answer.into_inner().quote.unwrap_or_default();
            form.quote = Some(QuoteView::of(&quote, zone));
            // A key per priced page: this page's booking, sent twice, books once.
            form.idempotency_key = format!("console-{}", hex::encode(rand::random::<[u8; 16]>()));
            booking_view(&state, &signed, page, (form, &sent), None)
        }
        Err(status) => match refusal_of(&signed, &workspace, &status) {
            Some(refusal) => booking_view(&state, &signed, page, (form, &sent), Some(refusal)),
            None => signed.failure(&state, &status, &workspace),
        },
    }
}

/// `POST …/deliveries?mode=`: books the quote the page showed, under the
/// page's idempotency key; on to the delivery's page.
pub(crate) async fn book(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let mode = query.mode();
    let sent = fields(&body);
    let zone = signed.zone(Some(&workspace));
    let offered = match Offered::read(&state, &signed, (&workspace, mode)).await {
        Ok(offered) => offered,
        Err(failed) => return failed,
    };
    let page = (workspace.as_str(), mode, &offered);
    let mut form = BookingForm::of(&sent);
    form.offer_extras(&sent, &offered.vehicle_types, None);
    form.quote = QuoteView::sent(&sent, zone);
    let again = |refusal: Refusal| {
        let mut form = BookingForm::of(&sent);
        form.quote = QuoteView::sent(&sent, zone);
        (form, refusal)
    };
    if form.quote.is_none() || form.idempotency_key.is_empty() {
        let (form, refusal) = again(Refusal {
            param: None,
            message: "Get the price first: a delivery is booked at the price shown.".into(),
        });
        return booking_view(&state, &signed, page, (form, &sent), Some(refusal));
    }
    let message = match form.delivery_request(mode, zone) {
        Ok(message) => message,
        Err(refusal) => {
            let (form, refusal) = again(refusal);
            return booking_view(&state, &signed, page, (form, &sent), Some(refusal));
        }
    };
    let mut request = signed.acting(message, &workspace, mode, Some(field(&sent, "csrf")));
    if let Ok(key) = form.idempotency_key.parse() {
        request.metadata_mut().insert(courier::metadata::IDEMPOTENCY_KEY, key);
    }
    match state.deliveries.clone().create_delivery(request).await {
        Ok(answer) => {
            let id = answer.into_inner().delivery.map(|d| d.id).unwrap_or_default();
            let notice = if mode == "test" {
                "Test delivery booked: the simulator plays it out on this page."
            } else {
                "Delivery booked."
            };
            signed.redirect_with(
                Flash::notice(notice),
                &format!("{}/w/{workspace}/deliveries/{id}?mode={mode}", state.root),
            )
        }
        Err(status) => match refusal_of(&signed, &workspace, &status) {
            Some(refusal) => {
                let (form, refusal) = again(refusal);
                booking_view(&state, &signed, page, (form, &sent), Some(refusal))
            }
            None => signed.failure(&state, &status, &workspace),
        },
    }
}

/// "Find" beside the address of the point `prefix`: the first place the
/// address search found set as its coordinates, the others offered; a
/// refusal at the address when nothing was found or the search is away.
async fn find_place(
    state: &ConsoleState,
    form: &mut BookingForm,
    prefix: &str,
    near: Option<Bounds>,
) -> Option<Refusal> {
    let point = form.point_mut(prefix)?;
    let address = format!("{}.address", point.param);
    let at_address = |message: String| Refusal {
        param: Some(address.clone()),
        message,
    };
    let Some(geocoder) = &state.geocoder else {
        return Some(at_address(
            "Finding places by address is not set up here: click the place on the map, or type its latitude and longitude.".into(),
        ));
    };
    let query = point.address.trim().to_owned();
    if query.is_empty() {
        return Some(at_address(
            "Type the address to find first: a street and number with the city works best.".into(),
        ));
    }
    match geocoder.search(&query, near).await {
        Ok(places) => {
            let Some((first, others)) = places.split_first() else {
                return Some(at_address(format!(
                    "No place found for \u{201c}{query}\u{201d}. Try the street and number with the city, or click the place on the map."
                )));
            };
            point.place_at(first);
            point.candidates = others
                .iter()
                .map(|p| {
                    let value = format!("{prefix}|{}|{}|{}", decimal(p.latitude), decimal(p.longitude), p.label);
                    (p.label.clone(), value)
                })
                .collect();
            None
        }
        Err(error) => {
            tracing::warn!(%error, "address search failed");
            Some(at_address(format!(
                "Places cannot be found right now ({error}): click the place on the map, or type its latitude and longitude."
            )))
        }
    }
}

/// A place chosen among those found: "prefix|latitude|longitude|label".
fn chosen_place(value: &str) -> Option<(&str, Place)> {
    let mut parts = value.splitn(4, '|');
    let prefix = parts.next().filter(|p| !p.is_empty())?;
    let latitude = parts.next()?.parse().ok()?;
    let longitude = parts.next()?.parse().ok()?;
    let label = parts.next().unwrap_or_default().to_owned();
    Some((
        prefix,
        Place {
            label,
            latitude,
            longitude,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn proof_left_alone_keeps_the_defaults_and_a_ticked_box_alone_is_sent() {
        assert_eq!(ProofFields::of(&sent(&[])).request().expect("valid"), None);
        let asked = ProofFields::of(&sent(&[
            ("proof_dropoff_photos", " 2 "),
            ("proof_dropoff_signature", "yes"),
        ]))
        .request()
        .expect("valid")
        .expect("asked");
        let dropoff = asked.dropoff.expect("dropoff");
        assert_eq!(
            (dropoff.photos, dropoff.signature, dropoff.age_check),
            (Some(2), Some(true), None)
        );
        assert_eq!(
            asked.pickup.expect("pickup").photos,
            None,
            "the pickup keeps its default"
        );
        let refused = ProofFields::of(&sent(&[("proof_pickup_photos", "two")]))
            .request()
            .expect_err("not a number");
        assert_eq!(refused.param.as_deref(), Some("proof_of_delivery.pickup.photos"));
    }

    #[test]
    fn a_place_chosen_is_read_from_its_button_and_nothing_else_is() {
        let (prefix, place) = chosen_place("stop0|52.5215|13.411|Alexanderplatz, Bahnhof | Berlin").expect("a place");
        assert_eq!(prefix, "stop0");
        assert_eq!((place.latitude, place.longitude), (52.5215, 13.411));
        assert_eq!(place.label, "Alexanderplatz, Bahnhof | Berlin");
        for bad in ["", "|1|2|x", "pickup|north|2|x", "pickup|1"] {
            assert!(chosen_place(bad).is_none(), "{bad}");
        }
        assert_eq!(decimal(52.52000001), "52.52");
        assert_eq!(decimal(13.0), "13");
    }
}
