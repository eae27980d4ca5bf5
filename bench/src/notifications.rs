//! Recipient notifications (docs/notifications.md): a service of its own
//! whose SMS go to a Twilio stand-in on loopback (`courier-messaging`'s,
//! answering as Twilio's Messages API does).
//!
//! - **Drain**: a backlog of live `courier_assigned` SMS is queued while
//!   quiet hours hold them (every message due at the same instant, the
//!   quiet hours' end), then timed from the first SMS reaching the stand-in
//!   to the last; beside it, in the same run, a bare loop of the same POSTs
//!   (Twilio's form, basic auth) to the same stand-in at as many
//!   connections as the sender uses.
//! - **Create path**: `POST /v1/deliveries` at a steady 50 a second, each
//!   delivery given a courier at once (so its SMS goes out meanwhile), with
//!   the workspace's SMS on and then off, paired run by run.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use chrono::{Timelike, Utc};
use courier::internal::v1 as ipb;
use courier::internal::v1::dispatch_service_client::DispatchServiceClient;
use courier::internal::v1::notification_settings_service_client::NotificationSettingsServiceClient;
use courier::v1 as pb;
use courier_messaging::testing::TwilioStandIn;
use tonic::transport::Channel;

use crate::load::{self, Stats};
use crate::service::{Backend, BenchResult, Service};
use crate::webhooks::create_request;

const ACCOUNT_SID: &str = "AC00000000000000000000000000000b01";
const AUTH_TOKEN: &str = "bench-auth-token";
const FROM: &str = "+15005550006";
/// Live SMS in the drained backlog.
pub const BACKLOG: usize = 10_000;
/// The provider calls the sender has in flight at once (its `IN_FLIGHT`),
/// and so the connections it uses: the bare loop's too.
const SENDER_CONNECTIONS: usize = 64;
/// The steady rate of the create-path runs.
pub const CREATES_PER_SECOND: u32 = 50;

/// What the notifications runs measured.
pub struct NotificationStats {
    /// SMS per second from the outbox to the stand-in.
    pub drain_per_second: f64,
    /// POSTs per second of the bare loop to the same stand-in.
    pub bare_per_second: f64,
    /// Creates at 50/s with the workspace's SMS on, and off (medians).
    pub creates_on: Stats,
    pub creates_off: Stats,
    /// Mean create latency on ÷ off, the median of the paired runs.
    pub cost_ratio: f64,
}

pub async fn measure(
    bin_dir: &std::path::Path,
    backend: Backend,
    postgres_url: &str,
    client: &reqwest::Client,
    duration: Duration,
    repeat: usize,
) -> BenchResult<NotificationStats> {
    let twilio = TwilioStandIn::start(ACCOUNT_SID, AUTH_TOKEN).await;
    let base_url = twilio.base_url();
    let env = [
        ("COURIER_DISPATCH", "external"),
        ("COURIER_TWILIO_BASE_URL", base_url.as_str()),
        ("COURIER_TWILIO_ACCOUNT_SID", ACCOUNT_SID),
        ("COURIER_TWILIO_AUTH_TOKEN", AUTH_TOKEN),
        ("COURIER_TWILIO_FROM", FROM),
    ];
    let service = Service::start_with(bin_dir, backend, postgres_url, "notifications", &env).await?;
    let outcome = run(bin_dir, &service, &twilio, client, duration, repeat).await;
    service.stop().await;
    outcome
}

async fn run(
    bin_dir: &std::path::Path,
    service: &Service,
    twilio: &TwilioStandIn,
    client: &reqwest::Client,
    duration: Duration,
    repeat: usize,
) -> BenchResult<NotificationStats> {
    let token = |role: &'static str| async move {
        BenchResult::Ok(
            service
                .admin(
                    bin_dir,
                    &["token", "--role", role, "--subject", "bench", "--ttl", "86400"],
                )
                .await?
                .trim()
                .to_owned(),
        )
    };
    let (admin_token, dispatch_token) = (token("admin").await?, token("dispatch").await?);
    let channel = tonic::transport::Endpoint::from_shared(service.grpc_url.clone())?
        .connect()
        .await?;
    let settings = Settings {
        client: NotificationSettingsServiceClient::new(channel.clone()),
        token: admin_token,
        workspace_id: service.workspace_id.clone(),
    };
    let dispatch = Dispatch {
        client: DispatchServiceClient::new(channel),
        token: dispatch_token,
    };

    // The backlog: held by quiet hours that end at a minute's turn at
    // least 30 s away (the time to book it), on Berlin's clock.
    let berlin = Utc::now().with_timezone(&chrono_tz::Europe::Berlin);
    let end = (berlin + chrono::Duration::seconds(90))
        .with_second(0)
        .ok_or("a minute")?;
    let start = berlin - chrono::Duration::hours(1);
    settings
        .save(
            true,
            Some((start.format("%H:%M").to_string(), end.format("%H:%M").to_string())),
        )
        .await?;
    let ids = book(client, service, BACKLOG).await?;
    assign_all(&dispatch, &ids).await?;
    let before = twilio.message_count();
    let (first, last) = arrivals(twilio, before, BACKLOG).await?;
    let drain_per_second = (BACKLOG - 1) as f64 / last.duration_since(first).as_secs_f64();

    let bare_per_second = bare_loop(client, twilio, duration).await.requests_per_second;

    // The create path with SMS on and off, paired run by run.
    let (mut on, mut off, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..repeat {
        settings.save(true, None).await?;
        let with = paced_creates(client, service, &dispatch, duration).await?;
        settings.save(false, None).await?;
        let without = paced_creates(client, service, &dispatch, duration).await?;
        ratios.push(with.mean_ms / without.mean_ms);
        on.push(with.stats);
        off.push(without.stats);
    }
    ratios.sort_by(f64::total_cmp);
    Ok(NotificationStats {
        drain_per_second,
        bare_per_second,
        creates_on: load::median(&on),
        creates_off: load::median(&off),
        cost_ratio: ratios.get(ratios.len() / 2).copied().unwrap_or_default(),
    })
}

