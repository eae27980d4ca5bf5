//! Bulk creates (docs/guide.md "Create in bulk"): `POST /v1/deliveries/batch`
//! creates each item or refuses it on its own, in order, each under its own
//! idempotency key; a replay answers each item from its key; two identical
//! batches at once create each delivery once; the credit runs out at the
//! right item; the rate limit counts each item.

use serde_json::{Value, json};

use crate::billing::billed_workspace;
use crate::deliveries::berlin_delivery;
use crate::harness::{Answer, TestApp, unique_suffix};
use courier_edge::ratelimit::RateLimitConfig;

/// `POST /v1/deliveries/batch` with `key` on `url`.
async fn batch_at(app: &TestApp, url: String, key: &str, items: &[Value]) -> Answer {
    let request = app.http.post(url).header("x-api-key", key);
    app.send(request.json(&json!({ "deliveries": items }))).await
}

async fn batch(app: &TestApp, key: &str, items: &[Value]) -> Answer {
    batch_at(app, app.url("/v1/deliveries/batch"), key, items).await
}

/// `count` Berlin deliveries, each with a key of its own under `prefix`.
fn items(prefix: &str, count: usize) -> Vec<Value> {
    (0..count)
        .map(|i| {
            let mut item = berlin_delivery();
            item["idempotency_key"] = json!(format!("{prefix}-{i}"));
            item["external_id"] = json!(format!("{prefix}-{i}"));
            item
        })
        .collect()
}

/// The results of a batch's answer.
fn results(answer: &Answer) -> Vec<Value> {
    assert_eq!(answer.status, 200, "{:#}", answer.body);
    answer.body["results"].as_array().expect("results").clone()
}

/// Each result's delivery id, or its error's (code, param).
fn outcomes(results: &[Value]) -> Vec<Result<String, (String, String)>> {
    results
        .iter()
        .map(|result| match (result["delivery"]["id"].as_str(), &result["error"]) {
            (Some(id), Value::Null) => Ok(id.to_owned()),
            (None, error) => Err((
                error["code"].as_str().expect("code").to_owned(),
                error["param"].as_str().expect("param").to_owned(),
            )),
            other => panic!("a result is a delivery or an error: {other:?}"),
        })
        .collect()
}

