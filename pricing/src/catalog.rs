//! The catalogue: what can be booked (vehicle types and their extras) and
//! where and at what price (service areas with rates, fees, surcharges and
//! public holidays).
//!
//! It is data, not code, so operations can replace it without a release
//! (`COURIER_CATALOG_FILE`); the built-in one is `pricing/catalog/default.json`,
//! embedded in the binary. Every catalogue is validated completely when it is
//! loaded, so pricing can rely on its invariants (every vehicle type has rates
//! in every area, every offered extra exists, amounts are bounded, …) and a
//! broken file stops the service at start-up instead of failing quotes later.
//!
//! Public holidays are rules (fixed dates and offsets from Easter Sunday),
//! not lists of dates, so the calendar never runs out.
//!
//! File format (all objects reject unknown fields, so typos cannot silently
//! drop a setting):
//!
//! ```text
//! { "currency": "EUR",
//!   "notifications"?: { "sms_cents" },
//!   "vehicle_types": [{ "id", "name", "description", "max_weight_kg",
//!       "max_length_cm", "max_width_cm", "max_height_cm", "max_jobs"?,
//!       "extras": [<extra id>…] }],
//!   "extras": [{ "id", "name", "description"?,
//!       "unit_amount_cents" | "options": [{ "id", "name", "unit_amount_cents" }] }],
//!   "service_areas": [{ "id", "name", "time_zone" (IANA), "currency" (ISO 4217),
//!       "polygon": [[longitude, latitude]…],
//!       "rates": { <vehicle id>: { "base_cents", "per_km_cents", "per_min_cents" } },
//!       "service_fee_cents",
//!       "surcharges": { "night"?, "sunday"?, "holiday"?: { "code", "label", "bps" } },
//!       "holidays": [{ "rule": "fixed", "name", "month", "day", "if_sunday_offset_days"? }
//!                  | { "rule": "easter", "name", "offset_days" }] }] }
//! ```
//!
//! `notifications` prices recipient notifications (docs/billing.md "SMS
//! notifications"): `sms_cents`, what each live SMS a provider took costs,
//! in the catalogue currency. A file that leaves the object out gets
//! [`DEFAULT_SMS_CENTS`], the built-in catalogue's price; `0` bills no SMS.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Datelike, Days, NaiveDate, Utc, Weekday};
use chrono_tz::Tz;
use courier::limits::{MAX_ITEM_DIMENSION_CM, MAX_ITEM_WEIGHT_KG};
use serde::{Deserialize, Deserializer, Serialize};

use crate::geo::{GeoPoint, Polygon};

/// The catalogue shipped with the service.
pub const DEFAULT_CATALOG_JSON: &str = include_str!("../catalog/default.json");

/// Upper bound of every configured amount (rates, fees, extra prices): keeps
/// every price computation far from integer overflow.
pub const MAX_CONFIGURED_CENTS: i64 = 10_000_000;

/// Upper bound of a surcharge rate in basis points (100 %).
pub const MAX_SURCHARGE_BPS: u32 = 10_000;
/// The most jobs any vehicle type may hold at once: a day's route of a
/// large van, and a bound on every route the core plans.
pub const MAX_JOBS_PER_COURIER: u32 = 50;

/// The price of a live SMS notification when the catalogue file says
/// nothing (`notifications` left out): the built-in catalogue's.
pub const DEFAULT_SMS_CENTS: i64 = 9;

/// Why a catalogue could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("cannot read catalogue file {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("catalogue is not valid: {0}")]
    Json(#[from] serde_json::Error),
    #[error("catalogue is not valid at {path}: {message}")]
    Invalid { path: String, message: String },
}

fn invalid(path: impl Into<String>, message: impl Into<String>) -> CatalogError {
    CatalogError::Invalid {
        path: path.into(),
        message: message.into(),
    }
}

/// A validated catalogue. Obtain one with [`Catalog::default_catalog`],
/// [`Catalog::from_json`] or [`Catalog::load`]; it is not deserializable on
/// its own, so no unvalidated catalogue can exist.
#[derive(Clone, Debug, PartialEq)]
pub struct Catalog {
    currency: String,
    notifications: NotificationPrices,
    vehicle_types: Vec<VehicleType>,
    extras: Vec<Extra>,
    service_areas: Vec<ServiceArea>,
}

/// The file as parsed, before validation.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogFile {
    currency: String,
    #[serde(default)]
    notifications: NotificationPrices,
    vehicle_types: Vec<VehicleType>,
    extras: Vec<Extra>,
    service_areas: Vec<ServiceArea>,
}

/// What recipient notifications cost, in the catalogue currency: each
/// live SMS a provider took is charged on the workspace's statement
/// (docs/billing.md "SMS notifications"). Emails are free.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotificationPrices {
    /// The price of one live SMS, VAT included; `0` bills none.
    pub sms_cents: i64,
}

impl Default for NotificationPrices {
    fn default() -> NotificationPrices {
        NotificationPrices {
            sms_cents: DEFAULT_SMS_CENTS,
        }
    }
}

