//! Couriers: operators manage the platform's couriers (`/ops/couriers`), a
//! fleet's owners and admins its drivers (`/w/{workspace}/couriers`), members
//! read. The list (availability, job in hand, age of the last position,
//! vehicle), an invitation link shown once, a courier's page (profile and
//! vehicle, suspend and reactivate, a new link, today's jobs, the trail of the
//! job in hand). Every action is a `CourierService` call with the session; who
//! may do what is the core's answer (docs/couriers.md).

use askama::Template;
use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use courier::app::v1 as apb;
use courier::internal::v1 as ipb;
use courier::names::PublicName;
use courier::v1 as pb;

use crate::ConsoleState;
pub(crate) use crate::courier_fleet::Fleet;
use crate::flash::Flash;
use crate::page::{Layout, Refusal, Signed, failure, field, fields, render};
use crate::times::{Moment, Zone};

/// The once-shown secret of a courier's invitation (`flash`).
const INVITATION: &str = "courier_invitation";

/// The fields of the courier forms, as the core names them in a refusal.
const FORM_FIELDS: [&str; 8] = [
    "name",
    "phone",
    "email",
    "vehicle.vehicle_type_id",
    "vehicle.make",
    "vehicle.model",
    "vehicle.color",
    "vehicle.license_plate",
];

/// A fleet's drivers as the dispatch board shows them: who holds which
/// order, and the active drivers an order may be given to.
pub(crate) struct Drivers {
    /// `(order id, driver's name)`.
    holders: Vec<(String, String)>,
    /// `(courier id, name)` of the active drivers.
    pub(crate) active: Vec<(String, String)>,
    /// How many are online.
    pub(crate) online: usize,
}

impl Drivers {
    /// Every driver of `workspace` (page by page).
    pub(crate) async fn of(state: &ConsoleState, signed: &Signed, workspace: &str) -> Result<Drivers, tonic::Status> {
        let mut drivers = Drivers {
            holders: Vec::new(),
            active: Vec::new(),
            online: 0,
        };
        let mut page_token = String::new();
        loop {
            let request = signed.request(
                ipb::ListCouriersRequest {
                    workspace_id: workspace.to_owned(),
                    page_size: 100,
                    page_token,
                },
                Some(&signed.session.csrf_token),
            );
            let answer = state.couriers.clone().list_couriers(request).await?.into_inner();
            for summary in answer.couriers {
                let courier = summary.courier.unwrap_or_default();
                if let Some(job) = summary.current_job_id {
                    drivers.holders.push((job, courier.name.clone()));
                }
                if crate::labels::availability(&courier) == "online" {
                    drivers.online += 1;
                }
                if courier.status() == apb::CourierStatus::Active {
                    drivers.active.push((courier.id, courier.name));
                }
            }
            if answer.next_page_token.is_empty() {
                return Ok(drivers);
            }
            page_token = answer.next_page_token;
        }
    }

    /// The name of the driver holding `order_id`.
    pub(crate) fn holding(&self, order_id: &str) -> Option<String> {
        self.holders
            .iter()
            .find(|(job, _)| job == order_id)
            .map(|(_, name)| name.clone())
    }
}

/// Whether automatic dispatch offers fleet `workspace`'s board orders to
/// its drivers.
pub(crate) async fn auto_dispatch(
    state: &ConsoleState,
    signed: &Signed,
    workspace: &str,
) -> Result<bool, tonic::Status> {
    let request = signed.request(
        ipb::GetFleetSettingsRequest {
            workspace_id: workspace.to_owned(),
        },
        Some(&signed.session.csrf_token),
    );
    let answer = state.dispatch.clone().get_fleet_settings(request).await?.into_inner();
    Ok(answer.settings.is_some_and(|s| s.auto_dispatch))
}

