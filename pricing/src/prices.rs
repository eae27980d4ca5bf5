//! The price of a route: the one computation behind quotes and deliveries.
//!
//! Checks run in a fixed order so a request with several problems always
//! gets the same error: vehicle type, service area of every waypoint, extras,
//! items, then the route itself. Money is integer cents throughout and every
//! rounding is explicit (half up), so the published identity
//!
//! `amount_cents = route_cents + Σ extras.amount_cents − discount_cents + service_fee_cents`
//!
//! holds to the cent for every input, and a client can reproduce each line
//! from the published rates, `distance_km` and `duration_min`:
//!
//! - fare = `base_cents` + round(`per_km_cents` × `distance_km`) +
//!   `per_min_cents` × `duration_min`, with `distance_km` already rounded to
//!   two decimals (the product is rounded half up, exactly, in integers);
//! - each time surcharge = round(fare × bps / 10000), evaluated on the
//!   service area's wall clock at the pickup time: night (22:00–06:00),
//!   Sunday, public holiday — listed in that order;
//! - `route_cents` = fare + surcharges;
//! - extra = unit price × quantity;
//! - `discount_cents` = round(`route_cents` × discount bps / 10000): the
//!   discount applies to the transport fare only, never to extras or fees.

use std::collections::HashSet;

use chrono::{DateTime, Datelike, Timelike, Utc, Weekday};
use courier::errors::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::catalog::{Catalog, ServiceArea, SurchargeRule, VehicleType};
use crate::geo::GeoPoint;
use crate::items::{ItemInput, check_fit, validate_items};
use crate::routing::{RouteEstimate, RoutePoint, RoutingProvider};
use courier_store::error::{CoreError, CoreResult};

/// Most extras in one request.
pub const MAX_EXTRAS: usize = courier::limits::EXTRAS.max as usize;
/// Largest quantity of one extra.
pub const MAX_EXTRA_QUANTITY: i64 = courier::limits::EXTRA_QUANTITY.max;
/// A discount of 10000 basis points makes the fare free.
pub const MAX_DISCOUNT_BPS: u32 = 10_000;
/// Local hour at which the night surcharge starts (inclusive).
pub const NIGHT_START_HOUR: u32 = 22;
/// Local hour at which the night surcharge ends (exclusive).
pub const NIGHT_END_HOUR: u32 = 6;
/// Longest route a router may report (beyond it the estimate is a bug, and
/// bounding it keeps every amount far from integer overflow).
pub const MAX_ROUTE_KM: f64 = 100_000.0;
/// Longest duration a router may report, in minutes (one year).
pub const MAX_ROUTE_MIN: i64 = 525_600;

/// An extra as the client selects it (`SelectedExtra`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtraSelection {
    pub extra_id: String,
    #[serde(default)]
    pub option_id: Option<String>,
    #[serde(default = "default_extra_quantity")]
    pub quantity: i64,
}

fn default_extra_quantity() -> i64 {
    1
}

/// Everything that determines a price.
#[derive(Clone, Debug, PartialEq)]
pub struct PriceRequest<'a> {
    /// Pickup, stops and dropoff in driving order; the first is the pickup.
    pub waypoints: &'a [RoutePoint],
    pub vehicle_type_id: &'a str,
    pub extras: &'a [ExtraSelection],
    /// `None` when the client sent no items (no fit check).
    pub items: Option<&'a [ItemInput]>,
    /// When the pickup happens: `scheduled_at`, or now for immediate ones.
    pub pickup_at: DateTime<Utc>,
    /// The workspace's discount in basis points (0..=10000).
    pub discount_bps: u32,
}

/// The priced route.
#[derive(Clone, Debug, PartialEq)]
pub struct PricedRoute {
    pub service_area_id: String,
    pub currency: String,
    pub amount_cents: i64,
    pub breakdown: Breakdown,
    /// Kilometres, rounded to two decimals; the fare uses this value.
    pub distance_km: f64,
    pub duration_min: i64,
}

/// The public `PriceBreakdown`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Breakdown {
    /// Fare including the time surcharges.
    pub route_cents: i64,
    pub extras: Vec<BreakdownExtra>,
    /// Time surcharges, already included in `route_cents`.
    pub surcharges: Vec<Surcharge>,
    pub discount_cents: i64,
    pub service_fee_cents: i64,
}

impl Breakdown {
    /// `route_cents + Σ extras − discount_cents + service_fee_cents`.
    pub fn total_cents(&self) -> i64 {
        self.route_cents + self.extras.iter().map(|extra| extra.amount_cents).sum::<i64>() - self.discount_cents
            + self.service_fee_cents
    }
}

/// One priced extra.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BreakdownExtra {
    pub extra_id: String,
    pub option_id: Option<String>,
    pub name: String,
    pub option_name: Option<String>,
    pub quantity: i64,
    pub unit_amount_cents: i64,
    pub amount_cents: i64,
}

/// One applied time surcharge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Surcharge {
    pub code: String,
    pub label: String,
    pub amount_cents: i64,
}