/// A bookable vehicle type with its cargo limits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VehicleType {
    /// Readable slug, the public `vehicle_type_id` (`bicycle`, `small_van`).
    pub id: String,
    pub name: String,
    pub description: String,
    pub max_weight_kg: f64,
    pub max_length_cm: f64,
    pub max_width_cm: f64,
    pub max_height_cm: f64,
    /// The most jobs a courier with this vehicle holds at once
    /// (docs/guide.md "Several jobs per courier"); 1 when the file says
    /// nothing, one job at a time.
    #[serde(default = "one_job")]
    pub max_jobs: u32,
    /// Ids of the extras this vehicle type offers, in display order.
    pub extras: Vec<String>,
    /// The road router's profile for this vehicle (`driving`, `cycling`):
    /// the `{profile}` of OSRM's `/route/v1/{profile}/…`.
    #[serde(default = "default_routing_profile")]
    pub routing_profile: String,
    /// Smaller vehicle types whose jobs a courier with this vehicle may
    /// also take (a car carries what a bicycle would); each type serves its
    /// own jobs in any case.
    #[serde(default)]
    pub serves: Vec<String>,
}

fn one_job() -> u32 {
    1
}

fn default_routing_profile() -> String {
    "driving".to_owned()
}

impl VehicleType {
    /// Whether a courier with this vehicle may take a job booked for
    /// `vehicle_type_id`.
    pub fn can_serve(&self, vehicle_type_id: &str) -> bool {
        self.id == vehicle_type_id || self.serves.iter().any(|id| id == vehicle_type_id)
    }

    /// Whether the extra `extra_id` can be booked with this vehicle type.
    pub fn offers_extra(&self, extra_id: &str) -> bool {
        self.extras.iter().any(|id| id == extra_id)
    }

    /// The cargo space in cubic centimetres.
    pub fn cargo_volume_cm3(&self) -> f64 {
        self.max_length_cm * self.max_width_cm * self.max_height_cm
    }
}

/// A bookable add-on. Priced in the catalogue currency, the same in every
/// area. It has either one price (`unit_amount_cents`) or options with a
/// price each, never both.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Extra {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit_amount_cents: Option<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<ExtraOption>,
}

impl Extra {
    /// Whether a booking must choose one of [`Extra::options`].
    pub fn has_options(&self) -> bool {
        !self.options.is_empty()
    }

    /// The option `option_id`, if this extra has it.
    pub fn option(&self, option_id: &str) -> Option<&ExtraOption> {
        self.options.iter().find(|option| option.id == option_id)
    }

    /// The option ids, comma separated, for messages.
    pub fn option_ids(&self) -> String {
        self.options
            .iter()
            .map(|option| option.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// One choice of an extra with options (e.g. `insurance` → `premium`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtraOption {
    pub id: String,
    pub name: String,
    pub unit_amount_cents: i64,
}

/// A region served with one time zone, one currency and one price list.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceArea {
    pub id: String,
    pub name: String,
    /// IANA time zone in which surcharges and holidays are evaluated.
    #[serde(deserialize_with = "deserialize_time_zone")]
    pub time_zone: Tz,
    /// ISO 4217 code; always the catalogue currency.
    pub currency: String,
    /// The covered region; written as `[longitude, latitude]` pairs.
    pub polygon: Polygon,
    /// Fare per vehicle type id; every vehicle type has one.
    pub rates: BTreeMap<String, VehicleRate>,
    /// Flat fee per delivery.
    pub service_fee_cents: i64,
    #[serde(default)]
    pub surcharges: SurchargeRules,
    #[serde(default)]
    pub holidays: Vec<HolidayRule>,
}

impl ServiceArea {
    /// Whether `point` lies inside this area.
    pub fn contains(&self, point: GeoPoint) -> bool {
        self.polygon.contains(point)
    }

    /// The fare of `vehicle_type_id` here.
    pub fn rate_for(&self, vehicle_type_id: &str) -> Option<&VehicleRate> {
        self.rates.get(vehicle_type_id)
    }

    /// `instant` on the area's wall clock.
    pub fn local_time(&self, instant: DateTime<Utc>) -> DateTime<Tz> {
        instant.with_timezone(&self.time_zone)
    }

    /// The name of the public holiday on the local `date`, if it is one.
    pub fn holiday_on(&self, date: NaiveDate) -> Option<&str> {
        // A rule shifted across New Year (observed on Dec 31 or Jan 1+) is
        // found from the neighbouring year.
        let year = date.year();
        self.holidays
            .iter()
            .find(|rule| {
                [year - 1, year, year + 1]
                    .into_iter()
                    .any(|y| rule.date_in(y) == Some(date))
            })
            .map(HolidayRule::name)
    }
}

/// Fare parameters of one vehicle type in one area.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VehicleRate {
    pub base_cents: i64,
    pub per_km_cents: i64,
    pub per_min_cents: i64,
}