/// The board's "assign automatically" form: the fleet's setting changed
/// through the core, then the board again.
async fn update_fleet_settings(state: ConsoleState, signed: Signed, workspace: String, body: Bytes) -> Response {
    let form = fields(&body);
    let message = ipb::UpdateFleetSettingsRequest {
        settings: Some(ipb::FleetSettings {
            workspace_id: workspace.clone(),
            auto_dispatch: field(&form, "auto_dispatch") == "on",
        }),
    };
    let request = signed.request(message, Some(field(&form, "csrf")));
    match state.dispatch.clone().update_fleet_settings(request).await {
        Ok(_) => Redirect::to(&format!("{}/w/{workspace}/board", state.root)).into_response(),
        Err(status) => failure(&state, &status),
    }
}

/// A job waits too long for a courier after this.
const WAITING_TOO_LONG: chrono::TimeDelta = chrono::TimeDelta::minutes(5);

/// A job that has waited for a courier too long, for the overview.
pub(crate) struct Waiting {
    /// The job's page in the console.
    pub(crate) link: String,
    pub(crate) id: String,
    pub(crate) since: Moment,
}

/// What the overview's "Needs attention" says of dispatch: a fleet's
/// drivers online (`None` for a business workspace, whose deliveries
/// platform couriers carry), and the jobs waiting for a courier for more
/// than five minutes (a fleet's pending board orders, a business
/// workspace's pending deliveries of `mode`), oldest first.
pub(crate) async fn dispatch_attention(
    state: &ConsoleState,
    signed: &Signed,
    workspace: &str,
    fleet: bool,
    mode: &str,
) -> Result<(Option<usize>, Vec<Waiting>), tonic::Status> {
    let before = chrono::Utc::now() - WAITING_TOO_LONG;
    let waited_too_long =
        |at: Option<&prost_types::Timestamp>| at.and_then(courier::time::from_proto).is_some_and(|at| at < before);
    if fleet {
        let drivers = Drivers::of(state, signed, workspace).await?;
        let request = signed.request(
            ipb::ListBoardOrdersRequest {
                workspace_id: workspace.to_owned(),
                status: pb::DeliveryStatus::Pending as i32,
                page_size: 20,
                ..Default::default()
            },
            None,
        );
        let orders = state
            .dispatch
            .clone()
            .list_board_orders(request)
            .await?
            .into_inner()
            .orders;
        let waiting = orders
            .iter()
            .filter(|o| waited_too_long(o.created_at.as_ref()))
            .map(|o| Waiting {
                link: format!("{}/w/{workspace}/board/{}", state.root, o.order_id),
                id: o.reference.clone().unwrap_or_else(|| o.order_id.clone()),
                since: signed.zone(Some(workspace)).at(o.created_at.as_ref()),
            })
            .collect();
        return Ok((Some(drivers.online), waiting));
    }
    let request = signed.acting(
        pb::ListDeliveriesRequest {
            page_size: Some(20),
            status: pb::DeliveryStatus::Pending as i32,
            created_before: Some(courier::time::to_proto(before)),
            ..Default::default()
        },
        workspace,
        mode,
        None,
    );
    let deliveries = state
        .deliveries
        .clone()
        .list_deliveries(request)
        .await?
        .into_inner()
        .deliveries;
    let mut waiting: Vec<Waiting> = deliveries
        .iter()
        .map(|d| Waiting {
            link: format!("{}/w/{workspace}/deliveries/{}?mode={mode}", state.root, d.id),
            id: d.id.clone(),
            since: signed.zone(Some(workspace)).at(d.created_at.as_ref()),
        })
        .collect();
    waiting.reverse();
    Ok((None, waiting))
}

/// A courier as the list shows it.
pub(crate) struct CourierRow {
    id: String,
    name: String,
    /// `online`, `offline` or `suspended`.
    availability: &'static str,
    joined: bool,
    /// The job in hand: its route and status, and its id.
    job: Option<(String, String)>,
    last_seen: String,
    vehicle: String,
}

