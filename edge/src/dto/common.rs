//! Shapes shared by several resources: addresses, contacts, extras, items,
//! price breakdowns, times.

use std::collections::HashMap;

use courier::names::PublicName;
use courier::v1 as pb;
use serde::{Deserialize, Deserializer};
use utoipa::ToSchema;

use crate::error::ApiError;

/// A route point of a quote: address and coordinates only.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Address)]
pub struct AddressBody {
    pub address: String,
    pub latitude: f64,
    pub longitude: f64,
}

impl From<AddressBody> for pb::Waypoint {
    fn from(a: AddressBody) -> Self {
        pb::Waypoint {
            address: a.address,
            latitude: a.latitude,
            longitude: a.longitude,
            contact: None,
            instructions: None,
        }
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ContactInput)]
pub struct ContactBody {
    pub name: String,
    pub phone: String,
    pub email: Option<String>,
}

impl From<ContactBody> for pb::Contact {
    fn from(c: ContactBody) -> Self {
        pb::Contact {
            name: c.name,
            phone: c.phone,
            email: c.email,
        }
    }
}

/// A route point that may carry a contact and handoff instructions.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = WaypointInput)]
pub struct WaypointBody {
    pub address: String,
    pub latitude: f64,
    pub longitude: f64,
    pub contact: Option<ContactBody>,
    pub instructions: Option<String>,
}

impl From<WaypointBody> for pb::Waypoint {
    fn from(w: WaypointBody) -> Self {
        pb::Waypoint {
            address: w.address,
            latitude: w.latitude,
            longitude: w.longitude,
            contact: w.contact.map(Into::into),
            instructions: w.instructions,
        }
    }
}

/// A member of a change that is present, possibly `null` (absent members
/// stay `None` through `#[serde(default)]`).
pub(crate) fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(deserializer).map(Some)
}

/// A member of a change that may be absent but not `null`.
pub(crate) fn not_null<T>(value: Option<Option<T>>, param: &str, hint: &str) -> Result<Option<T>, ApiError> {
    match value {
        Some(None) => Err(ApiError::invalid(param, format!("{param} cannot be null{hint}."))),
        Some(Some(value)) => Ok(Some(value)),
        None => Ok(None),
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = SelectedExtra)]
pub struct SelectedExtraBody {
    pub extra_id: String,
    pub option_id: Option<String>,
    pub quantity: Option<i64>,
}

impl From<SelectedExtraBody> for pb::SelectedExtra {
    fn from(e: SelectedExtraBody) -> Self {
        pb::SelectedExtra {
            extra_id: e.extra_id,
            option_id: e.option_id,
            quantity: e.quantity,
        }
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ShipmentItem)]
pub struct ItemBody {
    pub description: String,
    pub quantity: i64,
    pub weight_kg: f64,
    pub length_cm: f64,
    pub width_cm: f64,
    pub height_cm: f64,
}

/// `items` as sent: absent stays absent, a list (even empty) is checked.
pub fn items_in(items: Option<Vec<ItemBody>>) -> Option<pb::ShipmentItems> {
    items.map(|list| pb::ShipmentItems {
        items: list
            .into_iter()
            .map(|i| pb::ShipmentItem {
                description: i.description,
                quantity: i.quantity,
                weight_kg: i.weight_kg,
                length_cm: i.length_cm,
                width_cm: i.width_cm,
                height_cm: i.height_cm,
            })
            .collect(),
    })
}

/// The query parameters every list shares (`limit`, `page_token`,
/// `created_after`, `created_before`), parsed once for all lists, with the
/// list's own parameters left in `filters`. Unknown parameters are refused
/// like unknown body fields.
pub struct ListQuery<'a> {
    /// `limit` as given; the core judges its range (`page_size`).
    pub page_size: Option<i32>,
    pub page_token: String,
    pub created_after: Option<prost_types::Timestamp>,
    pub created_before: Option<prost_types::Timestamp>,
    /// The list's own parameters, by name.
    pub filters: HashMap<&'a str, &'a str>,
}

impl<'a> ListQuery<'a> {
    /// Parses `query`, accepting `filters` besides the shared parameters.
    pub fn parse(query: &'a HashMap<String, String>, filters: &[&str]) -> Result<ListQuery<'a>, ApiError> {
        const SHARED: [&str; 4] = ["limit", "page_token", "created_after", "created_before"];
        if let Some(unknown) = query
            .keys()
            .find(|k| !SHARED.contains(&k.as_str()) && !filters.contains(&k.as_str()))
        {
            return Err(ApiError::invalid(
                unknown.clone(),
                format!("{unknown} is not a known query parameter."),
            ));
        }
        let get = |name: &str| query.get(name).map(String::as_str);
        Ok(ListQuery {
            page_size: limit_in(get("limit"))?,
            page_token: get("page_token").unwrap_or_default().to_owned(),
            created_after: time_in("created_after", get("created_after"))?,
            created_before: time_in("created_before", get("created_before"))?,
            filters: query
                .iter()
                .filter(|(name, _)| filters.contains(&name.as_str()))
                .map(|(name, value)| (name.as_str(), value.as_str()))
                .collect(),
        })
    }
}

impl ListQuery<'_> {
    /// The list's filter `name`, one of `T`'s public names; `absent` when
    /// not given.
    pub fn public_name<T: PublicName>(&self, name: &str, absent: T) -> Result<T, ApiError> {
        match self.filters.get(name) {
            None => Ok(absent),
            Some(text) => T::from_public_name(text)
                .ok_or_else(|| ApiError::invalid(name, format!("{name} must be one of {}.", T::public_names()))),
        }
    }
}

