//! `GET /v1/vehicle-types` and `POST /v1/quotes` (docs/guide.md
//! "Vehicle types and pricing", "Quotes", "Limits").

use serde_json::{Value, json};

use crate::harness::TestApp;

pub fn place(address: &str, latitude: f64, longitude: f64) -> Value {
    json!({ "address": address, "latitude": latitude, "longitude": longitude })
}

pub fn alexanderplatz() -> Value {
    place("Alexanderplatz 1, 10178 Berlin", 52.5219, 13.4132)
}

pub fn kreuzberg() -> Value {
    place("Oranienstraße 25, 10999 Berlin", 52.5010, 13.4190)
}

/// A valid quote request inside Berlin.
pub fn berlin_quote() -> Value {
    json!({ "pickup": alexanderplatz(), "dropoff": kreuzberg(), "vehicle_type_id": "car" })
}

fn item(weight_kg: f64, length_cm: f64, width_cm: f64, height_cm: f64) -> Value {
    json!({ "description": "box", "quantity": 1, "weight_kg": weight_kg, "length_cm": length_cm, "width_cm": width_cm, "height_cm": height_cm })
}

/// An RFC 3339 time `minutes` from now (test clock).
fn in_minutes(app: &TestApp, minutes: i64) -> String {
    courier::time::format_rfc3339(app.clock.now() + chrono::Duration::minutes(minutes))
}

/// The next instant after `from` (at least 10 minutes ahead) whose UTC time of
/// day is `hour`:`minute` and, if given, whose UTC weekday is `weekday`
/// (0 = Monday).
fn next_utc(from_unix: i64, hour: i64, minute: i64, weekday: Option<i64>) -> String {
    let mut day = from_unix.div_euclid(86_400);
    loop {
        let at = day * 86_400 + hour * 3600 + minute * 60;
        // 1970-01-01 was a Thursday (weekday 3).
        let day_of_week = (day + 3).rem_euclid(7);
        if at > from_unix + 600 && weekday.is_none_or(|w| w == day_of_week) {
            return courier::time::format_rfc3339(courier::time::from_micros(at * 1_000_000));
        }
        day += 1;
    }
}

async fn quote(app: &TestApp, body: &Value) -> crate::harness::Answer {
    app.post("/v1/quotes", &app.test_key, body).await
}

#[track_caller]
fn assert_identity(quote: &Value) {
    let b = &quote["breakdown"];
    let extras: i64 = b["extras"]
        .as_array()
        .expect("extras")
        .iter()
        .map(|e| e["amount_cents"].as_i64().expect("cents"))
        .sum();
    let total = b["route_cents"].as_i64().expect("route") + extras - b["discount_cents"].as_i64().expect("discount")
        + b["service_fee_cents"].as_i64().expect("fee");
    assert_eq!(quote["amount_cents"].as_i64(), Some(total), "{quote:#}");
}

