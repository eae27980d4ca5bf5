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

use crate::ConsoleState;
use crate::deliveries::{breakdown_lines, money};
use crate::flash::Flash;
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
        }
    }

    fn is_blank(&self) -> bool {
        [&self.address, &self.latitude, &self.longitude, &self.name, &self.phone]
            .iter()
            .all(|v| v.trim().is_empty())
    }

    /// The waypoint, with its contact when one was given (`with_contact`).
    fn waypoint(&self, with_contact: bool) -> Result<pb::Waypoint, Refusal> {
        let coordinate = |name: &str, value: &str| {
            value.trim().parse::<f64>().map_err(|_| Refusal {
                param: Some(format!("{}.{name}", self.param)),
                message: format!("The {name} must be a number, such as 52.52."),
            })
        };
        let contact = with_contact && !(self.name.trim().is_empty() && self.phone.trim().is_empty());
        Ok(pb::Waypoint {
            address: self.address.trim().to_owned(),
            latitude: coordinate("latitude", &self.latitude)?,
            longitude: coordinate("longitude", &self.longitude)?,
            contact: contact.then(|| pb::Contact {
                name: self.name.trim().to_owned(),
                phone: self.phone.trim().to_owned(),
                email: None,
            }),
            instructions: None,
        })
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
}

impl QuoteView {
    fn of(quote: &pb::Quote, zone: Zone) -> QuoteView {
        QuoteView {
            id: quote.id.clone(),
            lines: breakdown_lines(quote.breakdown.as_ref(), &quote.currency),
            total: money(quote.amount_cents, &quote.currency),
            valid_until: zone.at(quote.valid_until.as_ref()),
            valid_until_seconds: quote.valid_until.as_ref().map_or(0, |t| t.seconds),
        }
    }

    /// The quote as the form sent it back (a booking the core refused).
    fn sent(form: &[(String, String)], zone: Zone) -> Option<QuoteView> {
        let id = field(form, "quote_id");
        if id.is_empty() {
            return None;
        }
        let seconds = field(form, "quote_valid_until").parse().unwrap_or(0);
        Some(QuoteView {
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
    fn quote_request(&self) -> Result<pb::CreateQuoteRequest, Refusal> {
        Ok(pb::CreateQuoteRequest {
            pickup: Some(self.pickup.waypoint(false)?),
            dropoff: Some(self.dropoff.waypoint(false)?),
            stops: self.route().map(|p| p.waypoint(false)).collect::<Result<_, _>>()?,
            vehicle_type_id: self.vehicle_type_id.clone(),
            extras: self.selected_extras()?,
            items: self.shipment()?,
            scheduled_at: None,
        })
    }

    /// The booking of the form's quote.
    fn delivery_request(&self, mode: &str) -> Result<pb::CreateDeliveryRequest, Refusal> {
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
            test_scenario: if mode == "test" {
                pb::TestScenario::from_public_name(&self.scenario).unwrap_or(pb::TestScenario::Unspecified) as i32
            } else {
                pb::TestScenario::Unspecified as i32
            },
            ..Default::default()
        })
    }
}

#[derive(Template)]
#[template(path = "delivery_book.html")]
pub(crate) struct BookingPage {
    layout: Layout,
    workspace_id: String,
    form: BookingForm,
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
        "test_scenario",
    ]
    .iter()
    .any(|f| refusal.at(f).is_some())
}

/// The catalogue's vehicle types, with the extras each offers.
async fn catalogue(
    state: &ConsoleState,
    signed: &Signed,
    (workspace, mode): (&str, &'static str),
) -> Result<Vec<pb::VehicleType>, Response> {
    let request = signed.acting(pb::ListVehicleTypesRequest {}, workspace, mode, None);
    match state.vehicle_types.clone().list_vehicle_types(request).await {
        Ok(answer) => Ok(answer.into_inner().vehicle_types),
        Err(status) => Err(signed.failure(state, &status, workspace)),
    }
}

/// The page of the form `sent` (as `form` holds it), with the refusal of
/// it at its field.
fn booking_view(
    state: &ConsoleState,
    signed: &Signed,
    (workspace, mode, vehicle_types): (&str, &'static str, &[pb::VehicleType]),
    (mut form, sent): (BookingForm, &[(String, String)]),
    refusal: Option<Refusal>,
) -> Response {
    form.offer_extras(sent, vehicle_types, refusal.as_ref());
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
            vehicle_types: vehicle_types
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
    match catalogue(&state, &signed, (&workspace, mode)).await {
        Ok(types) => booking_view(
            &state,
            &signed,
            (&workspace, mode, &types),
            (BookingForm::new(mode), &[]),
            None,
        ),
        Err(failed) => failed,
    }
}

/// `POST …/deliveries/quote?mode=`: a row added, or the price of the form
/// asked for and shown with a new idempotency key for its booking.
pub(crate) async fn quote(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let mode = query.mode();
    let sent = fields(&body);
    let types = match catalogue(&state, &signed, (&workspace, mode)).await {
        Ok(types) => types,
        Err(failed) => return failed,
    };
    let page = (workspace.as_str(), mode, types.as_slice());
    if !field(&sent, "add").is_empty() {
        return booking_view(&state, &signed, page, (BookingForm::of(&sent), &sent), None);
    }
    // The extras chosen are read against the catalogue the page offers.
    let mut priced = BookingForm::of(&sent);
    priced.offer_extras(&sent, &types, None);
    let message = match priced.quote_request() {
        Ok(message) => message,
        Err(refusal) => return booking_view(&state, &signed, page, (BookingForm::of(&sent), &sent), Some(refusal)),
    };
    let request = signed.acting(message, &workspace, mode, Some(field(&sent, "csrf")));
    let mut form = BookingForm::of(&sent);
    match state.quotes.clone().create_quote(request).await {
        Ok(answer) => {
            let quote = answer.into_inner().quote.unwrap_or_default();
            form.quote = Some(QuoteView::of(&quote, signed.zone(Some(&workspace))));
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
    let types = match catalogue(&state, &signed, (&workspace, mode)).await {
        Ok(types) => types,
        Err(failed) => return failed,
    };
    let page = (workspace.as_str(), mode, types.as_slice());
    let mut form = BookingForm::of(&sent);
    form.offer_extras(&sent, &types, None);
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
    let message = match form.delivery_request(mode) {
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