impl CourierRow {
    fn of(summary: &ipb::CourierSummary, now: chrono::DateTime<chrono::Utc>) -> CourierRow {
        let courier = summary.courier.clone().unwrap_or_default();
        CourierRow {
            availability: crate::labels::availability(&courier),
            joined: courier.joined,
            job: summary.current_job.as_ref().map(|job| {
                let route = crate::labels::job_route(Some(job));
                (format!("{route} · {}", job_status(job)), job.id.clone())
            }),
            last_seen: courier
                .last_position
                .as_ref()
                .map_or_else(|| "never".to_owned(), |p| age(p.recorded_at.as_ref(), now)),
            vehicle: vehicle_text(courier.vehicle.as_ref()),
            id: courier.id,
            name: courier.name,
        }
    }
}

fn job_status(job: &apb::Job) -> &'static str {
    crate::labels::delivery_status_named(job.status().public_name().unwrap_or(""))
}

/// How long ago `at` was, to the second under a minute, else to the minute.
fn age(at: Option<&prost_types::Timestamp>, now: chrono::DateTime<chrono::Utc>) -> String {
    let Some(at) = at.and_then(courier::time::from_proto) else {
        return "never".into();
    };
    format!("{} ago", crate::labels::duration_short((now - at).num_seconds().max(0)))
}

fn vehicle_text(vehicle: Option<&apb::Vehicle>) -> String {
    let Some(vehicle) = vehicle else {
        return String::new();
    };
    let details: Vec<&str> = [&vehicle.make, &vehicle.model, &vehicle.color, &vehicle.license_plate]
        .into_iter()
        .filter_map(|part| part.as_deref())
        .collect();
    let kind = crate::labels::vehicle(&vehicle.vehicle_type_id);
    if details.is_empty() {
        kind
    } else {
        format!("{kind} · {}", details.join(", "))
    }
}

/// What a courier form holds: what was typed, or the courier as they are.
#[derive(Default)]
pub(crate) struct Draft {
    name: String,
    phone: String,
    email: String,
    vehicle_type_id: String,
    make: String,
    model: String,
    color: String,
    license_plate: String,
}

impl Draft {
    fn of_form(form: &[(String, String)]) -> Draft {
        let text = |name: &str| field(form, name).to_owned();
        Draft {
            name: text("name"),
            phone: text("phone"),
            email: text("email"),
            vehicle_type_id: text("vehicle.vehicle_type_id"),
            make: text("vehicle.make"),
            model: text("vehicle.model"),
            color: text("vehicle.color"),
            license_plate: text("vehicle.license_plate"),
        }
    }

    fn of_courier(courier: &apb::Courier) -> Draft {
        let vehicle = courier.vehicle.clone().unwrap_or_default();
        Draft {
            name: courier.name.clone(),
            phone: courier.phone.clone().unwrap_or_default(),
            email: courier.email.clone().unwrap_or_default(),
            vehicle_type_id: vehicle.vehicle_type_id,
            make: vehicle.make.unwrap_or_default(),
            model: vehicle.model.unwrap_or_default(),
            color: vehicle.color.unwrap_or_default(),
            license_plate: vehicle.license_plate.unwrap_or_default(),
        }
    }

    fn vehicle(&self) -> ipb::CourierVehicleInput {
        // An empty detail is no detail: the core keeps it unset.
        let optional = |value: &str| Some(value.trim().to_owned()).filter(|v| !v.is_empty());
        ipb::CourierVehicleInput {
            vehicle_type_id: self.vehicle_type_id.trim().to_owned(),
            make: optional(&self.make),
            model: optional(&self.model),
            color: optional(&self.color),
            license_plate: optional(&self.license_plate),
        }
    }
}

/// The courier form's fields and their refusal, shared by the invitation
/// and the edit form (`courier_form.html`).
pub(crate) struct CourierForm {
    draft: Draft,
    refusal: Option<Refusal>,
    /// The catalogue's vehicle types, when the page could read them.
    vehicle_types: Vec<String>,
}

impl CourierForm {
    fn field_error(&self, field: &str) -> Option<&str> {
        self.refusal.as_ref().and_then(|r| r.at(field))
    }

