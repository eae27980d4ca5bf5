//! The edge's Prometheus metrics: requests by route template, status and
//! public error code.

use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: String,
    /// The matched route template (`/v1/deliveries/{delivery_id}`), or
    /// `unmatched`: never the raw path, so ids do not become series.
    route: String,
    status: u16,
    /// The public error code, empty on success.
    code: &'static str,
}

/// What the edge counts and measures.
#[derive(Clone)]
pub struct EdgeMetrics {
    requests: Family<RequestLabels, Counter>,
    duration: Family<RequestLabels, Histogram, fn() -> Histogram>,
    rate_limit_local_decisions: Counter,
}

impl Default for EdgeMetrics {
    fn default() -> Self {
        EdgeMetrics {
            requests: Family::default(),
            duration: Family::new_with_constructor(courier::ops::latency_histogram),
            rate_limit_local_decisions: Counter::default(),
        }
    }
}

/// One answered request, as counted.
pub struct Answered<'a> {
    pub method: &'a str,
    pub route: Option<&'a str>,
    pub status: u16,
    pub code: Option<&'static str>,
    pub elapsed: Duration,
}

impl EdgeMetrics {
    /// Adds every series to `registry`.
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "courier_edge_http_requests",
            "HTTP requests answered by the edge, by method, route template, status and error code",
            self.requests.clone(),
        );
        registry.register(
            "courier_edge_http_request_duration_seconds",
            "Time to the answer's headers of HTTP requests, by method, route template, status and error code",
            self.duration.clone(),
        );
        registry.register(
            "courier_edge_rate_limit_local_decisions",
            "Rate-limit decisions this edge made in memory at its share of the limits because Redis was unreachable",
            self.rate_limit_local_decisions.clone(),
        );
    }

    /// The counter of the rate limiter's decisions made without Redis.
    pub fn rate_limit_local_decisions(&self) -> Counter {
        self.rate_limit_local_decisions.clone()
    }

    pub fn answered(&self, answered: Answered<'_>) {
        // Methods outside the standard set share one label.
        let method = match answered.method {
            "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS" => answered.method,
            _ => "other",
        };
        let labels = RequestLabels {
            method: method.to_owned(),
            route: answered.route.unwrap_or("unmatched").to_owned(),
            status: answered.status,
            code: answered.code.unwrap_or(""),
        };
        self.requests.get_or_create(&labels).inc();
        self.duration
            .get_or_create(&labels)
            .observe(answered.elapsed.as_secs_f64());
    }
}
