//! Conversions between `google.protobuf.Timestamp` and chrono, and the
//! duration syntax of the binaries' flags.

use chrono::{DateTime, Utc};

/// A protobuf timestamp for a UTC instant.
pub fn to_proto(at: DateTime<Utc>) -> prost_types::Timestamp {
    prost_types::Timestamp {
        seconds: at.timestamp(),
        nanos: at.timestamp_subsec_nanos() as i32,
    }
}

/// The UTC instant of a protobuf timestamp; `None` when it is out of range.
pub fn from_proto(ts: &prost_types::Timestamp) -> Option<DateTime<Utc>> {
    let nanos = u32::try_from(ts.nanos).ok()?;
    DateTime::from_timestamp(ts.seconds, nanos)
}

/// A UTC instant from unix microseconds, as the core stores times.
pub fn from_micros(micros: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(micros).unwrap_or(DateTime::UNIX_EPOCH)
}

/// A protobuf timestamp from unix microseconds.
pub fn micros_to_proto(micros: i64) -> prost_types::Timestamp {
    prost_types::Timestamp {
        seconds: micros.div_euclid(1_000_000),
        nanos: (micros.rem_euclid(1_000_000) * 1000) as i32,
    }
}

/// RFC 3339 in UTC with a `Z`, at most microsecond precision, as the public
/// API writes every time.
pub fn format_rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

/// Parses `500ms`, `20s`, `2m`, `1h`.
pub fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| format!("'{text}' needs a unit: ms, s, m or h"))?;
    let (number, unit) = text.split_at(split);
    let value: u64 = number
        .parse()
        .map_err(|_| format!("'{text}' does not start with a whole number"))?;
    match unit {
        "ms" => Ok(std::time::Duration::from_millis(value)),
        "s" => Ok(std::time::Duration::from_secs(value)),
        "m" => Ok(std::time::Duration::from_secs(value * 60)),
        "h" => Ok(std::time::Duration::from_secs(value * 3600)),
        _ => Err(format!("'{text}': unknown unit '{unit}' (use ms, s, m or h)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn micros_round_trip_through_proto() {
        for micros in [0_i64, 1, 999_999, 1_000_000, -1, 1_795_000_000_123_456] {
            let ts = micros_to_proto(micros);
            let back = from_proto(&ts).map(|t| t.timestamp_micros());
            assert_eq!(back, Some(micros));
        }
    }

    #[test]
    fn formats_utc_with_z() {
        let at = from_micros(1_795_000_000_000_000);
        assert!(format_rfc3339(at).ends_with('Z'));
    }

    #[test]
    fn parses_durations() {
        use std::time::Duration;
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("20s"), Ok(Duration::from_secs(20)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert!(parse_duration("20").is_err());
        assert!(parse_duration("s").is_err());
        assert!(parse_duration("5d").is_err());
    }
}
