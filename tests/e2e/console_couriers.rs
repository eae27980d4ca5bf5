//! The console's courier pages over HTTP: a fleet's admin invites a driver
//! (a refusal at its field first), the driver joins and goes online and the
//! list shows it; the admin edits the vehicle, suspends and reactivates; a
//! member reads but a forged invitation is refused and changes nothing;
//! operators manage the platform's couriers under the back office.

use courier::app::v1 as apb;
use courier::internal::v1 as ipb;
use courier_identity::accounts::memberships::{self, Role};
use courier_identity::accounts::{self, NewUser};
use sea_orm::ConnectionTrait;

use crate::console_pages::{PASSWORD, csrf, get, post, sign_in};
use crate::couriers::{app_client, at, couriers};
use crate::harness::TestApp;

/// A console user of `workspace` with `role` (or an operator of none).
pub async fn console_user(app: &TestApp, email: &str, workspace: Option<(&str, Role)>) {
    let now = app.clock.now_micros();
    let new = NewUser {
        email: email.into(),
        name: "Courier Manager".into(),
        password: PASSWORD.into(),
        operator: workspace.is_none(),
    };
    let user = accounts::create_user(&app.core.writer, now, new).await.expect("user");
    if let Some((workspace, role)) = workspace {
        memberships::add(&app.core.writer, now, workspace, &user.id, role)
            .await
            .expect("membership");
    }
}

/// The invitation link a page shows once.
fn invitation_link(page: &str) -> String {
    let start = page.find("id=\"invitation-link\">").expect("an invitation link") + 21;
    page[start..start + page[start..].find('<').expect("end")].to_owned()
}

/// The courier a courier link points at, by the name it shows.
fn courier_id_named(page: &str, name: &str) -> String {
    let end = page.find(&format!("\">{name}</a>")).expect("the courier's link");
    let start = page[..end].rfind('/').expect("link") + 1;
    page[start..end].to_owned()
}