/// The time surcharges an area applies; an absent one does not apply.
/// Night is 22:00–06:00 local time, Sunday and holiday the whole local day.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SurchargeRules {
    #[serde(default)]
    pub night: Option<SurchargeRule>,
    #[serde(default)]
    pub sunday: Option<SurchargeRule>,
    #[serde(default)]
    pub holiday: Option<SurchargeRule>,
}

/// One time surcharge: a share of the pre-surcharge fare.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SurchargeRule {
    /// Stable code shown in the breakdown (`night_surcharge`).
    pub code: String,
    /// Human label shown in the breakdown.
    pub label: String,
    /// Basis points of the fare (2500 = 25 %).
    pub bps: u32,
}

/// A public holiday as a rule that yields its date in any year.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case", deny_unknown_fields)]
pub enum HolidayRule {
    /// The same month and day every year. When that day is a Sunday and
    /// `if_sunday_offset_days` is not zero, the holiday moves by that many
    /// days (King's Day in the Netherlands moves to Saturday with −1).
    Fixed {
        name: String,
        month: u32,
        day: u32,
        #[serde(default)]
        if_sunday_offset_days: i64,
    },
    /// Easter Sunday plus `offset_days` (Good Friday −2, Whit Monday +50).
    Easter { name: String, offset_days: i64 },
}

impl HolidayRule {
    pub fn name(&self) -> &str {
        match self {
            HolidayRule::Fixed { name, .. } | HolidayRule::Easter { name, .. } => name,
        }
    }

    /// The date of the holiday in `year`, or `None` when it does not occur
    /// (Feb 29 in a common year).
    pub fn date_in(&self, year: i32) -> Option<NaiveDate> {
        match self {
            HolidayRule::Fixed {
                month,
                day,
                if_sunday_offset_days,
                ..
            } => {
                let date = NaiveDate::from_ymd_opt(year, *month, *day)?;
                if date.weekday() == Weekday::Sun {
                    add_days(date, *if_sunday_offset_days)
                } else {
                    Some(date)
                }
            }
            HolidayRule::Easter { offset_days, .. } => add_days(easter_sunday(year)?, *offset_days),
        }
    }
}

fn add_days(date: NaiveDate, days: i64) -> Option<NaiveDate> {
    let magnitude = Days::new(days.unsigned_abs());
    if days >= 0 {
        date.checked_add_days(magnitude)
    } else {
        date.checked_sub_days(magnitude)
    }
}

/// Easter Sunday of `year` in the Gregorian calendar (the anonymous
/// Gregorian algorithm, also known as Meeus/Jones/Butcher).
pub fn easter_sunday(year: i32) -> Option<NaiveDate> {
    let a = year.rem_euclid(19);
    let b = year.div_euclid(100);
    let c = year.rem_euclid(100);
    let d = b / 4;
    let e = b % 4;
    let f = (b + 8) / 25;
    let g = (b - f + 1) / 3;
    let h = (19 * a + b - d - g + 15).rem_euclid(30);
    let i = c / 4;
    let k = c % 4;
    let l = (32 + 2 * e + 2 * i - h - k).rem_euclid(7);
    let m = (a + 11 * h + 22 * l) / 451;
    let month = (h + l - 7 * m + 114) / 31;
    let day = (h + l - 7 * m + 114) % 31 + 1;
    NaiveDate::from_ymd_opt(year, u32::try_from(month).ok()?, u32::try_from(day).ok()?)
}

fn deserialize_time_zone<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Tz, D::Error> {
    let name = String::deserialize(deserializer)?;
    name.parse::<Tz>()
        .map_err(|_| serde::de::Error::custom(format!("unknown time zone '{name}' (use an IANA name)")))
}

impl Catalog {
    /// The built-in catalogue.
    ///
    /// # Panics
    /// Only if the embedded `default.json` is invalid, which the unit tests
    /// rule out before a build can ship.
    pub fn default_catalog() -> Catalog {
        match Catalog::from_json(DEFAULT_CATALOG_JSON) {
            Ok(catalog) => catalog,
            Err(error) => panic!("the embedded catalogue is invalid: {error}"),
        }
    }

    /// Parses and validates a catalogue.
    pub fn from_json(json: &str) -> Result<Catalog, CatalogError> {
        let file: CatalogFile = serde_json::from_str(json)?;
        let catalog = Catalog {
            currency: file.currency,
            notifications: file.notifications,
            vehicle_types: file.vehicle_types,
            extras: file.extras,
            service_areas: file.service_areas,
        };
        catalog.validate()?;
        Ok(catalog)
    }

    /// The catalogue in the file at `path`, or the built-in one for `None`.
    pub fn load(path: Option<&Path>) -> Result<Catalog, CatalogError> {
        match path {
            None => Catalog::from_json(DEFAULT_CATALOG_JSON),
            Some(path) => {
                let json = std::fs::read_to_string(path).map_err(|source| CatalogError::Read {
                    path: path.to_path_buf(),
                    source,
                })?;
                Catalog::from_json(&json)
            }
        }
    }

    /// ISO 4217 code of every price in the catalogue.
    pub fn currency(&self) -> &str {
        &self.currency
    }