/// Validates `request` against the catalogue, routes it and prices it.
pub async fn price_route(
    catalog: &Catalog,
    router: &dyn RoutingProvider,
    request: &PriceRequest<'_>,
) -> CoreResult<PricedRoute> {
    let vehicle = catalog.requested_vehicle_type(request.vehicle_type_id)?;
    let area = service_area_of(catalog, request.waypoints)?;
    let extras = price_extras(catalog, vehicle, request.extras)?;
    if let Some(items) = request.items {
        validate_items(items)?;
        check_fit(vehicle, items)?;
    }
    if request.discount_bps > MAX_DISCOUNT_BPS {
        return Err(CoreError::Internal(format!(
            "discount of {} basis points is over 100 %",
            request.discount_bps
        )));
    }
    let rate = area
        .rate_for(&vehicle.id)
        .ok_or_else(|| CoreError::Internal(format!("service area '{}' has no rates for '{}'", area.id, vehicle.id)))?;

    let estimate = router.route(request.waypoints, vehicle).await?;
    let (distance_centikm, duration_min) = checked_estimate(estimate)?;

    let fare = rate.base_cents
        + round_half_up_div(rate.per_km_cents * distance_centikm, 100)
        + rate.per_min_cents * duration_min;
    let surcharges = time_surcharges(area, request.pickup_at, fare);
    let route_cents = fare + surcharges.iter().map(|s| s.amount_cents).sum::<i64>();
    let discount_cents = apply_bps(route_cents, request.discount_bps);
    let breakdown = Breakdown {
        route_cents,
        extras,
        surcharges,
        discount_cents,
        service_fee_cents: area.service_fee_cents,
    };
    let amount_cents = route_cents + breakdown.extras.iter().map(|e| e.amount_cents).sum::<i64>() - discount_cents
        + area.service_fee_cents;
    debug_assert_eq!(amount_cents, breakdown.total_cents());
    Ok(PricedRoute {
        service_area_id: area.id.clone(),
        currency: area.currency.clone(),
        amount_cents,
        breakdown,
        distance_km: distance_centikm as f64 / 100.0,
        duration_min,
    })
}

/// The one service area every waypoint lies in. First every waypoint must
/// lie in some area (else the first one outside is named), then all must lie
/// in the pickup's area (else the first one elsewhere is named).
fn service_area_of<'c>(catalog: &'c Catalog, waypoints: &[RoutePoint]) -> CoreResult<&'c ServiceArea> {
    if waypoints.len() < 2 {
        return Err(CoreError::Internal(format!(
            "a route needs a pickup and a dropoff, got {} waypoint(s)",
            waypoints.len()
        )));
    }
    let mut areas = Vec::with_capacity(waypoints.len());
    for waypoint in waypoints {
        let GeoPoint { latitude, longitude } = waypoint.point;
        if !(latitude.is_finite() && (-90.0..=90.0).contains(&latitude)) {
            return Err(CoreError::invalid(
                format!("{}.latitude", waypoint.param),
                format!("{}.latitude must be between -90 and 90.", waypoint.param),
            ));
        }
        if !(longitude.is_finite() && (-180.0..=180.0).contains(&longitude)) {
            return Err(CoreError::invalid(
                format!("{}.longitude", waypoint.param),
                format!("{}.longitude must be between -180 and 180.", waypoint.param),
            ));
        }
        let area = catalog.area_containing(waypoint.point).ok_or_else(|| {
            CoreError::at(
                ErrorCode::ServiceAreaUnavailable,
                &waypoint.param,
                format!(
                    "The {} ({latitude}, {longitude}) lies outside every service area.",
                    describe(&waypoint.param)
                ),
            )
        })?;
        areas.push(area);
    }
    let pickup_area = areas[0];
    for (waypoint, area) in waypoints.iter().zip(&areas).skip(1) {
        if !pickup_area.contains(waypoint.point) {
            return Err(CoreError::at(
                ErrorCode::ServiceAreaUnavailable,
                &waypoint.param,
                format!(
                    "The {} lies in the service area {}, the pickup in {}; a delivery stays within one service area.",
                    describe(&waypoint.param),
                    area.name,
                    pickup_area.name
                ),
            ));
        }
    }
    Ok(pickup_area)
}

/// `pickup` → `pickup`, `stops.2` → `stop stops.2`, for messages.
fn describe(param: &str) -> String {
    match param {
        "pickup" | "dropoff" => param.to_owned(),
        other => format!("stop {other}"),
    }
}

