//! A report's figures as data, merged day into week: counts, and the
//! minutes of each delivery kept as a histogram (minute → deliveries), so
//! that a week's median is the median of its deliveries, not of its days.

use std::collections::BTreeMap;

use chrono::{Datelike, Days, NaiveDate};
use serde::{Deserialize, Serialize};

/// How a report groups its days.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Period {
    Day,
    /// Monday to Sunday.
    Week,
    /// The report's whole range as one period.
    Whole,
}

/// The days a report covers, both ends included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub first: NaiveDate,
    pub last: NaiveDate,
}

/// A report covers at most this many days.
pub const MAX_DAYS: i64 = 366;

impl Range {
    /// The range, or why it is none: `first` after `last`, or longer than
    /// [`MAX_DAYS`].
    pub fn new(first: NaiveDate, last: NaiveDate) -> Result<Range, String> {
        let days = (last - first).num_days() + 1;
        if days < 1 {
            return Err("The report's first day is after its last.".into());
        }
        if days > MAX_DAYS {
            return Err(format!("A report covers at most {MAX_DAYS} days; this one {days}."));
        }
        Ok(Range { first, last })
    }

    pub fn days(self) -> impl Iterator<Item = NaiveDate> {
        self.first.iter_days().take_while(move |d| *d <= self.last)
    }

    /// The first day of the period of `day` (a week's Monday, which may
    /// be before the range's first day).
    pub fn start_of(self, period: Period, day: NaiveDate) -> NaiveDate {
        match period {
            Period::Day => day,
            Period::Week => day - Days::new(u64::from(day.weekday().num_days_from_monday())),
            Period::Whole => self.first,
        }
    }

    /// The days of the period starting at `start` within the range.
    pub fn period_days(self, period: Period, start: NaiveDate) -> (NaiveDate, NaiveDate) {
        let last = match period {
            Period::Day => start,
            Period::Week => start + Days::new(6),
            Period::Whole => self.last,
        };
        (start.max(self.first), last.min(self.last))
    }

    /// The start of each period the range touches, in order.
    pub fn periods(self, period: Period) -> Vec<NaiveDate> {
        let mut starts: Vec<NaiveDate> = self.days().map(|d| self.start_of(period, d)).collect();
        starts.dedup();
        starts
    }
}

/// Deliveries by minutes taken.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Histogram(BTreeMap<u32, u64>);

impl Histogram {
    pub fn add(&mut self, minutes: u32) {
        *self.0.entry(minutes).or_default() += 1;
    }

    pub fn merge(&mut self, other: &Histogram) {
        for (minutes, count) in &other.0 {
            *self.0.entry(*minutes).or_default() += count;
        }
    }

    pub fn count(&self) -> u64 {
        self.0.values().sum()
    }

    /// The minutes within which `share` (0 to 1) of the deliveries took
    /// place: the nearest-rank quantile; `None` without deliveries.
    pub fn quantile(&self, share: f64) -> Option<u32> {
        let count = self.count();
        if count == 0 {
            return None;
        }
        let rank = ((share * count as f64).ceil() as u64).clamp(1, count);
        let mut seen = 0;
        self.0.iter().find_map(|(minutes, n)| {
            seen += n;
            (seen >= rank).then_some(*minutes)
        })
    }
}

/// A period's deliveries (those booked in it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeliveryFigures {
    pub deliveries: u64,
    pub delivered: u64,
    pub cancelled: u64,
    /// Cancellations by reason (`no_courier_found`, `cancelled_by_you`, …).
    pub cancellations: BTreeMap<String, u64>,
    /// Delivered by their promised time, of those delivered with one.
    pub on_time: u64,
    pub promised: u64,
    /// From when the pickup was wanted to the pickup.
    pub to_pickup: Histogram,
    /// From when the pickup was wanted to the handover.
    pub to_delivery: Histogram,
}

impl DeliveryFigures {
    pub fn merge(&mut self, other: &DeliveryFigures) {
        self.deliveries += other.deliveries;
        self.delivered += other.delivered;
        self.cancelled += other.cancelled;
        for (reason, count) in &other.cancellations {
            *self.cancellations.entry(reason.clone()).or_default() += count;
        }
        self.on_time += other.on_time;
        self.promised += other.promised;
        self.to_pickup.merge(&other.to_pickup);
        self.to_delivery.merge(&other.to_delivery);
    }

    /// On time, of those delivered with a promise; `None` without any.
    pub fn on_time_rate(&self) -> Option<f64> {
        (self.promised > 0).then(|| self.on_time as f64 / self.promised as f64)
    }
}

/// A period's couriers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CourierFigures {
    /// Couriers online at some time of the period.
    pub couriers: u64,
    pub online_minutes: u64,
    /// Minutes holding at least one job.
    pub busy_minutes: u64,
    /// Jobs delivered.
    pub delivered: u64,
}

impl CourierFigures {
    /// Jobs delivered per hour online; `None` when nobody was online.
    pub fn per_courier_hour(&self) -> Option<f64> {
        (self.online_minutes > 0).then(|| self.delivered as f64 * 60.0 / self.online_minutes as f64)
    }
}

/// The figures of each period start, in order, from `(day, figures)`
/// pairs of the range's days (days without figures count as none).
pub fn by_period<F: Default + Clone>(
    range: Range,
    period: Period,
    days: impl IntoIterator<Item = (NaiveDate, F)>,
    merge: impl Fn(&mut F, &F),
) -> Vec<(NaiveDate, F)> {
    let mut periods: BTreeMap<NaiveDate, F> = range.periods(period).into_iter().map(|s| (s, F::default())).collect();
    for (day, figures) in days {
        if day < range.first || day > range.last {
            continue;
        }
        if let Some(total) = periods.get_mut(&range.start_of(period, day)) {
            merge(total, &figures);
        }
    }
    periods.into_iter().collect()
}
