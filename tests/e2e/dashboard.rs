//! `deploy/grafana/courier-operations.json` (docs/deploy.md, "Dashboards"):
//! every series a panel queries is one the edge and the core expose on
//! `/metrics`, and every label it filters, groups or names a line by is one
//! of that series' labels, so that no panel stays empty after a rename.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use courier_store::metrics::{AttemptResult, RoutingResult};
use serde_json::Value;

use crate::harness::wait_until;

const DASHBOARD: &str = include_str!("../../deploy/grafana/courier-operations.json");

/// The PromQL functions, aggregations and operators the panels may use;
/// any other word outside a label matcher or grouping would be a series.
const PROMQL_WORDS: &[&str] = &[
    "sum",
    "max",
    "min",
    "avg",
    "count",
    "rate",
    "increase",
    "histogram_quantile",
    "vector",
    "by",
    "without",
    "or",
    "and",
    "unless",
];

/// What one panel query reads: its series and the labels it uses.
#[derive(Debug, Default)]
struct Query {
    series: BTreeSet<String>,
    labels: BTreeSet<String>,
}

/// The series and labels of PromQL `expr`: words outside quoted strings and
/// range brackets, labels inside matchers (`{…}`) and `by`/`without` lists.
fn parse_query(expr: &str) -> Query {
    let mut query = Query::default();
    let chars: Vec<char> = expr.chars().collect();
    let mut in_matcher = false;
    let mut in_grouping = false;
    let mut last_word = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            continue;
        }
        if c == '[' {
            while i < chars.len() && chars[i] != ']' {
                i += 1;
            }
            i += 1;
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_' || chars[i] == ':') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            if in_matcher || in_grouping {
                query.labels.insert(word.clone());
            } else if !PROMQL_WORDS.contains(&word.as_str()) {
                query.series.insert(word.clone());
            }
            last_word = word;
            continue;
        }
        match c {
            '{' => in_matcher = true,
            '}' => in_matcher = false,
            '(' if matches!(last_word.as_str(), "by" | "without") => in_grouping = true,
            ')' => in_grouping = false,
            _ => {}
        }
        if !c.is_whitespace() {
            last_word.clear();
        }
        i += 1;
    }
    query
}

/// The labels a legend names (`{{route}}`).
fn legend_labels(legend: &str) -> impl Iterator<Item = String> + '_ {
    legend
        .split("{{")
        .skip(1)
        .filter_map(|rest| rest.split("}}").next())
        .map(|label| label.trim().to_owned())
}

/// Every sample's series name in an OpenMetrics exposition, with the label
/// names seen on it (label values may hold braces and commas: routes).
fn exposed_series(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut series: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in text.lines().filter(|line| !line.starts_with('#') && !line.is_empty()) {
        let name_end = line.find(['{', ' ']).unwrap_or(line.len());
        let labels = series.entry(line[..name_end].to_owned()).or_default();
        let mut rest = &line[name_end..];
        if !rest.starts_with('{') {
            continue;
        }
        rest = &rest[1..];
        while let Some((name, after)) = rest.split_once("=\"") {
            labels.insert(name.trim_start_matches(',').to_owned());
            let mut escaped = false;
            let value_end = after
                .char_indices()
                .find(|&(_, c)| {
                    let closing = c == '"' && !escaped;
                    escaped = c == '\\' && !escaped;
                    closing
                })
                .map(|(at, _)| at)
                .expect("a closed label value");
            rest = &after[value_end + 1..];
            if rest.starts_with('}') {
                break;
            }
        }
    }
    series
}

/// Each panel query of the dashboard, with its panel's title.
fn dashboard_queries(dashboard: &Value) -> Vec<(String, Query)> {
    let mut queries = Vec::new();
    for panel in dashboard["panels"].as_array().expect("panels") {
        if panel["type"] == "row" {
            continue;
        }
        let title = panel["title"].as_str().expect("a panel title").to_owned();
        assert_eq!(panel["datasource"]["uid"], "${datasource}", "{title}");
        let targets = panel["targets"].as_array().expect("targets");
        assert!(!targets.is_empty(), "{title} has no query");
        for target in targets {
            assert_eq!(target["datasource"]["uid"], "${datasource}", "{title}");
            let mut query = parse_query(target["expr"].as_str().expect("expr"));
            query
                .labels
                .extend(legend_labels(target["legendFormat"].as_str().unwrap_or_default()));
            assert!(!query.series.is_empty(), "{title} queries no series");
            queries.push((title.clone(), query));
        }
    }
    queries
}