    /// The vehicle's optional details: `(field, element id, label, value)`.
    fn vehicle_details(&self) -> [(&'static str, &'static str, &'static str, &str); 4] {
        let draft = &self.draft;
        [
            ("vehicle.make", "vehicle-make", "Make", &draft.make),
            ("vehicle.model", "vehicle-model", "Model", &draft.model),
            ("vehicle.color", "vehicle-color", "Colour", &draft.color),
            (
                "vehicle.license_plate",
                "vehicle-plate",
                "Licence plate",
                &draft.license_plate,
            ),
        ]
    }

    /// A refusal naming none of the form's fields, for the page's banner.
    fn banner(&self) -> Option<String> {
        self.refusal
            .as_ref()
            .filter(|r| FORM_FIELDS.iter().all(|f| r.at(f).is_none()))
            .map(|r| r.message.clone())
    }
}

/// The vehicle types offered in the forms: the catalogue's, read as the
/// workspace sees it; the platform's forms take the id as typed.
pub(crate) async fn vehicle_types(state: &ConsoleState, signed: &Signed, fleet: &Fleet) -> Vec<String> {
    let Some(workspace) = &fleet.workspace else {
        return Vec::new();
    };
    let request = signed.acting(pb::ListVehicleTypesRequest {}, workspace, "live", None);
    match state.vehicle_types.clone().list_vehicle_types(request).await {
        Ok(answer) => answer.into_inner().vehicle_types.into_iter().map(|v| v.id).collect(),
        Err(_) => Vec::new(),
    }
}

fn refusal_status(refusal: Option<&Refusal>) -> StatusCode {
    if refusal.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    }
}

/// Whether a refusal of the core belongs at the form (the rest is a page).
fn at_the_form(status: &tonic::Status) -> bool {
    matches!(
        status.code(),
        tonic::Code::InvalidArgument | tonic::Code::AlreadyExists | tonic::Code::FailedPrecondition
    )
}

#[derive(Template)]
#[template(path = "couriers.html")]
pub(crate) struct CouriersPage {
    layout: Layout,
    base: String,
    platform: bool,
    couriers: Vec<CourierRow>,
    next: Option<String>,
    manages: bool,
    form: CourierForm,
    /// The link of the courier just invited, shown this once.
    invited: Option<String>,
}

#[derive(serde::Deserialize)]
pub(crate) struct PageQuery {
    page: Option<String>,
}

async fn list_view(
    state: &ConsoleState,
    signed: &Signed,
    fleet: &Fleet,
    page_token: &str,
    form: CourierForm,
) -> Response {
    let invited = signed
        .flash
        .as_ref()
        .and_then(|flash| flash.secret_of(INVITATION))
        .map(str::to_owned);
    let request = signed.request(
        ipb::ListCouriersRequest {
            workspace_id: fleet.workspace_id().to_owned(),
            page_size: 50,
            page_token: page_token.to_owned(),
        },
        Some(&signed.session.csrf_token),
    );
    let answer = match state.couriers.clone().list_couriers(request).await {
        Ok(answer) => answer.into_inner(),
        Err(status) => return failure(state, &status),
    };
    let (mut layout, manages) = fleet.layout(state, signed, "Couriers");
    layout.error = form.banner();
    let now = chrono::Utc::now();
    let status = refusal_status(form.refusal.as_ref());
    render(
        CouriersPage {
            layout,
            base: fleet.base(state),
            platform: fleet.workspace.is_none(),
            couriers: answer.couriers.iter().map(|c| CourierRow::of(c, now)).collect(),
            next: crate::page::next_page(&answer.next_page_token),
            manages,
            form,
            invited,
        },
        status,
    )
}

async fn list(state: ConsoleState, signed: Signed, fleet: Fleet, query: PageQuery) -> Response {
    let form = CourierForm {
        draft: Draft::default(),
        refusal: None,
        vehicle_types: vehicle_types(&state, &signed, &fleet).await,
    };
    list_view(&state, &signed, &fleet, query.page.as_deref().unwrap_or(""), form).await
}