e2e! {
    async fn a_batch_creates_each_good_item_names_each_bad_one_and_answers_the_same_again(app: TestApp) {
        let prefix = unique_suffix();
        let mut sent = items(&prefix, 100);
        sent[7]["pickup"]["latitude"] = json!(95.0);
        sent[42].as_object_mut().expect("object").remove("idempotency_key");
        sent[99]["colour"] = json!("red");
        let first = batch(&app, &app.test_key, &sent).await;
        let answered = outcomes(&results(&first));
        assert_eq!(answered.len(), 100);
        let refused: Vec<_> = answered.iter().enumerate().filter_map(|(i, o)| o.as_ref().err().map(|e| (i, e.clone()))).collect();
        assert_eq!(
            refused,
            vec![
                (7, ("invalid_request".to_owned(), "deliveries.7.pickup.latitude".to_owned())),
                (42, ("missing_idempotency_key".to_owned(), "deliveries.42.idempotency_key".to_owned())),
                (99, ("invalid_request".to_owned(), "deliveries.99.colour".to_owned())),
            ]
        );
        let error = &results(&first)[7]["error"];
        assert!(error["doc_url"].as_str().expect("doc_url").ends_with("/v1/docs/errors#invalid_request"), "{error}");
        assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()));
        // In order, each the delivery a create would answer.
        let created = &results(&first)[3]["delivery"];
        assert_eq!((created["external_id"].as_str(), created["status"].as_str()), (Some(format!("{prefix}-3").as_str()), Some("pending")));
        let read = app.get(&format!("/v1/deliveries/{}", created["id"].as_str().expect("id")), &app.test_key).await;
        assert_eq!(read.body["external_id"], created["external_id"]);

        // Sent again: each item answered from its key, nothing created twice.
        let again = outcomes(&results(&batch(&app, &app.test_key, &sent).await));
        assert_eq!(again, answered);
        // A single create with an item's key and body answers its delivery.
        let mut single = sent[3].clone();
        single.as_object_mut().expect("object").remove("idempotency_key");
        let replayed = app.post_idempotent("/v1/deliveries", &app.test_key, &format!("{prefix}-3"), &single).await;
        assert_eq!(replayed.body["id"], created["id"], "{:#}", replayed.body);
        let listed = app.get(&format!("/v1/deliveries?external_id={prefix}-3"), &app.test_key).await;
        assert_eq!(listed.body["deliveries"].as_array().expect("deliveries").len(), 1);

        // A control character is refused by the text check of the whole call.
        let mut bad_text = items(&unique_suffix(), 5);
        bad_text[3]["notes"] = json!("a\u{0}b");
        let refused = batch(&app, &app.test_key, &bad_text).await;
        refused.assert_error(400, "invalid_request", Some("deliveries.3.notes"));

        // What no item can be: an empty or oversized batch, a body that is none.
        for body in [json!({ "deliveries": [] }), json!({ "deliveries": items(&prefix, 101) }), json!({ "orders": [] })] {
            let request = app.http.post(app.url("/v1/deliveries/batch")).header("x-api-key", &app.test_key);
            let answer = app.send(request.json(&body)).await;
            assert_eq!(answer.status, 400, "{:#}", answer.body);
            assert_eq!(answer.code(), "invalid_request");
        }
    }

    async fn a_dry_run_prices_each_item_and_stores_nothing(app: TestApp) {
        let prefix = unique_suffix();
        let mut sent = items(&prefix, 3);
        sent[1]["dropoff"]["contact"]["phone"] = json!("call me");
        let url = app.url("/v1/deliveries/batch?validate_only=true");
        let checked = results(&batch_at(&app, url, &app.test_key, &sent).await);
        let mut quote = crate::quotes::berlin_quote();
        quote["vehicle_type_id"] = json!("cargo_bike");
        let price = app.post("/v1/quotes", &app.test_key, &quote).await.body["amount_cents"].clone();
        assert_eq!(checked[0]["checked"]["amount_cents"], price, "{:#}", checked[0]);
        assert_eq!(checked[0]["checked"]["currency"], json!("EUR"));
        assert!(checked[0].get("delivery").is_none());
        assert_eq!(checked[1]["error"]["param"], json!("deliveries.1.dropoff.contact.phone"), "{:#}", checked[1]);
        assert!(checked[2]["checked"].is_object());
        let listed = app.get(&format!("/v1/deliveries?external_id={prefix}-0"), &app.test_key).await;
        assert_eq!(listed.body["deliveries"], json!([]), "nothing stored");
        // The keys were not used: the batch itself books each valid item.
        let booked = outcomes(&results(&batch(&app, &app.test_key, &sent).await));
        assert!(booked[0].is_ok() && booked[2].is_ok(), "{booked:?}");
        // The only query parameter is validate_only, true or false.
        for query in ["validate_only=yes", "dry_run=true"] {
            let url = app.url(&format!("/v1/deliveries/batch?{query}"));
            let refused = batch_at(&app, url, &app.test_key, &sent).await;
            assert_eq!((refused.status, refused.code()), (400, "invalid_request"), "{query}");
        }
    }

    async fn two_identical_batches_at_once_create_each_delivery_once(app: TestApp) {
        let sent = items(&unique_suffix(), 40);
        let (first, second) = tokio::join!(batch(&app, &app.test_key, &sent), batch(&app, &app.test_key, &sent));
        let (one, other) = (outcomes(&results(&first)), outcomes(&results(&second)));
        assert!(one.iter().all(Result::is_ok), "{one:?}");
        assert_eq!(one, other, "each key's one delivery, in both answers");
    }

    async fn the_credit_runs_out_at_the_right_item(app: TestApp) {
        let price = app.create_delivery(&app.test_key, &berlin_delivery()).await["amount_cents"].as_i64().expect("amount");
        // Room for three deliveries, not four.
        let workspace = billed_workspace(&app, 3 * price + price / 2, 14).await;
        let answered = outcomes(&results(&batch(&app, &workspace.live_key, &items(&unique_suffix(), 5)).await));
        assert!(answered[..3].iter().all(Result::is_ok), "{answered:?}");
        for (index, outcome) in answered.iter().enumerate().skip(3) {
            let (code, param) = outcome.clone().expect_err("past the limit");
            assert_eq!((code.as_str(), param), ("invoice_credit_limit_exceeded", format!("deliveries.{index}")));
        }
    }
}

e2e! {
    async fn the_rate_limit_counts_each_item_of_a_batch(app: TestApp) {
        let edge = app.spawn_edge(&RateLimitConfig::local(100, 100, 1, 10)).await;
        let through = batch_at(&app, edge.url("/v1/deliveries/batch"), &app.test_key, &items(&unique_suffix(), 30)).await;
        assert_eq!(results(&through).len(), 30);
        assert_eq!(through.header("ratelimit-remaining"), Some("9"), "one token let the batch in");
        // Its 29 other items put the key 20 writes in debt: the next waits.
        let refused = app.send(app.http.post(edge.url("/v1/deliveries")).header("x-api-key", &app.test_key).header("idempotency-key", unique_suffix()).json(&berlin_delivery())).await;
        refused.assert_error(429, "rate_limited", None);
        let wait: u64 = refused.header("retry-after").expect("Retry-After").parse().expect("seconds");
        assert!(wait >= 20, "{wait}");
    }
}