/// The workspace's notification settings over gRPC, as the console saves
/// them.
struct Settings {
    client: NotificationSettingsServiceClient<Channel>,
    token: String,
    workspace_id: String,
}

impl Settings {
    /// SMS to the recipient when a courier is assigned (or none), with
    /// `quiet` hours.
    async fn save(&self, sms: bool, quiet: Option<(String, String)>) -> BenchResult<()> {
        let rules = sms
            .then_some(ipb::NotificationRule {
                trigger: pb::NotificationTrigger::CourierAssigned as i32,
                audience: pb::NotificationAudience::Recipient as i32,
                channel: pb::NotificationChannel::Sms as i32,
            })
            .into_iter()
            .collect();
        let settings = ipb::NotificationSettings {
            workspace_id: self.workspace_id.clone(),
            rules,
            language: "en".into(),
            quiet_hours: quiet.map(|(start, end)| ipb::QuietHours { start, end }),
            ..Default::default()
        };
        self.client
            .clone()
            .update_notification_settings(authorised(
                ipb::UpdateNotificationSettingsRequest {
                    settings: Some(settings),
                },
                &self.token,
            ))
            .await?;
        Ok(())
    }
}

struct Dispatch {
    client: DispatchServiceClient<Channel>,
    token: String,
}

impl Dispatch {
    /// A courier (named by an outside dispatch system) takes `id`.
    async fn assign(&self, id: String) -> BenchResult<()> {
        let accept = ipb::AcceptJobRequest {
            delivery_id: id,
            courier: Some(pb::Courier {
                name: Some("Bench Rider".into()),
                ..Default::default()
            }),
            pickup_eta: None,
        };
        self.client.clone().accept_job(authorised(accept, &self.token)).await?;
        Ok(())
    }
}

fn authorised<T>(message: T, token: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    if let Ok(value) = format!("Bearer {token}").parse() {
        request.metadata_mut().insert("authorization", value);
    }
    request
}

/// Books `count` live deliveries over 16 connections; their ids.
async fn book(client: &reqwest::Client, service: &Service, count: usize) -> BenchResult<Vec<String>> {
    type Booked = tokio::task::JoinSet<BenchResult<Option<String>>>;
    async fn next(pending: &mut Booked) -> BenchResult<String> {
        match pending.join_next().await {
            Some(done) => done??.ok_or_else(|| "a create answered no id".into()),
            None => Err("no create pending".into()),
        }
    }
    let mut ids = Vec::with_capacity(count);
    let mut pending: Booked = tokio::task::JoinSet::new();
    for _ in 0..count {
        if pending.len() >= 16 {
            ids.push(next(&mut pending).await?);
        }
        let request = create_request(client, &service.base_url, &service.live_key);
        pending.spawn(async move {
            let answer: serde_json::Value = request.send().await?.json().await?;
            Ok(answer["id"].as_str().map(str::to_owned))
        });
    }
    while !pending.is_empty() {
        ids.push(next(&mut pending).await?);
    }
    Ok(ids)
}

async fn assign_all(dispatch: &Dispatch, ids: &[String]) -> BenchResult<()> {
    let dispatch = Arc::new(Dispatch {
        client: dispatch.client.clone(),
        token: dispatch.token.clone(),
    });
    for chunk in ids.chunks(16) {
        let mut pending = tokio::task::JoinSet::new();
        for id in chunk {
            let (dispatch, id) = (dispatch.clone(), id.clone());
            pending.spawn(async move { dispatch.assign(id).await });
        }
        while let Some(done) = pending.join_next().await {
            done??;
        }
    }
    Ok(())
}