async fn invite(state: ConsoleState, signed: Signed, fleet: Fleet, body: Bytes) -> Response {
    let form = fields(&body);
    let draft = Draft::of_form(&form);
    let optional = |value: &str| Some(value.trim().to_owned()).filter(|v| !v.is_empty());
    let message = ipb::InviteCourierRequest {
        workspace_id: fleet.workspace_id().to_owned(),
        name: draft.name.clone(),
        phone: optional(&draft.phone),
        email: optional(&draft.email),
        vehicle: Some(draft.vehicle()),
    };
    let request = signed.request(message, Some(field(&form, "csrf")));
    // Post/redirect/get: the link is shown once on the list, and a reload
    // neither shows it again nor invites twice.
    let refusal = match state.couriers.clone().invite_courier(request).await {
        Ok(answer) => {
            let answer = answer.into_inner();
            let name = answer.courier.map(|c| c.name).unwrap_or_default();
            let flash = Flash::secret(INVITATION, format!("{name} is invited."), answer.invitation_url);
            return signed.redirect_with(flash, &fleet.base(&state));
        }
        Err(status) if at_the_form(&status) => Refusal::of(&status),
        Err(status) => return failure(&state, &status),
    };
    let form = CourierForm {
        draft,
        refusal: Some(refusal),
        vehicle_types: vehicle_types(&state, &signed, &fleet).await,
    };
    list_view(&state, &signed, &fleet, "", form).await
}

/// A job as the courier's page lists it.
pub(crate) struct JobRow {
    id: String,
    status: &'static str,
    pickup: String,
    dropoff: String,
    assigned_at: Moment,
    ended: Option<(Moment, String)>,
}

impl JobRow {
    fn of(job: &apb::Job, zone: Zone) -> JobRow {
        let address = |w: Option<&pb::Waypoint>| w.map(|w| w.address.clone()).unwrap_or_default();
        JobRow {
            id: job.id.clone(),
            status: job_status(job),
            pickup: address(job.pickup.as_ref()),
            dropoff: address(job.dropoff.as_ref()),
            assigned_at: zone.at(job.assigned_at.as_ref()),
            ended: job.ended_at.as_ref().map(|at| {
                let outcome = crate::labels::job_outcome(job.outcome.as_deref().unwrap_or_default());
                (zone.at(Some(at)), outcome)
            }),
        }
    }
}

