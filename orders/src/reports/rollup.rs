//! Each day's figures of each workspace's deliveries (`delivery_day_stats`),
//! kept by a worker: it reads the deliveries changed since it last read (by
//! `updated_at`, from its own index) and counts each day they were booked
//! on again, whole, from the listing index. Counting a day again gives the
//! same row, so replicas that do it at once agree, and a change committed
//! late is read on the next pass, which starts a little before the last.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{NaiveDate, TimeZone};
use chrono_tz::Tz;
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Set};

use super::figures::{DeliveryFigures, Histogram};
use crate::deliveries::entity as deliveries;
use crate::{CoreError, CoreResult, Orders};

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "delivery_day_stats")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub workspace_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub mode: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub day: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub service_area_id: String,
        pub deliveries: i64,
        pub delivered: i64,
        pub cancelled: i64,
        /// JSON: reason → count.
        pub cancellations: String,
        pub on_time: i64,
        pub promised: i64,
        /// JSON: minutes → deliveries.
        pub pickup_minutes: String,
        pub delivery_minutes: String,
        pub updated_at: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod marks {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "report_marks")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub name: String,
        /// `updated_at` read up to.
        pub read_to: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

const MARK: &str = "deliveries";
/// A pass reads again from this long before the last one's end: a change
/// whose transaction committed after a later one is not missed.
const OVERLAP_MICROS: i64 = 30 * 1_000_000;
/// Deliveries read per step of a pass.
const STEP: u64 = 5_000;

/// One day of one workspace, mode and service area.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct DayKey {
    workspace_id: String,
    mode: String,
    service_area_id: String,
    day: NaiveDate,
}

/// Counts again every day with a delivery changed since the last pass;
/// answers how many days were counted.
pub async fn roll_up(core: &Orders) -> CoreResult<usize> {
    // Here only: its `max` would shadow the integers'.
    use sea_orm::sea_query::ExprTrait as _;
    let read_to = marks::Entity::find_by_id(MARK.to_owned())
        .one(&core.writer)
        .await?
        .map_or(0, |m| m.read_to);
    let mut after = (read_to.saturating_sub(OVERLAP_MICROS), String::new());
    let mut days = BTreeSet::new();
    loop {
        let rows: Vec<(String, String, String, i64, i64, String)> = deliveries::Entity::find()
            .select_only()
            .columns([
                deliveries::Column::WorkspaceId,
                deliveries::Column::Mode,
                deliveries::Column::ServiceAreaId,
                deliveries::Column::CreatedAt,
                deliveries::Column::UpdatedAt,
                deliveries::Column::Id,
            ])
            .filter(
                Expr::col(deliveries::Column::UpdatedAt)
                    .gt(after.0)
                    .or(Expr::col(deliveries::Column::UpdatedAt)
                        .eq(after.0)
                        .and(Expr::col(deliveries::Column::Id).gt(after.1.clone()))),
            )
            .order_by_asc(deliveries::Column::UpdatedAt)
            .order_by_asc(deliveries::Column::Id)
            .limit(STEP)
            .into_tuple()
            .all(&core.db)
            .await?;
        let full = rows.len() as u64 == STEP;
        for (workspace_id, mode, service_area_id, created_at, updated_at, id) in rows {
            let day = local_day(core.catalog.time_zone(&service_area_id), created_at);
            days.insert(DayKey {
                workspace_id,
                mode,
                service_area_id,
                day,
            });
            after = (updated_at, id);
        }
        if !full {
            break;
        }
    }
    let now = core.clock.now_micros();
    for key in &days {
        count_day(core, key, now).await?;
    }
    let mark = marks::ActiveModel {
        name: Set(MARK.to_owned()),
        read_to: Set(Ord::max(after.0, read_to)),
    };
    marks::Entity::insert(mark)
        .on_conflict(
            OnConflict::column(marks::Column::Name)
                .update_column(marks::Column::ReadTo)
                .to_owned(),
        )
        .exec(&core.writer)
        .await?;
    Ok(days.len())
}

