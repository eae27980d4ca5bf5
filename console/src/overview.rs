//! A workspace's overview, its landing page: today's deliveries by status
//! and on-time rate, deliveries that need attention (at risk of missing
//! their promise or past it, cancelled by the service today, or at the
//! dropoff with no proof yet), webhook endpoints disabled for failing, and
//! the open amount against the credit limit. Every figure is read through
//! the same calls as the other pages (docs/console.md, "Overview").

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use courier::internal::v1 as ipb;
use courier::names::PublicName;
use courier::v1 as pb;

use crate::ConsoleState;
use crate::billing::used_percent;
use crate::deliveries::money;
use crate::page::{Layout, ModeQuery, Signed, render};
use crate::promises::Promise;
use crate::times::Moment;

/// Deliveries counted per status; more show as "100+".
const COUNT_LIMIT: i32 = 100;

pub(crate) struct StatusCount {
    status: &'static str,
    count: String,
}

pub(crate) struct Attention {
    id: String,
    note: String,
    /// Since when, and what follows it: "since {time} {words}".
    since: Option<(Moment, &'static str)>,
}

/// Today's delivered deliveries against their promise (docs/guide.md
/// "Windows"): how many kept it, of how many that had one.
pub(crate) struct OnTime {
    kept: usize,
    of: usize,
    /// More than the page read were delivered today: the rate is of the
    /// latest [`COUNT_LIMIT`].
    latest_only: bool,
}

impl OnTime {
    fn of(delivered: &[pb::Delivery], more: bool) -> Option<OnTime> {
        let judged: Vec<bool> = delivered.iter().filter_map(|d| d.on_time).collect();
        (!judged.is_empty()).then(|| OnTime {
            kept: judged.iter().filter(|kept| **kept).count(),
            of: judged.len(),
            latest_only: more,
        })
    }