/// The trail of the job in hand, with its pickup and dropoff, on a flat
/// projection (`courier::route_drawing`).
pub(crate) struct Trail {
    polyline: String,
    /// Pickup and dropoff, `(x, y, label)`.
    stops: Vec<(String, String, &'static str)>,
    /// The last position.
    courier: Option<(String, String)>,
    points: usize,
}

/// `last_position`: where the courier is when no position of the job's
/// trail is written yet.
fn trail_of(job: &apb::Job, trail: &[apb::Position], last_position: Option<&apb::Position>) -> Trail {
    let mut route: Vec<(f64, f64)> = trail.iter().map(|p| (p.latitude, p.longitude)).collect();
    let last = route.pop().or_else(|| last_position.map(|p| (p.latitude, p.longitude)));
    let stops: Vec<(f64, f64)> = [job.pickup.as_ref(), job.dropoff.as_ref()]
        .into_iter()
        .flatten()
        .map(|w| (w.latitude, w.longitude))
        .collect();
    let trail_len = route.len();
    route.extend(&stops);
    let projected = courier::route_drawing::project(&route, last, 480.0, 300.0, 30.0);
    let format = |(x, y): (f64, f64)| (format!("{x:.1}"), format!("{y:.1}"));
    let mut walked = projected.route.clone();
    let stop_points = walked.split_off(trail_len);
    walked.extend(projected.courier);
    let walked = courier::route_drawing::Projected {
        route: walked,
        courier: None,
    };
    Trail {
        polyline: walked.polyline(),
        stops: stop_points
            .into_iter()
            .zip(["A", "B"])
            .map(|(point, label)| {
                let (x, y) = format(point);
                (x, y, label)
            })
            .collect(),
        courier: projected.courier.map(format),
        points: trail.len(),
    }
}

#[derive(Template)]
#[template(path = "courier.html")]
pub(crate) struct CourierPage {
    layout: Layout,
    base: String,
    /// A platform courier (else a fleet's driver).
    platform: bool,
    courier_id: String,
    name: String,
    /// Phone and email, as links: a dispatcher reaches them in one tap.
    phone: Option<String>,
    email: Option<String>,
    availability: &'static str,
    suspended: bool,
    joined: bool,
    last_seen: String,
    vehicle: String,
    current: Option<JobRow>,
    trail: Option<Trail>,
    recent: Vec<JobRow>,
    manages: bool,
    form: CourierForm,
    /// A new invitation link, shown this once.
    invitation: Option<String>,
    /// This week's earnings.
    earnings: Option<crate::courier_pay::EarningsView>,
    /// Their weekly statements, newest first.
    statements: Vec<crate::courier_pay::StatementRow>,
}

async fn courier_view(
    state: &ConsoleState,
    signed: &Signed,
    fleet: &Fleet,
    courier_id: &str,
    refusal: Option<(Refusal, Draft)>,
) -> Response {
    let invitation = signed
        .flash
        .as_ref()
        .and_then(|flash| flash.secret_of(INVITATION))
        .map(str::to_owned);
    let request = signed.request(
        ipb::GetCourierRequest {
            courier_id: courier_id.to_owned(),
        },
        Some(&signed.session.csrf_token),
    );
    let answer = match state.couriers.clone().get_courier(request).await {
        Ok(answer) => answer.into_inner(),
        Err(status) => return failure(state, &status),
    };
    let summary = answer.courier.unwrap_or_default();
    let courier = summary.courier.clone().unwrap_or_default();
    // A courier of another fleet is not this page's (the core answered
    // because the caller may also see that fleet).
    if courier.workspace_id != fleet.workspace_id() {
        return failure(state, &tonic::Status::not_found("No courier has this id here."));
    }
    let (mut layout, manages) = fleet.layout(state, signed, &courier.name);
    let (draft, refusal) = match refusal {
        Some((refusal, draft)) => (draft, Some(refusal)),
        None => (Draft::of_courier(&courier), None),
    };
    let form = CourierForm {
        draft,
        refusal,
        vehicle_types: vehicle_types(state, signed, fleet).await,
    };
    layout.error = form.banner();
    let status = refusal_status(form.refusal.as_ref());
    let now = chrono::Utc::now();
    let zone = signed.zone(fleet.workspace.as_deref());
    render(
        CourierPage {
            layout,
            base: fleet.base(state),
            platform: fleet.workspace.is_none(),
            courier_id: courier.id.clone(),
            name: courier.name.clone(),
            phone: courier.phone.clone().filter(|phone| !phone.is_empty()),
            email: courier.email.clone().filter(|email| !email.is_empty()),
            availability: crate::labels::availability(&courier),
            suspended: courier.status() == apb::CourierStatus::Suspended,
            joined: courier.joined,
            last_seen: courier
                .last_position
                .as_ref()
                .map_or_else(|| "never".to_owned(), |p| age(p.recorded_at.as_ref(), now)),
            vehicle: vehicle_text(courier.vehicle.as_ref()),
            current: summary.current_job.as_ref().map(|job| JobRow::of(job, zone)),
            trail: summary
                .current_job
                .as_ref()
                .map(|job| trail_of(job, &answer.trail, courier.last_position.as_ref())),
            recent: answer.recent_jobs.iter().map(|job| JobRow::of(job, zone)).collect(),
            manages,
            form,
            invitation,
            earnings: crate::courier_pay::this_week(state, signed, &courier.id, zone).await,
            statements: crate::courier_pay::statements(state, signed, &courier.id).await,
        },
        status,
    )
}

async fn update(state: ConsoleState, signed: Signed, fleet: Fleet, courier_id: String, body: Bytes) -> Response {
    let form = fields(&body);
    let draft = Draft::of_form(&form);
    let message = ipb::UpdateCourierRequest {
        courier_id: courier_id.clone(),
        name: Some(draft.name.clone()),
        phone: Some(draft.phone.trim().to_owned()),
        email: Some(draft.email.trim().to_owned()),
        vehicle: Some(draft.vehicle()),
        photo: None,
        photo_content_type: None,
    };
    let request = signed.request(message, Some(field(&form, "csrf")));
    match state.couriers.clone().update_courier(request).await {
        Ok(_) => Redirect::to(&format!("{}/{courier_id}", fleet.base(&state))).into_response(),
        Err(status) if at_the_form(&status) => {
            courier_view(
                &state,
                &signed,
                &fleet,
                &courier_id,
                Some((Refusal::of(&status), draft)),
            )
            .await
        }
        Err(status) => failure(&state, &status),
    }
}

/// Suspends (`suspend`) or reactivates (`activate`) the courier.
async fn set_status(state: ConsoleState, signed: Signed, fleet: Fleet, courier_id: String, body: Bytes) -> Response {
    let form = fields(&body);
    let csrf = Some(field(&form, "csrf"));
    if field(&form, "status") == "suspended"
        && let Some(refusal) = crate::page::unconfirmed(&form, "suspend the courier")
    {
        let status = courier::errors::to_status(courier::errors::ErrorCode::InvalidRequest, &refusal.message, None);
        return failure(&state, &status);
    }
    let mut couriers = state.couriers.clone();
    let answer = match field(&form, "status") {
        "suspended" => couriers
            .suspend_courier(signed.request(
                ipb::SuspendCourierRequest {
                    courier_id: courier_id.clone(),
                },
                csrf,
            ))
            .await
            .map(|_| ()),
        _ => couriers
            .activate_courier(signed.request(
                ipb::ActivateCourierRequest {
                    courier_id: courier_id.clone(),
                },
                csrf,
            ))
            .await
            .map(|_| ()),
    };
    match answer {
        Ok(()) => Redirect::to(&format!("{}/{courier_id}", fleet.base(&state))).into_response(),
        Err(status) => failure(&state, &status),
    }
}

async fn new_invitation(
    state: ConsoleState,
    signed: Signed,
    fleet: Fleet,
    courier_id: String,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let message = ipb::CreateCourierInvitationRequest {
        courier_id: courier_id.clone(),
    };
    let request = signed.request(message, Some(field(&form, "csrf")));
    match state.couriers.clone().create_courier_invitation(request).await {
        Ok(answer) => {
            let link = answer.into_inner().invitation_url;
            let flash = Flash::secret(INVITATION, "A new invitation link.", link);
            signed.redirect_with(flash, &format!("{}/{courier_id}", fleet.base(&state)))
        }
        Err(status) => failure(&state, &status),
    }
}

/// The routes of one fleet's pages and of the platform's, over the handlers
/// above.
pub(crate) mod routes {
    use axum::body::Bytes;
    use axum::extract::{Path, Query, State};
    use axum::response::Response;

