//! A fleet's dispatch board: the orders its customers push through
//! `POST /v1/fleet/orders`, in columns by status, newest first, each moved
//! by a click through the moves the core offers (`legal_moves`). It follows
//! new orders and moves while open. The internal `DispatchService` with the
//! session in place of a service token: members read, owners and admins
//! move (the core decides).

use std::convert::Infallible;
use std::time::Duration;

use askama::Template;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use courier::internal::v1 as ipb;
use courier::names::PublicName;
use courier::v1 as pb;

use crate::ConsoleState;
use crate::couriers::Drivers;
use crate::flash::Flash;
use crate::labels;
use crate::page::{Layout, ModeQuery, Signed, field, fields, render, unconfirmed};
use crate::times::{Moment, Zone};

/// Orders shown per column.
const COLUMN_SIZE: i32 = 20;
/// How often an open board asks for changes.
const BOARD_POLL: Duration = Duration::from_secs(2);

#[derive(PartialEq)]
pub(crate) struct Card {
    order_id: String,
    title: String,
    customer: String,
    pickup: String,
    dropoff: String,
    created_at: Moment,
    /// The pickup the customer asked for ("2026-11-27 14:00 Europe/Berlin").
    requested_pickup: String,
    vehicle: String,
    notes: String,
    /// `(status, button label)` for every move the core allows now.
    moves: Vec<(&'static str, String)>,
    /// The driver who holds the order, by name.
    driver: Option<String>,
    /// The order may be given to a driver (pending, or assigned and not yet
    /// picked up: the core has the last word).
    assignable: bool,
}

#[derive(PartialEq)]
pub(crate) struct Column {
    status: &'static str,
    cards: Vec<Card>,
    /// More orders than shown.
    more: bool,
}

/// The board's columns; rendered whole on every change.
#[derive(Template, PartialEq)]
#[template(path = "board_columns.html")]
pub(crate) struct Columns {
    columns: Vec<Column>,
    root: String,
    workspace_id: String,
    csrf: String,
    manages: bool,
    /// The mode of the user's links, kept.
    mode: &'static str,
    /// The fleet's active drivers `(id, name)`, offered by the assign form.
    drivers: Vec<(String, String)>,
}

fn card(order: &ipb::BoardOrder, drivers: &Drivers, zone: Zone) -> Card {
    let address = |w: &Option<pb::Waypoint>| w.as_ref().map(|w| w.address.clone()).unwrap_or_default();
    Card {
        order_id: order.order_id.clone(),
        title: order.reference.clone().unwrap_or_else(|| order.order_id.clone()),
        customer: order.customer.as_ref().map(|c| c.name.clone()).unwrap_or_default(),
        pickup: address(&order.pickup),
        dropoff: address(&order.dropoff),
        created_at: zone.at(order.created_at.as_ref()),
        requested_pickup: requested_pickup(order),
        vehicle: labels::vehicle(&order.vehicle_type_id),
        notes: order.notes.clone().unwrap_or_default(),
        moves: order
            .legal_moves()
            .filter_map(|status| {
                let name = status.public_name()?;
                let label = if status == pb::DeliveryStatus::Cancelled {
                    "Cancel".to_owned()
                } else {
                    format!("→ {}", labels::delivery_status(status))
                };
                Some((name, label))
            })
            .collect(),
        driver: drivers.holding(&order.order_id),
        assignable: matches!(
            order.status(),
            pb::DeliveryStatus::Pending | pb::DeliveryStatus::CourierAssigned
        ),
    }
}

/// The pickup the customer asked for, as they wrote it, with their time zone.
fn requested_pickup(order: &ipb::BoardOrder) -> String {
    [
        order.requested_pickup_date.as_deref(),
        order.requested_pickup_time.as_deref(),
        order.customer_timezone.as_deref(),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" ")
}

async fn columns(
    state: &ConsoleState,
    signed: &Signed,
    (workspace, mode): (&str, &'static str),
    manages: bool,
) -> Result<Columns, tonic::Status> {
    let drivers = Drivers::of(state, signed, workspace).await?;
    let mut columns = Vec::new();
    for (status, name) in pb::DeliveryStatus::NAMES {
        let request = signed.request(
            ipb::ListBoardOrdersRequest {
                workspace_id: workspace.to_owned(),
                status: *status as i32,
                page_size: COLUMN_SIZE,
                newest_first: true,
                ..Default::default()
            },
            None,
        );
        let answer = state.dispatch.clone().list_board_orders(request).await?.into_inner();
        columns.push(Column {
            status: name,
            cards: answer
                .orders
                .iter()
                .map(|order| card(order, &drivers, signed.zone(Some(workspace))))
                .collect(),
            more: !answer.next_page_token.is_empty(),
        });
    }
    Ok(Columns {
        columns,
        root: state.root.clone(),
        workspace_id: workspace.to_owned(),
        csrf: signed.session.csrf_token.clone(),
        manages,
        mode,
        drivers: drivers.active,
    })
}

#[derive(Template)]
#[template(path = "board.html")]
pub(crate) struct BoardPage {
    layout: Layout,
    workspace_id: String,
    columns: Columns,
    /// The fleet's "assign automatically" setting.
    auto_dispatch: bool,
}

async fn board_view(
    state: &ConsoleState,
    signed: &Signed,
    (workspace, mode): (&str, &'static str),
    error: Option<String>,
) -> Response {
    let mut layout = signed.layout(state, "Dispatch board", Some(workspace), mode);
    layout.section = "board";
    let manages = layout.workspace.as_ref().is_some_and(|w| w.manages);
    let columns = match columns(state, signed, (workspace, mode), manages).await {
        Ok(columns) => columns,
        Err(status) => return signed.failure(state, &status, workspace),
    };
    let auto_dispatch = match crate::couriers::auto_dispatch(state, signed, workspace).await {
        Ok(on) => on,
        Err(status) => return signed.failure(state, &status, workspace),
    };
    let status = if error.is_some() {
        StatusCode::CONFLICT
    } else {
        StatusCode::OK
    };
    layout.error = error;
    render(
        BoardPage {
            layout,
            workspace_id: workspace.to_owned(),
            columns,
            auto_dispatch,
        },
        status,
    )
}

pub(crate) async fn page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ModeQuery>,
) -> Response {
    board_view(&state, &signed, (&workspace, query.mode()), None).await
}

/// `…/board/live`: server-sent events, the board's columns rendered again
/// whenever what they show changed.
pub(crate) async fn live(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ModeQuery>,
) -> Response {
    let manages = signed
        .layout(&state, "", Some(&workspace), "live")
        .workspace
        .is_some_and(|w| w.manages);
    let updates = board_changes(state, signed, (workspace, query.mode()), manages);
    Sse::new(updates)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

/// The board's changes: read every [`BOARD_POLL`], sent when different.
fn board_changes(
    state: ConsoleState,
    signed: Signed,
    (workspace, mode): (String, &'static str),
    manages: bool,
) -> impl tokio_stream::Stream<Item = Result<Event, Infallible>> {
    let (sender, receiver) = tokio::sync::mpsc::channel(1);
    tokio::spawn(async move {
        let mut shown: Option<Columns> = None;
        let mut poll = tokio::time::interval(BOARD_POLL);
        loop {
            poll.tick().await;
            let (event, end) = match columns(&state, &signed, (&workspace, mode), manages).await {
                Ok(current) if shown.as_ref() == Some(&current) => continue,
                Ok(current) => {
                    let rendered = current.render();
                    shown = Some(current);
                    match rendered {
                        Ok(html) => (Event::default().event("update").data(html), false),
                        Err(error) => (Event::default().event("end").data(error.to_string()), true),
                    }
                }
                Err(status) => (Event::default().event("end").data(status.message()), true),
            };
            if sender.send(Ok(event)).await.is_err() || end {
                return;
            }
        }
    });
    tokio_stream::wrappers::ReceiverStream::new(receiver)
}

/// Moves an order, then shows the page it was moved from again: the board,
/// or the order's own page when its form says `back=order` (with the
/// core's refusal of an illegal or stale move on the board).
pub(crate) async fn move_order(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, order)): Path<(String, String)>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let mode = query.mode();
    let status =
        pb::DeliveryStatus::from_public_name(field(&form, "status")).unwrap_or(pb::DeliveryStatus::Unspecified);
    let back = if field(&form, "back") == "order" {
        format!("{}/w/{workspace}/board/{order}?mode={mode}", state.root)
    } else {
        format!("{}/w/{workspace}/board?mode={mode}", state.root)
    };
    if status == pb::DeliveryStatus::Cancelled
        && let Some(refusal) = unconfirmed(&form, "cancel the order")
    {
        return board_view(&state, &signed, (&workspace, mode), Some(refusal.message)).await;
    }
    let message = ipb::MoveBoardOrderRequest {
        order_id: order,
        status: status as i32,
    };
    match state
        .dispatch
        .clone()
        .move_board_order(signed.request(message, Some(field(&form, "csrf"))))
        .await
    {
        Ok(moved) => {
            let to = moved.into_inner().order.unwrap_or_default().status();
            signed.redirect_with(
                Flash::notice(format!("Order moved to “{}”.", labels::delivery_status(to))),
                &back,
            )
        }
        Err(status)
            if matches!(
                status.code(),
                tonic::Code::FailedPrecondition | tonic::Code::InvalidArgument | tonic::Code::Aborted
            ) =>
        {
            board_view(&state, &signed, (&workspace, mode), Some(status.message().to_owned())).await
        }
        Err(status) => signed.failure(&state, &status, &workspace),
    }
}

/// Gives an order to one of the fleet's drivers (`DispatchService.AssignJob`),
/// then shows the board again (with the core's refusal: a busy driver, a
/// vehicle that cannot carry it, an order past its pickup).
pub(crate) async fn assign_order(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, order)): Path<(String, String)>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let mode = query.mode();
    let message = ipb::AssignJobRequest {
        job_id: order,
        courier_id: field(&form, "courier_id").to_owned(),
    };
    match state
        .dispatch
        .clone()
        .assign_job(signed.request(message, Some(field(&form, "csrf"))))
        .await
    {
        Ok(_) => signed.redirect_with(
            Flash::notice("Order given to the driver."),
            &format!("{}/w/{workspace}/board?mode={mode}", state.root),
        ),
        Err(status)
            if matches!(
                status.code(),
                tonic::Code::FailedPrecondition | tonic::Code::InvalidArgument
            ) =>
        {
            board_view(&state, &signed, (&workspace, mode), Some(status.message().to_owned())).await
        }
        Err(status) => signed.failure(&state, &status, &workspace),
    }
}