    /// What recipient notifications cost, in [`Catalog::currency`].
    pub fn notification_prices(&self) -> NotificationPrices {
        self.notifications
    }

    /// Every vehicle type, in display order.
    pub fn vehicle_types(&self) -> &[VehicleType] {
        &self.vehicle_types
    }

    pub fn vehicle_type(&self, id: &str) -> Option<&VehicleType> {
        self.vehicle_types.iter().find(|vehicle| vehicle.id == id)
    }

    /// The vehicle type a request names in `vehicle_type_id`, or
    /// `invalid_request` about that field.
    pub fn requested_vehicle_type(&self, id: &str) -> courier_store::CoreResult<&VehicleType> {
        self.vehicle_type(id).ok_or_else(|| {
            courier_store::CoreError::invalid(
                "vehicle_type_id",
                format!("Unknown vehicle type '{id}'; see GET /v1/vehicle-types."),
            )
        })
    }

    /// Every extra, whichever vehicle types offer it.
    pub fn extras(&self) -> &[Extra] {
        &self.extras
    }

    pub fn extra(&self, id: &str) -> Option<&Extra> {
        self.extras.iter().find(|extra| extra.id == id)
    }

    /// The extras `vehicle` offers, in the vehicle's order.
    pub fn extras_of(&self, vehicle: &VehicleType) -> Vec<&Extra> {
        vehicle.extras.iter().filter_map(|id| self.extra(id)).collect()
    }

    pub fn service_areas(&self) -> &[ServiceArea] {
        &self.service_areas
    }

    pub fn service_area(&self, id: &str) -> Option<&ServiceArea> {
        self.service_areas.iter().find(|area| area.id == id)
    }

    /// The time zone times of a delivery priced in area `id` are shown in
    /// (the tracking page, the console); UTC for an area the catalogue no
    /// longer has.
    pub fn time_zone(&self, id: &str) -> Tz {
        self.service_area(id).map_or(Tz::UTC, |area| area.time_zone)
    }

    /// The zone of the catalogue's first area: where times are shown when
    /// nothing names an area yet.
    pub fn home_time_zone(&self) -> Tz {
        self.service_areas.first().map_or(Tz::UTC, |area| area.time_zone)
    }

    /// The first area (in catalogue order) whose polygon contains `point`.
    pub fn area_containing(&self, point: GeoPoint) -> Option<&ServiceArea> {
        self.service_areas.iter().find(|area| area.contains(point))
    }

    /// Checks every invariant pricing relies on. Polygons and time zones are
    /// already checked while parsing.
    fn validate(&self) -> Result<(), CatalogError> {
        if !is_currency_code(&self.currency) {
            return Err(invalid(
                "currency",
                format!("'{}' is not an ISO 4217 code", self.currency),
            ));
        }
        ensure_amount(self.notifications.sms_cents, "notifications.sms_cents")?;
        self.validate_extras()?;
        self.validate_vehicle_types()?;
        self.validate_service_areas()
    }

    fn validate_extras(&self) -> Result<(), CatalogError> {
        if self.extras.len() > 1000 {
            return Err(invalid("extras", "at most 1000 extras"));
        }
        ensure_unique(self.extras.iter().map(|extra| extra.id.as_str()), "extras")?;
        for (index, extra) in self.extras.iter().enumerate() {
            let at = format!("extras.{index}");
            ensure_slug(&extra.id, &format!("{at}.id"))?;
            ensure_text(&extra.name, &format!("{at}.name"))?;
            match (extra.unit_amount_cents, extra.options.is_empty()) {
                (Some(amount), true) => {
                    ensure_amount(amount, &format!("{at}.unit_amount_cents"))?;
                }
                (None, false) => {
                    ensure_unique(
                        extra.options.iter().map(|option| option.id.as_str()),
                        &format!("{at}.options"),
                    )?;
                    for (option_index, option) in extra.options.iter().enumerate() {
                        let at = format!("{at}.options.{option_index}");
                        ensure_slug(&option.id, &format!("{at}.id"))?;
                        ensure_text(&option.name, &format!("{at}.name"))?;
                        ensure_amount(option.unit_amount_cents, &format!("{at}.unit_amount_cents"))?;
                    }
                }
                _ => {
                    return Err(invalid(
                        at,
                        "set exactly one of unit_amount_cents and a non-empty options list",
                    ));
                }
            }
        }
        Ok(())
    }