    use super::{Fleet, PageQuery};
    use crate::ConsoleState;
    use crate::page::Signed;

    fn fleet(workspace: String) -> Fleet {
        Fleet {
            workspace: Some(workspace),
        }
    }

    const PLATFORM: Fleet = Fleet { workspace: None };

    pub(crate) async fn drivers(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path(workspace): Path<String>,
        Query(query): Query<PageQuery>,
    ) -> Response {
        super::list(state, signed, fleet(workspace), query).await
    }

    pub(crate) async fn invite_driver(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path(workspace): Path<String>,
        body: Bytes,
    ) -> Response {
        super::invite(state, signed, fleet(workspace), body).await
    }

    pub(crate) async fn driver(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path((workspace, courier)): Path<(String, String)>,
    ) -> Response {
        super::courier_view(&state, &signed, &fleet(workspace), &courier, None).await
    }

    pub(crate) async fn update_driver(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path((workspace, courier)): Path<(String, String)>,
        body: Bytes,
    ) -> Response {
        super::update(state, signed, fleet(workspace), courier, body).await
    }

    pub(crate) async fn driver_status(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path((workspace, courier)): Path<(String, String)>,
        body: Bytes,
    ) -> Response {
        super::set_status(state, signed, fleet(workspace), courier, body).await
    }