e2e! {
    async fn a_fleet_admin_invites_edits_and_suspends_a_driver_members_only_read(app: TestApp) {
        let (fleet, key) = crate::fleet::fleet(&app, true).await;
        console_user(&app, "admin@example.com", Some((&fleet, Role::Admin))).await;
        console_user(&app, "member@example.com", Some((&fleet, Role::Member))).await;
        let admin = sign_in(&app, "admin@example.com").await;
        let drivers = app.url(&format!("/console/w/{fleet}/couriers"));

        let (status, page, _) = get(&admin, &drivers).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("No drivers yet.") && page.contains("Invite a driver"), "{page}");
        assert!(page.contains(&format!("/console/w/{fleet}/couriers?mode=live\" aria-current=\"page\">Drivers")), "{page}");
        let token = csrf(&page);

        // A phone that is no phone number is refused at its field; what was typed stays.
        let mut form = vec![
            ("csrf", token.as_str()), ("name", "Dara Driver"), ("phone", "call me"), ("email", ""),
            ("vehicle.vehicle_type_id", "cargo_bike"), ("vehicle.make", "Urban Arrow"), ("vehicle.model", ""),
            ("vehicle.color", "green"), ("vehicle.license_plate", ""),
        ];
        let (status, _, page) = post(&admin, &drivers, &form).await;
        assert_eq!(status, 400, "{page}");
        assert!(page.contains("id=\"courier-phone\" name=\"phone\" type=\"tel\" autocomplete=\"off\" value=\"call me\" aria-invalid=\"true\""), "{page}");
        assert!(page.contains("id=\"courier-phone-error\""), "{page}");
        assert!(page.contains("value=\"Dara Driver\""), "{page}");

        // The invitation (post/redirect/get): a link shown once, the driver listed as invited.
        form[2] = ("phone", "+49 151 2345 6789");
        let (status, location, page) = post(&admin, &drivers, &form).await;
        assert_eq!((status, location.as_str()), (303, drivers.as_str()), "{page}");
        let (_, page, _) = get(&admin, &location).await;
        assert!(page.contains("Dara Driver is invited."), "{page}");
        let link = invitation_link(&page);
        assert!(link.contains("/courier/join/"), "{link}");
        assert!(page.contains("Dara Driver</a> <span class=\"muted\">(invited)</span>"), "{page}");
        let (_, page, _) = get(&admin, &drivers).await;
        assert!(!page.contains(&link), "the link is shown only once");
        let courier_id = courier_id_named(&page, "Dara Driver");

        // The driver joins, goes online and reports a position: the list shows it.
        let mut client = app_client(&app).await;
        let joined = client.accept_invitation(apb::AcceptInvitationRequest {
            token: link.rsplit('/').next().expect("token").into(),
            password: crate::couriers::PASSWORD.into(),
        }).await.expect("join").into_inner();
        let driver = crate::couriers::App { client, token: joined.session_token, courier: joined.courier.expect("courier") };
        let mut client = driver.client.clone();
        client.set_availability(driver.request(apb::SetAvailabilityRequest { availability: apb::Availability::Online as i32 })).await.expect("online");
        client.report_locations(driver.request(tokio_stream::iter([
            apb::ReportLocationsRequest { positions: vec![at(&app, 52.5200, 13.4050)] },
        ]))).await.expect("positions");
        let (_, page, _) = get(&admin, &drivers).await;
        assert!(page.contains("status-online\">Online") && page.contains(" s ago</td>"), "{page}");
        assert!(page.contains("Cargo bike · Urban Arrow, green"), "{page}");

        // The overview counts the driver online, and names the order once
        // it has waited for a driver more than five minutes.
        let overview = app.url(&format!("/console/w/{fleet}/overview"));
        let (_, page, _) = get(&admin, &overview).await;
        assert!(page.contains("1 driver online</a>") && !page.contains("waiting for a courier since"), "{page}");
        let old = crate::fleet::create(&app, &key, &crate::fleet::minimal_order()).await;
        let old_id = old["order_id"].as_str().expect("order id");
        app.core.writer.execute_unprepared(&format!(
            "UPDATE fleet_orders SET created_at = created_at - 360000000 WHERE order_id = '{old_id}'"
        )).await.expect("an order placed six minutes ago");
        let (_, page, _) = get(&admin, &overview).await;
        assert!(page.contains(&format!("<code>{old_id}</code></a> waiting for a courier since")), "{page}");


        // The driver's page: the vehicle edited, then suspended and reactivated.
        let driver_page = format!("{drivers}/{courier_id}");
        let (status, page, _) = get(&admin, &driver_page).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("No jobs in the last 24 hours."), "{page}");
        let edit = [
            ("csrf", token.as_str()), ("name", "Dara Driver"), ("phone", "+4915123456789"), ("email", "dara@example.com"),
            ("vehicle.vehicle_type_id", "car"), ("vehicle.make", "Volkswagen"), ("vehicle.model", "Caddy"),
            ("vehicle.color", ""), ("vehicle.license_plate", "B-DD 42"),
        ];
        let (status, location, page) = post(&admin, &driver_page, &edit).await;
        assert_eq!((status, location.as_str()), (303, driver_page.as_str()), "{page}");
        let (_, page, _) = get(&admin, &driver_page).await;
        assert!(page.contains("Car · Volkswagen, Caddy, B-DD 42"), "{page}");
        let unknown: Vec<(&str, &str)> = edit
            .iter()
            .map(|&(k, v)| if k == "vehicle.vehicle_type_id" { (k, "hovercraft") } else { (k, v) })
            .collect();
        let (status, _, page) = post(&admin, &driver_page, &unknown).await;
        assert_eq!(status, 400, "{page}");
        assert!(page.contains("id=\"vehicle-type-error\"") && page.contains("not a vehicle type"), "{page}");

        let (status, _, _) = post(&admin, &format!("{driver_page}/status"), &[("csrf", &token), ("status", "suspended")]).await;
        assert_eq!(status, 400, "suspending asks for the box ticked");
        let (status, _, _) = post(&admin, &format!("{driver_page}/status"), &[("csrf", &token), ("status", "suspended"), ("confirm", "yes")]).await;
        assert_eq!(status, 303);
        let (_, page, _) = get(&admin, &driver_page).await;
        assert!(page.contains("status-suspended\" id=\"courier-availability\">Suspended") && page.contains(">Reactivate</button>"), "{page}");
        let status = client.set_availability(driver.request(apb::SetAvailabilityRequest { availability: apb::Availability::Online as i32 })).await.expect_err("signed out");
        assert_eq!(status.code(), tonic::Code::Unauthenticated);
        let (status, _, _) = post(&admin, &format!("{driver_page}/status"), &[("csrf", &token), ("status", "active")]).await;
        assert_eq!(status, 303);
        let (_, page, _) = get(&admin, &driver_page).await;
        assert!(page.contains("id=\"courier-availability\">Offline") && page.contains(">Suspend</button>"), "{page}");

        // A new link for a driver who forgot the password.
        let (status, location, page) = post(&admin, &format!("{driver_page}/invitation"), &[("csrf", &token)]).await;
        assert_eq!((status, location.as_str()), (303, driver_page.as_str()), "{page}");
        let (_, page, _) = get(&admin, &location).await;
        let link = invitation_link(&page);
        assert!(link.contains("/courier/join/"), "{page}");
        let (_, page, _) = get(&admin, &location).await;
        assert!(!page.contains(&link), "shown only once");

        // A member reads, without forms; a forged invitation is refused.
        let member = sign_in(&app, "member@example.com").await;
        let (status, page, _) = get(&member, &drivers).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("Dara Driver") && !page.contains("Invite a driver"), "{page}");
        let (_, page, _) = get(&member, &driver_page).await;
        assert!(!page.contains(">Suspend</button>") && !page.contains("id=\"edit-courier\""), "{page}");
        let member_token = csrf(&page);
        let forged = [("csrf", member_token.as_str()), ("name", "Fake Driver"), ("phone", "+4915199999999"), ("vehicle.vehicle_type_id", "car")];
        let (status, _, page) = post(&member, &drivers, &forged).await;
        assert_eq!(status, 403, "{page}");
        let (status, _, _) = post(&member, &format!("{driver_page}/status"), &[("csrf", &member_token), ("status", "suspended"), ("confirm", "yes")]).await;
        assert_eq!(status, 403);
        // ... nor may a member put a board order on a driver: no control, and a forged post refused.
        let order = crate::fleet::create(&app, &key, &crate::fleet::minimal_order()).await;
        let order_id = order["order_id"].as_str().expect("order id");
        let (_, board, _) = get(&member, &app.url(&format!("/console/w/{fleet}/board"))).await;
        assert!(board.contains(order_id) && !board.contains("/assign?mode="), "{board}");
        let assign = app.url(&format!("/console/w/{fleet}/board/{order_id}/assign"));
        let (status, _, _) = post(&member, &assign, &[("csrf", &member_token), ("courier_id", &courier_id)]).await;
        assert_eq!(status, 403);
        let (_, board, _) = get(&admin, &app.url(&format!("/console/w/{fleet}/board"))).await;
        assert!(board.contains(&format!("/board/{order_id}/assign?mode=")) && !board.contains("Driver: Dara Driver"), "{board}");

        // The fleet's "assign automatically": owners and admins turn it on; a member reads it and cannot change it.
        assert!(board.contains("id=\"auto-dispatch\" name=\"auto_dispatch\">"), "off by default: {board}");
        let settings = app.url(&format!("/console/w/{fleet}/board/settings"));
        let (status, _, _) = post(&admin, &settings, &[("csrf", &token), ("auto_dispatch", "on")]).await;
        assert_eq!(status, 303);
        let (_, board, _) = get(&admin, &app.url(&format!("/console/w/{fleet}/board"))).await;
        assert!(board.contains("name=\"auto_dispatch\" checked>"), "{board}");
        let (_, board, _) = get(&member, &app.url(&format!("/console/w/{fleet}/board"))).await;
        assert!(board.contains("offered to drivers automatically") && !board.contains("/board/settings"), "{board}");
        let (status, _, _) = post(&member, &settings, &[("csrf", &member_token)]).await;
        assert_eq!(status, 403);
        let read = app.dispatch().await.get_fleet_settings(app.dispatch_request(ipb::GetFleetSettingsRequest { workspace_id: fleet.clone() }))
            .await.expect("settings").into_inner().settings.expect("settings");
        assert!(read.auto_dispatch, "the member's post changed nothing");
        let listed = couriers(&app).await.list_couriers(app.admin_request(ipb::ListCouriersRequest {
            workspace_id: fleet.clone(), page_size: 0, page_token: String::new(),
        })).await.expect("list").into_inner().couriers;
        assert_eq!(listed.len(), 1, "the forged invitation created nobody");
        assert_eq!(listed[0].courier.as_ref().expect("courier").status(), apb::CourierStatus::Active);

        // Another fleet's admin cannot open this fleet's drivers.
        let (other, _) = crate::fleet::fleet(&app, true).await;
        console_user(&app, "other@example.com", Some((&other, Role::Owner))).await;
        let stranger = sign_in(&app, "other@example.com").await;
        let (status, _, _) = get(&stranger, &drivers).await;
        assert_eq!(status, 404);
        let (status, _, _) = get(&stranger, &app.url(&format!("/console/w/{other}/couriers/{courier_id}"))).await;
        assert_eq!(status, 404);
    }

    async fn operators_manage_platform_couriers_in_the_back_office(app: TestApp) {
        console_user(&app, "ops@example.com", None).await;
        console_user(&app, "owner@example.com", Some((&app.workspace_id, Role::Owner))).await;
        let ops = sign_in(&app, "ops@example.com").await;
        let (_, page, _) = get(&ops, &app.url("/console/ops")).await;
        assert!(page.contains("/console/ops/couriers\">Platform couriers</a>"), "{page}");
        let platform = app.url("/console/ops/couriers");
        let (status, page, _) = get(&ops, &platform).await;
        assert_eq!(status, 200, "{page}");
        let token = csrf(&page);
        let form = [
            ("csrf", token.as_str()), ("name", "Pia Platform"), ("phone", ""), ("email", "pia@example.com"),
            // The vehicle as a person types it: the catalogue's name.
            ("vehicle.vehicle_type_id", "Cargo Bike"),
        ];
        let (status, location, page) = post(&ops, &platform, &form).await;
        assert_eq!((status, location.as_str()), (303, platform.as_str()), "{page}");
        let (_, page, _) = get(&ops, &location).await;
        assert!(invitation_link(&page).contains("/courier/join/"), "{page}");
        let id = courier_id_named(&page, "Pia Platform");
        let (status, page, _) = get(&ops, &format!("{platform}/{id}")).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("pia@example.com") && page.contains(">Suspend</button>"), "{page}");
        assert!(page.contains("Cargo bike"), "stored as the catalogue's type: {page}");

        // A business workspace's owner is no operator: the platform's
        // couriers are not theirs to see (as on the core, not found).
        let owner = sign_in(&app, "owner@example.com").await;
        let (status, _, _) = get(&owner, &platform).await;
        assert_eq!(status, 404);
        let (_, owner_page, _) = get(&owner, &app.url(&format!("/console/w/{}/members", app.workspace_id))).await;
        let owner_token = csrf(&owner_page);
        let forged = [("csrf", owner_token.as_str()), ("name", "Fake"), ("email", "fake@example.com"), ("vehicle.vehicle_type_id", "car")];
        let (status, _, _) = post(&owner, &platform, &forged).await;
        assert_eq!(status, 404);
        let listed = couriers(&app).await.list_couriers(app.admin_request(ipb::ListCouriersRequest::default()))
            .await.expect("list").into_inner().couriers;
        let names: Vec<&str> = listed.iter().map(|c| c.courier.as_ref().expect("courier").name.as_str()).collect();
        assert_eq!(names, ["Pia Platform"]);
    }

    async fn a_fleet_admin_sets_the_drivers_pay_rule_and_adds_a_bonus_members_only_read(app: TestApp) {
        let (fleet, _) = crate::fleet::fleet(&app, true).await;
        console_user(&app, "fleet.admin@example.com", Some((&fleet, Role::Admin))).await;
        console_user(&app, "fleet.member@example.com", Some((&fleet, Role::Member))).await;
        let dara = crate::couriers::join(&app, &fleet, "Dara Paid", "dara.pay@example.com", "cargo_bike").await;
        let admin = sign_in(&app, "fleet.admin@example.com").await;
        let pay = app.url(&format!("/console/w/{fleet}/couriers/pay"));
        let (status, page, _) = get(&admin, &pay).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("No pay rule yet"), "{page}");
        let token = csrf(&page);

        // A wrong amount is said at once and nothing is set.
        let wrong = [("csrf", token.as_str()), ("base", "3,00"), ("per_km", "0.90"), ("per_minute", ""), ("waiting_per_minute", "0.25"), ("surcharge_share_percent", "50")];
        let (status, _, page) = post(&admin, &pay, &wrong).await;
        assert_eq!(status, 400, "{page}");
        assert!(page.contains("The base per job is an amount such as 2.50") && page.contains("value=\"3,00\""), "{page}");
        let share = [("csrf", token.as_str()), ("base", "3"), ("surcharge_share_percent", "150")];
        let (status, _, page) = post(&admin, &pay, &share).await;
        assert_eq!(status, 400, "{page}");
        assert!(page.contains("surcharge_share_percent must be between 0 and 100"), "{page}");

        let form = [("csrf", token.as_str()), ("base", "3.00"), ("per_km", "0.90"), ("per_minute", "0.15"), ("waiting_per_minute", "0.25"), ("surcharge_share_percent", "50")];
        let (status, location, page) = post(&admin, &pay, &form).await;
        assert_eq!((status, location.as_str()), (303, pay.as_str()), "{page}");
        let (_, page, _) = get(&admin, &pay).await;
        assert!(page.contains("Version 1 of the pay rule applies to offers from now on."), "{page}");
        assert!(page.contains("3.00 EUR") && page.contains("0.90 EUR") && page.contains("50 %") && page.contains("in force"), "{page}");

        // On the driver's page: this week's earnings, and a bonus.
        let driver_page = app.url(&format!("/console/w/{fleet}/couriers/{}", dara.courier.id));
        let (status, page, _) = get(&admin, &driver_page).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("Nothing earned this week yet."), "{page}");
        let adjustments = format!("{driver_page}/adjustments");
        let bonus = [("csrf", token.as_str()), ("amount", "5.50"), ("reason", "Sunday shift")];
        let (status, location, page) = post(&admin, &adjustments, &bonus).await;
        assert_eq!((status, location.as_str()), (303, driver_page.as_str()), "{page}");
        let (_, page, _) = get(&admin, &driver_page).await;
        assert!(page.contains("5.50 EUR added to the earnings.") && page.contains("Adjustment: Sunday shift"), "{page}");
        let no_reason = [("csrf", token.as_str()), ("amount", "-1.00"), ("reason", "")];
        let (status, _, page) = post(&admin, &adjustments, &no_reason).await;
        assert_eq!(status, 400, "{page}");
        assert!(page.contains("reason must be 1 to 500 characters"), "{page}");

        // A member reads the rules and the earnings, and may change neither.
        let member = sign_in(&app, "fleet.member@example.com").await;
        let (status, page, _) = get(&member, &pay).await;
        assert_eq!(status, 200);
        assert!(!page.contains("id=\"set-pay-rule\""), "{page}");
        let member_token = csrf(&page);
        let (status, _, _) = post(&member, &pay, &[("csrf", member_token.as_str()), ("base", "9.00")]).await;
        assert_eq!(status, 403);
        let (status, _, _) = post(&member, &adjustments, &[("csrf", member_token.as_str()), ("amount", "100"), ("reason", "Mine")]).await;
        assert_eq!(status, 403);
        let week = couriers(&app).await.list_earnings(app.admin_request(ipb::ListEarningsRequest {
            courier_id: dara.courier.id.clone(), period: apb::EarningsPeriod::Week as i32, day: String::new(),
        })).await.expect("earnings").into_inner();
        assert_eq!(week.lines.len(), 1);
        let rules = couriers(&app).await.list_pay_rules(app.admin_request(ipb::ListPayRulesRequest { fleet_id: fleet.clone() }))
            .await.expect("rules").into_inner().rules;
        assert_eq!(rules.len(), 1);
    }
}