    fn validate_vehicle_types(&self) -> Result<(), CatalogError> {
        if self.vehicle_types.is_empty() {
            return Err(invalid("vehicle_types", "at least one vehicle type is needed"));
        }
        ensure_unique(
            self.vehicle_types.iter().map(|vehicle| vehicle.id.as_str()),
            "vehicle_types",
        )?;
        for (index, vehicle) in self.vehicle_types.iter().enumerate() {
            let at = format!("vehicle_types.{index}");
            ensure_slug(&vehicle.id, &format!("{at}.id"))?;
            ensure_slug(&vehicle.routing_profile, &format!("{at}.routing_profile"))?;
            ensure_text(&vehicle.name, &format!("{at}.name"))?;
            ensure_limit(
                vehicle.max_weight_kg,
                MAX_ITEM_WEIGHT_KG,
                &format!("{at}.max_weight_kg"),
            )?;
            for (value, field) in [
                (vehicle.max_length_cm, "max_length_cm"),
                (vehicle.max_width_cm, "max_width_cm"),
                (vehicle.max_height_cm, "max_height_cm"),
            ] {
                ensure_limit(value, MAX_ITEM_DIMENSION_CM, &format!("{at}.{field}"))?;
            }
            if !(1..=MAX_JOBS_PER_COURIER).contains(&vehicle.max_jobs) {
                return Err(invalid(
                    format!("{at}.max_jobs"),
                    format!("must be 1 to {MAX_JOBS_PER_COURIER}"),
                ));
            }
            ensure_unique(vehicle.extras.iter().map(String::as_str), &format!("{at}.extras"))?;
            for (served_index, served) in vehicle.serves.iter().enumerate() {
                if self.vehicle_type(served).is_none() {
                    return Err(invalid(
                        format!("{at}.serves.{served_index}"),
                        format!("unknown vehicle type '{served}'"),
                    ));
                }
            }
            for (extra_index, extra_id) in vehicle.extras.iter().enumerate() {
                if self.extra(extra_id).is_none() {
                    return Err(invalid(
                        format!("{at}.extras.{extra_index}"),
                        format!("unknown extra '{extra_id}'"),
                    ));
                }
            }
        }
        Ok(())
    }

    fn validate_service_areas(&self) -> Result<(), CatalogError> {
        if self.service_areas.is_empty() {
            return Err(invalid("service_areas", "at least one service area is needed"));
        }
        ensure_unique(self.service_areas.iter().map(|area| area.id.as_str()), "service_areas")?;
        for (index, area) in self.service_areas.iter().enumerate() {
            let at = format!("service_areas.{index}");
            ensure_slug(&area.id, &format!("{at}.id"))?;
            ensure_text(&area.name, &format!("{at}.name"))?;
            if area.currency != self.currency {
                return Err(invalid(
                    format!("{at}.currency"),
                    format!(
                        "'{}' differs from the catalogue currency '{}' in which extras are priced",
                        area.currency, self.currency
                    ),
                ));
            }
            for vehicle in &self.vehicle_types {
                if !area.rates.contains_key(&vehicle.id) {
                    return Err(invalid(
                        format!("{at}.rates"),
                        format!("no rates for vehicle type '{}'", vehicle.id),
                    ));
                }
            }
            for (vehicle_id, rate) in &area.rates {
                let at = format!("{at}.rates.{vehicle_id}");
                if self.vehicle_type(vehicle_id).is_none() {
                    return Err(invalid(at, "unknown vehicle type"));
                }
                ensure_amount(rate.base_cents, &format!("{at}.base_cents"))?;
                ensure_amount(rate.per_km_cents, &format!("{at}.per_km_cents"))?;
                ensure_amount(rate.per_min_cents, &format!("{at}.per_min_cents"))?;
            }
            ensure_amount(area.service_fee_cents, &format!("{at}.service_fee_cents"))?;
            let mut codes = HashSet::new();
            for (name, rule) in [
                ("night", &area.surcharges.night),
                ("sunday", &area.surcharges.sunday),
                ("holiday", &area.surcharges.holiday),
            ] {
                let Some(rule) = rule else { continue };
                let at = format!("{at}.surcharges.{name}");
                ensure_slug(&rule.code, &format!("{at}.code"))?;
                ensure_text(&rule.label, &format!("{at}.label"))?;
                if rule.bps > MAX_SURCHARGE_BPS {
                    return Err(invalid(
                        format!("{at}.bps"),
                        format!("at most {MAX_SURCHARGE_BPS} basis points"),
                    ));
                }
                if !codes.insert(rule.code.as_str()) {
                    return Err(invalid(
                        format!("{at}.code"),
                        format!("code '{}' is used twice", rule.code),
                    ));
                }
            }
            for (rule_index, rule) in area.holidays.iter().enumerate() {
                validate_holiday(rule, &format!("{at}.holidays.{rule_index}"))?;
            }
        }
        Ok(())
    }
}

fn validate_holiday(rule: &HolidayRule, at: &str) -> Result<(), CatalogError> {
    ensure_text(rule.name(), &format!("{at}.name"))?;
    match rule {
        HolidayRule::Fixed {
            month,
            day,
            if_sunday_offset_days,
            ..
        } => {
            // 2024 is a leap year, so Feb 29 is accepted.
            if NaiveDate::from_ymd_opt(2024, *month, *day).is_none() {
                return Err(invalid(at, format!("month {month}, day {day} is not a calendar date")));
            }
            if !(-6..=6).contains(if_sunday_offset_days) {
                return Err(invalid(format!("{at}.if_sunday_offset_days"), "must be within -6..=6"));
            }
        }
        HolidayRule::Easter { offset_days, .. } => {
            if !(-120..=120).contains(offset_days) {
                return Err(invalid(format!("{at}.offset_days"), "must be within -120..=120"));
            }
        }
    }
    Ok(())
}

