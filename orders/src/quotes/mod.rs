//! Quotes: price a route and keep the price for 5 minutes (docs/guide.md
//! "Quotes"). Owns the `quotes` table. The catalogue, geometry, routing, item
//! and pricing rules are the pricing engine's (`courier_pricing`); this
//! module validates a request, prices it and stores the result per
//! workspace and mode.

pub mod entity;

use chrono::{DateTime, Duration, Utc};
use courier::errors::ErrorCode;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ConnectionTrait, EntityTrait, QueryFilter};
use serde::{Deserialize, Serialize};

use crate::validate::{self, ContactRule, WaypointInput};
use crate::windows::{MINUTE, Plan, Windows};
use crate::{CoreError, CoreResult, Orders};
use courier_identity::auth::Principal;
use courier_pricing::items::ItemInput;
use courier_pricing::prices::{Breakdown, ExtraSelection, PriceRequest, PricedRoute};
use courier_pricing::routing::RoutePoint;

/// How long a quote's price holds.
pub const QUOTE_VALIDITY: Duration = Duration::minutes(5);

/// The route of a quote or delivery request: what a quote locks.
#[derive(Clone, Debug, PartialEq)]
pub struct RouteInput {
    pub pickup: WaypointInput,
    pub dropoff: WaypointInput,
    pub stops: Vec<WaypointInput>,
    pub vehicle_type_id: String,
    pub extras: Vec<ExtraSelection>,
    /// `None`: no items sent; `Some`: 1 to 100 items, fit checked.
    pub items: Option<Vec<ItemInput>>,
    pub scheduled_at: Option<DateTime<Utc>>,
    pub windows: Windows,
}

/// What `quote_mismatch` compares: coordinates, vehicle, extras, items,
/// `scheduled_at` and the windows, exactly; contacts, instructions and
/// notes are ignored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RouteKey {
    pub pickup: [f64; 2],
    pub stops: Vec<[f64; 2]>,
    pub dropoff: [f64; 2],
    pub vehicle_type_id: String,
    pub extras: Vec<ExtraSelection>,
    pub items: Option<Vec<ItemInput>>,
    /// Unix microseconds.
    pub scheduled_at: Option<i64>,
    /// Quotes stored before windows existed have none.
    #[serde(default)]
    pub windows: Windows,
}

impl RouteInput {
    pub fn key(&self) -> RouteKey {
        let coordinates = |w: &WaypointInput| [w.latitude, w.longitude];
        RouteKey {
            pickup: coordinates(&self.pickup),
            stops: self.stops.iter().map(coordinates).collect(),
            dropoff: coordinates(&self.dropoff),
            vehicle_type_id: self.vehicle_type_id.clone(),
            extras: self.extras.clone(),
            items: self.items.clone(),
            scheduled_at: self.scheduled_at.map(|t| t.timestamp_micros()),
            windows: self.windows,
        }
    }

    /// Field rules of the route (waypoints, stops, vehicle, schedule,
    /// windows).
    pub fn validate(&self, now: DateTime<Utc>, pickup_rule: ContactRule, stop_rule: ContactRule) -> CoreResult<()> {
        validate::waypoint("pickup", &self.pickup, pickup_rule)?;
        validate::waypoint("dropoff", &self.dropoff, pickup_rule)?;
        validate::stops(&self.stops, stop_rule)?;
        // At least `VEHICLE_TYPE_ID_MIN` (1) characters, as the OpenAPI
        // document states; which ids exist is the catalogue's to say.
        if self.vehicle_type_id.chars().count() < courier::limits::VEHICLE_TYPE_ID_MIN {
            return Err(CoreError::invalid("vehicle_type_id", "vehicle_type_id is required."));
        }
        if let Some(at) = self.scheduled_at {
            validate::scheduled_at(now, at)?;
        }
        self.windows
            .check(now.timestamp_micros(), self.scheduled_at.map(|t| t.timestamp_micros()))
    }

    /// When the pickup may happen at the earliest, booked at `now`.
    pub fn earliest_pickup(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        let window_start = self.windows.pickup.map(|w| courier::time::from_micros(w.start));
        self.scheduled_at.or(window_start).map_or(now, |at| at.max(now))
    }

    /// The waypoints in driving order, each named by its field.
    fn points(&self) -> Vec<RoutePoint> {
        let mut waypoints = Vec::with_capacity(self.stops.len() + 2);
        waypoints.push(RoutePoint {
            param: "pickup".into(),
            point: self.pickup.point(),
        });
        for (index, stop) in self.stops.iter().enumerate() {
            waypoints.push(RoutePoint {
                param: format!("stops.{index}"),
                point: stop.point(),
            });
        }
        waypoints.push(RoutePoint {
            param: "dropoff".into(),
            point: self.dropoff.point(),
        });
        waypoints
    }

    /// The route's driving time for its vehicle type, in microseconds, as
    /// the router estimates it (for routes that are not priced: fleet
    /// orders).
    pub async fn duration(&self, orders: &Orders) -> CoreResult<i64> {
        let vehicle = orders.catalog.requested_vehicle_type(&self.vehicle_type_id)?;
        let estimate = orders.router.route(&self.points(), vehicle).await?;
        Ok(estimate.duration_min * MINUTE)
    }

    /// Prices the route in the workspace's terms, at its pickup time.
    pub async fn price(&self, orders: &Orders, now: DateTime<Utc>, discount_bps: u32) -> CoreResult<PricedRoute> {
        let waypoints = self.points();
        let request = PriceRequest {
            waypoints: &waypoints,
            vehicle_type_id: &self.vehicle_type_id,
            extras: &self.extras,
            items: self.items.as_deref(),
            pickup_at: self.earliest_pickup(now),
            discount_bps,
        };
        courier_pricing::prices::price_route(&orders.catalog, orders.router.as_ref(), &request).await
    }
}