/// The `limit` query parameter of a list as gRPC's `page_size`: a whole
/// number, whose range the core checks (its refusal names `limit` again,
/// see [`ApiError::renaming`]).
fn limit_in(text: Option<&str>) -> Result<Option<i32>, ApiError> {
    let allowed = courier::limits::PAGE_SIZE;
    text.map(|text| {
        text.parse::<i32>().map_err(|_| {
            ApiError::invalid(
                "limit",
                format!("limit must be a whole number from {} to {}.", allowed.min, allowed.max),
            )
        })
    })
    .transpose()
}

/// An RFC 3339 date-time field of a request.
pub fn time_in(param: &str, value: Option<&str>) -> Result<Option<prost_types::Timestamp>, ApiError> {
    value
        .map(|text| {
            chrono::DateTime::parse_from_rfc3339(text)
                .map(|t| courier::time::to_proto(t.with_timezone(&chrono::Utc)))
                .map_err(|_| {
                    ApiError::invalid(
                        param,
                        format!("{param} must be an RFC 3339 date-time, e.g. 2026-11-22T14:30:00Z."),
                    )
                })
        })
        .transpose()
}

/// A promised time as a request sends it (docs/guide.md "Windows").
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = TimeWindowInput)]
pub struct TimeWindowBody {
    /// RFC 3339.
    #[schema(format = DateTime)]
    pub start: String,
    /// RFC 3339; 15 minutes to 12 hours after `start`, in the future.
    #[schema(format = DateTime)]
    pub end: String,
}

/// The window sent as `param`, if any.
pub fn window_in(param: &str, window: Option<TimeWindowBody>) -> Result<Option<pb::TimeWindow>, ApiError> {
    window
        .map(|w| {
            Ok(pb::TimeWindow {
                start: time_in(&format!("{param}.start"), Some(&w.start))?,
                end: time_in(&format!("{param}.end"), Some(&w.end))?,
            })
        })
        .transpose()
}

/// What a change sets on the pickup or the dropoff; an absent member stays
/// as it is.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = WaypointChangeInput)]
pub struct WaypointChangeBody {
    /// Replaces the contact whole; it cannot be removed.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = ContactBody)]
    pub contact: Option<Option<ContactBody>>,
    /// `null` (or `""`) removes the instructions.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub instructions: Option<Option<String>>,
    /// A new address text. The pickup's until a courier is assigned, the
    /// dropoff's until the courier is at the dropoff.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = String)]
    pub address: Option<Option<String>>,
    /// A new latitude: a delivery is priced again (see
    /// `accept_amount_cents`), a fleet order is not. Same times as `address`.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = f64)]
    pub latitude: Option<Option<f64>>,
    /// A new longitude, as `latitude`.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = f64)]
    pub longitude: Option<Option<f64>>,
}

/// The change of `param` ("pickup", "dropoff"), when sent; `null` is refused.
pub(crate) fn waypoint_change_in(
    param: &str,
    change: Option<Option<WaypointChangeBody>>,
) -> Result<Option<pb::WaypointChange>, ApiError> {
    let Some(change) = not_null(change, param, "; send the members to change")? else {
        return Ok(None);
    };
    let contact = not_null(
        change.contact,
        &format!("{param}.contact"),
        "; send the whole contact to replace it",
    )?;
    let member = |name: &str| format!("{param}.{name}");
    Ok(Some(pb::WaypointChange {
        contact: contact.map(Into::into),
        instructions: change.instructions.map(Option::unwrap_or_default),
        address: not_null(change.address, &member("address"), "; send the new address")?,
        latitude: not_null(change.latitude, &member("latitude"), "; send the new position")?,
        longitude: not_null(change.longitude, &member("longitude"), "; send the new position")?,
    }))
}

/// A change of the dropoff window: `null` removes it (the core's
/// `clear_dropoff_window`).
pub(crate) fn window_change_in(
    window: Option<Option<TimeWindowBody>>,
) -> Result<(Option<pb::TimeWindow>, bool), ApiError> {
    match window {
        None => Ok((None, false)),
        Some(None) => Ok((None, true)),
        Some(window) => Ok((window_in("dropoff_window", window)?, false)),
    }
}

/// A body refusal of a member of `fixed` (members of the resource that no
/// change sets) in the guide's words: not "unknown", but fixed `when`.
pub(crate) fn fixed_member(error: ApiError, fixed: &[&str], when: &str) -> ApiError {
    let named = error.param.as_deref().is_some_and(|param| fixed.contains(&param));
    if !named || !error.message.ends_with("is not a known field.") {
        return error;
    }
    let param = error.param.unwrap_or_default();
    let message = format!("{param} cannot be changed {when}.");
    ApiError::invalid(param, message)
}