fn is_currency_code(code: &str) -> bool {
    code.len() == 3 && code.bytes().all(|b| b.is_ascii_uppercase())
}

fn ensure_unique<'a>(ids: impl Iterator<Item = &'a str>, at: &str) -> Result<(), CatalogError> {
    let mut seen = HashSet::new();
    for (index, id) in ids.enumerate() {
        if !seen.insert(id) {
            return Err(invalid(format!("{at}.{index}"), format!("id '{id}' is used twice")));
        }
    }
    Ok(())
}

/// Ids are public API values: lowercase ASCII letters, digits and `_`.
fn ensure_slug(id: &str, at: &str) -> Result<(), CatalogError> {
    let valid = !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if valid {
        Ok(())
    } else {
        Err(invalid(at, format!("'{id}' is not a slug (1 to 64 of a-z, 0-9, _)")))
    }
}

fn ensure_text(text: &str, at: &str) -> Result<(), CatalogError> {
    if text.trim().is_empty() {
        Err(invalid(at, "must not be empty"))
    } else {
        Ok(())
    }
}

fn ensure_amount(cents: i64, at: &str) -> Result<(), CatalogError> {
    if (0..=MAX_CONFIGURED_CENTS).contains(&cents) {
        Ok(())
    } else {
        Err(invalid(
            at,
            format!("{cents} is outside 0..={MAX_CONFIGURED_CENTS} cents"),
        ))
    }
}

