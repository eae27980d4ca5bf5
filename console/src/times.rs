//! Times as every page shows them: on the wall clock of the workspace's
//! service area (the zone the core names in the session, the one the
//! tracking page uses), with the UTC time on hover (`title`) and in the
//! `<time>` element's `datetime`. The one formatter of times of the console.

use std::fmt;

use chrono::{DateTime, NaiveDate, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;

/// The zone a page shows its times in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Zone(Tz);

impl Zone {
    /// The zone of an IANA name from the core; UTC for a name this build
    /// does not know.
    pub(crate) fn named(name: &str) -> Zone {
        Zone(name.parse().unwrap_or(Tz::UTC))
    }

    /// Date and time to the second ("2026-11-28 14:05:09 CET").
    pub(crate) fn at(self, at: Option<&prost_types::Timestamp>) -> Moment {
        self.shown(at, "%Y-%m-%d %H:%M:%S %Z", "")
    }

    /// Date and time to the minute ("2026-11-28 14:05 CET"); `none` without
    /// a time.
    pub(crate) fn minute(self, at: Option<&prost_types::Timestamp>, none: &str) -> Moment {
        self.shown(at, "%Y-%m-%d %H:%M %Z", none)
    }

    /// A window ("2026-11-28 14:00 to 16:00 CET", the end's date given
    /// when it is another day); empty without one.
    pub(crate) fn window(self, window: Option<&courier::v1::TimeWindow>) -> String {
        let local = |at: Option<&prost_types::Timestamp>| at.and_then(courier::time::from_proto).map(|t| self.local(t));
        let Some((start, end)) = window.and_then(|w| local(w.start.as_ref()).zip(local(w.end.as_ref()))) else {
            return String::new();
        };
        let end_format = if start.date_naive() == end.date_naive() {
            "%H:%M %Z"
        } else {
            "%Y-%m-%d %H:%M %Z"
        };
        format!("{} to {}", start.format("%Y-%m-%d %H:%M"), end.format(end_format))
    }

    /// The local date ("2026-11-28"); `none` without a time.
    pub(crate) fn day(self, at: Option<&prost_types::Timestamp>, none: &str) -> Moment {
        self.shown(at, "%Y-%m-%d", none)
    }

    /// `at` in this zone.
    pub(crate) fn local(self, at: DateTime<Utc>) -> DateTime<Tz> {
        at.with_timezone(&self.0)
    }

    /// Today's date on this zone's clock.
    pub(crate) fn today(self) -> NaiveDate {
        self.local(Utc::now()).date_naive()
    }

    /// When the local day `date` begins (the first valid local time of it,
    /// where a clock change skips midnight), as a timestamp.
    pub(crate) fn day_start(self, date: NaiveDate) -> prost_types::Timestamp {
        let start = (0..24)
            .filter_map(|hour| date.and_hms_opt(hour, 0, 0))
            .find_map(|local| self.0.from_local_datetime(&local).earliest())
            .map_or_else(|| date.and_time(NaiveTime::MIN).and_utc(), |at| at.with_timezone(&Utc));
        courier::time::to_proto(start)
    }

    /// The zone's IANA name ("Europe/Berlin").
    pub(crate) fn name(self) -> &'static str {
        self.0.name()
    }

    /// `at` as a `datetime-local` field holds it on this zone's clock
    /// (`2026-11-28T14:05`); empty without a time.
    pub(crate) fn field_value(self, at: Option<&prost_types::Timestamp>) -> String {
        at.and_then(courier::time::from_proto)
            .map(|at| self.local(at).format("%Y-%m-%dT%H:%M").to_string())
            .unwrap_or_default()
    }

    /// A time typed on this zone's clock (`2026-11-28T14:05`, as a
    /// `datetime-local` field sends it); none for text that is no such time
    /// or a local time a clock change skips.
    pub(crate) fn typed(self, text: &str) -> Option<prost_types::Timestamp> {
        let local = ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"]
            .iter()
            .find_map(|format| chrono::NaiveDateTime::parse_from_str(text.trim(), format).ok())?;
        let at = self.0.from_local_datetime(&local).earliest()?;
        Some(courier::time::to_proto(at.with_timezone(&Utc)))
    }

    fn shown(self, at: Option<&prost_types::Timestamp>, format: &str, none: &str) -> Moment {
        match at.and_then(courier::time::from_proto) {
            Some(at) => Moment {
                text: self.local(at).format(format).to_string(),
                utc: Some((at.format("%Y-%m-%d %H:%M:%S UTC").to_string(), at.to_rfc3339())),
            },
            None => Moment {
                text: none.to_owned(),
                utc: None,
            },
        }
    }
}

/// A time as a page shows it: `<time datetime="…Z" title="… UTC">` around
/// the local text; only the text when there is no time.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Moment {
    text: String,
    /// The UTC time as read on hover, and as `datetime`.
    utc: Option<(String, String)>,
}

impl Moment {
    pub(crate) fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

/// Writes markup: every part is made here from a timestamp and a format
/// (digits, dashes, colons, zone abbreviations) or is the caller's fixed
/// text, so nothing needs escaping; `HtmlSafe` keeps askama from escaping
/// the tags.
impl fmt::Display for Moment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.utc {
            Some((utc, iso)) => write!(f, "<time datetime=\"{iso}\" title=\"{utc}\">{}</time>", self.text),
            None => f.write_str(&self.text),
        }
    }
}

impl askama::filters::HtmlSafe for Moment {}

#[cfg(test)]
mod tests {
    use askama::Template;

    use super::*;

    #[derive(Template)]
    #[template(source = "{% for m in moments %}[{{ m }}]{% endfor %}{{ one }}", ext = "html")]
    struct Shown {
        moments: Vec<Moment>,
        one: Moment,
    }

    /// A winter and a summer time in Berlin, with UTC on hover; the markup
    /// is not escaped in a loop or as a field.
    #[test]
    fn times_read_on_the_areas_clock_with_utc_on_hover() {
        let berlin = Zone::named("Europe/Berlin");
        let winter = prost_types::Timestamp {
            seconds: 1_795_862_709,
            nanos: 0,
        };
        let summer = prost_types::Timestamp {
            seconds: 1_783_000_000,
            nanos: 0,
        };
        let page = Shown {
            moments: vec![berlin.at(Some(&winter)), berlin.minute(Some(&summer), "never")],
            one: berlin.day(None, "never"),
        }
        .render()
        .expect("rendered");
        assert_eq!(
            page,
            "[<time datetime=\"2026-11-28T10:45:09+00:00\" title=\"2026-11-28 10:45:09 UTC\">2026-11-28 11:45:09 CET</time>]\
             [<time datetime=\"2026-07-02T13:46:40+00:00\" title=\"2026-07-02 13:46:40 UTC\">2026-07-02 15:46 CEST</time>]never"
        );
        assert_eq!(
            Zone::named("Mars/Olympus").at(Some(&winter)).text,
            "2026-11-28 10:45:09 UTC"
        );
    }

    #[test]
    fn a_typed_time_is_read_on_the_areas_clock() {
        let berlin = Zone::named("Europe/Berlin");
        let winter = berlin.typed("2026-11-28T11:45").expect("a time");
        assert_eq!(winter.seconds, 1_795_862_700);
        assert_eq!(
            berlin.typed(" 2026-11-28 11:45 ").map(|t| t.seconds),
            Some(1_795_862_700)
        );
        // 02:30 on the last Sunday of March does not happen in Berlin.
        assert_eq!(berlin.typed("2026-03-29T02:30"), None);
        assert_eq!(berlin.typed("tomorrow"), None);
    }
}