/// A stored quote.
#[derive(Clone, Debug, PartialEq)]
pub struct Quote {
    pub id: String,
    pub route: RouteKey,
    pub amount_cents: i64,
    pub currency: String,
    pub breakdown: Breakdown,
    pub distance_km: f64,
    pub duration_min: i64,
    pub service_area_id: String,
    pub valid_until: i64,
    pub created_at: i64,
}

impl Quote {
    /// When the dispatcher would plan the pickup and the dropoff, booked
    /// now (docs/guide.md "Windows").
    pub fn plan(&self) -> Plan {
        self.route
            .windows
            .plan(self.created_at, self.route.scheduled_at, self.duration_min * MINUTE)
    }
}

/// Validates, prices and stores a quote for the caller's workspace and mode.
pub async fn create(orders: &Orders, principal: &Principal, route: RouteInput) -> CoreResult<Quote> {
    let now = orders.clock.now();
    route.validate(now, ContactRule::Forbidden, ContactRule::Forbidden)?;
    let priced = route.price(orders, now, principal.workspace.plan.discount_bps).await?;
    route.windows.check_reachable(
        route.earliest_pickup(now).timestamp_micros(),
        priced.duration_min * MINUTE,
    )?;
    let quote = Quote {
        id: courier_store::ids::new_id("quo"),
        route: route.key(),
        amount_cents: priced.amount_cents,
        currency: priced.currency,
        breakdown: priced.breakdown,
        distance_km: priced.distance_km,
        duration_min: priced.duration_min,
        service_area_id: priced.service_area_id,
        valid_until: (now + QUOTE_VALIDITY).timestamp_micros(),
        created_at: now.timestamp_micros(),
    };
    entity::ActiveModel {
        id: Set(quote.id.clone()),
        workspace_id: Set(principal.workspace.id.clone()),
        mode: Set(principal.mode.as_str().to_owned()),
        route: Set(to_json(&quote.route)?),
        amount_cents: Set(quote.amount_cents),
        currency: Set(quote.currency.clone()),
        breakdown: Set(to_json(&quote.breakdown)?),
        distance_km: Set(quote.distance_km),
        duration_min: Set(quote.duration_min),
        service_area_id: Set(quote.service_area_id.clone()),
        valid_until: Set(quote.valid_until),
        created_at: Set(quote.created_at),
    }
    .insert(&orders.writer)
    .await?;
    Ok(quote)
}

/// The caller's quote `id` if it is still valid and locks exactly `route`:
/// `quote_not_found` (unknown, other workspace or mode), `quote_expired`,
/// `quote_mismatch` naming the first differing field.
pub async fn redeem(
    db: &impl ConnectionTrait,
    now: i64,
    principal: &Principal,
    id: &str,
    route: &RouteKey,
) -> CoreResult<Quote> {
    let model = entity::Entity::find_by_id(id.to_owned())
        .filter(principal.scope(entity::Column::WorkspaceId, entity::Column::Mode))
        .one(db)
        .await?
        .ok_or_else(|| {
            CoreError::at(
                ErrorCode::QuoteNotFound,
                "quote_id",
                "No quote with that id for this key and mode.",
            )
        })?;
    if now >= model.valid_until {
        return Err(CoreError::at(
            ErrorCode::QuoteExpired,
            "quote_id",
            "The quote has expired; request a new one.",
        ));
    }
    let quote = from_model(model)?;
    if let Some(field) = first_difference(&quote.route, route) {
        return Err(CoreError::at(
            ErrorCode::QuoteMismatch,
            field,
            format!("{field} differs from the quote; request a new quote for this route."),
        ));
    }
    Ok(quote)
}

fn first_difference(quoted: &RouteKey, requested: &RouteKey) -> Option<&'static str> {
    if quoted.pickup != requested.pickup {
        Some("pickup")
    } else if quoted.stops != requested.stops {
        Some("stops")
    } else if quoted.dropoff != requested.dropoff {
        Some("dropoff")
    } else if quoted.vehicle_type_id != requested.vehicle_type_id {
        Some("vehicle_type_id")
    } else if quoted.extras != requested.extras {
        Some("extras")
    } else if quoted.items != requested.items {
        Some("items")
    } else if quoted.scheduled_at != requested.scheduled_at {
        Some("scheduled_at")
    } else if quoted.windows.pickup != requested.windows.pickup {
        Some("pickup_window")
    } else if quoted.windows.dropoff != requested.windows.dropoff {
        Some("dropoff_window")
    } else {
        None
    }
}

fn from_model(model: entity::Model) -> CoreResult<Quote> {
    Ok(Quote {
        route: from_json(&model.route)?,
        breakdown: from_json(&model.breakdown)?,
        id: model.id,
        amount_cents: model.amount_cents,
        currency: model.currency,
        distance_km: model.distance_km,
        duration_min: model.duration_min,
        service_area_id: model.service_area_id,
        valid_until: model.valid_until,
        created_at: model.created_at,
    })
}

/// Stored JSON columns are written and read only by the core.
pub(crate) fn to_json<T: Serialize>(value: &T) -> CoreResult<String> {
    serde_json::to_string(value).map_err(|e| CoreError::Internal(format!("cannot encode JSON column: {e}")))
}

pub(crate) fn from_json<T: for<'de> Deserialize<'de>>(text: &str) -> CoreResult<T> {
    serde_json::from_str(text).map_err(|e| CoreError::Internal(format!("corrupt JSON column: {e}")))
}
