//! Shifts (docs/routing.md "Shifts"): a courier's working time of a day,
//! where it starts and ends, and an optional rest; planned routes use the
//! drivers on shift. Owns `courier_shifts`: one shift per courier and day,
//! set again to change it.

use chrono::NaiveDate;
use sea_orm::sea_query::OnConflict;
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use serde::{Deserialize, Serialize};

use super::{Courier, Fleet};
use crate::{Core, CoreError, CoreResult};
use courier_pricing::geo::GeoPoint;
use courier_store::db::WriteTransaction;
use courier_store::ids;

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "courier_shifts")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub courier_id: String,
        /// The courier's fleet; `None` for a platform courier.
        pub workspace_id: Option<String>,
        /// `YYYY-MM-DD`
        pub day: String,
        pub starts_at: i64,
        pub ends_at: i64,
        /// A [`super::Place`] as JSON.
        pub start_place: String,
        pub end_place: String,
        pub rest_minutes: Option<i32>,
        pub created_at: i64,
        pub updated_at: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// The longest shift: a working day with its overtime.
const LONGEST_HOURS: i64 = 16;
/// A rest's shortest and longest length, in minutes.
const REST_MINUTES: std::ops::RangeInclusive<i32> = 5..=120;
const HOUR: i64 = 3_600_000_000;

/// Where a shift starts or ends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Place {
    pub address: String,
    pub point: GeoPoint,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Shift {
    pub id: String,
    pub courier_id: String,
    pub day: String,
    pub starts_at: i64,
    pub ends_at: i64,
    pub start: Place,
    pub end: Place,
    pub rest_minutes: Option<i32>,
}

impl Shift {
    /// The rest's window: the middle half of the shift, so that it comes
    /// neither first nor last.
    pub fn rest_window(&self) -> (i64, i64) {
        let quarter = (self.ends_at - self.starts_at) / 4;
        (self.starts_at + quarter, self.ends_at - quarter)
    }
}

/// A shift as set (`end` absent: back at the start).
#[derive(Clone, Debug)]
pub struct NewShift {
    pub day: String,
    pub starts_at: i64,
    pub ends_at: i64,
    pub start: Place,
    pub end: Option<Place>,
    pub rest_minutes: Option<i32>,
}

/// `day` as a date, or `invalid_request` naming `param`.
pub fn parse_day(day: &str, param: &str) -> CoreResult<NaiveDate> {
    NaiveDate::parse_from_str(day, "%Y-%m-%d")
        .ok()
        .filter(|date| date.format("%Y-%m-%d").to_string() == day)
        .ok_or_else(|| CoreError::invalid(param, format!("{param} must be a date as YYYY-MM-DD, not {day:?}.")))
}

fn check_place(place: &Place, param: &str) -> CoreResult<()> {
    let GeoPoint { latitude, longitude } = place.point;
    if !(latitude.is_finite() && (-90.0..=90.0).contains(&latitude)) {
        return Err(CoreError::invalid(
            format!("{param}.latitude"),
            "A latitude is between -90 and 90.",
        ));
    }
    if !(longitude.is_finite() && (-180.0..=180.0).contains(&longitude)) {
        return Err(CoreError::invalid(
            format!("{param}.longitude"),
            "A longitude is between -180 and 180.",
        ));
    }
    if place.address.chars().count() > 200 {
        return Err(CoreError::invalid(
            format!("{param}.address"),
            "An address is at most 200 characters.",
        ));
    }
    Ok(())
}

