//! The pricing engine (docs/guide.md "Quotes", docs/routing.md): the
//! catalogue of vehicle types, extras and service areas (`catalog`, data in
//! `catalog/default.json`), geometry (`geo`), item fit (`items`), prices
//! (`prices`) and routes (`routing`: the trait and the offline estimate;
//! `osrm`: OSRM's route service). Pure rules over its inputs: no database,
//! no wire format; the core's quotes and deliveries call it.

pub mod catalog;
pub mod geo;
pub mod items;
pub mod osrm;
pub mod prices;
pub mod routing;

use std::sync::Arc;

use courier_store::config::CoreConfig;
use courier_store::error::CoreResult;
use courier_store::metrics::CoreMetrics;
use routing::{OfflineRouter, RoutingProvider};

/// The router the configuration asks for: OSRM at `routing_url`
/// ([`osrm`]), or the offline estimate ([`routing`]) when it is empty.
pub fn router_from_config(config: &CoreConfig, metrics: &CoreMetrics) -> CoreResult<Arc<dyn RoutingProvider>> {
    if config.routing_url.trim().is_empty() {
        return Ok(Arc::new(OfflineRouter::default()));
    }
    Ok(Arc::new(osrm::OsrmRouter::new(config, metrics.clone())?))
}