fn ensure_limit(value: f64, max: f64, at: &str) -> Result<(), CatalogError> {
    if value.is_finite() && value > 0.0 && value <= max {
        Ok(())
    } else {
        Err(invalid(at, format!("{value} is outside (0, {max}]")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn default_value() -> serde_json::Value {
        serde_json::from_str(DEFAULT_CATALOG_JSON).expect("embedded catalogue is JSON")
    }

    fn invalid_path(value: serde_json::Value) -> String {
        match Catalog::from_json(&value.to_string()) {
            Err(CatalogError::Invalid { path, .. }) => path,
            other => panic!("expected an Invalid error, got {other:?}"),
        }
    }

    fn is_json_error(value: serde_json::Value) -> bool {
        matches!(Catalog::from_json(&value.to_string()), Err(CatalogError::Json(_)))
    }

    #[test]
    fn embedded_catalogue_loads() {
        let catalog = Catalog::default_catalog();
        assert_eq!(catalog, Catalog::load(None).expect("default loads"));
        assert_eq!(catalog.currency(), "EUR");
        assert_eq!(catalog.notification_prices().sms_cents, 9);
        let ids: Vec<&str> = catalog.vehicle_types().iter().map(|v| v.id.as_str()).collect();
        assert_eq!(ids, ["bicycle", "cargo_bike", "car", "small_van", "large_van"]);
        for vehicle in catalog.vehicle_types() {
            assert_eq!(catalog.extras_of(vehicle).len(), vehicle.extras.len());
            for area in catalog.service_areas() {
                assert!(area.rate_for(&vehicle.id).is_some());
            }
        }
        let bicycle = catalog.vehicle_type("bicycle").expect("bicycle");
        assert!(!bicycle.offers_extra("extra_helper"));
        assert!(!bicycle.offers_extra("cooling_box"));
        let van = catalog.vehicle_type("large_van").expect("large_van");
        assert_eq!(catalog.extras_of(van).len(), catalog.extras().len());
        assert!(catalog.vehicle_type("truck").is_none());
        let insurance = catalog.extra("insurance").expect("insurance");
        assert!(insurance.has_options());
        assert_eq!(insurance.option_ids(), "basic, premium");
        assert!(insurance.option("premium").is_some());
        let berlin = catalog.service_area("berlin").expect("berlin");
        assert_eq!(berlin.time_zone, chrono_tz::Europe::Berlin);
        let amsterdam = catalog.service_area("amsterdam").expect("amsterdam");
        assert_eq!(amsterdam.time_zone, chrono_tz::Europe::Amsterdam);
    }

    #[test]
    fn load_reads_a_file_and_reports_missing_ones() {
        let path = std::env::temp_dir().join(format!("courier-catalog-test-{}.json", std::process::id()));
        std::fs::write(&path, DEFAULT_CATALOG_JSON).expect("write temp catalogue");
        let loaded = Catalog::load(Some(&path));
        let _ = std::fs::remove_file(&path);
        assert_eq!(loaded.expect("file loads"), Catalog::default_catalog());
        assert!(matches!(
            Catalog::load(Some(Path::new("/nonexistent/catalogue.json"))),
            Err(CatalogError::Read { .. })
        ));
    }

    #[test]
    fn areas_cover_their_cities_only() {
        let catalog = Catalog::default_catalog();
        let area_of = |lat, lon| {
            catalog
                .area_containing(GeoPoint::new(lat, lon))
                .map(|area| area.id.as_str())
        };
        // Berlin: Alexanderplatz, Brandenburg Gate, Tempelhof, Spandau,
        // Köpenick, Marzahn, Reinickendorf.
        for (lat, lon) in [
            (52.5219, 13.4132),
            (52.5163, 13.3777),
            (52.4731, 13.4039),
            (52.5363, 13.2025),
            (52.4450, 13.5750),
            (52.5450, 13.5600),
            (52.5890, 13.3230),
        ] {
            assert_eq!(area_of(lat, lon), Some("berlin"), "({lat}, {lon})");
        }
        // Amsterdam: Dam, Centraal, Zuidas, Noord, Johan Cruijff ArenA.
        for (lat, lon) in [
            (52.3731, 4.8926),
            (52.3791, 4.9003),
            (52.3390, 4.8730),
            (52.3900, 4.9200),
            (52.3144, 4.9419),
        ] {
            assert_eq!(area_of(lat, lon), Some("amsterdam"), "({lat}, {lon})");
        }
        // Potsdam, Hamburg, Paris, Haarlem, Utrecht, Null Island, and
        // Berlin with latitude and longitude swapped.
        for (lat, lon) in [
            (52.3906, 13.0645),
            (53.5511, 9.9937),
            (48.8566, 2.3522),
            (52.3810, 4.6360),
            (52.0907, 5.1214),
            (0.0, 0.0),
            (13.4050, 52.5200),
        ] {
            assert_eq!(area_of(lat, lon), None, "({lat}, {lon})");
        }
    }

    #[test]
    fn easter_dates() {
        for (year, month, day) in [
            (1961, 4, 2),
            (2000, 4, 23),
            (2019, 4, 21),
            (2024, 3, 31),
            (2025, 4, 20),
            (2026, 4, 5),
            (2027, 3, 28),
            (2038, 4, 25),
            (2285, 3, 22),
        ] {
            assert_eq!(
                easter_sunday(year),
                NaiveDate::from_ymd_opt(year, month, day),
                "Easter {year}"
            );
        }
    }

    #[test]
    fn holidays_follow_their_rules() {
        let catalog = Catalog::default_catalog();
        let berlin = catalog.service_area("berlin").expect("berlin");
        let amsterdam = catalog.service_area("amsterdam").expect("amsterdam");
        let date = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).expect("date");
        assert_eq!(berlin.holiday_on(date(2027, 3, 29)), Some("Easter Monday"));
        assert_eq!(berlin.holiday_on(date(2027, 3, 26)), Some("Good Friday"));
        assert_eq!(berlin.holiday_on(date(2026, 5, 14)), Some("Ascension Day"));
        assert_eq!(berlin.holiday_on(date(2026, 5, 25)), Some("Whit Monday"));
        assert_eq!(berlin.holiday_on(date(2031, 3, 8)), Some("International Women's Day"));
        assert_eq!(berlin.holiday_on(date(2099, 10, 3)), Some("German Unity Day"));
        assert_eq!(berlin.holiday_on(date(2026, 10, 4)), None);
        assert_eq!(amsterdam.holiday_on(date(2031, 3, 8)), None);
        assert_eq!(amsterdam.holiday_on(date(2027, 3, 26)), None);
        // King's Day: April 27, or Saturday April 26 when the 27th is a Sunday.
        assert_eq!(amsterdam.holiday_on(date(2026, 4, 27)), Some("King's Day"));
        assert_eq!(amsterdam.holiday_on(date(2025, 4, 26)), Some("King's Day"));
        assert_eq!(amsterdam.holiday_on(date(2025, 4, 27)), None);
    }

    #[test]
    fn holiday_shifted_across_new_year_is_found() {
        let rule = HolidayRule::Fixed {
            name: "New Year observed".into(),
            month: 1,
            day: 1,
            if_sunday_offset_days: -1,
        };
        let mut area = Catalog::default_catalog().service_areas()[0].clone();
        area.holidays = vec![rule];
        // Jan 1, 2023 was a Sunday: observed on Saturday Dec 31, 2022.
        let date = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).expect("date");
        assert_eq!(area.holiday_on(date(2022, 12, 31)), Some("New Year observed"));
        assert_eq!(area.holiday_on(date(2023, 1, 1)), None);
    }

    #[test]
    fn local_time_uses_the_area_zone() {
        let catalog = Catalog::default_catalog();
        let berlin = catalog.service_area("berlin").expect("berlin");
        let instant = Utc.with_ymd_and_hms(2026, 7, 1, 21, 0, 0).single().expect("instant");
        assert_eq!(berlin.local_time(instant).to_rfc3339(), "2026-07-01T23:00:00+02:00");
    }

    #[test]
    fn unknown_fields_and_zones_are_refused() {
        let mut value = default_value();
        value["vehicle_types"][0]["max_weigth_kg"] = 5.into();
        assert!(is_json_error(value));
        let mut value = default_value();
        value["service_areas"][0]["time_zone"] = "Europe/Atlantis".into();
        assert!(is_json_error(value));
        let mut value = default_value();
        value["service_areas"][0]["holidays"][0]["offset_days"] = 3.into();
        assert!(is_json_error(value));
        let mut value = default_value();
        value["service_areas"][0]["polygon"] = serde_json::json!([[13.0, 52.0], [13.5, 52.5]]);
        assert!(is_json_error(value));
    }

    #[test]
    fn inconsistent_catalogues_are_refused() {
        let mut value = default_value();
        value["service_areas"][1]["currency"] = "GBP".into();
        assert_eq!(invalid_path(value), "service_areas.1.currency");

        let mut value = default_value();
        value["currency"] = "euro".into();
        assert_eq!(invalid_path(value), "currency");

        let mut value = default_value();
        value["service_areas"][0]["rates"]
            .as_object_mut()
            .expect("rates object")
            .remove("car");
        assert_eq!(invalid_path(value), "service_areas.0.rates");

        let mut value = default_value();
        value["service_areas"][0]["rates"]["truck"] =
            serde_json::json!({ "base_cents": 1, "per_km_cents": 1, "per_min_cents": 1 });
        assert_eq!(invalid_path(value), "service_areas.0.rates.truck");

        let mut value = default_value();
        value["service_areas"][0]["rates"]["car"]["per_km_cents"] = (-1).into();
        assert_eq!(invalid_path(value), "service_areas.0.rates.car.per_km_cents");

        let mut value = default_value();
        value["vehicle_types"][1]["extras"][0] = "jetpack".into();
        assert_eq!(invalid_path(value), "vehicle_types.1.extras.0");

        let mut value = default_value();
        value["vehicle_types"][1]["id"] = "bicycle".into();
        assert_eq!(invalid_path(value), "vehicle_types.1");

        let mut value = default_value();
        value["extras"][2]["id"] = "insurance".into();
        assert_eq!(invalid_path(value), "extras.2");

        let mut value = default_value();
        value["service_areas"][1]["id"] = "berlin".into();
        assert_eq!(invalid_path(value), "service_areas.1");

        let mut value = default_value();
        value["extras"][0]["options"] = serde_json::json!([{ "id": "one", "name": "One", "unit_amount_cents": 1 }]);
        assert_eq!(invalid_path(value), "extras.0");

        let mut value = default_value();
        value["extras"][1]["options"] = serde_json::json!([]);
        assert_eq!(invalid_path(value), "extras.1");

        let mut value = default_value();
        value["vehicle_types"][0]["max_weight_kg"] = 0.into();
        assert_eq!(invalid_path(value), "vehicle_types.0.max_weight_kg");

        let mut value = default_value();
        value["service_areas"][0]["surcharges"]["night"]["bps"] = 10_001.into();
        assert_eq!(invalid_path(value), "service_areas.0.surcharges.night.bps");

        let mut value = default_value();
        value["service_areas"][0]["surcharges"]["sunday"]["code"] = "night_surcharge".into();
        assert_eq!(invalid_path(value), "service_areas.0.surcharges.sunday.code");

        let mut value = default_value();
        value["service_areas"][0]["holidays"][0]["day"] = 32.into();
        assert_eq!(invalid_path(value), "service_areas.0.holidays.0");

        let mut value = default_value();
        value["vehicle_types"] = serde_json::json!([]);
        assert_eq!(invalid_path(value), "vehicle_types");

        let mut value = default_value();
        value["notifications"]["sms_cents"] = (-1).into();
        assert_eq!(invalid_path(value), "notifications.sms_cents");
    }

    #[test]
    fn optional_surcharges_and_holidays_may_be_omitted() {
        let mut value = default_value();
        let area = value["service_areas"][0].as_object_mut().expect("area object");
        area.remove("surcharges");
        area.remove("holidays");
        let catalog = Catalog::from_json(&value.to_string()).expect("still valid");
        let berlin = catalog.service_area("berlin").expect("berlin");
        assert_eq!(berlin.surcharges, SurchargeRules::default());
        assert!(berlin.holidays.is_empty());
    }

    #[test]
    fn the_sms_price_defaults_to_the_built_in_one_and_refuses_typos() {
        let mut value = default_value();
        value.as_object_mut().expect("catalogue object").remove("notifications");
        let catalog = Catalog::from_json(&value.to_string()).expect("still valid");
        assert_eq!(
            catalog.notification_prices(),
            NotificationPrices {
                sms_cents: DEFAULT_SMS_CENTS
            }
        );

        let mut value = default_value();
        value["notifications"]["sms_cents"] = 0.into();
        let catalog = Catalog::from_json(&value.to_string()).expect("free SMS are valid");
        assert_eq!(catalog.notification_prices().sms_cents, 0);

        let mut value = default_value();
        value["notifications"]["email_cents"] = 1.into();
        assert!(is_json_error(value));
        let mut value = default_value();
        value["notifications"] = serde_json::json!({});
        assert!(is_json_error(value), "an object given names its price");
    }
}