#[derive(Template)]
#[template(path = "board_order.html")]
pub(crate) struct OrderPage {
    layout: Layout,
    workspace_id: String,
    card: Card,
    status: &'static str,
    customer_contact: String,
    stops: Vec<String>,
    items: Vec<String>,
    updated_at: Moment,
    /// Every move, oldest first.
    moves: Vec<MoveLine>,
    manages: bool,
}

pub(crate) struct MoveLine {
    from: &'static str,
    to: &'static str,
    actor: String,
    at: Moment,
}

/// `…/board/{order}`: an order with everything its customer sent, and
/// every move dispatchers made.
pub(crate) async fn order_page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, order)): Path<(String, String)>,
    Query(query): Query<ModeQuery>,
) -> Response {
    let request = signed.request(ipb::GetBoardOrderRequest { order_id: order }, None);
    let (order, moves) = match state.dispatch.clone().get_board_order(request).await {
        Ok(answer) => {
            let answer = answer.into_inner();
            (answer.order.unwrap_or_default(), answer.moves)
        }
        Err(status) => return signed.failure(&state, &status, &workspace),
    };
    if order.workspace_id != workspace {
        let status = courier::errors::to_status(
            courier::errors::ErrorCode::NotFound,
            "This board has no such order.",
            None,
        );
        return signed.failure(&state, &status, &workspace);
    }
    let mut layout = signed.layout(
        &state,
        &format!("Order {}", order.order_id),
        Some(&workspace),
        query.mode(),
    );
    layout.section = "board";
    let manages = layout.workspace.as_ref().is_some_and(|w| w.manages);
    let drivers = match Drivers::of(&state, &signed, &workspace).await {
        Ok(drivers) => drivers,
        Err(status) => return signed.failure(&state, &status, &workspace),
    };
    let customer = order.customer.clone().unwrap_or_default();
    let zone = signed.zone(Some(&workspace));
    render(
        OrderPage {
            layout,
            workspace_id: workspace,
            card: card(&order, &drivers, zone),
            status: order.status().public_name().unwrap_or("unknown"),
            customer_contact: [Some(customer.phone.as_str()), customer.email.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" · "),
            stops: order.stops.iter().map(|w| w.address.clone()).collect(),
            items: order
                .items
                .iter()
                .map(|i| {
                    format!(
                        "{} × {} ({} kg, {}×{}×{} cm)",
                        i.quantity, i.description, i.weight_kg, i.length_cm, i.width_cm, i.height_cm
                    )
                })
                .collect(),
            updated_at: zone.at(order.updated_at.as_ref()),
            moves: moves
                .iter()
                .map(|m| MoveLine {
                    from: m.from_status().public_name().unwrap_or("unknown"),
                    to: m.to_status().public_name().unwrap_or("unknown"),
                    actor: labels::actor(&m.actor),
                    at: zone.at(m.moved_at.as_ref()),
                })
                .collect(),
            manages,
        },
        StatusCode::OK,
    )
}
