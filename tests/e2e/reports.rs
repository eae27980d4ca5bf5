//! Reports (docs/reports.md) over gRPC: a live delivery driven through known
//! times by a courier online for a known hour, another cancelled; the
//! rollup worker's days give the delivery report's counts, on-time rate and
//! minutes, and the couriers' online periods and jobs the courier report's
//! hours; who may read which.

use std::time::Duration;

use chrono::{Datelike, TimeZone};
use courier::app::v1 as apb;
use courier::app::v1::watch_assignments_response::Update;
use courier::internal::v1 as ipb;
use courier::internal::v1::report_service_client::ReportServiceClient;
use courier::v1 as pb;
use courier_store::config::DispatchMode;
use serde_json::json;

use crate::auto_dispatch::online_at;
use crate::couriers::{file, next, png, proof};
use crate::deliveries::berlin_delivery;
use crate::harness::{TestApp, wait_until};

async fn reports(app: &TestApp) -> ReportServiceClient<tonic::transport::Channel> {
    ReportServiceClient::connect(app.grpc_url.clone())
        .await
        .expect("report service")
}

/// Berlin's day of the test clock's now.
fn berlin_day(app: &TestApp) -> String {
    let now = chrono_tz::Europe::Berlin.from_utc_datetime(&app.clock.now().naive_utc());
    format!("{:04}-{:02}-{:02}", now.year(), now.month(), now.day())
}

e2e! {
    with |config| {
        config.dispatch = DispatchMode::Auto;
    };

    async fn a_delivery_driven_through_known_times_is_counted_with_its_minutes_and_its_courier_hours(app: TestApp) {
        let first_day = berlin_day(&app);
        let (kim, mut stream) = online_at(&app, "Kim Counted", 1.0, "car").await;
        let mut body = berlin_delivery();
        body["vehicle_type_id"] = json!("car");
        let start = app.clock.now();
        body["dropoff_window"] = json!({
            "start": start.to_rfc3339(),
            "end": (start + chrono::Duration::hours(2)).to_rfc3339(),
        });
        let created = app.create_delivery(&app.live_key, &body).await;
        let id = created["id"].as_str().expect("id").to_owned();
        let offer = match next(&mut stream).await.update {
            Some(Update::Offer(offer)) => offer,
            other => panic!("expected an offer, got {other:?}"),
        };
        let mut client = kim.client.clone();
        client.accept_offer(kim.request(apb::AcceptOfferRequest { offer_id: offer.id })).await.expect("accept");
        client.arrive_at_pickup(kim.request(apb::ArriveAtPickupRequest { job_id: id.clone() })).await.expect("arrive");
        // Picked up 12 minutes after booking, handed over 30 minutes after.
        app.clock.advance(Duration::from_secs(12 * 60));
        let photo = proof(&id, pb::CheckpointKind::Pickup, vec![file(pb::ArtifactKind::Photo, "parcel.png", png(1))], "report-pickup");
        client.submit_proof(kim.request(photo)).await.expect("pickup proof");
        client.pick_up(kim.request(apb::PickUpRequest { job_id: id.clone() })).await.expect("pick up");
        client.start_transit(kim.request(apb::StartTransitRequest { job_id: id.clone() })).await.expect("transit");
        client.arrive_at_dropoff(kim.request(apb::ArriveAtDropoffRequest { job_id: id.clone() })).await.expect("at dropoff");
        app.clock.advance(Duration::from_secs(18 * 60));
        let photo = proof(&id, pb::CheckpointKind::Dropoff, vec![file(pb::ArtifactKind::Photo, "door.png", png(2))], "report-dropoff");
        client.submit_proof(kim.request(photo)).await.expect("dropoff proof");
        client.complete_handover(kim.request(apb::CompleteHandoverRequest { job_id: id.clone() })).await.expect("handover");
        // Online for an hour in all.
        app.clock.advance(Duration::from_secs(30 * 60));
        client
            .set_availability(kim.request(apb::SetAvailabilityRequest { availability: apb::Availability::Offline as i32 }))
            .await
            .expect("offline");
        let cancelled = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let cancel = app.post(&format!("/v1/deliveries/{}/cancel", cancelled["id"].as_str().expect("id")), &app.live_key, &json!({})).await;
        assert_eq!(cancel.status, 200, "{:#}", cancel.body);
        // The hour may have crossed midnight in Berlin: the range holds both days.
        let last_day = berlin_day(&app);

        let request = ipb::GetDeliveryReportRequest {
            workspace_id: app.workspace_id.clone(),
            mode: "live".into(),
            first_day: first_day.clone(),
            last_day: last_day.clone(),
            period: ipb::ReportPeriod::Day as i32,
            ..Default::default()
        };
        let report = wait_until("the worker to count both deliveries", Duration::from_secs(20), async || {
            let report = reports(&app).await.get_delivery_report(app.admin_request(request.clone())).await.map_err(|s| s.to_string())?.into_inner();
            let total = report.total.clone().expect("total");
            if total.deliveries == 2 && total.cancelled == 1 { Ok(report) } else { Err(format!("{total:?}")) }
        })
        .await;
        let total = report.total.expect("total");
        assert_eq!(report.time_zone, "Europe/Berlin");
        assert_eq!((total.delivered, total.on_time, total.promised), (1, 1, 1), "delivered inside its window");
        assert_eq!(total.cancellations, vec![ipb::CancellationCount { reason: "cancelled_by_you".into(), count: 1 }]);
        assert_eq!((total.pickup_minutes_median, total.pickup_minutes_p90), (Some(12), Some(12)));
        assert_eq!((total.delivery_minutes_median, total.delivery_minutes_p90), (Some(30), Some(30)));
        assert_eq!(report.rows.first().map(|r| r.first_day.as_str()), Some(first_day.as_str()));
        assert_eq!(report.rows.iter().map(|r| r.deliveries).sum::<i64>(), 2, "each in the day it was booked");
        // The test mode's report is another.
        let test = ipb::GetDeliveryReportRequest { mode: "test".into(), ..request.clone() };
        let other = reports(&app).await.get_delivery_report(app.admin_request(test)).await.expect("test report").into_inner();
        assert_eq!(other.total.expect("total").deliveries, 0);

        let couriers = ipb::GetCourierReportRequest {
            workspace_id: String::new(),
            first_day,
            last_day,
            period: ipb::ReportPeriod::Week as i32,
        };
        let hours = reports(&app).await.get_courier_report(app.admin_request(couriers)).await.expect("courier report").into_inner();
        let total = hours.total.expect("total");
        assert_eq!((total.couriers, total.online_minutes, total.delivered), (1, 60, 1), "{total:?}");
        assert_eq!(total.busy_minutes, 30, "from the accept to the handover");

        // What each bad input is told, and who may not read.
        let mut reports_client = reports(&app).await;
        for (change, param) in [
            (ipb::GetDeliveryReportRequest { mode: "both".into(), ..request.clone() }, "mode"),
            (ipb::GetDeliveryReportRequest { first_day: "yesterday".into(), ..request.clone() }, "first_day"),
            (ipb::GetDeliveryReportRequest { first_day: "2025-01-01".into(), last_day: "2026-12-31".into(), ..request.clone() }, "last_day"),
            (ipb::GetDeliveryReportRequest { service_area_id: "atlantis".into(), ..request.clone() }, "service_area_id"),
        ] {
            let status = reports_client.get_delivery_report(app.admin_request(change)).await.expect_err("refused");
            assert_eq!(status.code(), tonic::Code::InvalidArgument, "{param}: {status:?}");
            assert_eq!(courier::errors::from_status(&status).1.as_deref(), Some(param));
        }
    }
}
