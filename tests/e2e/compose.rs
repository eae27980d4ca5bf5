//! `compose.yaml` follows the Compose Specification (the schema vendored in
//! `tests/data/compose-spec.json`) and wires the operations endpoints.

use serde_json::Value;

fn compose_file() -> Value {
    serde_yaml_ng::from_str(include_str!("../../compose.yaml")).expect("compose.yaml is YAML")
}

#[test]
fn compose_file_follows_the_compose_specification() {
    let _timing = crate::harness::Timing::start();
    let schema: Value = serde_json::from_str(include_str!("../data/compose-spec.json")).expect("schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let compose = compose_file();
    let errors: Vec<String> = validator
        .iter_errors(&compose)
        .map(|error| format!("{}: {error}", error.instance_path()))
        .collect();
    assert!(errors.is_empty(), "compose.yaml: {errors:#?}");

    // The check has teeth: a misspelt key is refused.
    let mut misspelt = compose.clone();
    misspelt["services"]["edge"]["healthcheck"]["intervall"] = "5s".into();
    assert!(!validator.is_valid(&misspelt));
}

#[test]
fn compose_services_check_health_and_expose_metrics() {
    let _timing = crate::harness::Timing::start();
    let compose = compose_file();
    let services = &compose["services"];
    let test_of = |service: &str| {
        services[service]["healthcheck"]["test"]
            .as_array()
            .unwrap_or_else(|| panic!("{service} has a healthcheck"))
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert!(
        test_of("edge").contains("http://127.0.0.1:8080/readyz"),
        "{}",
        test_of("edge")
    );
    assert_eq!(test_of("core"), "CMD courier-core health");
    for (service, port) in [("edge", "9090"), ("core", "9091")] {
        let environment = &services[service]["environment"];
        assert_eq!(environment["COURIER_METRICS_ADDR"], format!("0.0.0.0:{port}").as_str());
        assert!(environment["COURIER_SHUTDOWN_GRACE"].is_string(), "{service}");
        let ports = services[service]["ports"].as_array().expect("ports");
        assert!(
            ports.iter().any(|p| p == &Value::from(format!("{port}:{port}"))),
            "{service}"
        );
    }
    assert_eq!(services["edge"]["depends_on"]["core"]["condition"], "service_healthy");
    assert_eq!(
        services["core"]["depends_on"]["postgres"]["condition"],
        "service_healthy"
    );
}

#[test]
fn the_courier_app_is_served_at_the_public_base_url() {
    let _timing = crate::harness::Timing::start();
    let compose = compose_file();
    let services = &compose["services"];
    // The invitation links the core makes ({public base}/courier/join/…)
    // reach the app: the same base, and the proxy sends /courier/ to it.
    let public = services["core"]["environment"]["COURIER_PUBLIC_BASE_URL"].as_str();
    assert_eq!(
        services["courier-app"]["environment"]["COURIER_APP_BASE_URL"].as_str(),
        public
    );
    assert_eq!(services["courier-app"]["command"][0], "courier-app");
    let proxy = compose["configs"]["proxy"]["content"]
        .as_str()
        .expect("the proxy's configuration");
    assert!(
        proxy.contains("location /courier/ {") && proxy.contains("proxy_pass http://courier-app:8082;"),
        "{proxy}"
    );
    assert!(
        proxy.contains("proxy_buffering off;"),
        "server-sent events pass unbuffered"
    );
    assert!(proxy.contains("proxy_pass http://edge:8080;"), "{proxy}");
    let published = services["proxy"]["ports"].as_array().expect("ports");
    assert!(published.iter().any(|p| p == "8080:8080"), "{published:?}");
}