    pub(crate) async fn driver_invitation(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path((workspace, courier)): Path<(String, String)>,
        body: Bytes,
    ) -> Response {
        super::new_invitation(state, signed, fleet(workspace), courier, body).await
    }

    pub(crate) async fn fleet_settings(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path(workspace): Path<String>,
        body: Bytes,
    ) -> Response {
        super::update_fleet_settings(state, signed, workspace, body).await
    }

    pub(crate) async fn driver_pay_rules(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path(workspace): Path<String>,
    ) -> Response {
        crate::courier_pay::rules_page(state, signed, fleet(workspace)).await
    }

    pub(crate) async fn set_driver_pay_rule(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path(workspace): Path<String>,
        body: Bytes,
    ) -> Response {
        crate::courier_pay::set_rule(state, signed, fleet(workspace), body).await
    }

    pub(crate) async fn adjust_driver(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path((workspace, courier)): Path<(String, String)>,
        body: Bytes,
    ) -> Response {
        crate::courier_pay::adjust(state, signed, fleet(workspace), courier, body).await
    }

    pub(crate) async fn driver_statement(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path((workspace, courier, statement, format)): Path<(String, String, String, String)>,
    ) -> Response {
        crate::courier_pay::document(state, signed, fleet(workspace), courier, statement, format).await
    }

    pub(crate) async fn platform_statement(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path((courier, statement, format)): Path<(String, String, String)>,
    ) -> Response {
        crate::courier_pay::document(state, signed, PLATFORM, courier, statement, format).await
    }

    pub(crate) async fn platform_pay_rules(State(state): State<ConsoleState>, signed: Signed) -> Response {
        crate::courier_pay::rules_page(state, signed, PLATFORM).await
    }

    pub(crate) async fn set_platform_pay_rule(
        State(state): State<ConsoleState>,
        signed: Signed,
        body: Bytes,
    ) -> Response {
        crate::courier_pay::set_rule(state, signed, PLATFORM, body).await
    }

    pub(crate) async fn adjust_platform(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path(courier): Path<String>,
        body: Bytes,
    ) -> Response {
        crate::courier_pay::adjust(state, signed, PLATFORM, courier, body).await
    }

    pub(crate) async fn platform(
        State(state): State<ConsoleState>,
        signed: Signed,
        Query(query): Query<PageQuery>,
    ) -> Response {
        super::list(state, signed, PLATFORM, query).await
    }

    pub(crate) async fn invite_platform(State(state): State<ConsoleState>, signed: Signed, body: Bytes) -> Response {
        super::invite(state, signed, PLATFORM, body).await
    }

    pub(crate) async fn platform_courier(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path(courier): Path<String>,
    ) -> Response {
        super::courier_view(&state, &signed, &PLATFORM, &courier, None).await
    }

    pub(crate) async fn update_platform(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path(courier): Path<String>,
        body: Bytes,
    ) -> Response {
        super::update(state, signed, PLATFORM, courier, body).await
    }

    pub(crate) async fn platform_status(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path(courier): Path<String>,
        body: Bytes,
    ) -> Response {
        super::set_status(state, signed, PLATFORM, courier, body).await
    }

    pub(crate) async fn platform_invitation(
        State(state): State<ConsoleState>,
        signed: Signed,
        Path(courier): Path<String>,
        body: Bytes,
    ) -> Response {
        super::new_invitation(state, signed, PLATFORM, courier, body).await
    }
}
