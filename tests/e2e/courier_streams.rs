//! A courier's streams under pressure (docs/couriers.md "Positions" and
//! "A courier's life"): a flood of positions from one courier loses no
//! other courier's position and is refused, per courier, with
//! `rate_limited` and a retry delay, ending only that stream; a suspension
//! made by the command line in another process, a sign-out and a new
//! password end the courier's open streams, both directions, within a
//! second.
//!
//! The command line runs as a process of its own: this test binary run
//! again as [`command_line`], configured by `COURIER_*` variables as
//! `courier-core courier suspend` is, and calling what that command calls.

use std::time::{Duration, Instant};

use clap::Parser;
use courier::app::v1 as apb;
use courier::app::v1::watch_assignments_response::Update;
use courier::internal::v1 as ipb;
use courier_core::positions::trail;
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_stream::wrappers::ReceiverStream;
use tonic_types::StatusExt;

use crate::couriers::{App, PASSWORD, app_client, assign, at, couriers, join, next, refusal};
use crate::deliveries::berlin_delivery;
use crate::harness::{TestApp, wait_until};
use serde_json::json;

/// Set for the child process: the courier it suspends.
const SUSPEND: &str = "COURIER_E2E_SUSPEND_COURIER";

/// How long a change may take to end a courier's streams.
const ENDS_WITHIN: Duration = Duration::from_secs(1);

/// The core's settings, read from `COURIER_*` variables only.
#[derive(Parser)]
struct CommandFlags {
    #[command(flatten)]
    config: courier_store::config::CoreConfig,
}

/// The command line's process of the suspension tests: suspends the
/// courier `COURIER_E2E_SUSPEND_COURIER` names as `courier-core courier
/// suspend --id` does, then exits. Started by those tests, never on its own.
#[test]
#[ignore = "the command line's process, started by the suspension tests"]
fn command_line() {
    let id = std::env::var(SUSPEND).expect("only the suspension tests run the command line");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let config = CommandFlags::parse_from(["courier-core"]).config;
        let core = courier_server::serving::open_core(config, courier_store::clock::Clock::default())
            .await
            .expect("the command line's core starts");
        let suspended = courier_server::command_line::suspend_courier(&core, &id)
            .await
            .expect("suspended");
        assert_eq!(suspended, id);
    });
}