/// Counts again what changed every `report_rollup_every` until `stop`.
pub async fn run(orders: Orders, stop: tokio_util::sync::CancellationToken) {
    courier_store::runner::Runner::every(orders.config.report_rollup_every)
        .run(&stop, move || {
            let orders = orders.clone();
            async move {
                let counted = roll_up(&orders).await;
                courier_store::runner::log_step(counted, "report days counted", "report days not counted");
                Ok(courier_store::runner::Done::Idle)
            }
        })
        .await
}

/// The day of `at` (microseconds) on `zone`'s clock.
pub fn local_day(zone: Tz, at: i64) -> NaiveDate {
    zone.timestamp_micros(at)
        .single()
        .map_or_else(|| chrono::DateTime::UNIX_EPOCH.date_naive(), |t| t.date_naive())
}

/// `[start, end)` of `day` on `zone`'s clock, in microseconds.
pub fn day_bounds(zone: Tz, day: NaiveDate) -> (i64, i64) {
    let start = |d: NaiveDate| {
        let midnight = d.and_hms_opt(0, 0, 0).unwrap_or_default();
        zone.from_local_datetime(&midnight)
            .earliest()
            .map_or_else(|| midnight.and_utc().timestamp_micros(), |t| t.timestamp_micros())
    };
    (start(day), start(day.succ_opt().unwrap_or(day)))
}

/// Counts one day whole and stores its row.
async fn count_day(core: &Orders, key: &DayKey, now: i64) -> CoreResult<()> {
    let (from, to) = day_bounds(core.catalog.time_zone(&key.service_area_id), key.day);
    let rows: Vec<Booked> = deliveries::Entity::find()
        .select_only()
        .columns([
            deliveries::Column::Status,
            deliveries::Column::CreatedAt,
            deliveries::Column::ScheduledAt,
            deliveries::Column::PickupWindowStart,
            deliveries::Column::PickedUpAt,
            deliveries::Column::DeliveredAt,
            deliveries::Column::CancellationReason,
            deliveries::Column::OnTime,
        ])
        .filter(deliveries::Column::WorkspaceId.eq(&key.workspace_id))
        .filter(deliveries::Column::Mode.eq(&key.mode))
        .filter(deliveries::Column::CreatedAt.gte(from))
        .filter(deliveries::Column::CreatedAt.lt(to))
        .filter(deliveries::Column::ServiceAreaId.eq(&key.service_area_id))
        .into_tuple::<BookedRow>()
        .all(&core.db)
        .await?
        .into_iter()
        .map(Booked::from)
        .collect();
    let figures = count(&rows);
    let row = entity::ActiveModel {
        workspace_id: Set(key.workspace_id.clone()),
        mode: Set(key.mode.clone()),
        day: Set(key.day.to_string()),
        service_area_id: Set(key.service_area_id.clone()),
        deliveries: Set(figures.deliveries as i64),
        delivered: Set(figures.delivered as i64),
        cancelled: Set(figures.cancelled as i64),
        cancellations: Set(json(&figures.cancellations)?),
        on_time: Set(figures.on_time as i64),
        promised: Set(figures.promised as i64),
        pickup_minutes: Set(json(&figures.to_pickup)?),
        delivery_minutes: Set(json(&figures.to_delivery)?),
        updated_at: Set(now),
    };
    let columns = [
        entity::Column::Deliveries,
        entity::Column::Delivered,
        entity::Column::Cancelled,
        entity::Column::Cancellations,
        entity::Column::OnTime,
        entity::Column::Promised,
        entity::Column::PickupMinutes,
        entity::Column::DeliveryMinutes,
        entity::Column::UpdatedAt,
    ];
    let key_columns = [
        entity::Column::WorkspaceId,
        entity::Column::Mode,
        entity::Column::Day,
        entity::Column::ServiceAreaId,
    ];
    entity::Entity::insert(row)
        .on_conflict(OnConflict::columns(key_columns).update_columns(columns).to_owned())
        .exec(&core.writer)
        .await?;
    Ok(())
}

