//! The OpenAPI 3.1 document (`GET /v1/openapi.json`) and the interactive
//! reference (`GET /v1/docs`; docs/guide.md "Overview"): the document is valid
//! OpenAPI 3.1, covers every public operation, and describes what the API
//! really answers; the reference needs nothing from another origin.

use std::time::Duration;

use courier::errors::ErrorCode;
use courier::v1::Mode;
use serde_json::{Value, json};

use crate::deliveries::berlin_delivery;
use crate::fleet::{fleet, full_order, minimal_order};
use crate::harness::{Answer, TestApp, unique_suffix, wait_until};
use crate::proofs::pod_workspace;
use crate::quotes::berlin_quote;
use crate::webhooks::{EVENT_TYPES, Receiver, delete, live_delivery, patch};

/// Every path and method of the endpoint table (docs/guide.md "Overview"),
/// path parameters as the guide names them.
const CONTRACT_OPERATIONS: [(&str, &str); 18] = [
    ("get", "/v1/vehicle-types"),
    ("post", "/v1/quotes"),
    ("post", "/v1/deliveries"),
    ("get", "/v1/deliveries"),
    ("get", "/v1/deliveries/{deliveryId}"),
    ("post", "/v1/deliveries/{deliveryId}/cancel"),
    ("get", "/v1/deliveries/{deliveryId}/tracking"),
    ("get", "/v1/deliveries/{deliveryId}/proof-of-delivery"),
    ("post", "/v1/webhooks"),
    ("get", "/v1/webhooks"),
    ("patch", "/v1/webhooks/{webhookId}"),
    ("delete", "/v1/webhooks/{webhookId}"),
    ("post", "/v1/webhooks/{webhookId}/test"),
    ("post", "/v1/webhooks/{webhookId}/replay"),
    ("get", "/v1/events"),
    ("get", "/v1/events/{eventId}"),
    ("post", "/v1/fleet/orders"),
    ("get", "/v1/fleet/orders/{fleetOrderId}"),
];

const HTTP_METHODS: [&str; 8] = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

async fn document(app: &TestApp) -> Value {
    let answer = app.send(app.http.get(app.url("/v1/openapi.json"))).await;
    assert_eq!(answer.status, 200, "{:#}", answer.body);
    assert_eq!(answer.header("content-type"), Some("application/json"));
    assert!(answer.header("request-id").is_some_and(|id| id.starts_with("req_")));
    answer.body
}

/// Validates `instance` against `schema`, a schema inside `doc` whose `$ref`s
/// point into `doc`; panics with every violation.
fn assert_valid(doc: &Value, schema: &Value, instance: &Value, what: &str) {
    let mut root = doc.clone();
    root["$defs"] = json!({ "target": schema });
    root["$ref"] = json!("#/$defs/target");
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&root)
        .unwrap_or_else(|error| panic!("{what}: the schema does not compile: {error}"));
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}\n{instance:#}");
}

/// Checks an answer against the document's response of `method` `path` for
/// its status.
fn assert_documented(doc: &Value, method: &str, path: &str, answer: &Answer) {
    let what = format!("{} {path} -> {}", method.to_uppercase(), answer.status);
    let response = doc["paths"][path][method]["responses"]
        .get(answer.status.to_string())
        .unwrap_or_else(|| panic!("{what} is not documented: {:#}", answer.body));
    let schema = response
        .pointer("/content/application~1json/schema")
        .unwrap_or_else(|| panic!("{what} has no JSON schema"));
    assert_valid(doc, schema, &answer.body, &what);
}

fn webhook_schema<'d>(doc: &'d Value, event_type: &str) -> &'d Value {
    doc["webhooks"][event_type]
        .pointer("/post/requestBody/content/application~1json/schema")
        .unwrap_or_else(|| panic!("webhook {event_type} has no body schema"))
}