    fn percent(&self) -> usize {
        (self.kept * 100 + self.of / 2) / self.of
    }
}

/// A fleet's board at a glance: it leads a fleet workspace's overview.
pub(crate) struct BoardSummary {
    /// Open orders per status, from waiting to at the dropoff.
    counts: Vec<StatusCount>,
    /// The order waiting longest for a courier: `(order id, title, placed)`.
    waiting: Option<(String, String, Moment)>,
}

async fn board_summary(state: &ConsoleState, signed: &Signed, workspace: &str) -> Result<BoardSummary, tonic::Status> {
    let list = |status: pb::DeliveryStatus, page_size: i32, newest_first: bool| {
        let request = signed.request(
            ipb::ListBoardOrdersRequest {
                workspace_id: workspace.to_owned(),
                status: status as i32,
                page_size,
                newest_first,
                ..Default::default()
            },
            None,
        );
        let mut dispatch = state.dispatch.clone();
        async move {
            dispatch
                .list_board_orders(request)
                .await
                .map(tonic::Response::into_inner)
        }
    };
    let mut counts = Vec::new();
    for (status, name) in pb::DeliveryStatus::NAMES {
        if matches!(status, pb::DeliveryStatus::Delivered | pb::DeliveryStatus::Cancelled) {
            continue;
        }
        let answer = list(*status, COUNT_LIMIT, true).await?;
        let more = if answer.next_page_token.is_empty() { "" } else { "+" };
        counts.push(StatusCount {
            status: name,
            count: format!("{}{more}", answer.orders.len()),
        });
    }
    let waiting = list(pb::DeliveryStatus::Pending, 1, false)
        .await?
        .orders
        .into_iter()
        .next()
        .map(|order| {
            let title = order.reference.clone().unwrap_or_else(|| order.order_id.clone());
            (
                order.order_id,
                title,
                signed.zone(Some(workspace)).at(order.created_at.as_ref()),
            )
        });
    Ok(BoardSummary { counts, waiting })
}

pub(crate) struct FailingEndpoint {
    id: String,
    url: String,
}

#[derive(Template)]
#[template(path = "overview.html")]
pub(crate) struct OverviewPage {
    layout: Layout,
    workspace_id: String,
    today: String,
    counts: Vec<StatusCount>,
    /// Today's on-time rate, once a delivery with a promise was delivered.
    on_time: Option<OnTime>,
    attention: Vec<Attention>,
    /// `None` for members, who do not see webhook endpoints.
    failing: Option<Vec<FailingEndpoint>>,
    /// A fleet's drivers online (`None` for a business workspace).
    drivers_online: Option<usize>,
    /// Jobs waiting for a courier for more than five minutes.
    waiting: Vec<crate::couriers::Waiting>,
    open_amount: String,
    credit_limit: String,
    used_percent: i64,
    overdue: bool,
    /// A fleet workspace's board, shown first (and no credit, which fleets
    /// do not use).
    board: Option<BoardSummary>,
}

impl OverviewPage {
    fn all_well(&self) -> bool {
        self.attention.is_empty() && self.waiting.is_empty() && self.failing.as_ref().is_none_or(Vec::is_empty)
    }
}

/// `delivery`, at the dropoff, as an attention item when its dropoff proof
/// is not in yet (no `delivery.pod_submitted` event): the courier is at the
/// door and the handover cannot complete. Read from the events, since the
/// proof itself is hidden from plans without proof of delivery.
async fn without_dropoff_proof(
    state: &ConsoleState,
    signed: &Signed,
    workspace: &str,
    mode: &str,
    delivery: &pb::Delivery,
) -> Result<Option<Attention>, tonic::Status> {
    let request = signed.acting(
        pb::ListEventsRequest {
            page_size: Some(1),
            delivery_id: Some(delivery.id.clone()),
            r#type: pb::EventType::DeliveryPodSubmitted as i32,
            ..Default::default()
        },
        workspace,
        mode,
        None,
    );
    let submitted = !state
        .events
        .clone()
        .list_events(request)
        .await?
        .into_inner()
        .events
        .is_empty();
    Ok((!submitted).then(|| Attention {
        id: delivery.id.clone(),
        note: "at the dropoff".into(),
        since: Some((
            signed.zone(Some(workspace)).at(delivery.updated_at.as_ref()),
            "with no proof of delivery yet",
        )),
    }))
}

/// The mode a workspace opens in when the link names none (signing in,
/// the workspace switcher, an invitation): live once it has a live
/// delivery, so that a workspace at work opens on its real deliveries; test
/// before, as a new workspace starts there.
async fn opening_mode(state: &ConsoleState, signed: &Signed, workspace: &str) -> Result<&'static str, tonic::Status> {
    let request = signed.acting(
        pb::ListDeliveriesRequest {
            page_size: Some(1),
            ..Default::default()
        },
        workspace,
        "live",
        None,
    );
    let answer = state.deliveries.clone().list_deliveries(request).await?.into_inner();
    Ok(if answer.deliveries.is_empty() { "test" } else { "live" })
}