fn json<T: serde::Serialize>(value: &T) -> CoreResult<String> {
    serde_json::to_string(value).map_err(|e| CoreError::Internal(format!("report figures: {e}")))
}

/// What a day's count reads of a delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Booked {
    pub status: String,
    /// When the pickup was wanted: the scheduled time or the pickup
    /// window's start, else the booking.
    pub wanted_at: i64,
    pub picked_up_at: Option<i64>,
    pub delivered_at: Option<i64>,
    pub cancellation_reason: Option<String>,
    pub on_time: Option<bool>,
}

type BookedRow = (
    String,
    i64,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<String>,
    Option<bool>,
);

impl From<BookedRow> for Booked {
    fn from(
        (
            status,
            created_at,
            scheduled_at,
            pickup_window_start,
            picked_up_at,
            delivered_at,
            cancellation_reason,
            on_time,
        ): BookedRow,
    ) -> Booked {
        Booked {
            status,
            wanted_at: scheduled_at
                .or(pickup_window_start)
                .unwrap_or(created_at)
                .max(created_at),
            picked_up_at,
            delivered_at,
            cancellation_reason,
            on_time,
        }
    }
}

/// A day's figures from its deliveries.
pub(crate) fn count(rows: &[Booked]) -> DeliveryFigures {
    let minutes = |from: i64, to: i64| u32::try_from((to - from).max(0) / 60_000_000).unwrap_or(u32::MAX);
    let mut figures = DeliveryFigures::default();
    for row in rows {
        figures.deliveries += 1;
        if let Some(at) = row.picked_up_at {
            figures.to_pickup.add(minutes(row.wanted_at, at));
        }
        if let Some(at) = row.delivered_at {
            figures.delivered += 1;
            figures.to_delivery.add(minutes(row.wanted_at, at));
            if let Some(on_time) = row.on_time {
                figures.promised += 1;
                figures.on_time += u64::from(on_time);
            }
        }
        if row.status == "cancelled" {
            figures.cancelled += 1;
            let reason = row.cancellation_reason.clone().unwrap_or_else(|| "other".into());
            *figures.cancellations.entry(reason).or_default() += 1;
        }
    }
    figures
}

/// A stored day's figures.
pub(crate) fn figures_of(row: &entity::Model) -> CoreResult<DeliveryFigures> {
    let read = |text: &str| {
        serde_json::from_str::<Histogram>(text).map_err(|e| CoreError::Internal(format!("report row: {e}")))
    };
    Ok(DeliveryFigures {
        deliveries: row.deliveries as u64,
        delivered: row.delivered as u64,
        cancelled: row.cancelled as u64,
        cancellations: serde_json::from_str::<BTreeMap<String, u64>>(&row.cancellations)
            .map_err(|e| CoreError::Internal(format!("report row: {e}")))?,
        on_time: row.on_time as u64,
        promised: row.promised as u64,
        to_pickup: read(&row.pickup_minutes)?,
        to_delivery: read(&row.delivery_minutes)?,
    })
}

/// The stored days of `workspace_id` (every workspace when `None`) in
/// `mode` and area `area` (every area when `None`), from `first` to `last`.
pub(crate) async fn stored_days(
    db: &impl ConnectionTrait,
    workspace_id: Option<&str>,
    mode: &str,
    area: Option<&str>,
    (first, last): (NaiveDate, NaiveDate),
) -> CoreResult<Vec<entity::Model>> {
    let mut query = entity::Entity::find()
        .filter(entity::Column::Mode.eq(mode))
        .filter(entity::Column::Day.gte(first.to_string()))
        .filter(entity::Column::Day.lte(last.to_string()));
    if let Some(workspace_id) = workspace_id {
        query = query.filter(entity::Column::WorkspaceId.eq(workspace_id));
    }
    if let Some(area) = area {
        query = query.filter(entity::Column::ServiceAreaId.eq(area));
    }
    Ok(query.all(db).await?)
}