e2e! {
    async fn vehicle_types_list_the_catalogue(app: TestApp) {
        let answer = app.get("/v1/vehicle-types", &app.live_key).await;
        assert_eq!(answer.status, 200);
        let ids: Vec<&str> = answer.body["vehicle_types"].as_array().expect("list").iter().map(|v| v["id"].as_str().expect("id")).collect();
        assert_eq!(ids, ["bicycle", "cargo_bike", "car", "small_van", "large_van"]);
        let car = &answer.body["vehicle_types"][2];
        for field in ["name", "description", "max_weight_kg", "max_length_cm", "max_width_cm", "max_height_cm", "extras"] {
            assert!(!car[field].is_null(), "{field} missing");
        }
        let max_jobs: Vec<i64> = answer.body["vehicle_types"].as_array().expect("list").iter().map(|v| v["max_jobs"].as_i64().expect("max_jobs")).collect();
        assert_eq!(max_jobs, [2, 3, 5, 15, 30], "the catalogue's jobs at once");
        let insurance = car["extras"].as_array().expect("extras").iter().find(|e| e["id"] == "insurance").expect("insurance");
        assert!(insurance["unit_amount_cents"].is_null());
        assert!(insurance["options"][0]["unit_amount_cents"].as_i64().is_some());
    }

    async fn quote_happy_path(app: TestApp) {
        let mut body = berlin_quote();
        body["stops"] = json!([place("Potsdamer Platz 1, 10785 Berlin", 52.5096, 13.3759)]);
        body["extras"] = json!([{"extra_id": "insurance", "option_id": "premium"}, {"extra_id": "waiting_time", "quantity": 3}]);
        body["items"] = json!([item(20.0, 60.0, 40.0, 40.0)]);
        let answer = quote(&app, &body).await;
        assert_eq!(answer.status, 201, "{:#}", answer.body);
        let q = &answer.body;
        assert!(q["id"].as_str().expect("id").starts_with("quo_"));
        assert_eq!(q["currency"], "EUR");
        assert_eq!(q["tax_behavior"], "inclusive");
        assert!(q["distance_km"].as_f64().expect("km") > 1.0);
        assert!(q["duration_min"].as_i64().expect("min") >= 1);
        assert_eq!(q["breakdown"]["extras"].as_array().expect("extras").len(), 2);
        assert_eq!(q["breakdown"]["extras"][1]["amount_cents"].as_i64(), Some(3 * q["breakdown"]["extras"][1]["unit_amount_cents"].as_i64().expect("unit")));
        assert_identity(q);
        let created = chrono_parse(q["created_at"].as_str().expect("created"));
        let valid_until = chrono_parse(q["valid_until"].as_str().expect("valid_until"));
        assert_eq!(valid_until - created, 300);
        assert!(q["created_at"].as_str().expect("t").ends_with('Z'));
    }

    async fn quote_surcharges_in_local_time(app: TestApp) {
        let now = app.clock.now().timestamp();
        // 23:30 UTC is 00:30 or 01:30 in Berlin: night.
        let mut body = berlin_quote();
        body["scheduled_at"] = json!(next_utc(now, 23, 30, Some(1)));
        let night = quote(&app, &body).await;
        assert_eq!(night.status, 201, "{:#}", night.body);
        let codes: Vec<&str> = night.body["breakdown"]["surcharges"].as_array().expect("s").iter().map(|s| s["code"].as_str().expect("code")).collect();
        assert!(codes.contains(&"night_surcharge"), "{codes:?}");
        assert_identity(&night.body);
        // Sunday 11:00 UTC is midday Sunday in Berlin.
        body["scheduled_at"] = json!(next_utc(now, 11, 0, Some(6)));
        let sunday = quote(&app, &body).await;
        let codes: Vec<&str> = sunday.body["breakdown"]["surcharges"].as_array().expect("s").iter().map(|s| s["code"].as_str().expect("code")).collect();
        assert!(codes.contains(&"sunday_surcharge") && !codes.contains(&"night_surcharge"), "{codes:?}");
        let surcharge: i64 = sunday.body["breakdown"]["surcharges"].as_array().expect("s").iter().map(|s| s["amount_cents"].as_i64().expect("c")).sum();
        assert!(surcharge > 0);
        assert_identity(&sunday.body);
    }

    async fn waypoint_limits(app: TestApp) {
        let check = |param: &'static str| move |answer: crate::harness::Answer| answer.assert_error(400, "invalid_request", Some(param));
        let mut body = berlin_quote();
        body["pickup"]["address"] = json!("abc");
        assert_eq!(quote(&app, &body).await.status, 201);
        body["pickup"]["address"] = json!("ab");
        check("pickup.address")(quote(&app, &body).await);
        body["pickup"]["address"] = json!("a".repeat(500));
        assert_eq!(quote(&app, &body).await.status, 201);
        body["pickup"]["address"] = json!("a".repeat(501));
        check("pickup.address")(quote(&app, &body).await);

        let mut body = berlin_quote();
        body["dropoff"]["latitude"] = json!(90.000001);
        check("dropoff.latitude")(quote(&app, &body).await);
        body["dropoff"]["latitude"] = json!(-90.5);
        check("dropoff.latitude")(quote(&app, &body).await);
        let mut body = berlin_quote();
        body["dropoff"]["longitude"] = json!(180.0001);
        check("dropoff.longitude")(quote(&app, &body).await);

        let stop = place("Potsdamer Platz 1, 10785 Berlin", 52.5096, 13.3759);
        let mut body = berlin_quote();
        body["stops"] = json!(vec![stop.clone(); 10]);
        assert_eq!(quote(&app, &body).await.status, 201);
        body["stops"] = json!(vec![stop; 11]);
        check("stops")(quote(&app, &body).await);

        let mut body = berlin_quote();
        body["vehicle_type_id"] = json!("");
        check("vehicle_type_id")(quote(&app, &body).await);
        body["vehicle_type_id"] = json!("spaceship");
        check("vehicle_type_id")(quote(&app, &body).await);
    }

    async fn scheduled_at_window(app: TestApp) {
        let mut body = berlin_quote();
        body["scheduled_at"] = json!(in_minutes(&app, 2));
        assert_eq!(quote(&app, &body).await.status, 201);
        body["scheduled_at"] = json!(courier::time::format_rfc3339(app.clock.now() + chrono::Duration::seconds(30)));
        quote(&app, &body).await.assert_error(400, "invalid_request", Some("scheduled_at"));
        body["scheduled_at"] = json!(in_minutes(&app, 29 * 24 * 60));
        assert_eq!(quote(&app, &body).await.status, 201);
        body["scheduled_at"] = json!(in_minutes(&app, 30 * 24 * 60 + 5));
        quote(&app, &body).await.assert_error(400, "invalid_request", Some("scheduled_at"));
        body["scheduled_at"] = json!("tomorrow at noon");
        quote(&app, &body).await.assert_error(400, "invalid_request", Some("scheduled_at"));
    }

    async fn extras_rules(app: TestApp) {
        let mut body = berlin_quote();
        body["extras"] = json!([{"extra_id": "insurance"}]);
        quote(&app, &body).await.assert_error(400, "invalid_request", Some("extras.0.option_id"));
        body["extras"] = json!([{"extra_id": "cooling_box"}, {"extra_id": "teleport"}]);
        quote(&app, &body).await.assert_error(400, "invalid_request", Some("extras.1.extra_id"));
        body["extras"] = json!([{"extra_id": "cooling_box", "quantity": 0}]);
        quote(&app, &body).await.assert_error(400, "invalid_request", Some("extras.0.quantity"));
        body["extras"] = json!(vec![json!({"extra_id": "cooling_box"}); 21]);
        quote(&app, &body).await.assert_error(400, "invalid_request", Some("extras"));
        let answer = {
            body["extras"] = json!(vec![json!({"extra_id": "cooling_box"}); 20]);
            quote(&app, &body).await
        };
        assert_ne!(answer.param(), Some("extras"), "20 extras are within the limit");
        // A bicycle offers no extra helper.
        let mut body = berlin_quote();
        body["vehicle_type_id"] = json!("bicycle");
        body["extras"] = json!([{"extra_id": "extra_helper"}]);
        quote(&app, &body).await.assert_error(400, "invalid_request", Some("extras.0.extra_id"));
    }

    async fn item_limits_and_fit(app: TestApp) {
        let good = item(1.0, 10.0, 10.0, 10.0);
        let mut body = berlin_quote();
        body["items"] = json!(vec![good.clone(); 100]);
        assert_eq!(quote(&app, &body).await.status, 201);
        body["items"] = json!(vec![good.clone(); 101]);
        quote(&app, &body).await.assert_error(400, "invalid_request", Some("items"));
        body["items"] = json!([]);
        quote(&app, &body).await.assert_error(400, "invalid_request", Some("items"));

        let mut long = good.clone();
        long["description"] = json!("d".repeat(200));
        body["items"] = json!([long.clone()]);
        assert_eq!(quote(&app, &body).await.status, 201);
        long["description"] = json!("d".repeat(201));
        body["items"] = json!([long]);
        quote(&app, &body).await.assert_error(400, "invalid_request", Some("items.0.description"));

        let mut many = good.clone();
        many["quantity"] = json!(1000);
        many["weight_kg"] = json!(0.1);
        many["length_cm"] = json!(1.0);
        many["width_cm"] = json!(1.0);
        many["height_cm"] = json!(1.0);
        body["items"] = json!([many.clone()]);
        assert_eq!(quote(&app, &body).await.status, 201);
        many["quantity"] = json!(1001);
        body["items"] = json!([many]);
        quote(&app, &body).await.assert_error(400, "invalid_items", Some("items.0.quantity"));

        body["items"] = json!([good.clone(), item(0.0, 10.0, 10.0, 10.0)]);
        quote(&app, &body).await.assert_error(400, "invalid_items", Some("items.1.weight_kg"));
        body["items"] = json!([item(1.0, -5.0, 10.0, 10.0)]);
        quote(&app, &body).await.assert_error(400, "invalid_items", Some("items.0.length_cm"));

        let mut bike = berlin_quote();
        bike["vehicle_type_id"] = json!("bicycle");
        bike["items"] = json!([item(11.0, 10.0, 10.0, 10.0)]);
        let answer = quote(&app, &bike).await;
        assert_eq!((answer.status, answer.code()), (400, "vehicle_does_not_fit"), "{:#}", answer.body);
        bike["items"] = json!([item(1.0, 50.0, 50.0, 50.0)]);
        quote(&app, &bike).await.assert_error(400, "vehicle_does_not_fit", Some("items.0"));
        // Rotated, a long flat item fits a backpack.
        bike["items"] = json!([item(1.0, 20.0, 44.0, 5.0)]);
        assert_eq!(quote(&app, &bike).await.status, 201);
    }

    async fn service_areas(app: TestApp) {
        let paris = place("Rue de Rivoli 1, 75001 Paris", 48.8566, 2.3522);
        let amsterdam = place("Dam 1, 1012 JS Amsterdam", 52.3731, 4.8926);
        let mut body = berlin_quote();
        body["pickup"] = paris.clone();
        quote(&app, &body).await.assert_error(400, "service_area_unavailable", Some("pickup"));
        let mut body = berlin_quote();
        body["stops"] = json!([kreuzberg(), paris]);
        quote(&app, &body).await.assert_error(400, "service_area_unavailable", Some("stops.1"));
        let mut body = berlin_quote();
        body["dropoff"] = amsterdam.clone();
        quote(&app, &body).await.assert_error(400, "service_area_unavailable", Some("dropoff"));
        let body = json!({"pickup": amsterdam, "dropoff": place("Museumplein 6, 1071 DJ Amsterdam", 52.3580, 4.8811), "vehicle_type_id": "cargo_bike"});
        let answer = quote(&app, &body).await;
        assert_eq!(answer.status, 201, "{:#}", answer.body);
        assert_identity(&answer.body);
    }
}

fn chrono_parse(text: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(text)
        .expect("RFC 3339")
        .timestamp()
}
