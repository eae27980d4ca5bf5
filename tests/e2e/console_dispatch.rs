//! The console's dispatch page over HTTP: an operator sees the platform's
//! online couriers and waiting deliveries, the free couriers ranked by time
//! to the pickup, assigns, reassigns and unassigns (refused while waiting
//! and once the courier reached the pickup); a fleet's member sees the map
//! of the fleet's drivers and orders but no control, and a forged assign
//! or unassign is refused by the core. A handover blocked by wrong dropoff
//! PINs is flagged and reset from the job's page.

use courier::app::v1 as apb;
use courier::app::v1::watch_assignments_response::Update;
use courier::internal::v1 as ipb;
use courier::v1 as pb;
use courier_identity::accounts::memberships::Role;
use serde_json::Value;

use crate::auto_dispatch::online_at;
use crate::console_couriers::console_user;
use crate::console_pages::{csrf, get, post, sign_in};
use crate::deliveries::berlin_delivery;

e2e! {
    async fn operators_assign_reassign_and_unassign_from_the_dispatch_page(app: TestApp) {
        console_user(&app, "ops@example.com", None).await;
        let ops = sign_in(&app, "ops@example.com").await;
        let (near, mut near_stream) = online_at(&app, "Nia Near", 0.5, "car").await;
        let (far, mut far_stream) = online_at(&app, "Fred Far", 3.0, "car").await;
        let created = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let id = created["id"].as_str().expect("id").to_owned();

        let dispatch = app.url("/console/ops/dispatch");
        let (status, page, headers) = get(&ops, &dispatch).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains(&format!("id=\"courier-{}\"", near.courier.id)), "{page}");
        assert!(page.contains(&format!("id=\"courier-{}\"", far.courier.id)), "{page}");
        assert!(page.contains(&format!("id=\"waiting-{id}\"")) && page.contains(" · waiting "), "{page}");
        assert!(page.contains("class=\"area\""), "the service areas are drawn: {page}");
        let policy = headers["content-security-policy"].to_str().expect("policy");
        assert!(policy.contains("img-src 'self' data:;"), "no other site without tiles: {policy}");

        // The job's page ranks the free couriers, nearest first.
        let job_page = format!("{dispatch}/{id}");
        let (status, page, _) = get(&ops, &job_page).await;
        assert_eq!(status, 200, "{page}");
        let (nia, fred) = (page.find("Nia Near").expect("Nia listed"), page.find("Fred Far").expect("Fred listed"));
        assert!(nia < fred, "the nearer courier first: {page}");
        let token = csrf(&page);

        // Unassigning a waiting job is refused, at the page, changing nothing.
        let (status, _, page) = post(&ops, &format!("{job_page}/unassign"), &[("csrf", &token), ("confirm", "yes")]).await;
        assert_eq!(status, 409, "{page}");
        assert!(page.contains("already waiting"), "{page}");

        // Assign to Fred; Fred's app hears of it.
        let (status, location, page) = post(&ops, &format!("{job_page}/assign"), &[("csrf", &token), ("courier_id", &far.courier.id)]).await;
        assert_eq!((status, location.as_str()), (303, format!("{dispatch}?mode=live").as_str()), "{page}");
        assert!(matches!(crate::couriers::next(&mut far_stream).await.update, Some(Update::Job(job)) if job.id == id));
        let (_, page, _) = get(&ops, &dispatch).await;
        assert!(!page.contains(&format!("id=\"waiting-{id}\"")) && page.contains("Fred Far · Courier assigned"), "{page}");

        // Fred goes offline with the job in hand: it stays under way, flagged,
        // and Fred stays on the map (not counted online).
        let offline = apb::SetAvailabilityRequest { availability: apb::Availability::Offline as i32 };
        far.client.clone().set_availability(far.request(offline)).await.expect("offline");
        let (_, page, _) = get(&ops, &dispatch).await;
        assert!(page.contains("Fred Far <strong class=\"flag\">offline</strong> · Courier assigned"), "{page}");
        assert!(page.contains(&format!("id=\"courier-{}\" class=\"courier offline\"", far.courier.id)), "{page}");

        // A courier whose last position is six minutes old is drawn and
        // counted as stale, never as free.
        let sid = crate::couriers::join(&app, "", "Sid Stale", "sid@example.com", "car").await;
        let mut client = sid.client.clone();
        client.set_availability(sid.request(apb::SetAvailabilityRequest { availability: apb::Availability::Online as i32 })).await.expect("online");
        let mut old = crate::couriers::at(&app, 52.52, 13.41);
        old.recorded_at = Some(prost_types::Timestamp { seconds: app.clock.now().timestamp() - 6 * 60, nanos: 0 });
        client.report_locations(sid.request(tokio_stream::iter([apb::ReportLocationsRequest { positions: vec![old] }]))).await.expect("position");
        let (_, page, _) = get(&ops, &dispatch).await;
        assert!(page.contains(&format!("id=\"courier-{}\" class=\"courier stale\"", sid.courier.id)), "{page}");
        assert!(page.contains("Sid Stale · Car · position 6 min old: no offers until it updates"), "{page}");
        assert!(page.contains("Map: 2 couriers online, 1 free;"), "Nia free, Sid stale; Fred offline: {page}");
        let online = apb::SetAvailabilityRequest { availability: apb::Availability::Online as i32 };
        far.client.clone().set_availability(far.request(online)).await.expect("online again");

        // Reassign to Nia: Fred loses it, Nia gets it.
        let (status, _, page) = post(&ops, &format!("{job_page}/assign"), &[("csrf", &token), ("courier_id", &near.courier.id)]).await;
        assert_eq!(status, 303, "{page}");
        assert!(matches!(crate::couriers::next(&mut far_stream).await.update, Some(Update::Withdrawal(w)) if w.job_id == id));
        assert!(matches!(crate::couriers::next(&mut near_stream).await.update, Some(Update::Job(job)) if job.id == id));

        // A delivery that rides alone is refused beside another job at the courier choice, with the core's words.
        let mut alone = berlin_delivery();
        alone["batching"] = serde_json::json!("never");
        let other = app.create_delivery(&app.live_key, &alone).await;
        let other_id = other["id"].as_str().expect("id");
        let (status, _, page) = post(&ops, &format!("{dispatch}/{other_id}/assign"), &[("csrf", &token), ("courier_id", &near.courier.id)]).await;
        assert_eq!(status, 409, "{page}");
        assert!(page.contains("id=\"courier_id-error\"") && page.contains("rides alone (batching never)"), "{page}");
        // A suspended courier (a stale choice) is refused at the courier choice.
        let sam = crate::couriers::join(&app, "", "Sam Suspended", "sam@example.com", "car").await;
        crate::couriers::couriers(&app).await.suspend_courier(app.admin_request(ipb::SuspendCourierRequest { courier_id: sam.courier.id.clone() }))
            .await.expect("suspend");
        let (status, _, page) = post(&ops, &format!("{dispatch}/{other_id}/assign"), &[("csrf", &token), ("courier_id", &sam.courier.id)]).await;
        assert_eq!(status, 409, "{page}");
        assert!(page.contains("id=\"courier_id-error\"") && page.contains("is suspended"), "{page}");

        // Unassign asks for the box ticked: without it nothing changes.
        let (status, _, page) = post(&ops, &format!("{job_page}/unassign"), &[("csrf", &token)]).await;
        assert_eq!(status, 409, "{page}");
        assert!(page.contains("to take the job back; nothing was done"), "{page}");
        assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await.body["status"], "courier_assigned");

        // Unassign: the delivery waits again, without a courier; Nia's app loses it.
        let (status, location, page) = post(&ops, &format!("{job_page}/unassign"), &[("csrf", &token), ("confirm", "yes")]).await;
        assert_eq!((status, location.as_str()), (303, format!("{job_page}?mode=live").as_str()), "{page}");
        assert!(matches!(crate::couriers::next(&mut near_stream).await.update, Some(Update::Withdrawal(w)) if w.job_id == id));
        // The notice names the job by its route, as the lists do.
        let (_, page, _) = get(&ops, &location).await;
        assert!(page.contains("Waiting for a courier again: Alexanderplatz 1"), "{page}");
        let seen = app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await;
        assert_eq!(seen.body["status"], "pending", "{:#}", seen.body);
        assert_eq!(seen.body["courier"], Value::Null, "{:#}", seen.body);
        let types: Vec<String> = app.delivery_events(&app.live_key, &id).await.into_iter().map(|(t, _)| t).collect();
        assert_eq!(types.last().map(String::as_str), Some("delivery.status_updated"), "{types:?}");
        let (_, audit, _) = get(&ops, &app.url("/console/ops/audit")).await;
        assert!(audit.contains("job.unassign"), "{audit}");

        // Once the courier is at the pickup, the job can no longer be taken back.
        let (status, _, _) = post(&ops, &format!("{job_page}/assign"), &[("csrf", &token), ("courier_id", &near.courier.id)]).await;
        assert_eq!(status, 303);
        let mut client = near.client.clone();
        client.arrive_at_pickup(near.request(apb::ArriveAtPickupRequest { job_id: id.clone() })).await.expect("arrive");
        let (status, _, page) = post(&ops, &format!("{job_page}/unassign"), &[("csrf", &token), ("confirm", "yes")]).await;
        assert_eq!(status, 409, "{page}");
        assert!(page.contains("reached the pickup"), "{page}");
        let seen = app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await;
        assert_eq!(seen.body["status"], "at_pickup", "unchanged: {:#}", seen.body);
    }

    // A courier suspended before a dispatcher took their job back still
    // holds it: they stay on the map, flagged, so that the job can be seen
    // and taken back; then they leave the map.
    async fn a_courier_suspended_with_a_job_stays_on_the_map_until_it_is_taken_back(app: TestApp) {
        console_user(&app, "ops@example.com", None).await;
        let ops = sign_in(&app, "ops@example.com").await;
        let (fred, _stream) = online_at(&app, "Fred Far", 1.0, "car").await;
        let created = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let id = created["id"].as_str().expect("id").to_owned();
        let dispatch = app.url("/console/ops/dispatch");
        let job_page = format!("{dispatch}/{id}");
        let (_, page, _) = get(&ops, &job_page).await;
        let token = csrf(&page);
        let (status, _, page) = post(&ops, &format!("{job_page}/assign"), &[("csrf", &token), ("courier_id", &fred.courier.id)]).await;
        assert_eq!(status, 303, "{page}");

        crate::couriers::couriers(&app).await.suspend_courier(app.admin_request(ipb::SuspendCourierRequest { courier_id: fred.courier.id.clone() }))
            .await.expect("suspend");
        let (_, page, _) = get(&ops, &dispatch).await;
        assert!(page.contains("Fred Far <strong class=\"flag\">suspended</strong> · Courier assigned"), "{page}");
        assert!(page.contains(&format!("id=\"courier-{}\" class=\"courier suspended\"", fred.courier.id)), "{page}");
        assert!(page.contains("suspended, still holding"), "the marker says what to do: {page}");
        assert!(page.contains("Map: 0 couriers online, 0 free;"), "{page}");

        let (status, _, page) = post(&ops, &format!("{job_page}/unassign"), &[("csrf", &token), ("confirm", "yes")]).await;
        assert_eq!(status, 303, "{page}");
        assert_eq!(app.get(&format!("/v1/deliveries/{id}"), &app.live_key).await.body["status"], "pending");
        let (_, page, _) = get(&ops, &dispatch).await;
        assert!(!page.contains(&format!("id=\"courier-{}\"", fred.courier.id)), "off the map once it holds nothing: {page}");
        assert!(page.contains(&format!("id=\"waiting-{id}\"")), "{page}");
    }

    async fn a_fleet_member_sees_the_map_without_controls_and_a_forged_post_is_refused(app: TestApp) {
        let (fleet, key) = crate::fleet::fleet(&app, true).await;
        console_user(&app, "admin@example.com", Some((&fleet, Role::Admin))).await;
        console_user(&app, "member@example.com", Some((&fleet, Role::Member))).await;
        let driver = crate::couriers::join(&app, &fleet, "Dara Driver", "dara@example.com", "car").await;
        let mut client = driver.client.clone();
        client.set_availability(driver.request(apb::SetAvailabilityRequest { availability: apb::Availability::Online as i32 })).await.expect("online");
        client.report_locations(driver.request(tokio_stream::iter([
            apb::ReportLocationsRequest { positions: vec![crate::couriers::at(&app, 52.5219, 13.4132)] },
        ]))).await.expect("position");
        let order = crate::fleet::create(&app, &key, &crate::fleet::minimal_order()).await;
        let order_id = order["order_id"].as_str().expect("order id").to_owned();
        let dispatch = app.url(&format!("/console/w/{fleet}/dispatch"));

        let member = sign_in(&app, "member@example.com").await;
        let (status, page, _) = get(&member, &dispatch).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains(&format!("id=\"courier-{}\"", driver.courier.id)), "{page}");
        assert!(page.contains(&format!("id=\"waiting-{order_id}\"")) && !page.contains(&format!("/dispatch/{order_id}?mode=")), "{page}");
        let token = csrf(&page);
        let (status, _, _) = post(&member, &format!("{dispatch}/{order_id}/assign"), &[("csrf", &token), ("courier_id", &driver.courier.id)]).await;
        assert_eq!(status, 403);
        let (status, _, _) = get(&member, &format!("{dispatch}/{order_id}")).await;
        assert_eq!(status, 403, "the ranking is the dispatchers'");

        let admin = sign_in(&app, "admin@example.com").await;
        let (_, page, _) = get(&admin, &dispatch).await;
        assert!(page.contains(&format!("/dispatch/{order_id}?mode=")), "{page}");
        let (status, page, _) = get(&admin, &format!("{dispatch}/{order_id}")).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("Dara Driver"), "{page}");
        let admin_token = csrf(&page);
        let (status, _, page) = post(&admin, &format!("{dispatch}/{order_id}/assign"), &[("csrf", &admin_token), ("courier_id", &driver.courier.id)]).await;
        assert_eq!(status, 303, "{page}");
        let (status, _, _) = post(&member, &format!("{dispatch}/{order_id}/unassign"), &[("csrf", &token), ("confirm", "yes")]).await;
        assert_eq!(status, 403);
        let (_, page, _) = get(&member, &dispatch).await;
        assert!(page.contains("Dara Driver · Courier assigned"), "the forged unassign changed nothing: {page}");

        // The admin takes the order back: it waits on the board again, its history says who.
        let (status, _, page) = post(&admin, &format!("{dispatch}/{order_id}/unassign"), &[("csrf", &admin_token), ("confirm", "yes")]).await;
        assert_eq!(status, 303, "{page}");
        let read = app.dispatch().await.get_board_order(app.dispatch_request(ipb::GetBoardOrderRequest { order_id: order_id.clone() }))
            .await.expect("order").into_inner();
        assert_eq!(read.order.expect("order").status(), pb::DeliveryStatus::Pending);
        let last = read.moves.last().expect("moves");
        assert_eq!((last.from_status(), last.to_status(), last.actor.as_str()),
            (pb::DeliveryStatus::CourierAssigned, pb::DeliveryStatus::Pending, "user:admin@example.com"));
        let (_, page, _) = get(&admin, &dispatch).await;
        assert!(page.contains(&format!("id=\"waiting-{order_id}\"")), "{page}");
    }

    async fn dispatchers_call_the_courier_in_one_tap_and_the_audit_log_names_them(app: TestApp) {
        console_user(&app, "ops@example.com", None).await;
        let ops = sign_in(&app, "ops@example.com").await;
        let (pia, _stream) = online_at(&app, "Pia Phone", 0.5, "car").await;
        let pia_id = pia.courier.id.clone();
        let change = ipb::UpdateCourierRequest { courier_id: pia_id.clone(), phone: Some("+49 151 2345 6789".into()), ..Default::default() };
        crate::couriers::couriers(&app).await.update_courier(app.admin_request(change)).await.expect("a phone");
        let tel = "href=\"tel:+4915123456789\">+4915123456789</a>";
        let created = app.create_delivery(&app.live_key, &berlin_delivery()).await;
        let id = created["id"].as_str().expect("id").to_owned();
        let dispatch = app.url("/console/ops/dispatch");
        let job_page = format!("{dispatch}/{id}");
        let (_, page, _) = get(&ops, &job_page).await;
        let token = csrf(&page);
        let (status, _, page) = post(&ops, &format!("{job_page}/assign"), &[("csrf", &token), ("courier_id", &pia_id)]).await;
        assert_eq!(status, 303, "{page}");

        // Under way: the courier's phone beside their name, one tap to call.
        let (_, page, _) = get(&ops, &dispatch).await;
        assert!(page.contains(&format!("Pia Phone <a {tel} · Courier assigned")), "{page}");
        // The job's page and the courier's own page too.
        let (status, page, _) = get(&ops, &job_page).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains(&format!("Pia Phone · <a id=\"courier-phone\" {tel}")), "{page}");
        let (status, page, _) = get(&ops, &app.url(&format!("/console/ops/couriers/{pia_id}"))).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains(&format!("<a id=\"courier-phone\" {tel}")), "{page}");

        // Taken back, then suspended: the audit log names the courier of
        // each entry about them, by name and id.
        let (status, _, page) = post(&ops, &format!("{job_page}/unassign"), &[("csrf", &token), ("confirm", "yes")]).await;
        assert_eq!(status, 303, "{page}");
        crate::couriers::couriers(&app).await.suspend_courier(app.admin_request(ipb::SuspendCourierRequest { courier_id: pia_id.clone() }))
            .await.expect("suspend");
        let (_, audit, _) = get(&ops, &app.url("/console/ops/audit")).await;
        let named = format!("<td data-label=\"Courier\">Pia Phone (<code>{pia_id}</code>)</td>");
        for action in ["courier.update", "job.assign", "job.unassign", "courier.suspend"] {
            let row = audit.split("<tr>").find(|row| row.contains(&format!(">{action}<"))).unwrap_or_else(|| panic!("no {action} entry: {audit}"));
            assert!(row.contains(&named), "{action} names the courier: {row}");
        }
        let row = audit.split("<tr>").find(|row| row.contains(">job.assign<")).expect("job.assign");
        assert!(row.contains(&format!("<code>{id}</code>")), "the job stays the entry's target: {row}");
        // Over gRPC, as the command line and other back offices read it.
        let entries = app.admin().await.list_audit_entries(app.admin_request(ipb::ListAuditEntriesRequest::default()))
            .await.expect("the log").into_inner().entries;
        let unassigned = entries.iter().find(|e| e.action == "job.unassign").expect("job.unassign");
        assert_eq!((unassigned.courier_id.as_deref(), unassigned.courier_name.as_deref()), (Some(pia_id.as_str()), Some("Pia Phone")));
        assert!(entries.iter().filter(|e| e.action.starts_with("workspace.")).all(|e| e.courier_id.is_none()));
    }

    async fn a_handover_blocked_by_wrong_pins_is_flagged_and_an_operator_allows_new_tries(app: TestApp) {
        use crate::dropoff_pin::{dropoff, to_the_dropoff, wrong};
        console_user(&app, "ops@example.com", None).await;
        let ops = sign_in(&app, "ops@example.com").await;
        // A plan without proof of delivery: the PIN is still asked, alone.
        let workspace = app.create_workspace(ipb::WorkspaceKind::Business, ipb::Plan::default()).await;
        let key = app.create_key(&workspace, pb::Mode::Live, &[]).await;
        let mut body = berlin_delivery();
        body["proof_of_delivery"] = serde_json::json!({ "dropoff": { "pin": true } });
        let created = app.create_delivery(&key, &body).await;
        let id = created["id"].as_str().expect("id").to_owned();
        let pin = created["dropoff_pin"].as_str().expect("pin").to_owned();
        let kim = crate::couriers::join(&app, "", "Kim Courier", "kim-ops@example.com", "car").await;
        to_the_dropoff(&app, &kim, &id).await;
        let mut client = kim.client.clone();
        let status = client.complete_handover(kim.request(apb::CompleteHandoverRequest { job_id: id.clone() })).await.expect_err("the PIN first");
        assert_eq!(status.code(), tonic::Code::FailedPrecondition, "{}", status.message());
        let no_files = |pin: &str, n| apb::SubmitProofRequest { files: vec![], ..dropoff(&id, Some(pin), n) };
        for n in 0..5 {
            client.submit_proof(kim.request(no_files(&wrong(&pin), n))).await.expect_err("wrong");
        }

        let dispatch = app.url("/console/ops/dispatch");
        let (_, page, _) = get(&ops, &dispatch).await;
        assert!(page.contains(&format!("id=\"pin-blocked-{id}\">PIN blocked</strong>")), "{page}");
        let job_page = format!("{dispatch}/{id}");
        let (status, page, _) = get(&ops, &job_page).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("id=\"pin-blocked\"") && page.contains("Allow 5 new tries"), "{page}");
        let token = csrf(&page);
        let (status, location, page) = post(&ops, &format!("{job_page}/reset-pin"), &[("csrf", &token)]).await;
        assert_eq!((status, location.as_str()), (303, format!("{job_page}?mode=live").as_str()), "{page}");
        let (_, page, _) = get(&ops, &job_page).await;
        assert!(page.contains("5 new tries") && !page.contains("id=\"pin-blocked\""), "{page}");
        let (_, audit, _) = get(&ops, &app.url("/console/ops/audit")).await;
        assert!(audit.contains(">job.reset_pin<"), "{audit}");

        client.submit_proof(kim.request(no_files(&pin, 9))).await.expect("the right PIN");
        let done = client.complete_handover(kim.request(apb::CompleteHandoverRequest { job_id: id.clone() })).await.expect("handover");
        assert_eq!(done.into_inner().job.expect("job").status(), pb::DeliveryStatus::Delivered);
    }
}