/// Validates the selected extras for `vehicle` and prices each.
fn price_extras(
    catalog: &Catalog,
    vehicle: &VehicleType,
    selections: &[ExtraSelection],
) -> CoreResult<Vec<BreakdownExtra>> {
    if selections.len() > MAX_EXTRAS {
        return Err(CoreError::invalid(
            "extras",
            format!("At most {MAX_EXTRAS} extras can be selected; got {}.", selections.len()),
        ));
    }
    let mut seen: HashSet<(&str, Option<&str>)> = HashSet::new();
    let mut priced = Vec::with_capacity(selections.len());
    for (index, selection) in selections.iter().enumerate() {
        let at = |field: &str| format!("extras.{index}.{field}");
        let extra = catalog.extra(&selection.extra_id).ok_or_else(|| {
            CoreError::invalid(
                at("extra_id"),
                format!(
                    "Unknown extra '{}'; see GET /v1/vehicle-types for the extras of each vehicle type.",
                    selection.extra_id
                ),
            )
        })?;
        if !vehicle.offers_extra(&extra.id) {
            return Err(CoreError::invalid(
                at("extra_id"),
                format!(
                    "Extra '{}' is not offered with vehicle type '{}'.",
                    extra.id, vehicle.id
                ),
            ));
        }
        let (option, unit_amount_cents) = match (&selection.option_id, extra.has_options()) {
            (None, true) => {
                return Err(CoreError::invalid(
                    at("option_id"),
                    format!(
                        "Extra '{}' needs an option_id, one of: {}.",
                        extra.id,
                        extra.option_ids()
                    ),
                ));
            }
            (Some(option_id), true) => {
                let option = extra.option(option_id).ok_or_else(|| {
                    CoreError::invalid(
                        at("option_id"),
                        format!(
                            "Unknown option '{option_id}' of extra '{}'; use one of: {}.",
                            extra.id,
                            extra.option_ids()
                        ),
                    )
                })?;
                (Some(option), option.unit_amount_cents)
            }
            (Some(_), false) => {
                return Err(CoreError::invalid(
                    at("option_id"),
                    format!("Extra '{}' has no options; omit option_id.", extra.id),
                ));
            }
            (None, false) => {
                let unit = extra
                    .unit_amount_cents
                    .ok_or_else(|| CoreError::Internal(format!("extra '{}' has no price", extra.id)))?;
                (None, unit)
            }
        };
        if !(1..=MAX_EXTRA_QUANTITY).contains(&selection.quantity) {
            return Err(CoreError::invalid(
                at("quantity"),
                format!(
                    "extras.{index}.quantity must be 1 to {MAX_EXTRA_QUANTITY}; got {}.",
                    selection.quantity
                ),
            ));
        }
        let option_id = option.map(|option| option.id.as_str());
        if !seen.insert((extra.id.as_str(), option_id)) {
            return Err(CoreError::invalid(
                at("extra_id"),
                format!(
                    "Extra '{}'{} is selected twice; select it once with a higher quantity.",
                    extra.id,
                    option_id.map_or_else(String::new, |id| format!(" with option '{id}'"))
                ),
            ));
        }
        priced.push(BreakdownExtra {
            extra_id: extra.id.clone(),
            option_id: option.map(|option| option.id.clone()),
            name: extra.name.clone(),
            option_name: option.map(|option| option.name.clone()),
            quantity: selection.quantity,
            unit_amount_cents,
            amount_cents: unit_amount_cents * selection.quantity,
        });
    }
    Ok(priced)
}

/// The estimate as (distance in hundredths of a kilometre, minutes), refusing
/// what no real route produces.
fn checked_estimate(estimate: RouteEstimate) -> CoreResult<(i64, i64)> {
    let RouteEstimate {
        distance_km,
        duration_min,
    } = estimate;
    if !(distance_km.is_finite() && (0.0..=MAX_ROUTE_KM).contains(&distance_km)) {
        return Err(CoreError::Internal(format!(
            "the router returned an impossible distance of {distance_km} km"
        )));
    }
    if !(0..=MAX_ROUTE_MIN).contains(&duration_min) {
        return Err(CoreError::Internal(format!(
            "the router returned an impossible duration of {duration_min} min"
        )));
    }
    // Bounded above, so the conversion is exact.
    Ok(((distance_km * 100.0).round() as i64, duration_min))
}

/// The time surcharges that apply to `fare` at `pickup_at` in `area`, in the
/// order night, Sunday, holiday.
fn time_surcharges(area: &ServiceArea, pickup_at: DateTime<Utc>, fare: i64) -> Vec<Surcharge> {
    let local = area.local_time(pickup_at);
    let hour = local.hour();
    let is_night = !(NIGHT_END_HOUR..NIGHT_START_HOUR).contains(&hour);
    let is_sunday = local.weekday() == Weekday::Sun;
    let holiday = area.holiday_on(local.date_naive());
    let surcharge = |rule: &SurchargeRule, label: String| Surcharge {
        code: rule.code.clone(),
        label,
        amount_cents: apply_bps(fare, rule.bps),
    };
    let rules = &area.surcharges;
    let mut applied = Vec::new();
    if let Some(rule) = rules.night.as_ref().filter(|_| is_night) {
        applied.push(surcharge(rule, rule.label.clone()));
    }
    if let Some(rule) = rules.sunday.as_ref().filter(|_| is_sunday) {
        applied.push(surcharge(rule, rule.label.clone()));
    }
    if let (Some(rule), Some(name)) = (&rules.holiday, holiday) {
        applied.push(surcharge(rule, format!("{} ({name})", rule.label)));
    }
    applied
}

/// `amount × bps / 10000`, rounded half up, for non-negative amounts.
fn apply_bps(amount: i64, bps: u32) -> i64 {
    round_half_up_div(amount * i64::from(bps), 10_000)
}