/// When the first and the last of `count` new SMS reached the stand-in
/// (after `before` it had), within two minutes.
async fn arrivals(twilio: &TwilioStandIn, before: usize, count: usize) -> BenchResult<(Instant, Instant)> {
    let deadline = Instant::now() + Duration::from_secs(180);
    let mut first = None;
    loop {
        let seen = twilio.message_count() - before;
        if seen > 0 && first.is_none() {
            first = Some(Instant::now());
        }
        if seen >= count {
            return Ok((first.unwrap_or_else(Instant::now), Instant::now()));
        }
        if Instant::now() > deadline {
            return Err(format!("only {seen} of {count} SMS reached the stand-in").into());
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The ceiling: Twilio's create POST, as the sender makes it, straight to
/// the stand-in.
async fn bare_loop(client: &reqwest::Client, twilio: &TwilioStandIn, duration: Duration) -> Stats {
    let url = format!("{}/2010-04-01/Accounts/{ACCOUNT_SID}/Messages.json", twilio.base_url());
    let client = client.clone();
    load::run(SENDER_CONNECTIONS, duration, move |n| {
        let body = format!("To=%2B491512345678&From=%2B15005550006&Body=Bare+loop+{n}");
        let request = client
            .post(&url)
            .basic_auth(ACCOUNT_SID, Some(AUTH_TOKEN))
            .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header("I-Twilio-Idempotency-Token", format!("bare-{n}"))
            .body(body);
        load::succeeded(request.send())
    })
    .await
}

/// One paced run's creates.
struct Paced {
    stats: Stats,
    mean_ms: f64,
}

/// Creates at [`CREATES_PER_SECOND`] for `duration`, each delivery given a
/// courier as soon as it is booked (not timed).
async fn paced_creates(
    client: &reqwest::Client,
    service: &Service,
    dispatch: &Dispatch,
    duration: Duration,
) -> BenchResult<Paced> {
    let dispatch = Arc::new(Dispatch {
        client: dispatch.client.clone(),
        token: dispatch.token.clone(),
    });
    let errors = Arc::new(AtomicU64::new(0));
    let mut tick = tokio::time::interval(Duration::from_secs(1) / CREATES_PER_SECOND);
    let mut pending = tokio::task::JoinSet::new();
    let started = Instant::now();
    while started.elapsed() < duration {
        tick.tick().await;
        let (request, dispatch, errors) = (
            create_request(client, &service.base_url, &service.live_key),
            dispatch.clone(),
            errors.clone(),
        );
        pending.spawn(async move {
            let sent = Instant::now();
            let answer = request.send().await.ok()?;
            let ok = answer.status().is_success();
            let body: serde_json::Value = answer.json().await.ok()?;
            let took = sent.elapsed();
            let id = body["id"].as_str().filter(|_| ok).map(str::to_owned);
            match id {
                Some(id) => {
                    if dispatch.assign(id).await.is_err() {
                        errors.fetch_add(1, Ordering::Relaxed);
                    }
                    Some(took)
                }
                None => {
                    errors.fetch_add(1, Ordering::Relaxed);
                    None
                }
            }
        });
    }
    let mut latencies = Vec::new();
    while let Some(done) = pending.join_next().await {
        if let Ok(Some(took)) = done {
            latencies.push(took);
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    latencies.sort_unstable();
    let mean_ms = latencies.iter().map(Duration::as_secs_f64).sum::<f64>() * 1000.0 / latencies.len().max(1) as f64;
    Ok(Paced {
        stats: Stats {
            requests_per_second: latencies.len() as f64 / elapsed,
            p50_ms: load::percentile_ms(&latencies, 0.5),
            p99_ms: load::percentile_ms(&latencies, 0.99),
            completed: latencies.len() as u64,
            errors: errors.load(Ordering::Relaxed),
        },
        mean_ms,
    })
}

pub fn print(stats: &NotificationStats) {
    println!("\nRecipient notifications, live SMS to a Twilio stand-in on loopback:\n");
    println!(
        "- Outbox draining a backlog of {BACKLOG} SMS: {:.0}/s; bare POST loop to the same stand-in at {SENDER_CONNECTIONS} connections: {:.0}/s; ratio {:.2} (target ≥ 0.5)",
        stats.drain_per_second,
        stats.bare_per_second,
        stats.drain_per_second / stats.bare_per_second
    );
    for (label, s) in [("SMS on", &stats.creates_on), ("SMS off", &stats.creates_off)] {
        println!(
            "- POST /v1/deliveries at {CREATES_PER_SECOND}/s, each given a courier, {label}: p50 {:.2} ms, p99 {:.2} ms, {} errors",
            s.p50_ms, s.p99_ms, s.errors
        );
    }
    println!(
        "- Create's mean latency, SMS on ÷ off: {:.3} (target ≤ 1.05; median of paired runs)",
        stats.cost_ratio
    );
}