pub(crate) async fn page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ModeQuery>,
) -> Response {
    let mode = match query.mode.as_deref() {
        Some(named) => crate::page::mode_named(Some(named)),
        None => match opening_mode(&state, &signed, &workspace).await {
            Ok(mode) => mode,
            Err(status) => return signed.failure(&state, &status, &workspace),
        },
    };
    // Today on the clock of the workspace's service area.
    let zone = signed.zone(Some(&workspace));
    let today = zone.today();
    let since = zone.day_start(today);
    let mut counts = Vec::new();
    let mut attention = Vec::new();
    let mut on_time = None;
    for (status, name) in pb::DeliveryStatus::NAMES {
        let request = signed.acting(
            pb::ListDeliveriesRequest {
                page_size: Some(COUNT_LIMIT),
                status: *status as i32,
                created_after: Some(since),
                ..Default::default()
            },
            &workspace,
            mode,
            None,
        );
        let answer = match state.deliveries.clone().list_deliveries(request).await {
            Ok(answer) => answer.into_inner(),
            Err(status) => return signed.failure(&state, &status, &workspace),
        };
        let more = if answer.next_page_token.is_empty() { "" } else { "+" };
        counts.push(StatusCount {
            status: name,
            count: format!("{}{more}", answer.deliveries.len()),
        });
        match *status {
            pb::DeliveryStatus::Delivered => on_time = OnTime::of(&answer.deliveries, !more.is_empty()),
            pb::DeliveryStatus::Cancelled => attention.extend(
                answer
                    .deliveries
                    .iter()
                    .filter(|d| d.cancellation_reason() != pb::CancellationReason::CancelledByYou)
                    .map(|d| Attention {
                        id: d.id.clone(),
                        note: format!(
                            "cancelled today: {}",
                            crate::labels::cancellation(d.cancellation_reason())
                        ),
                        since: None,
                    }),
            ),
            pb::DeliveryStatus::AtDropoff => {
                for delivery in &answer.deliveries {
                    match without_dropoff_proof(&state, &signed, &workspace, mode, delivery).await {
                        Ok(Some(item)) => attention.push(item),
                        Ok(None) => {}
                        Err(status) => return signed.failure(&state, &status, &workspace),
                    }
                }
            }
            _ => {}
        }
    }
    // Open deliveries at risk of breaking their promise, or past it,
    // whenever they were booked: the latest first.
    let at_risk = signed.acting(
        pb::ListDeliveriesRequest {
            page_size: Some(COUNT_LIMIT),
            promise: pb::PromiseState::AtRisk as i32,
            ..Default::default()
        },
        &workspace,
        mode,
        None,
    );
    match state.deliveries.clone().list_deliveries(at_risk).await {
        Ok(answer) => {
            let now = chrono::Utc::now().timestamp_micros();
            attention.extend(answer.into_inner().deliveries.iter().filter_map(|d| {
                let flag = Promise::of_delivery(d)?.flag(now)?;
                Some(Attention {
                    id: d.id.clone(),
                    note: format!(
                        "{}: {}",
                        crate::labels::delivery_status(d.status()).to_lowercase(),
                        flag.text.to_lowercase()
                    ),
                    since: None,
                })
            }));
        }
        Err(status) => return signed.failure(&state, &status, &workspace),
    }
    let mut layout = signed.layout(&state, "Overview", Some(&workspace), mode);
    layout.section = "overview";
    let manages = layout.workspace.as_ref().is_some_and(|w| w.manages);
    let failing = if manages {
        let request = signed.acting(pb::ListWebhookEndpointsRequest {}, &workspace, mode, None);
        match state.webhooks.clone().list_webhook_endpoints(request).await {
            Ok(answer) => Some(
                answer
                    .into_inner()
                    .endpoints
                    .into_iter()
                    .filter(|e| e.disabled_reason() == pb::WebhookDisabledReason::Failing)
                    .map(|e| FailingEndpoint { id: e.id, url: e.url })
                    .collect(),
            ),
            Err(status) => return signed.failure(&state, &status, &workspace),
        }
    } else {
        None
    };
    let fleet = layout.workspace.as_ref().is_some_and(|w| w.fleet);
    let (drivers_online, waiting) =
        match crate::couriers::dispatch_attention(&state, &signed, &workspace, fleet, mode).await {
            Ok(dispatch) => dispatch,
            Err(status) => return signed.failure(&state, &status, &workspace),
        };
    let request = signed.request(
        ipb::GetBillingStateRequest {
            workspace_id: workspace.clone(),
        },
        None,
    );
    let billing = match state.billing.clone().get_billing_state(request).await {
        Ok(answer) => answer.into_inner(),
        Err(status) => return signed.failure(&state, &status, &workspace),
    };
    let settings = billing.billing.unwrap_or_default();
    let board = if layout.workspace.as_ref().is_some_and(|w| w.fleet) {
        match board_summary(&state, &signed, &workspace).await {
            Ok(board) => Some(board),
            Err(status) => return signed.failure(&state, &status, &workspace),
        }
    } else {
        None
    };
    let limit = settings.credit_limit_cents;
    render(
        OverviewPage {
            layout,
            workspace_id: workspace,
            today: today.format("%Y-%m-%d").to_string(),
            counts,
            on_time,
            attention,
            failing,
            drivers_online,
            waiting,
            open_amount: money(billing.open_amount_cents, &billing.currency),
            credit_limit: money(limit, &billing.currency),
            used_percent: used_percent(billing.open_amount_cents, limit),
            overdue: settings.statement_overdue,
            board,
        },
        StatusCode::OK,
    )
}