/// `numerator / denominator` rounded half up, for a non-negative numerator
/// and a positive denominator.
fn round_half_up_div(numerator: i64, denominator: i64) -> i64 {
    (numerator + denominator / 2) / denominator
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::{OfflineRouter, RouteFuture};
    use chrono::TimeZone;
    use proptest::prelude::*;

    const ALEXANDERPLATZ: GeoPoint = GeoPoint::new(52.5219, 13.4132);
    const BRANDENBURG_GATE: GeoPoint = GeoPoint::new(52.5163, 13.3777);
    const TEMPELHOF: GeoPoint = GeoPoint::new(52.4731, 13.4039);
    const DAM_SQUARE: GeoPoint = GeoPoint::new(52.3731, 4.8926);
    const AMSTERDAM_CENTRAAL: GeoPoint = GeoPoint::new(52.3791, 4.9003);
    const PARIS: GeoPoint = GeoPoint::new(48.8566, 2.3522);
    const POTSDAM: GeoPoint = GeoPoint::new(52.3906, 13.0645);

    /// Always the same route, so fares are easy to compute by hand.
    struct FixedRouter(RouteEstimate);

    impl RoutingProvider for FixedRouter {
        fn route<'a>(&'a self, _: &'a [RoutePoint], _: &'a VehicleType) -> RouteFuture<'a> {
            let estimate = self.0;
            Box::pin(async move { Ok(estimate) })
        }
    }

    /// 12.344 km (12.34 after rounding) and 30 minutes.
    const FIXED: FixedRouter = FixedRouter(RouteEstimate {
        distance_km: 12.344,
        duration_min: 30,
    });
    /// Berlin car fare on the fixed route: 900 + round(120 × 12.34) + 25 × 30.
    const BERLIN_CAR_FARE: i64 = 900 + 1481 + 750;

    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime")
            .block_on(future)
    }

    fn route(points: &[GeoPoint]) -> Vec<RoutePoint> {
        let last = points.len() - 1;
        points
            .iter()
            .enumerate()
            .map(|(index, point)| RoutePoint {
                param: match index {
                    0 => "pickup".to_owned(),
                    i if i == last => "dropoff".to_owned(),
                    i => format!("stops.{}", i - 1),
                },
                point: *point,
            })
            .collect()
    }

    fn extra(extra_id: &str, option_id: Option<&str>, quantity: i64) -> ExtraSelection {
        ExtraSelection {
            extra_id: extra_id.to_owned(),
            option_id: option_id.map(str::to_owned),
            quantity,
        }
    }

    /// A Wednesday noon in Berlin (no surcharge).
    fn wednesday_noon() -> DateTime<Utc> {
        utc(2026, 7, 15, 10, 0)
    }

    fn utc(y: i32, m: u32, d: u32, h: u32, min: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(y, m, d, h, min, 0).single().expect("instant")
    }

    fn request<'a>(
        waypoints: &'a [RoutePoint],
        vehicle_type_id: &'a str,
        extras: &'a [ExtraSelection],
    ) -> PriceRequest<'a> {
        PriceRequest {
            waypoints,
            vehicle_type_id,
            extras,
            items: None,
            pickup_at: wednesday_noon(),
            discount_bps: 0,
        }
    }

    fn price_with(
        catalog: &Catalog,
        router: &dyn RoutingProvider,
        request: &PriceRequest<'_>,
    ) -> CoreResult<PricedRoute> {
        block_on(price_route(catalog, router, request))
    }

    fn price(request: &PriceRequest<'_>) -> CoreResult<PricedRoute> {
        price_with(&Catalog::default_catalog(), &FIXED, request)
    }

    fn rejected(result: CoreResult<PricedRoute>) -> (ErrorCode, String) {
        match result {
            Err(CoreError::Rejected { code, param, .. }) => (code, param.unwrap_or_default()),
            other => panic!("expected a rejection, got {other:?}"),
        }
    }

    fn assert_rejected(result: CoreResult<PricedRoute>, code: ErrorCode, param: &str) {
        assert_eq!(rejected(result), (code, param.to_owned()));
    }

    fn surcharges_at(pickup_at: DateTime<Utc>) -> Vec<(String, i64)> {
        surcharges_in(&[ALEXANDERPLATZ, BRANDENBURG_GATE], pickup_at)
    }

    fn surcharges_in(points: &[GeoPoint], pickup_at: DateTime<Utc>) -> Vec<(String, i64)> {
        let waypoints = route(points);
        let mut request = request(&waypoints, "car", &[]);
        request.pickup_at = pickup_at;
        let priced = price(&request).expect("priced");
        let total: i64 = priced.breakdown.surcharges.iter().map(|s| s.amount_cents).sum();
        if points[0] == ALEXANDERPLATZ {
            assert_eq!(priced.breakdown.route_cents, BERLIN_CAR_FARE + total);
        }
        priced
            .breakdown
            .surcharges
            .into_iter()
            .map(|s| (s.code, s.amount_cents))
            .collect()
    }

    #[test]
    fn worked_example() {
        let waypoints = route(&[ALEXANDERPLATZ, TEMPELHOF, BRANDENBURG_GATE]);
        let extras = [extra("insurance", Some("premium"), 1), extra("waiting_time", None, 3)];
        let mut request = request(&waypoints, "car", &extras);
        request.discount_bps = 1000;
        let priced = price(&request).expect("priced");
        assert_eq!(priced.service_area_id, "berlin");
        assert_eq!(priced.currency, "EUR");
        assert_eq!(priced.distance_km, 12.34);
        assert_eq!(priced.duration_min, 30);
        assert_eq!(
            priced.breakdown,
            Breakdown {
                route_cents: 3131,
                extras: vec![
                    BreakdownExtra {
                        extra_id: "insurance".into(),
                        option_id: Some("premium".into()),
                        name: "Goods insurance".into(),
                        option_name: Some("Premium, goods up to 5,000 EUR".into()),
                        quantity: 1,
                        unit_amount_cents: 1200,
                        amount_cents: 1200,
                    },
                    BreakdownExtra {
                        extra_id: "waiting_time".into(),
                        option_id: None,
                        name: "Waiting time (per 5 minutes)".into(),
                        option_name: None,
                        quantity: 3,
                        unit_amount_cents: 150,
                        amount_cents: 450,
                    },
                ],
                surcharges: vec![],
                discount_cents: 313,
                service_fee_cents: 99,
            }
        );
        assert_eq!(priced.amount_cents, 3131 + 1650 - 313 + 99);
        assert_eq!(priced.amount_cents, priced.breakdown.total_cents());
    }

    #[test]
    fn offline_router_prices_a_real_route() {
        let waypoints = route(&[ALEXANDERPLATZ, BRANDENBURG_GATE]);
        let request = request(&waypoints, "bicycle", &[]);
        let priced = price_with(&Catalog::default_catalog(), &OfflineRouter::default(), &request).expect("priced");
        // 2.48 km great-circle × 1.3 ≈ 3.22 km at 15 km/h ≈ 12.9 min, + 3.
        assert!((3.1..3.4).contains(&priced.distance_km), "{}", priced.distance_km);
        assert_eq!(priced.duration_min, 16);
        let fare = 450 + round_half_up_div(110 * (priced.distance_km * 100.0).round() as i64, 100) + 15 * 16;
        assert_eq!(priced.breakdown.route_cents, fare);
        assert_eq!(priced.amount_cents, fare + 99);
    }

    #[test]
    fn rounding_is_half_up() {
        assert_eq!(apply_bps(3130, 2500), 783); // 782.5
        assert_eq!(apply_bps(3131, 2500), 783); // 782.75
        assert_eq!(apply_bps(3129, 2500), 782); // 782.25
        assert_eq!(apply_bps(1, 5000), 1);
        assert_eq!(apply_bps(1, 4999), 0);
        assert_eq!(apply_bps(0, 10_000), 0);
        assert_eq!(apply_bps(4567, 10_000), 4567);
        assert_eq!(round_half_up_div(120 * 1235, 100), 1482); // 1482.0
        assert_eq!(round_half_up_div(150 * 1233, 100), 1850); // 1849.5
    }

    #[test]
    fn unknown_vehicle_type_is_checked_first() {
        let waypoints = route(&[PARIS, POTSDAM]);
        assert_rejected(
            price(&request(&waypoints, "truck", &[])),
            ErrorCode::InvalidRequest,
            "vehicle_type_id",
        );
    }

    #[test]
    fn waypoints_outside_every_area_are_named() {
        let cases: [(&[GeoPoint], &str); 4] = [
            (&[POTSDAM, ALEXANDERPLATZ], "pickup"),
            (&[ALEXANDERPLATZ, PARIS], "dropoff"),
            (&[ALEXANDERPLATZ, TEMPELHOF, POTSDAM, BRANDENBURG_GATE], "stops.1"),
            // Outside everywhere beats "different area": the dropoff is named.
            (&[ALEXANDERPLATZ, DAM_SQUARE, PARIS], "dropoff"),
        ];
        for (points, param) in cases {
            let waypoints = route(points);
            assert_rejected(
                price(&request(&waypoints, "car", &[])),
                ErrorCode::ServiceAreaUnavailable,
                param,
            );
        }
    }

    #[test]
    fn waypoints_in_another_area_are_named() {
        let waypoints = route(&[ALEXANDERPLATZ, DAM_SQUARE]);
        assert_rejected(
            price(&request(&waypoints, "car", &[])),
            ErrorCode::ServiceAreaUnavailable,
            "dropoff",
        );
        let waypoints = route(&[ALEXANDERPLATZ, TEMPELHOF, DAM_SQUARE, AMSTERDAM_CENTRAAL]);
        assert_rejected(
            price(&request(&waypoints, "car", &[])),
            ErrorCode::ServiceAreaUnavailable,
            "stops.1",
        );
        let waypoints = route(&[DAM_SQUARE, AMSTERDAM_CENTRAAL]);
        let priced = price(&request(&waypoints, "car", &[])).expect("Amsterdam works");
        assert_eq!(priced.service_area_id, "amsterdam");
        assert_eq!(priced.breakdown.service_fee_cents, 119);
    }

    #[test]
    fn impossible_coordinates_are_invalid_requests() {
        let mut waypoints = route(&[ALEXANDERPLATZ, TEMPELHOF, BRANDENBURG_GATE]);
        waypoints[1].point.latitude = 91.0;
        assert_rejected(
            price(&request(&waypoints, "car", &[])),
            ErrorCode::InvalidRequest,
            "stops.0.latitude",
        );
        waypoints[1].point = GeoPoint::new(52.5, f64::NAN);
        assert_rejected(
            price(&request(&waypoints, "car", &[])),
            ErrorCode::InvalidRequest,
            "stops.0.longitude",
        );
    }

    #[test]
    fn a_route_needs_two_waypoints() {
        let waypoints = route(&[ALEXANDERPLATZ]);
        assert!(matches!(
            price(&request(&waypoints[..1], "car", &[])),
            Err(CoreError::Internal(_))
        ));
    }

    /// The default catalogue plus 21 flat extras `x0`…`x20` offered by cars.
    fn catalog_with_many_extras() -> Catalog {
        let mut value: serde_json::Value = serde_json::from_str(crate::catalog::DEFAULT_CATALOG_JSON).expect("json");
        for index in 0..21 {
            let id = format!("x{index}");
            value["extras"]
                .as_array_mut()
                .expect("extras")
                .push(serde_json::json!({ "id": id, "name": id, "unit_amount_cents": 100 }));
            value["vehicle_types"][2]["extras"]
                .as_array_mut()
                .expect("car extras")
                .push(id.into());
        }
        Catalog::from_json(&value.to_string()).expect("valid catalogue")
    }

    #[test]
    fn at_most_twenty_extras() {
        let catalog = catalog_with_many_extras();
        let waypoints = route(&[ALEXANDERPLATZ, BRANDENBURG_GATE]);
        let extras: Vec<ExtraSelection> = (0..21).map(|i| extra(&format!("x{i}"), None, 1)).collect();
        let priced =
            price_with(&catalog, &FIXED, &request(&waypoints, "car", &extras[..20])).expect("20 extras are fine");
        assert_eq!(priced.breakdown.extras.len(), 20);
        assert_eq!(priced.amount_cents, BERLIN_CAR_FARE + 2000 + 99);
        assert_rejected(
            price_with(&catalog, &FIXED, &request(&waypoints, "car", &extras)),
            ErrorCode::InvalidRequest,
            "extras",
        );
    }

    #[test]
    fn extra_quantity_limits() {
        let waypoints = route(&[ALEXANDERPLATZ, BRANDENBURG_GATE]);
        let ok = [extra("cooling_box", None, 1), extra("waiting_time", None, 99)];
        let priced = price(&request(&waypoints, "car", &ok)).expect("99 is fine");
        assert_eq!(priced.breakdown.extras[1].amount_cents, 99 * 150);
        for quantity in [100, 0, -5] {
            let bad = [extra("cooling_box", None, 1), extra("waiting_time", None, quantity)];
            assert_rejected(
                price(&request(&waypoints, "car", &bad)),
                ErrorCode::InvalidRequest,
                "extras.1.quantity",
            );
        }
    }

    #[test]
    fn extra_selection_rules() {
        let waypoints = route(&[ALEXANDERPLATZ, BRANDENBURG_GATE]);
        let cases = [
            ("car", vec![extra("jetpack", None, 1)], "extras.0.extra_id"),
            (
                "bicycle",
                vec![extra("waiting_time", None, 1), extra("cooling_box", None, 1)],
                "extras.1.extra_id",
            ),
            ("car", vec![extra("insurance", None, 1)], "extras.0.option_id"),
            ("car", vec![extra("insurance", Some("gold"), 1)], "extras.0.option_id"),
            (
                "car",
                vec![extra("cooling_box", Some("basic"), 1)],
                "extras.0.option_id",
            ),
            (
                "car",
                vec![
                    extra("insurance", Some("basic"), 1),
                    extra("cooling_box", None, 1),
                    extra("insurance", Some("basic"), 2),
                ],
                "extras.2.extra_id",
            ),
            (
                "car",
                vec![extra("cooling_box", None, 1), extra("cooling_box", None, 1)],
                "extras.1.extra_id",
            ),
        ];
        for (vehicle, extras, param) in cases {
            assert_rejected(
                price(&request(&waypoints, vehicle, &extras)),
                ErrorCode::InvalidRequest,
                param,
            );
        }
        // Different options of one extra are different selections.
        let both = [
            extra("insurance", Some("basic"), 1),
            extra("insurance", Some("premium"), 1),
        ];
        assert!(price(&request(&waypoints, "car", &both)).is_ok());
    }

    #[test]
    fn extras_are_checked_before_items_and_items_before_routing() {
        let waypoints = route(&[ALEXANDERPLATZ, BRANDENBURG_GATE]);
        let heavy = [ItemInput {
            description: "Piano".into(),
            quantity: 1,
            weight_kg: 250.0,
            length_cm: 150.0,
            width_cm: 60.0,
            height_cm: 130.0,
        }];
        let extras = [extra("jetpack", None, 1)];
        let mut req = request(&waypoints, "bicycle", &extras);
        req.items = Some(&heavy);
        assert_rejected(price(&req), ErrorCode::InvalidRequest, "extras.0.extra_id");
        req.extras = &[];
        assert_rejected(price(&req), ErrorCode::VehicleDoesNotFit, "items.0");
        req.vehicle_type_id = "large_van";
        assert!(price(&req).is_ok());
        let no_items: [ItemInput; 0] = [];
        req.items = Some(&no_items);
        assert_rejected(price(&req), ErrorCode::InvalidRequest, "items");
        let mut bad = heavy.clone();
        bad[0].weight_kg = 0.0;
        req.items = Some(&bad);
        assert_rejected(price(&req), ErrorCode::InvalidItems, "items.0.weight_kg");
    }

    #[test]
    fn router_failures_and_nonsense_are_errors() {
        struct FailingRouter;
        impl RoutingProvider for FailingRouter {
            fn route<'a>(&'a self, _: &'a [RoutePoint], _: &'a VehicleType) -> RouteFuture<'a> {
                Box::pin(async { Err(CoreError::new(ErrorCode::UpstreamError, "router down")) })
            }
        }
        let catalog = Catalog::default_catalog();
        let waypoints = route(&[ALEXANDERPLATZ, BRANDENBURG_GATE]);
        let req = request(&waypoints, "car", &[]);
        assert_eq!(
            price_with(&catalog, &FailingRouter, &req).map_err(|e| e.code()).err(),
            Some(ErrorCode::UpstreamError)
        );
        for estimate in [
            RouteEstimate {
                distance_km: f64::NAN,
                duration_min: 10,
            },
            RouteEstimate {
                distance_km: -1.0,
                duration_min: 10,
            },
            RouteEstimate {
                distance_km: 1e9,
                duration_min: 10,
            },
            RouteEstimate {
                distance_km: 1.0,
                duration_min: -1,
            },
        ] {
            assert!(matches!(
                price_with(&catalog, &FixedRouter(estimate), &req),
                Err(CoreError::Internal(_))
            ));
        }
    }

    #[test]
    fn discount_applies_to_the_fare_only() {
        let waypoints = route(&[ALEXANDERPLATZ, BRANDENBURG_GATE]);
        let extras = [extra("return_trip", None, 1)];
        let mut req = request(&waypoints, "car", &extras);
        req.discount_bps = 10_000;
        let priced = price(&req).expect("priced");
        assert_eq!(priced.breakdown.discount_cents, BERLIN_CAR_FARE);
        assert_eq!(priced.amount_cents, 900 + 99);
        req.discount_bps = 0;
        assert_eq!(price(&req).expect("priced").breakdown.discount_cents, 0);
        req.discount_bps = 10_001;
        assert!(matches!(price(&req), Err(CoreError::Internal(_))));
    }

    #[test]
    fn saturday_night_in_berlin() {
        // Saturday 2026-07-18 23:30 CEST.
        assert_eq!(
            surcharges_at(utc(2026, 7, 18, 21, 30)),
            [("night_surcharge".to_owned(), 783)]
        );
        // 21:59 local is still day, 22:00 is night, 05:59 night, 06:00 day.
        assert!(surcharges_at(utc(2026, 7, 15, 19, 59)).is_empty());
        assert_eq!(surcharges_at(utc(2026, 7, 15, 20, 0)).len(), 1);
        assert_eq!(surcharges_at(utc(2026, 7, 15, 3, 59)).len(), 1);
        assert!(surcharges_at(utc(2026, 7, 15, 4, 0)).is_empty());
    }

    #[test]
    fn sunday_noon() {
        assert_eq!(
            surcharges_at(utc(2026, 7, 19, 10, 0)),
            [("sunday_surcharge".to_owned(), 626)]
        );
        // Sunday 23:59 local is still Sunday, at 00:00 Monday it is not.
        assert_eq!(surcharges_at(utc(2026, 7, 19, 21, 59)).len(), 2);
        assert_eq!(
            surcharges_at(utc(2026, 7, 19, 22, 0)),
            [("night_surcharge".to_owned(), 783)]
        );
    }

    #[test]
    fn easter_monday_2027() {
        let waypoints = route(&[ALEXANDERPLATZ, BRANDENBURG_GATE]);
        let mut req = request(&waypoints, "car", &[]);
        req.pickup_at = utc(2027, 3, 29, 10, 0); // 12:00 CEST
        let priced = price(&req).expect("priced");
        assert_eq!(
            priced.breakdown.surcharges,
            [Surcharge {
                code: "holiday_surcharge".into(),
                label: "Public holiday surcharge (Easter Monday)".into(),
                amount_cents: 939,
            }]
        );
        assert_eq!(priced.breakdown.route_cents, BERLIN_CAR_FARE + 939);
    }

    #[test]
    fn dst_change_sunday_night() {
        // 2026-10-25 01:30 local is still CEST (UTC+2): 2026-10-24 23:30 UTC.
        let expected = [
            ("night_surcharge".to_owned(), 783),
            ("sunday_surcharge".to_owned(), 626),
        ];
        assert_eq!(surcharges_at(utc(2026, 10, 24, 23, 30)), expected);
        // 02:30 local happens twice (CEST, then CET): both are Sunday night.
        assert_eq!(surcharges_at(utc(2026, 10, 25, 0, 30)), expected);
        assert_eq!(surcharges_at(utc(2026, 10, 25, 1, 30)), expected);
        // After the change the offset is +1: 04:30 UTC is 05:30 local (night)
        // and 05:00 UTC is 06:00 local (day).
        assert_eq!(surcharges_at(utc(2026, 10, 25, 4, 30)), expected);
        assert_eq!(
            surcharges_at(utc(2026, 10, 25, 5, 0)),
            [("sunday_surcharge".to_owned(), 626)]
        );
        // Saturday 23:59 local (21:59 UTC) is night, not yet Sunday.
        assert_eq!(surcharges_at(utc(2026, 10, 24, 21, 59)).len(), 1);
    }

    #[test]
    fn christmas_sunday_night_has_all_three_in_order() {
        // 2033-12-25 is a Sunday; 23:00 CET.
        assert_eq!(
            surcharges_at(utc(2033, 12, 25, 22, 0)),
            [
                ("night_surcharge".to_owned(), 783),
                ("sunday_surcharge".to_owned(), 626),
                ("holiday_surcharge".to_owned(), 939),
            ]
        );
    }

    #[test]
    fn holidays_are_local_to_the_area() {
        // King's Day 2026 (Monday) in Amsterdam, 12:00 CEST; not in Berlin.
        let codes = |points: &[GeoPoint]| -> Vec<String> {
            surcharges_in(points, utc(2026, 4, 27, 10, 0))
                .into_iter()
                .map(|(code, _)| code)
                .collect()
        };
        assert_eq!(codes(&[DAM_SQUARE, AMSTERDAM_CENTRAAL]), ["holiday_surcharge"]);
        assert!(codes(&[ALEXANDERPLATZ, BRANDENBURG_GATE]).is_empty());
    }

    #[test]
    fn breakdown_json_shape() {
        let waypoints = route(&[ALEXANDERPLATZ, BRANDENBURG_GATE]);
        let extras = [extra("cooling_box", None, 1)];
        let mut req = request(&waypoints, "car", &extras);
        req.pickup_at = utc(2026, 7, 19, 10, 0);
        let breakdown = price(&req).expect("priced").breakdown;
        let json = serde_json::to_value(&breakdown).expect("serialize");
        assert_eq!(json["extras"][0]["option_id"], serde_json::Value::Null);
        assert_eq!(json["surcharges"][0]["code"], "sunday_surcharge");
        let back: Breakdown = serde_json::from_value(json).expect("deserialize");
        assert_eq!(back, breakdown);
        let selection: ExtraSelection = serde_json::from_str(r#"{"extra_id":"cooling_box"}"#).expect("defaults");
        assert_eq!(selection, extra("cooling_box", None, 1));
    }

    /// Every (extra, option) pair a vehicle offers, as selections of 1.
    fn offered_selections(catalog: &Catalog, vehicle_id: &str) -> Vec<ExtraSelection> {
        let vehicle = catalog.vehicle_type(vehicle_id).expect("vehicle");
        catalog
            .extras_of(vehicle)
            .into_iter()
            .flat_map(|extra| {
                if extra.has_options() {
                    extra
                        .options
                        .iter()
                        .map(|option| ExtraSelection {
                            extra_id: extra.id.clone(),
                            option_id: Some(option.id.clone()),
                            quantity: 1,
                        })
                        .collect()
                } else {
                    vec![ExtraSelection {
                        extra_id: extra.id.clone(),
                        option_id: None,
                        quantity: 1,
                    }]
                }
            })
            .collect()
    }

    const VEHICLES: [&str; 5] = ["bicycle", "cargo_bike", "car", "small_van", "large_van"];

    fn berlin_point() -> impl Strategy<Value = GeoPoint> {
        (52.45f64..52.56, 13.28f64..13.5).prop_map(|(lat, lon)| GeoPoint::new(lat, lon))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn price_identity_holds(
            points in prop::collection::vec(berlin_point(), 2..=12),
            vehicle_index in 0..VEHICLES.len(),
            chosen in prop::collection::vec((any::<prop::sample::Index>(), 1i64..=99), 0..=8),
            discount_bps in 0u32..=10_000,
            // 2026-01-01T00:00Z plus up to two years.
            offset_s in 0i64..(2 * 365 * 86_400),
        ) {
            let catalog = Catalog::default_catalog();
            let vehicle_id = VEHICLES[vehicle_index];
            let offered = offered_selections(&catalog, vehicle_id);
            let mut extras: Vec<ExtraSelection> = Vec::new();
            for (index, quantity) in chosen {
                let mut selection = index.get(&offered).clone();
                if extras.iter().any(|e| e.extra_id == selection.extra_id && e.option_id == selection.option_id) {
                    continue;
                }
                selection.quantity = quantity;
                extras.push(selection);
            }
            let waypoints = route(&points);
            let pickup_at = utc(2026, 1, 1, 0, 0) + chrono::Duration::seconds(offset_s);
            let request = PriceRequest {
                waypoints: &waypoints,
                vehicle_type_id: vehicle_id,
                extras: &extras,
                items: None,
                pickup_at,
                discount_bps,
            };
            let priced = price_with(&catalog, &OfflineRouter::default(), &request)
                .expect("valid requests price");
            let b = &priced.breakdown;

            // The identity of docs/guide.md "Vehicle types and pricing", exactly.
            let extras_total: i64 = b.extras.iter().map(|e| e.amount_cents).sum();
            prop_assert_eq!(
                priced.amount_cents,
                b.route_cents + extras_total - b.discount_cents + b.service_fee_cents
            );
            // Nothing is negative.
            prop_assert!(priced.amount_cents >= 0);
            prop_assert!(b.route_cents >= 0 && b.discount_cents >= 0 && b.service_fee_cents >= 0);
            prop_assert!(b.discount_cents <= b.route_cents);
            for e in &b.extras {
                prop_assert!(e.unit_amount_cents >= 0 && e.amount_cents >= 0);
                prop_assert_eq!(e.amount_cents, e.unit_amount_cents * e.quantity);
            }
            prop_assert_eq!(b.extras.len(), extras.len());
            // Surcharges are inside route_cents, on top of a fare a client can
            // recompute from the published distance and duration.
            let area = catalog.service_area("berlin").expect("berlin");
            let rate = area.rate_for(vehicle_id).expect("rate");
            let centikm = (priced.distance_km * 100.0).round() as i64;
            let fare = rate.base_cents
                + round_half_up_div(rate.per_km_cents * centikm, 100)
                + rate.per_min_cents * priced.duration_min;
            let surcharge_total: i64 = b.surcharges.iter().map(|s| s.amount_cents).sum();
            prop_assert!(b.surcharges.iter().all(|s| s.amount_cents >= 0));
            prop_assert_eq!(b.route_cents, fare + surcharge_total);
            // Surcharges appear in order, each at most once, exactly when due.
            let local = pickup_at.with_timezone(&chrono_tz::Europe::Berlin);
            let mut expected = Vec::new();
            if local.hour() >= 22 || local.hour() < 6 { expected.push("night_surcharge"); }
            if local.weekday() == Weekday::Sun { expected.push("sunday_surcharge"); }
            if area.holiday_on(local.date_naive()).is_some() { expected.push("holiday_surcharge"); }
            let codes: Vec<&str> = b.surcharges.iter().map(|s| s.code.as_str()).collect();
            prop_assert_eq!(codes, expected);
            prop_assert_eq!(priced.service_area_id.as_str(), "berlin");
            prop_assert!(priced.duration_min >= 1);
        }
    }
}
