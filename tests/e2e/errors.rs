//! The error shape on every kind of bad input (docs/guide.md "Errors").

use serde_json::json;

e2e! {
    async fn unknown_route_and_wrong_method(app: TestApp) {
        app.get("/v1/nothing-here", &app.test_key).await.assert_error(404, "not_found", None);
        app.get("/", &app.test_key).await.assert_error(404, "not_found", None);
        let answer = app.send(app.http.delete(app.url("/v1/quotes")).header("x-api-key", &app.test_key)).await;
        answer.assert_error(405, "method_not_allowed", None);
        let answer = app.send(app.http.get(app.url("/v1/quotes")).header("x-api-key", &app.test_key)).await;
        answer.assert_error(405, "method_not_allowed", None);
    }

    async fn bodies_that_are_not_json_objects(app: TestApp) {
        let raw = |body: &'static str| app.http.post(app.url("/v1/quotes")).header("x-api-key", &app.test_key).header("content-type", "application/json").body(body);
        app.send(raw("{not json")).await.assert_error(400, "invalid_request", Some("body"));
        app.send(raw("[1, 2]")).await.assert_error(400, "invalid_request", Some("body"));
        app.send(raw("\"text\"")).await.assert_error(400, "invalid_request", Some("body"));
        app.send(raw("")).await.assert_error(400, "invalid_request", Some("body"));
        // The key is checked before the body.
        let keyless = app.http.post(app.url("/v1/quotes")).header("content-type", "application/json").body("{not json");
        app.send(keyless).await.assert_error(401, "missing_api_key", None);
        // No content type at all is still judged by its bytes.
        let answer = app.send(app.http.post(app.url("/v1/quotes")).header("x-api-key", &app.test_key).body("<xml/>")).await;
        answer.assert_error(400, "invalid_request", Some("body"));
    }

    async fn wrong_types_missing_and_unknown_fields(app: TestApp) {
        let mut body = crate::quotes::berlin_quote();
        body["pickup"]["latitude"] = json!("52.5");
        app.post("/v1/quotes", &app.test_key, &body).await.assert_error(400, "invalid_request", Some("pickup.latitude"));

        let mut body = crate::quotes::berlin_quote();
        body["stops"] = json!([{"address": "Alexanderplatz 1, 10178 Berlin", "latitude": 52.52, "longitude": 13.41}, {"address": "x", "latitude": 52.5}]);
        app.post("/v1/quotes", &app.test_key, &body).await.assert_error(400, "invalid_request", Some("stops.1.longitude"));

        let mut body = crate::quotes::berlin_quote();
        body.as_object_mut().expect("object").remove("dropoff");
        app.post("/v1/quotes", &app.test_key, &body).await.assert_error(400, "invalid_request", Some("dropoff"));

        let mut body = crate::quotes::berlin_quote();
        body["vehicle_typ"] = json!("car");
        app.post("/v1/quotes", &app.test_key, &body).await.assert_error(400, "invalid_request", Some("vehicle_typ"));

        let mut body = crate::quotes::berlin_quote();
        body["pickup"]["contact"] = json!({"name": "A", "phone": "+4930123456"});
        app.post("/v1/quotes", &app.test_key, &body).await.assert_error(400, "invalid_request", Some("pickup.contact"));

        let mut body = crate::quotes::berlin_quote();
        body["extras"] = json!([{"extra_id": "insurance", "option_id": "basic", "quantity": 1.5}]);
        app.post("/v1/quotes", &app.test_key, &body).await.assert_error(400, "invalid_request", Some("extras.0.quantity"));
    }

    async fn oversize_body(app: TestApp) {
        let mut body = crate::quotes::berlin_quote();
        body["pickup"]["address"] = json!("a".repeat(1024 * 1024));
        // Refused by its Content-Length, before the body is read.
        app.post("/v1/quotes", &app.test_key, &body).await.assert_error(413, "request_too_large", None);
    }

    async fn request_id_on_every_answer(app: TestApp) {
        let answer = app.get("/v1/vehicle-types", &app.test_key).await;
        assert_eq!(answer.status, 200);
        let id = answer.header("request-id").expect("Request-Id header");
        assert!(id.starts_with("req_") && id.len() > 20);
        let other = app.get("/v1/vehicle-types", &app.test_key).await;
        assert_ne!(other.header("request-id"), Some(id));
    }

    async fn error_catalogue_documents_every_code(app: TestApp) {
        let answer = app.send(app.http.get(app.url("/v1/docs/errors"))).await;
        assert_eq!(answer.status, 200);
        let page = answer.body.as_str().expect("html").to_owned();
        for code in courier::errors::ErrorCode::ALL {
            assert!(page.contains(&format!("id=\"{}\"", code.as_str())), "{} missing", code.as_str());
        }
    }

    async fn messages_are_in_the_services_words(app: TestApp) {
        let raw = |body: String| app.http.post(app.url("/v1/quotes")).header("x-api-key", &app.test_key).header("content-type", "application/json").body(body);
        let quote = crate::quotes::berlin_quote();
        let cases = [
            (json!({"pickup": "Alexanderplatz"}), "pickup", "pickup must be an object."),
            (json!({"pickup": {"address": "Alexanderplatz 1, Berlin", "latitude": true, "longitude": 13.4}}), "pickup.latitude", "pickup.latitude must be a number."),
            (json!({"stops": {"a": 1}}), "stops", "stops must be an array."),
        ];
        for (change, param, message) in cases {
            let mut body = quote.clone();
            for (key, value) in change.as_object().expect("object") {
                body[key] = value.clone();
            }
            let answer = app.post("/v1/quotes", &app.test_key, &body).await;
            answer.assert_error(400, "invalid_request", Some(param));
            assert_eq!(answer.body["error"]["message"], message);
        }
        let mut body = quote.clone();
        body["items"] = json!([{"description": "Box", "quantity": 1.5, "weight_kg": 1, "length_cm": 10, "width_cm": 10, "height_cm": 10}]);
        let answer = app.post("/v1/quotes", &app.test_key, &body).await;
        answer.assert_error(400, "invalid_request", Some("items.0.quantity"));
        assert_eq!(answer.body["error"]["message"], "items.0.quantity must be a whole number.");
        let answer = app.send(raw("{\"pickup\": ".into())).await;
        answer.assert_error(400, "invalid_request", Some("body"));
        assert_eq!(answer.body["error"]["message"], "The request body is not valid JSON: it ends early (line 1, column 11).");

        // An integer written with a fraction of zero is an integer (JSON Schema).
        body["items"][0]["quantity"] = json!(2.0);
        let answer = app.post("/v1/quotes", &app.test_key, &body).await;
        assert_eq!(answer.status, 201, "{:#}", answer.body);

        // A member named twice is refused, naming it.
        let text = serde_json::to_string(&quote).expect("json");
        let twice = text.replacen("\"vehicle_type_id\"", "\"vehicle_type_id\":\"car\",\"vehicle_type_id\"", 1);
        let answer = app.send(raw(twice)).await;
        answer.assert_error(400, "invalid_request", Some("vehicle_type_id"));
        assert_eq!(answer.body["error"]["message"], "vehicle_type_id appears more than once; name each member once.");
        let nested = text.replacen("\"latitude\"", "\"latitude\":1,\"latitude\"", 1);
        let answer = app.send(raw(nested)).await;
        answer.assert_error(400, "invalid_request", Some("dropoff.latitude"));
    }

    async fn refusals_before_routing_are_statuses_without_a_body(app: TestApp) {
        let exchange = |request: Vec<u8>| {
            let base_url = app.base_url.clone();
            async move { crate::hostile::exchange(&base_url, &request).await }
        };
        let headers = |count: usize| (0..count).map(|n| format!("x-h{n}: v\r\n")).collect::<String>();
        // docs/API.md lists these: the HTTP server answers them itself.
        for (request, status) in [
            (b"GET /v1/vehicle-types HTTP/1.1\r\nHost: x\r\nX-Bad: a\x00b\r\n\r\n".to_vec(), "400"),
            (b"NOT HTTP AT ALL\r\n\r\n".to_vec(), "400"),
            (format!("GET /v1/vehicle-types?{} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(70_000)).into_bytes(), "414"),
            (format!("GET /v1/vehicle-types HTTP/1.1\r\nHost: x\r\n{}\r\n", headers(2000)).into_bytes(), "431"),
        ] {
            let answer = exchange(request).await;
            assert!(answer.starts_with(&format!("HTTP/1.1 {status} ")), "{answer}");
        }
        // A long URI the server parses reaches the service: the error shape.
        let request = format!("GET /v1/vehicle-types?{} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "a".repeat(20_000));
        let answer = exchange(request.into_bytes()).await;
        assert!(answer.starts_with("HTTP/1.1 401 "), "{answer}");
        assert!(answer.contains("request-id: req_") && answer.contains("\"missing_api_key\""), "{answer}");
    }

    async fn an_optional_body_is_absent_or_json(app: TestApp) {
        let created = app.create_delivery(&app.test_key, &crate::deliveries::berlin_delivery()).await;
        let url = app.url(&format!("/v1/deliveries/{}/cancel", created["id"].as_str().expect("id")));
        let cancel = |body: &'static str| app.http.post(url.clone()).header("x-api-key", &app.test_key).header("content-type", "application/json").body(body);
        // White space alone is a body, and not JSON: refused, nothing changes.
        app.send(cancel(" ")).await.assert_error(400, "invalid_request", Some("body"));
        app.send(cancel("\n")).await.assert_error(400, "invalid_request", Some("body"));
        let answer = app.send(cancel("")).await;
        assert_eq!((answer.status, answer.body["status"].as_str()), (200, Some("cancelled")), "{:#}", answer.body);
    }
}