/// Runs [`command_line`] on `app`'s database as a process of its own,
/// suspending `courier_id`; returns when it has exited.
async fn suspend_in_another_process(app: &TestApp, courier_id: &str) {
    let config = &app.core.config;
    let mut command = tokio::process::Command::new(std::env::current_exe().expect("test binary"));
    if let Some(secret) = &config.secret_key {
        command.env("COURIER_SECRET_KEY", secret);
    }
    let output = command
        .args(["courier_streams::command_line", "--exact", "--ignored", "--nocapture"])
        .env(SUSPEND, courier_id)
        .env("COURIER_DATABASE_URL", &config.database_url)
        .env("COURIER_PUBLIC_BASE_URL", &config.public_base_url)
        .env("COURIER_BLOB_DIR", &config.blob_dir)
        .env_remove("COURIER_GRPC_ADDR")
        .kill_on_drop(true)
        .output()
        .await
        .expect("the command line runs");
    assert!(
        output.status.success(),
        "the command line failed: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A courier's two open streams: the assignment stream (its snapshot
/// read) and a report stream a phone feeds every 250 ms.
struct Streams {
    watch: JoinHandle<tonic::Status>,
    report: JoinHandle<Result<i64, tonic::Status>>,
    reporting: JoinHandle<()>,
}

impl Streams {
    /// Opens both streams of `courier`'s session, once each is under way
    /// (the snapshot received, a position taken in).
    async fn open(app: &TestApp, courier: &App) -> Streams {
        let mut client = courier.client.clone();
        let mut watch = client
            .watch_assignments(courier.request(apb::WatchAssignmentsRequest::default()))
            .await
            .expect("watch")
            .into_inner();
        next(&mut watch).await;
        let watch = tokio::spawn(async move {
            loop {
                match watch.message().await {
                    Ok(Some(_)) => {}
                    Ok(None) => return tonic::Status::ok("the stream ended without a status"),
                    Err(status) => return status,
                }
            }
        });
        let (reports, receiver) = mpsc::channel(4);
        let mut report_client = client.clone();
        let request = courier.request(ReceiverStream::new(receiver));
        let report = tokio::spawn(async move {
            report_client
                .report_locations(request)
                .await
                .map(|answer| answer.into_inner().accepted)
        });
        let position = at(app, 52.5200, 13.4050);
        let reporting = tokio::spawn(async move {
            let mut step = 0.0;
            loop {
                let mut position = position;
                position.latitude += step;
                step += 0.0001;
                let report = apb::ReportLocationsRequest {
                    positions: vec![position],
                };
                if reports.send(report).await.is_err() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
        });
        let id = courier.courier.id.clone();
        wait_until(
            "the report stream's first position",
            Duration::from_secs(10),
            async || match courier_core::positions::latest(&app.core, &id).await {
                Ok(Some(_)) => Ok(()),
                other => Err(format!("{other:?}")),
            },
        )
        .await;
        Streams {
            watch,
            report,
            reporting,
        }
    }

    /// Waits at most [`ENDS_WITHIN`] from `since` for both streams to end,
    /// and asserts each ended `UNAUTHENTICATED` (`invalid_courier_session`).
    async fn assert_ended(self, why: &str, since: Instant) {
        let left = ENDS_WITHIN.saturating_sub(since.elapsed());
        wait_until(format!("both streams to end after {why}"), left, async || {
            match (self.watch.is_finished(), self.report.is_finished()) {
                (true, true) => Ok(()),
                open => Err(format!("(assignment stream, report stream) ended: {open:?}")),
            }
        })
        .await;
        let watched = self.watch.await.expect("watch task");
        let reported = self
            .report
            .await
            .expect("report task")
            .expect_err("the report stream is refused");
        for status in [watched, reported] {
            assert_eq!(
                refusal(&status),
                (tonic::Code::Unauthenticated, "invalid_courier_session", None),
                "after {why}: {status:?}"
            );
        }
        // The phone can send no more.
        tokio::time::timeout(Duration::from_secs(5), self.reporting)
            .await
            .expect("the phone's sends fail once the stream ended")
            .expect("reporting task");
    }
}

e2e! {
    // A graceful stop waits for calls in flight, not for streams, which
    // could last for ever: they end at once, and the clients reconnect
    // (to another replica).
    async fn a_stopping_core_ends_its_streams_at_once(app: TestApp) {
        let mut app = app;
        let kim = join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        let mut client = kim.client.clone();
        let mut watch = client
            .watch_assignments(kim.request(apb::WatchAssignmentsRequest::default()))
            .await
            .expect("watch")
            .into_inner();
        next(&mut watch).await;
        let mut dispatch = app.dispatch().await;
        let mut map = dispatch
            .watch_dispatch_map(app.dispatch_request(ipb::WatchDispatchMapRequest::default()))
            .await
            .expect("map")
            .into_inner();
        map.message().await.expect("the map's snapshot");
        let started = Instant::now();
        tokio::time::timeout(Duration::from_secs(10), app.shutdown())
            .await
            .expect("the stop waited for no stream");
        assert!(started.elapsed() < Duration::from_secs(5), "stopped in {:?}", started.elapsed());
        assert!(!matches!(watch.message().await, Ok(Some(_))), "the assignment stream ended");
        assert!(!matches!(map.message().await, Ok(Some(_))), "the map stream ended");
    }
}

/// `courier` goes online.
async fn online(courier: &App) {
    let mut client = courier.client.clone();
    client
        .set_availability(courier.request(apb::SetAvailabilityRequest {
            availability: apb::Availability::Online as i32,
        }))
        .await
        .expect("online");
}

/// `courier`'s job: a live delivery assigned by dispatch.
async fn give_job(app: &TestApp, courier: &App) -> String {
    online(courier).await;
    let delivery = app.create_delivery(&app.live_key, &berlin_delivery()).await;
    let id = delivery["id"].as_str().expect("id").to_owned();
    assign(app, &id, &courier.courier.id).await.expect("assigned");
    id
}

/// Courier `courier_id`'s trail positions written.
async fn trail_count(app: &TestApp, courier_id: &str) -> Result<u64, String> {
    trail::Entity::find()
        .filter(trail::Column::CourierId.eq(courier_id))
        .count(&app.core.db)
        .await
        .map_err(|e| e.to_string())
}

/// `count` positions of one courier, 100 to a report, each taken a
/// millisecond after the one before, ending a second ago.
fn burst(app: &TestApp, count: usize) -> Vec<apb::ReportLocationsRequest> {
    let end = app.clock.now_micros() - 1_000_000;
    let positions: Vec<apb::Position> = (0..count)
        .map(|i| {
            let micros = end - (count - i) as i64 * 1_000;
            apb::Position {
                latitude: 52.50 + i as f64 * 0.000_001,
                longitude: 13.40,
                accuracy_m: Some(5.0),
                heading_deg: None,
                speed_mps: None,
                recorded_at: Some(prost_types::Timestamp {
                    seconds: micros.div_euclid(1_000_000),
                    nanos: (micros.rem_euclid(1_000_000) * 1_000) as i32,
                }),
            }
        })
        .collect();
    positions
        .chunks(100)
        .map(|chunk| apb::ReportLocationsRequest {
            positions: chunk.to_vec(),
        })
        .collect()
}

/// Courier C reports 4 positions a second, each in a message of its own,
/// for `seconds` on a stream of its own over `client`'s connection; the
/// positions sent and the answer's count.
async fn steady_reports(
    app: &TestApp,
    courier: &App,
    mut client: courier::app::v1::courier_app_service_client::CourierAppServiceClient<tonic::transport::Channel>,
    seconds: usize,
) -> JoinHandle<(usize, i64)> {
    let (reports, receiver) = mpsc::channel(4);
    let request = courier.request(ReceiverStream::new(receiver));
    let answer = tokio::spawn(async move { client.report_locations(request).await });
    let clock = app.clock.clone();
    tokio::spawn(async move {
        let mut sent = 0;
        let mut tick = tokio::time::interval(Duration::from_millis(250));
        for n in 0..seconds * 4 {
            tick.tick().await;
            let micros = clock.now_micros();
            let position = apb::Position {
                latitude: 52.51 + n as f64 * 0.0001,
                longitude: 13.41,
                accuracy_m: Some(8.0),
                heading_deg: None,
                speed_mps: None,
                recorded_at: Some(prost_types::Timestamp {
                    seconds: micros.div_euclid(1_000_000),
                    nanos: (micros.rem_euclid(1_000_000) * 1_000) as i32,
                }),
            };
            reports
                .send(apb::ReportLocationsRequest {
                    positions: vec![position],
                })
                .await
                .expect("courier C's stream open");
            sent += 1;
        }
        drop(reports);
        let accepted = answer
            .await
            .expect("answer task")
            .expect("courier C's stream is never refused")
            .into_inner()
            .accepted;
        (sent, accepted)
    })
}

e2e! {
    // Issue: couriers A and C hold jobs; C reports 4 positions a second
    // while A floods 18,000 at once. A is refused past their allowance
    // (only their stream: C reports on over the same connection), and
    // every position of C and every accepted one of A is in their trails.
    async fn a_position_flood_is_limited_per_courier_and_loses_no_other_couriers_position(app: TestApp) {
        let a = join(&app, "", "Ada Flood", "ada@example.com", "car").await;
        let c = join(&app, "", "Cem Steady", "cem@example.com", "car").await;
        give_job(&app, &a).await;
        give_job(&app, &c).await;
        // One connection for both couriers.
        let shared = a.client.clone();
        let steady = steady_reports(&app, &c, shared.clone(), 4).await;

        let mut client = shared.clone();
        let started = Instant::now();
        let status = client
            .report_locations(a.request(tokio_stream::iter(burst(&app, 18_000))))
            .await
            .expect_err("a burst of 18,000 positions is over the limit");
        assert_eq!(refusal(&status), (tonic::Code::ResourceExhausted, "rate_limited", None), "{status:?}");
        let delay = courier::errors::retry_delay(&status).expect("a RetryInfo detail");
        assert!(delay >= Duration::from_secs(1) && delay <= Duration::from_secs(5), "{delay:?}");
        assert!(status.message().contains(&format!("{} s", delay.as_secs())), "{}", status.message());
        let info = status.get_details_error_info().expect("ErrorInfo");
        let accepted: u64 = info.metadata.get("accepted").expect("accepted").parse().expect("a count");
        // The burst allowance, and what 20 a second added meanwhile.
        let most = 3_600 + (started.elapsed().as_secs_f64() * 20.0).ceil() as u64;
        assert!((3_600..=most).contains(&accepted), "{accepted} accepted, at most {most}");
        assert!(status.message().contains(&format!("first {accepted} positions")), "{}", status.message());

        // A's next report waits for the delay; C's stream went on.
        let (sent, c_accepted) = steady.await.expect("courier C's reports");
        assert_eq!(c_accepted as usize, sent);
        wait_until("both trails written", Duration::from_secs(10), async || {
            let (a_trail, c_trail) = (trail_count(&app, &a.courier.id).await?, trail_count(&app, &c.courier.id).await?);
            if a_trail == accepted && c_trail == sent as u64 {
                Ok(())
            } else {
                Err(format!("A's trail {a_trail} of {accepted} accepted, C's {c_trail} of {sent} sent"))
            }
        })
        .await;
        // Past the delay a report fits again.
        tokio::time::sleep(delay).await;
        let later = client
            .report_locations(a.request(tokio_stream::iter([apb::ReportLocationsRequest { positions: vec![at(&app, 52.52, 13.40)] }])))
            .await
            .expect("a report after the delay")
            .into_inner();
        assert_eq!(later.accepted, 1);
    }
}

e2e! {
    with |config| config.positions_per_second = 0.0;
    // With no report limit the whole flood of 18,000 is written (on SQLite
    // more rows than one statement's parameters hold), and every position
    // of the other courier too.
    async fn an_unlimited_flood_is_written_whole_beside_another_courier(app: TestApp) {
        let a = join(&app, "", "Ada Flood", "ada@example.com", "car").await;
        let c = join(&app, "", "Cem Steady", "cem@example.com", "car").await;
        give_job(&app, &a).await;
        give_job(&app, &c).await;
        let shared = a.client.clone();
        let steady = steady_reports(&app, &c, shared.clone(), 3).await;
        let mut client = shared.clone();
        let flood = client
            .report_locations(a.request(tokio_stream::iter(burst(&app, 18_000))))
            .await
            .expect("no limit")
            .into_inner();
        assert_eq!(flood.accepted, 18_000);
        let (sent, c_accepted) = steady.await.expect("courier C's reports");
        assert_eq!(c_accepted as usize, sent);
        wait_until("both trails written whole", Duration::from_secs(20), async || {
            let (a_trail, c_trail) = (trail_count(&app, &a.courier.id).await?, trail_count(&app, &c.courier.id).await?);
            if a_trail == 18_000 && c_trail == sent as u64 {
                Ok(())
            } else {
                Err(format!("A's trail {a_trail} of 18000, C's {c_trail} of {sent}"))
            }
        })
        .await;
    }
}

e2e! {
    // Issue: after `courier-core courier suspend --id`, a report stream
    // accepted positions for 58.5 s and the assignment stream stayed open
    // 13.5 s on SQLite.
    async fn a_suspension_by_the_command_line_in_another_process_ends_both_streams_within_a_second(app: TestApp) {
        let kim = join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        let streams = Streams::open(&app, &kim).await;
        suspend_in_another_process(&app, &kim.courier.id).await;
        let done = Instant::now();
        streams.assert_ended("the suspension", done).await;
        let status = kim.client.clone().get_profile(kim.request(apb::GetProfileRequest {})).await.expect_err("suspended");
        assert_eq!(refusal(&status).1, "invalid_courier_session");
        let listed = couriers(&app).await.get_courier(app.admin_request(ipb::GetCourierRequest { courier_id: kim.courier.id.clone() })).await.expect("courier").into_inner();
        let courier = listed.courier.and_then(|summary| summary.courier).expect("courier");
        assert_eq!(courier.status(), apb::CourierStatus::Suspended);
    }

    async fn a_sign_out_or_a_new_password_ends_that_sessions_streams_within_a_second(app: TestApp) {
        let kim = join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        let mut client = app_client(&app).await;
        let signed = client.sign_in(apb::SignInRequest { login: "kim@example.com".into(), password: PASSWORD.into(), client_address: String::new() }).await.expect("sign in").into_inner();
        let phone = App { client, token: signed.session_token, courier: signed.courier.expect("courier") };

        // Signing one session out ends its streams, not the other's.
        let first = Streams::open(&app, &kim).await;
        let second = Streams::open(&app, &phone).await;
        kim.client.clone().sign_out(kim.request(apb::SignOutRequest {})).await.expect("sign out");
        first.assert_ended("the sign-out", Instant::now()).await;
        assert!(!second.watch.is_finished() && !second.report.is_finished());

        // A new password (a new invitation accepted) ends every other session.
        let invited = couriers(&app).await.create_courier_invitation(app.admin_request(ipb::CreateCourierInvitationRequest { courier_id: kim.courier.id.clone() })).await.expect("invitation").into_inner();
        let token = invited.invitation_url.rsplit('/').next().expect("token").to_owned();
        app_client(&app).await.accept_invitation(apb::AcceptInvitationRequest { token, password: "a new tram at dusk".into() }).await.expect("a new password");
        second.assert_ended("the new password", Instant::now()).await;
    }
}

/// How long a change may take to reach the courier's phone.
const ON_THE_PHONE_WITHIN: Duration = Duration::from_secs(2);

/// Reads `stream` until `wanted` picks a message, failing after
/// [`ON_THE_PHONE_WITHIN`] from `since` with what came meanwhile.
async fn on_the_phone(
    stream: &mut tonic::Streaming<apb::WatchAssignmentsResponse>,
    what: &str,
    since: Instant,
    wanted: impl Fn(&Update) -> bool,
) {
    let mut seen = Vec::new();
    loop {
        let left = ON_THE_PHONE_WITHIN.saturating_sub(since.elapsed());
        let Ok(message) = tokio::time::timeout(left, stream.message()).await else {
            panic!("{what} did not reach the phone within {ON_THE_PHONE_WITHIN:?}; came meanwhile: {seen:?}");
        };
        let update = message.expect("stream").expect("message").update.expect("an update");
        if wanted(&update) {
            return;
        }
        seen.push(update);
    }
}

e2e! {
    // A stream woken by a commit that lands while it reads, or while
    // another watcher of the same courier (their report stream, a second
    // assignment stream) takes its own wake, still reads it: 200 jobs
    // given and cancelled back to back, both changes on the phone within
    // 2 s of the cancel. (With one wake shared by a courier's watchers a
    // run lost one within 100 jobs about every other time.)
    async fn every_change_reaches_a_courier_whose_streams_race_the_commits(app: TestApp) {
        let kim = join(&app, "", "Kim Courier", "kim@example.com", "car").await;
        let _other_streams = Streams::open(&app, &kim).await;
        online(&kim).await;
        let mut phone = kim
            .client
            .clone()
            .watch_assignments(kim.request(apb::WatchAssignmentsRequest::default()))
            .await
            .expect("watch")
            .into_inner();
        next(&mut phone).await;
        for round in 0..200 {
            let delivery = app.create_delivery(&app.live_key, &berlin_delivery()).await;
            let id = delivery["id"].as_str().expect("id").to_owned();
            // Back to back: the cancel commits while the streams still
            // read (or re-arm after) the assignment.
            assign(&app, &id, &kim.courier.id).await.expect("assigned");
            let answer = app.post(&format!("/v1/deliveries/{id}/cancel"), &app.live_key, &json!({})).await;
            assert_eq!(answer.status, 200, "{:?}", answer.body);
            let cancelled = Instant::now();
            on_the_phone(&mut phone, &format!("job {round} given"), cancelled, |update| {
                matches!(update, Update::Job(job) if job.id == id)
            })
            .await;
            on_the_phone(&mut phone, &format!("job {round} cancelled"), cancelled, |update| {
                matches!(update, Update::Withdrawal(withdrawal) if withdrawal.job_id == id)
            })
            .await;
        }
    }
}