e2e! {
    async fn the_document_is_valid_openapi_3_1(app: TestApp) {
        let doc = document(&app).await;
        assert_eq!(doc["openapi"], "3.1.0");
        let oas: Value =
            serde_json::from_str(include_str!("../data/openapi-3.1-schema.json")).expect("OAS 3.1 schema");
        let validator = jsonschema::validator_for(&oas).expect("the OAS 3.1 schema compiles");
        let errors: Vec<String> = validator
            .iter_errors(&doc)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{errors:#?}");

        // The OAS schema checks Schema Objects only loosely: each must also
        // be a valid JSON Schema 2020-12.
        for (name, schema) in doc["components"]["schemas"].as_object().expect("schemas") {
            assert!(jsonschema::meta::is_valid(schema), "{name}: {schema:#}");
        }
    }

    async fn the_document_covers_the_contract(app: TestApp) {
        let doc = document(&app).await;
        let paths = doc["paths"].as_object().expect("paths");
        for (method, path) in CONTRACT_OPERATIONS {
            let operation = &paths.get(path).unwrap_or_else(|| panic!("{path} missing"))[method];
            assert!(operation.is_object(), "{method} {path} missing");
            // Keyed: either scheme will do.
            assert_eq!(
                operation["security"],
                json!([{ "partnerApiKey": [] }, { "partnerBearer": [] }]),
                "{method} {path}"
            );
            let success = if method == "post" && ["/v1/quotes", "/v1/deliveries", "/v1/webhooks", "/v1/fleet/orders"].contains(&path) {
                "201"
            } else {
                "200"
            };
            assert!(operation["responses"][success].is_object(), "{method} {path} {success}");
            for status in ["401", "500", "502", "503"] {
                assert!(operation["responses"][status].is_object(), "{method} {path} {status}");
            }
        }
        // Only public /v1 operations.
        for (path, item) in paths {
            assert!(path.starts_with("/v1/"), "{path}");
            for method in item.as_object().expect("path item").keys() {
                assert!(HTTP_METHODS.contains(&method.as_str()), "{path} {method}");
            }
        }
        assert!(!paths.contains_key("/t/{token}"));

        let create = &paths["/v1/deliveries"]["post"];
        let key = create["parameters"]
            .as_array()
            .expect("parameters")
            .iter()
            .find(|p| p["name"] == "Idempotency-Key")
            .expect("Idempotency-Key");
        assert_eq!((&key["in"], &key["required"]), (&json!("header"), &json!(true)));
        assert_eq!(
            create["responses"]["409"]["content"]["application/json"]["schema"]["allOf"][1]["properties"]["error"]
                ["properties"]["code"]["examples"],
            json!(["idempotency_key_reused", "request_in_progress", "duplicate_external_id"])
        );

        // The code is an open string: every public code of the catalogue is
        // listed, and a code added within v1 still validates.
        let code = &doc["components"]["schemas"]["ErrorDetail"]["properties"]["code"];
        assert_eq!(code["type"], "string");
        assert!(code.get("enum").is_none(), "{code:#}");
        let documented: Vec<&str> = code["examples"].as_array().expect("codes").iter().filter_map(Value::as_str).collect();
        let catalogue: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(documented, catalogue);
        let later = json!({ "error": { "code": "a_code_added_later", "message": "m", "doc_url": "https://x.io/v1/docs/errors#a" }, "request_id": "req_1" });
        assert_valid(&doc, &create["responses"]["409"]["content"]["application/json"]["schema"], &later, "an unknown code");
        for operation in paths.values().flat_map(|item| item.as_object().expect("item").values()) {
            for (status, response) in operation["responses"].as_object().expect("responses") {
                let Some(codes) = response.pointer("/content/application~1json/schema/allOf/1/properties/error/properties/code/examples")
                else {
                    continue;
                };
                for code in codes.as_array().expect("codes") {
                    let code = ErrorCode::parse(code.as_str().expect("code")).expect("a catalogue code");
                    assert_eq!(code.http_status().to_string(), *status, "{}", code.as_str());
                }
            }
        }

        let schemes = &doc["components"]["securitySchemes"];
        assert_eq!(schemes["partnerApiKey"]["type"], "apiKey");
        assert_eq!(schemes["partnerApiKey"]["in"], "header");
        assert_eq!(schemes["partnerApiKey"]["name"], "x-api-key");
        assert_eq!(schemes["partnerBearer"]["type"], "http");
        assert_eq!(schemes["partnerBearer"]["scheme"], "bearer");

        let webhooks = doc["webhooks"].as_object().expect("webhooks");
        let mut names: Vec<&str> = webhooks.keys().map(String::as_str).collect();
        names.sort_unstable();
        let mut expected = EVENT_TYPES.to_vec();
        expected.sort_unstable();
        assert_eq!(names, expected);
        for event_type in EVENT_TYPES {
            let schema = webhook_schema(&doc, event_type);
            assert_eq!(schema["allOf"][0]["$ref"], "#/components/schemas/Event");
            assert_eq!(schema["allOf"][1]["properties"]["type"]["const"], event_type);
        }
    }

    async fn answers_match_their_documented_schemas(app: TestApp) {
        let doc = document(&app).await;
        // Live: no simulator moves the delivery while the test cancels it.
        let key = &app.live_key;

        let vehicle_types = app.get("/v1/vehicle-types", key).await;
        assert_documented(&doc, "get", "/v1/vehicle-types", &vehicle_types);

        let quote = app.post("/v1/quotes", key, &berlin_quote()).await;
        assert_eq!(quote.status, 201, "{:#}", quote.body);
        assert_documented(&doc, "post", "/v1/quotes", &quote);
        let bad_quote = app.post("/v1/quotes", key, &json!({ "pickup": 1 })).await;
        bad_quote.assert_error(400, "invalid_request", Some("pickup"));
        assert_documented(&doc, "post", "/v1/quotes", &bad_quote);

        let mut body = berlin_delivery();
        body["external_id"] = json!(format!("order-{}", unique_suffix()));
        let created = app.post_idempotent("/v1/deliveries", key, &unique_suffix(), &body).await;
        assert_eq!(created.status, 201, "{:#}", created.body);
        assert_documented(&doc, "post", "/v1/deliveries", &created);
        let id = created.body["id"].as_str().expect("id").to_owned();
        let duplicate = app.post_idempotent("/v1/deliveries", key, &unique_suffix(), &body).await;
        duplicate.assert_error(409, "duplicate_external_id", Some("external_id"));
        assert_documented(&doc, "post", "/v1/deliveries", &duplicate);
        let no_key = app.post("/v1/deliveries", key, &berlin_delivery()).await;
        no_key.assert_error(400, "missing_idempotency_key", Some("Idempotency-Key"));
        assert_documented(&doc, "post", "/v1/deliveries", &no_key);

        let one = "/v1/deliveries/{deliveryId}";
        assert_documented(&doc, "get", one, &app.get(&format!("/v1/deliveries/{id}"), key).await);
        let unknown = app.get("/v1/deliveries/del_unknown", key).await;
        unknown.assert_error(404, "not_found", None);
        assert_documented(&doc, "get", one, &unknown);
        let list = app.get("/v1/deliveries?limit=2", key).await;
        assert_documented(&doc, "get", "/v1/deliveries", &list);
        let bad_token = app.get("/v1/deliveries?page_token=forged", key).await;
        bad_token.assert_error(400, "invalid_page_token", Some("page_token"));
        assert_documented(&doc, "get", "/v1/deliveries", &bad_token);
        let tracking = app.get(&format!("/v1/deliveries/{id}/tracking"), key).await;
        assert_documented(&doc, "get", "/v1/deliveries/{deliveryId}/tracking", &tracking);
        let proof = app.get(&format!("/v1/deliveries/{id}/proof-of-delivery"), key).await;
        proof.assert_error(403, "pod_not_available", None);
        assert_documented(&doc, "get", "/v1/deliveries/{deliveryId}/proof-of-delivery", &proof);

        let cancel = "/v1/deliveries/{deliveryId}/cancel";
        let cancel_path = format!("/v1/deliveries/{id}/cancel");
        let cancelled = app.post(&cancel_path, key, &json!({ "reason": "other" })).await;
        assert_eq!(cancelled.status, 200, "{:#}", cancelled.body);
        assert_documented(&doc, "post", cancel, &cancelled);
        let again = app.post(&cancel_path, key, &json!({})).await;
        again.assert_error(409, "conflict", None);
        assert_documented(&doc, "post", cancel, &again);

        let events = app.get(&format!("/v1/events?delivery_id={id}"), key).await;
        assert_documented(&doc, "get", "/v1/events", &events);
        let event_id = events.body["events"][0]["id"].as_str().expect("event id").to_owned();
        let event = app.get(&format!("/v1/events/{event_id}"), key).await;
        assert_documented(&doc, "get", "/v1/events/{eventId}", &event);
        let bad_type = app.get("/v1/events?type=delivery.unknown", key).await;
        bad_type.assert_error(400, "invalid_request", Some("type"));
        assert_documented(&doc, "get", "/v1/events", &bad_type);

        // Authentication refusals.
        let anonymous = app.send(app.http.get(app.url("/v1/deliveries"))).await;
        anonymous.assert_error(401, "missing_api_key", None);
        assert_documented(&doc, "get", "/v1/deliveries", &anonymous);
        let quotes_only = app.create_key(&app.workspace_id, Mode::Live, &["quotes:create"]).await;
        let denied = app.get("/v1/deliveries", &quotes_only).await;
        denied.assert_error(403, "permission_denied", None);
        assert_documented(&doc, "get", "/v1/deliveries", &denied);
    }

    async fn a_simulated_run_matches_the_documented_schemas(app: TestApp) {
        let doc = document(&app).await;
        let key = pod_workspace(&app).await.test_key;
        let mut body = berlin_delivery();
        body["proof_of_delivery"] = json!({ "dropoff": { "photos": 1, "signature": true, "recipient_name": true } });
        let created = app.create_delivery(&key, &body).await;
        let id = created["id"].as_str().expect("id").to_owned();
        let delivered = app.wait_for_status(&key, &id, "delivered", Duration::from_secs(30)).await;
        assert!(delivered["courier"].is_object(), "{delivered:#}");

        assert_documented(&doc, "get", "/v1/deliveries/{deliveryId}", &app.get(&format!("/v1/deliveries/{id}"), &key).await);
        let tracking = app.get(&format!("/v1/deliveries/{id}/tracking"), &key).await;
        assert_documented(&doc, "get", "/v1/deliveries/{deliveryId}/tracking", &tracking);

        let proof = app.get(&format!("/v1/deliveries/{id}/proof-of-delivery"), &key).await;
        assert_eq!(proof.status, 200, "{:#}", proof.body);
        assert_documented(&doc, "get", "/v1/deliveries/{deliveryId}/proof-of-delivery", &proof);
        let link = proof.body["checkpoints"][0]["artifacts"][0]["download_url"].as_str().expect("download_url");
        let file = app.http.get(link).send().await.expect("proof file");
        assert_eq!(file.status(), 200);
        let media = &doc["paths"]["/v1/proof-files/{artifactId}"]["get"]["responses"]["200"]["content"];
        assert!(media["application/octet-stream"].is_object(), "{media:#}");
        let forged = app.send(app.http.get(format!("{link}x"))).await;
        forged.assert_error(404, "not_found", None);
        assert_documented(&doc, "get", "/v1/proof-files/{artifactId}", &forged);

        // Every event of the run, listed and in detail.
        let events = app.get(&format!("/v1/events?delivery_id={id}&limit=100"), &key).await;
        assert_documented(&doc, "get", "/v1/events", &events);
        let listed = events.body["events"].as_array().expect("events");
        assert!(listed.len() >= 7, "{listed:#?}");
        for event in listed {
            let event_id = event["id"].as_str().expect("id");
            assert_documented(&doc, "get", "/v1/events/{eventId}", &app.get(&format!("/v1/events/{event_id}"), &key).await);
        }
    }

    async fn fleet_order_answers_match_their_documented_schemas(app: TestApp) {
        let doc = document(&app).await;
        let (_, key) = fleet(&app, true).await;
        let created = app.post_idempotent("/v1/fleet/orders", &key, &unique_suffix(), &full_order()).await;
        assert_eq!(created.status, 201, "{:#}", created.body);
        assert_documented(&doc, "post", "/v1/fleet/orders", &created);
        let path = format!("/v1/fleet/orders/{}", created.body["id"].as_str().expect("id"));
        assert_documented(&doc, "get", "/v1/fleet/orders/{fleetOrderId}", &app.get(&path, &key).await);

        let mut bad = minimal_order();
        bad["customer"]["phone"] = json!("1");
        let refused = app.post_idempotent("/v1/fleet/orders", &key, &unique_suffix(), &bad).await;
        refused.assert_error(400, "invalid_request", Some("customer.phone"));
        assert_documented(&doc, "post", "/v1/fleet/orders", &refused);
        let business = app.post_idempotent("/v1/fleet/orders", &app.live_key, &unique_suffix(), &minimal_order()).await;
        business.assert_error(403, "fleet_key_required", None);
        assert_documented(&doc, "post", "/v1/fleet/orders", &business);
        let unknown = app.get("/v1/fleet/orders/flo_unknown", &key).await;
        unknown.assert_error(404, "not_found", None);
        assert_documented(&doc, "get", "/v1/fleet/orders/{fleetOrderId}", &unknown);
    }

    async fn webhook_answers_and_payloads_match_their_schemas(app: TestApp) {
        let doc = document(&app).await;
        let key = &app.live_key;
        let receiver = Receiver::start().await;
        let created = app.post("/v1/webhooks", key, &json!({ "url": receiver.url, "events": [] })).await;
        assert_eq!(created.status, 201, "{:#}", created.body);
        assert_documented(&doc, "post", "/v1/webhooks", &created);
        let id = created.body["id"].as_str().expect("id").to_owned();
        let refused = app.post("/v1/webhooks", key, &json!({ "url": "ftp://example.com/hook" })).await;
        refused.assert_error(400, "invalid_webhook_url", Some("url"));
        assert_documented(&doc, "post", "/v1/webhooks", &refused);

        assert_documented(&doc, "get", "/v1/webhooks", &app.get("/v1/webhooks", key).await);
        let one = "/v1/webhooks/{webhookId}";
        let path = format!("/v1/webhooks/{id}");
        let changed = patch(&app, &path, key, &json!({ "description": "Orders" })).await;
        assert_eq!(changed.status, 200, "{:#}", changed.body);
        assert_documented(&doc, "patch", one, &changed);
        let null_url = patch(&app, &path, key, &json!({ "url": null })).await;
        null_url.assert_error(400, "invalid_request", Some("url"));
        assert_documented(&doc, "patch", one, &null_url);

        // Real events (a create and a change), and the sample event, as the
        // receiver got them.
        let delivery_id = live_delivery(&app).await;
        let change = app.http.patch(app.url(&format!("/v1/deliveries/{delivery_id}"))).header("x-api-key", key.as_str()).header("idempotency-key", unique_suffix());
        let changed_delivery = app.send(change.json(&json!({ "notes": "Side door." }))).await;
        assert_eq!(changed_delivery.status, 200, "{:#}", changed_delivery.body);
        assert_documented(&doc, "patch", "/v1/deliveries/{deliveryId}", &changed_delivery);
        let sample = app.post(&format!("{path}/test"), key, &json!({})).await;
        assert_eq!(sample.status, 200, "{:#}", sample.body);
        assert!(sample.body["succeeded"].as_bool().expect("succeeded"), "{:#}", sample.body);
        assert_documented(&doc, "post", "/v1/webhooks/{webhookId}/test", &sample);
        let received = receiver.wait_for(3, Duration::from_secs(10)).await;
        let mut types = Vec::new();
        for request in &received {
            let body = request.json();
            let event_type = body["type"].as_str().expect("type").to_owned();
            assert_valid(&doc, webhook_schema(&doc, &event_type), &body, &event_type);
            types.push(event_type);
        }
        assert!(types.contains(&"delivery.created".to_owned()), "{types:?}");
        assert!(types.contains(&"delivery.status_updated".to_owned()), "{types:?}");
        assert!(types.contains(&"delivery.updated".to_owned()), "{types:?}");

        // The real event's attempt record.
        let created_event = received
            .iter()
            .map(|request| request.json())
            .find(|body| body["type"] == "delivery.created")
            .expect("delivery.created");
        let event_path = format!("/v1/events/{}", created_event["id"].as_str().expect("id"));
        let details = wait_until(format!("an attempt on {event_path}"), Duration::from_secs(10), async || {
            let details = app.get(&event_path, key).await;
            if details.body["webhook_attempts"].as_array().is_some_and(|a| !a.is_empty()) {
                Ok(details)
            } else {
                Err(details.body)
            }
        })
        .await;
        assert_eq!(details.body["webhook_attempts"][0]["status"], "succeeded");
        assert_documented(&doc, "get", "/v1/events/{eventId}", &details);

        let replayed = app.post(&format!("{path}/replay"), key, &json!({})).await;
        assert_documented(&doc, "post", "/v1/webhooks/{webhookId}/replay", &replayed);
        let disabled = patch(&app, &path, key, &json!({ "status": "disabled" })).await;
        assert_documented(&doc, "patch", one, &disabled);
        let refused_test = app.post(&format!("{path}/test"), key, &json!({})).await;
        refused_test.assert_error(409, "endpoint_disabled", None);
        assert_documented(&doc, "post", "/v1/webhooks/{webhookId}/test", &refused_test);

        let deleted = delete(&app, &path, key).await;
        assert_documented(&doc, "delete", one, &deleted);
        let gone = delete(&app, &path, key).await;
        gone.assert_error(404, "not_found", None);
        assert_documented(&doc, "delete", one, &gone);
    }

    async fn the_reference_is_served_without_third_party_resources(app: TestApp) {
        for page_path in ["/v1/docs", "/v1/docs/"] {
            let page_url = app.url(page_path);
            let response = app.http.get(&page_url).send().await.expect("docs page");
            assert_eq!(response.status(), 200, "{page_path}");
            let content_type = response.headers()["content-type"].to_str().expect("ascii").to_owned();
            assert!(content_type.starts_with("text/html"), "{content_type}");
            let policy = response.headers()["content-security-policy"].to_str().expect("ascii");
            assert!(policy.starts_with("default-src 'self';"), "{policy}");
            let page = response.text().await.expect("html");

            let page_url = reqwest::Url::parse(&page_url).expect("url");
            let base = match attribute_values(&page, "<base", "href").first() {
                Some(href) => page_url.join(href).expect("base href"),
                None => page_url.clone(),
            };
            let assets: Vec<String> = ["src", "href"]
                .into_iter()
                .flat_map(|name| attribute_values(&page, "<", name))
                .filter(|value| !value.starts_with('#'))
                .collect();
            assert!(assets.iter().any(|a| a.ends_with(".js")), "{page}");
            for asset in assets {
                assert!(
                    !asset.starts_with("//") && !asset.contains("://"),
                    "{page_path} refers to another origin: {asset}"
                );
                let url = base.join(&asset).expect("asset url");
                assert_eq!(url.origin(), page_url.origin(), "{asset}");
                let answer = app.http.get(url.clone()).send().await.expect("asset");
                assert_eq!(answer.status(), 200, "{url}");
            }
        }

        // The initializer loads this service's document and nothing else.
        let initializer = app
            .http
            .get(app.url("/v1/docs/swagger-initializer.js"))
            .send()
            .await
            .expect("initializer")
            .text()
            .await
            .expect("text");
        assert!(initializer.contains("\"/v1/openapi.json\""), "{initializer}");
        assert!(!initializer.contains("://"), "{initializer}");

        let missing = app.send(app.http.get(app.url("/v1/docs/nothing.js"))).await;
        missing.assert_error(404, "not_found", None);
    }
}

/// The values of attribute `name` in the tags of `html` that start with
/// `tag_start` (`"<"` for every tag).
fn attribute_values(html: &str, tag_start: &str, name: &str) -> Vec<String> {
    let mut values = Vec::new();
    for tag in html
        .split('<')
        .skip(1)
        .map(|rest| format!("<{}", rest.split('>').next().unwrap_or_default()))
    {
        if !tag.starts_with(tag_start) {
            continue;
        }
        let needle = format!(" {name}=\"");
        if let Some(start) = tag.find(&needle).map(|i| i + needle.len())
            && let Some(end) = tag[start..].find('"')
        {
            values.push(tag[start..start + end].to_owned());
        }
    }
    values
}

e2e! {
    async fn the_document_states_the_request_rules(app: TestApp) {
        let doc = document(&app).await;
        let schemas = &doc["components"]["schemas"];
        let property = |schema: &str, name: &str| schemas[schema]["properties"][name].clone();
        assert_eq!((property("Address", "address")["minLength"].clone(), property("Address", "address")["maxLength"].clone()), (json!(3), json!(500)));
        assert_eq!(property("WaypointInput", "latitude")["minimum"], json!(-90.0));
        assert_eq!(property("WaypointInput", "longitude")["maximum"], json!(180.0));
        assert_eq!(property("CreateDeliveryRequest", "stops")["maxItems"], json!(10));
        assert_eq!(property("CreateQuoteRequest", "extras")["maxItems"], json!(20));
        assert_eq!((property("CreateQuoteRequest", "items")["minItems"].clone(), property("CreateQuoteRequest", "items")["maxItems"].clone()), (json!(1), json!(100)));
        assert_eq!(property("CreateWebhookEndpointRequest", "events")["uniqueItems"], json!(true));
        assert_eq!(property("CreateWebhookEndpointRequest", "url")["format"], "uri");
        assert_eq!(property("ContactInput", "email")["format"], "email");
        assert!(property("ContactInput", "phone")["pattern"].is_string());
        assert!(property("CreateFleetOrderRequest", "requested_pickup_time")["pattern"].is_string());
        // Cross-field: no age check on goods left at the door.
        let both = json!({ "leave_at_door": true, "age_check": true });
        let mut root = doc.clone();
        root["$ref"] = json!("#/components/schemas/DropoffProofInput");
        let validator = jsonschema::validator_for(&root).expect("compiles");
        assert!(!validator.is_valid(&both));
        assert!(validator.is_valid(&json!({ "leave_at_door": true, "age_check": false })));
        // A delivery's pickup and dropoff need their contact; a stop does not.
        let waypoint = &schemas["DeliveryWaypoint"];
        assert!(waypoint["required"].as_array().expect("required").contains(&json!("contact")));
        assert_eq!(property("CreateDeliveryRequest", "pickup")["$ref"], "#/components/schemas/DeliveryWaypoint");
        assert_eq!(property("CreateDeliveryRequest", "stops")["items"]["$ref"], "#/components/schemas/WaypointInput");
        let key = doc["paths"]["/v1/deliveries"]["post"]["parameters"].as_array().expect("parameters").iter()
            .find(|p| p["name"] == "Idempotency-Key").expect("Idempotency-Key").clone();
        assert_eq!((key["schema"]["minLength"].clone(), key["schema"]["maxLength"].clone()), (json!(1), json!(255)));
    }

    async fn every_example_request_succeeds(app: TestApp) {
        let doc = document(&app).await;
        let fleet = app.create_workspace(courier::internal::v1::WorkspaceKind::Fleet, courier::internal::v1::Plan { api_access: true, fleet_order_intake: true, ..Default::default() }).await;
        let fleet_key = app.create_key(&fleet, courier::v1::Mode::Live, &[]).await;
        let example = |method: &str, path: &str| -> Value {
            let operation = &doc["paths"][path][method];
            let body = operation.pointer("/requestBody/content/application~1json/example").cloned().unwrap_or_else(|| panic!("{method} {path} has no example"));
            let schema = operation.pointer("/requestBody/content/application~1json/schema").expect("schema");
            assert_valid(&doc, schema, &body, &format!("the example of {method} {path}"));
            body
        };
        let created = |answer: Answer, what: &str| -> Value {
            assert_eq!(answer.status, 201, "{what}: {:#}", answer.body);
            answer.body
        };
        created(app.post("/v1/quotes", &app.test_key, &example("post", "/v1/quotes")).await, "quote");
        let delivery = created(app.post_idempotent("/v1/deliveries", &app.live_key, &unique_suffix(), &example("post", "/v1/deliveries")).await, "delivery");
        let change = app.http.patch(app.url(&format!("/v1/deliveries/{}", delivery["id"].as_str().expect("id")))).header("x-api-key", &app.live_key).header("idempotency-key", unique_suffix());
        let changed = app.send(change.json(&example("patch", "/v1/deliveries/{deliveryId}"))).await;
        assert_eq!(changed.status, 200, "{:#}", changed.body);
        let cancel = app.post(&format!("/v1/deliveries/{}/cancel", delivery["id"].as_str().expect("id")), &app.live_key, &example("post", "/v1/deliveries/{deliveryId}/cancel")).await;
        assert_eq!(cancel.status, 200, "{:#}", cancel.body);
        // The endpoint's public address is never sent to: test mode, where
        // this test makes no event.
        let endpoint = created(app.post("/v1/webhooks", &app.test_key, &example("post", "/v1/webhooks")).await, "webhook");
        let path = format!("/v1/webhooks/{}", endpoint["id"].as_str().expect("id"));
        let patched = app.send(app.http.patch(app.url(&path)).header("x-api-key", &app.test_key).json(&example("patch", "/v1/webhooks/{webhookId}"))).await;
        assert_eq!(patched.status, 200, "{:#}", patched.body);
        let replayed = app.post(&format!("{path}/replay"), &app.test_key, &example("post", "/v1/webhooks/{webhookId}/replay")).await;
        assert_eq!((replayed.status, replayed.body["queued"].clone()), (200, json!(0)), "{:#}", replayed.body);
        example("post", "/v1/webhooks/{webhookId}/test");
        created(app.post_idempotent("/v1/fleet/orders", &fleet_key, &unique_suffix(), &example("post", "/v1/fleet/orders")).await, "fleet order");
    }
}