#[test]
fn the_dashboard_has_its_uid_a_datasource_variable_and_distinct_panel_ids() {
    let dashboard: Value = serde_json::from_str(DASHBOARD).expect("dashboard JSON");
    assert_eq!(dashboard["uid"], "courier-operations");
    let variables = dashboard["templating"]["list"].as_array().expect("variables");
    let datasource = |v: &Value| v["name"] == "datasource" && v["type"] == "datasource" && v["query"] == "prometheus";
    assert!(variables.iter().any(datasource), "{variables:?}");
    let panels = dashboard["panels"].as_array().expect("panels");
    let ids: Vec<u64> = panels.iter().map(|p| p["id"].as_u64().expect("a panel id")).collect();
    assert_eq!(
        ids.iter().collect::<BTreeSet<_>>().len(),
        ids.len(),
        "panel ids repeat: {ids:?}"
    );
    // Every panel and query reads the chosen datasource.
    dashboard_queries(&dashboard);
}

#[test]
fn queries_are_read_for_series_and_labels() {
    let query = parse_query(concat!(
        "histogram_quantile(0.95, sum by (le, route) (rate(",
        r#"courier_edge_http_request_duration_seconds_bucket{code!="",route=~"/v1/{x}"}[$__rate_interval])))"#,
    ));
    assert_eq!(
        query.series,
        BTreeSet::from(["courier_edge_http_request_duration_seconds_bucket".to_owned()])
    );
    assert_eq!(query.labels, BTreeSet::from(["code", "le", "route"].map(str::to_owned)));
    let query = parse_query("count(courier_cache_feed_connected == 0) or vector(0)");
    assert_eq!(
        query.series,
        BTreeSet::from(["courier_cache_feed_connected".to_owned()])
    );
    assert!(query.labels.is_empty());

    let exposed = exposed_series(concat!(
        "# TYPE courier_edge_http_requests counter\n",
        r#"courier_edge_http_requests_total{method="GET",route="/v1/deliveries/{delivery_id}","#,
        r#"status="404",code="not_found"} 1"#,
        "\n",
        "courier_webhook_queue_depth 0\n",
        "# EOF\n",
    ));
    assert_eq!(
        exposed["courier_edge_http_requests_total"],
        BTreeSet::from(["code", "method", "route", "status"].map(str::to_owned))
    );
    assert!(exposed["courier_webhook_queue_depth"].is_empty());
}

e2e! {
    async fn the_dashboard_queries_only_exposed_series_and_labels(app: TestApp) {
        let dashboard: Value = serde_json::from_str(DASHBOARD).expect("dashboard JSON");
        let queries = dashboard_queries(&dashboard);

        // A labelled family is printed only once it has a sample. The edge's
        // and the core's calls get theirs from these requests; the families
        // fed by what this test does not run (webhook receivers, SMS and
        // email providers, a road router, couriers answering offers) get one
        // through the core's own recording calls.
        assert_eq!(app.get("/v1/vehicle-types", &app.test_key).await.status, 200);
        app.get("/v1/deliveries/dlv_unknown", &app.test_key)
            .await
            .assert_error(404, "not_found", None);
        let metrics = &app.core.metrics;
        metrics.webhook_attempt(AttemptResult::Failed);
        metrics.notification("sms", "delivered", "failed");
        metrics.notification_provider_call("email", Duration::from_millis(20));
        metrics.routing_result(RoutingResult::Ok);
        metrics.routing_cache(true);
        drop(metrics.partition_round("platform:e2e".to_owned()));
        metrics.partition_round("platform:e2e".to_owned()).locked_out();
        metrics.dispatch_offer_ended("declined");
        metrics.delivery_delayed("test");

        let wanted: BTreeSet<&String> = queries.iter().flat_map(|(_, query)| &query.series).collect();
        let exposed = wait_until("every series the dashboard queries", Duration::from_secs(15), async || {
            let exposed = exposed_series(&app.metrics_text(&app.metrics_url).await);
            let missing: Vec<_> = wanted.iter().filter(|series| !exposed.contains_key(**series)).collect();
            if missing.is_empty() { Ok(exposed) } else { Err(format!("not exposed: {missing:?}")) }
        })
        .await;

        let mut unknown_labels = Vec::new();
        for (title, query) in &queries {
            let known: BTreeSet<&String> = query.series.iter().flat_map(|series| &exposed[series]).collect();
            for label in query.labels.iter().filter(|label| !known.contains(label)) {
                unknown_labels.push(format!("{title}: {label} (not a label of {:?})", query.series));
            }
        }
        assert!(unknown_labels.is_empty(), "{unknown_labels:#?}");
    }
}