/// `invalid_request` naming the field unless `new` is a shift: a date,
/// an end after the start within 16 hours, the start on that day in some
/// time zone (UTC−12 to UTC+14), places on Earth, a rest of 5 to 120
/// minutes shorter than half the shift.
fn check(new: &NewShift) -> CoreResult<()> {
    let date = parse_day(&new.day, "day")?;
    let midnight = date
        .and_hms_opt(0, 0, 0)
        .map(|at| at.and_utc().timestamp_micros())
        .unwrap_or_default();
    if new.starts_at < midnight - 14 * HOUR || new.starts_at >= midnight + 36 * HOUR {
        return Err(CoreError::invalid(
            "start_time",
            format!("The shift must start on {}.", new.day),
        ));
    }
    if new.ends_at <= new.starts_at {
        return Err(CoreError::invalid("end_time", "A shift ends after it starts."));
    }
    if new.ends_at - new.starts_at > LONGEST_HOURS * HOUR {
        return Err(CoreError::invalid(
            "end_time",
            format!("A shift is at most {LONGEST_HOURS} hours long."),
        ));
    }
    check_place(&new.start, "start_place")?;
    if let Some(end) = &new.end {
        check_place(end, "end_place")?;
    }
    if let Some(minutes) = new.rest_minutes {
        let half = (new.ends_at - new.starts_at) / 2;
        if !REST_MINUTES.contains(&minutes) || i64::from(minutes) * 60_000_000 > half {
            return Err(CoreError::invalid(
                "rest_minutes",
                "A rest lasts 5 to 120 minutes, and less than half the shift.",
            ));
        }
    }
    Ok(())
}

/// Sets `courier`'s shift of `new.day` in `tx`, replacing the one they had.
pub async fn set(core: &Core, tx: &WriteTransaction, courier: &Courier, new: NewShift) -> CoreResult<Shift> {
    check(&new)?;
    let now = core.clock.now_micros();
    let end = new.end.clone().unwrap_or_else(|| new.start.clone());
    let json = |place: &Place| serde_json::to_string(place).map_err(|e| CoreError::Internal(e.to_string()));
    use entity::Column as C;
    entity::Entity::insert(entity::ActiveModel {
        id: Set(ids::new_id("shf")),
        courier_id: Set(courier.id.clone()),
        workspace_id: Set(courier.fleet.workspace_id().map(str::to_owned)),
        day: Set(new.day.clone()),
        starts_at: Set(new.starts_at),
        ends_at: Set(new.ends_at),
        start_place: Set(json(&new.start)?),
        end_place: Set(json(&end)?),
        rest_minutes: Set(new.rest_minutes),
        created_at: Set(now),
        updated_at: Set(now),
    })
    .on_conflict(
        OnConflict::columns([C::CourierId, C::Day])
            .update_columns([
                C::StartsAt,
                C::EndsAt,
                C::StartPlace,
                C::EndPlace,
                C::RestMinutes,
                C::UpdatedAt,
            ])
            .to_owned(),
    )
    .exec(&**tx)
    .await?;
    let model = entity::Entity::find()
        .filter(C::CourierId.eq(courier.id.as_str()))
        .filter(C::Day.eq(new.day.as_str()))
        .one(&**tx)
        .await?
        .ok_or_else(|| CoreError::Internal("a shift just set is gone".into()))?;
    from_model(model)
}

/// Shift `id`.
pub async fn get(db: &impl ConnectionTrait, id: &str) -> CoreResult<Shift> {
    let model = entity::Entity::find_by_id(id.to_owned())
        .one(db)
        .await?
        .ok_or_else(|| CoreError::not_found("shift"))?;
    from_model(model)
}

/// The shifts of `fleet`'s couriers on `day`, by start.
pub async fn of_day(db: &impl ConnectionTrait, fleet: &Fleet, day: &str) -> CoreResult<Vec<Shift>> {
    use entity::Column as C;
    let mut query = entity::Entity::find().filter(C::Day.eq(day));
    query = match fleet.workspace_id() {
        Some(workspace_id) => query.filter(C::WorkspaceId.eq(workspace_id)),
        None => query.filter(C::WorkspaceId.is_null()),
    };
    query
        .order_by_asc(C::StartsAt)
        .order_by_asc(C::CourierId)
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect()
}

/// Removes shift `id` in `tx`.
pub async fn delete(tx: &WriteTransaction, id: &str) -> CoreResult<()> {
    entity::Entity::delete_by_id(id.to_owned()).exec(&**tx).await?;
    Ok(())
}

fn from_model(model: entity::Model) -> CoreResult<Shift> {
    let place = |text: &str| {
        serde_json::from_str::<Place>(text)
            .map_err(|_| CoreError::Internal(format!("shift {} has a corrupt place", model.id)))
    };
    Ok(Shift {
        start: place(&model.start_place)?,
        end: place(&model.end_place)?,
        id: model.id,
        courier_id: model.courier_id,
        day: model.day,
        starts_at: model.starts_at,
        ends_at: model.ends_at,
        rest_minutes: model.rest_minutes,
    })
}
