//! The run's clock: the instant node code reads as "now" (`datetime.now()`,
//! `date.today()`), recorded when the run starts so that a replay, a resume, a
//! shard and a rerun give the same answers as the run itself.

use std::fmt;

use chrono::{DateTime, FixedOffset, Local, SecondsFormat, Timelike};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An instant with the offset of the time zone it was recorded in, written
/// as RFC 3339 (`2026-12-05T14:30:00+01:00`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunClock(DateTime<FixedOffset>);

/// Why a text is not a run clock.
#[derive(Debug, thiserror::Error)]
#[error("{text:?} is not an RFC 3339 instant with an offset (e.g. 2026-12-05T14:30:00+01:00 or 2026-12-05T13:30:00Z)")]
pub struct RunClockError {
    /// The text given.
    pub text: String,
}

impl RunClock {
    /// The instant `text` names: RFC 3339, with its offset (`Z` or `±hh:mm`).
    pub fn parse(text: &str) -> Result<Self, RunClockError> {
        DateTime::parse_from_rfc3339(text.trim()).map(Self).map_err(|_| RunClockError { text: text.to_string() })
    }

    /// This moment, to the second, in this machine's time zone.
    pub fn now() -> Self {
        let now = Local::now().fixed_offset();
        Self(now.with_nanosecond(0).unwrap_or(now))
    }

    /// RFC 3339 with the recorded offset.
    pub fn rfc3339(&self) -> String {
        self.0.to_rfc3339_opts(SecondsFormat::AutoSi, false)
    }
}

impl fmt::Display for RunClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rfc3339())
    }
}

impl Serialize for RunClock {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.rfc3339())
    }
}

impl<'de> Deserialize<'de> for RunClock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instant_keeps_its_offset_and_round_trips() {
        let clock = RunClock::parse("2024-02-29T23:30:00+09:00").unwrap();
        assert_eq!(clock.rfc3339(), "2024-02-29T23:30:00+09:00");
        let json = serde_json::to_string(&clock).unwrap();
        assert_eq!(serde_json::from_str::<RunClock>(&json).unwrap(), clock);
        assert_eq!(RunClock::parse("2024-02-29T14:30:00Z").unwrap().rfc3339(), "2024-02-29T14:30:00+00:00");
    }

    #[test]
    fn text_without_an_offset_is_refused_with_an_example() {
        for bad in ["2024-02-29T23:30:00", "yesterday", "2024-02-30T00:00:00Z", ""] {
            let err = RunClock::parse(bad).unwrap_err().to_string();
            assert!(err.contains("RFC 3339") && err.contains("e.g."), "{bad}: {err}");
        }
    }

    #[test]
    fn now_is_whole_seconds() {
        assert!(!RunClock::now().rfc3339().contains('.'));
    }
}
