//! Times of day (`09:15:59`, `7:13 PM`: a strptime format, no date) and
//! durations (`00:00:07`, `00h-00m-00s`: a length of time, read into seconds).
//!
//! `H:MM:SS` values read both ways. They are a duration when an hour is above
//! 23, when the column's name says so (`duration`, `wait`, `elapsed`, …), or
//! when every hour is 0 and the name does not say it is a time (`time`,
//! `start`, `open`, …); otherwise a time of day. A 12-hour time (`AM`/`PM`) is
//! always a time of day, lettered units (`1h 02m`) always a duration.

use super::dates;

/// Time-of-day formats, most preferred first.
const TIMES_OF_DAY: &[&str] = &["%H:%M:%S", "%H:%M", "%H:%M:%S.%f", "%I:%M %p", "%I:%M:%S %p", "%I:%M%p"];

/// Words in a column's name that say it holds lengths of time.
const DURATION_WORDS: &[&str] =
    &["duration", "wait", "elapsed", "length", "spent", "hold", "talk", "handl", "delay", "runtime", "lap", "avg"];

/// Words in a column's name that say it holds times of day.
const TIME_WORDS: &[&str] = &["time", "clock", "hour", "start", "end", "open", "close", "arriv", "depart"];

/// Units of a lettered duration, largest first, with their seconds.
const UNITS: [(char, &str, u64); 4] =
    [('d', "days", 86_400), ('h', "hours", 3600), ('m', "minutes", 60), ('s', "seconds", 1)];

/// How a duration is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DurationStyle {
    /// `H:MM:SS`, hours unbounded.
    Colons,
    /// Numbers with unit letters (`d`, `h`, `m`, `s`), largest first, any separators: `00h-00m-00s`, `2m 30s`.
    Lettered {
        /// The smallest unit written, as an index of the unit table.
        finest: usize,
    },
}

/// What a column of times holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// Times of day, in this strptime format.
    TimeOfDay(&'static str),
    /// Lengths of time.
    Duration(DurationStyle),
}

/// What pass one learns about a column's times.
#[derive(Debug, Clone)]
pub struct ClockProfile {
    /// Time-of-day formats that read every value so far.
    times: Vec<&'static str>,
    /// Every value so far is `H:MM:SS`.
    colons: bool,
    /// Every value so far is a lettered duration; the smallest unit seen.
    lettered: Option<usize>,
    /// The largest hour of the `H:MM:SS` values.
    max_hour: u64,
    /// Values seen.
    seen: u64,
}

impl Default for ClockProfile {
    fn default() -> Self {
        Self { times: TIMES_OF_DAY.to_vec(), colons: true, lettered: Some(0), max_hour: 0, seen: 0 }
    }
}

/// The hours of an `H:MM:SS` duration (minutes and seconds below 60).
fn colon_hours(value: &str) -> Option<u64> {
    let mut parts = value.split(':');
    let (hours, minutes, seconds) = (parts.next()?, parts.next()?, parts.next()?);
    let two_digits = |p: &str| p.len() == 2 && p.parse::<u8>().is_ok_and(|n| n < 60);
    let digits = !hours.is_empty() && hours.bytes().all(|b| b.is_ascii_digit());
    (parts.next().is_none() && digits && two_digits(minutes) && two_digits(seconds)).then(|| hours.parse().ok())?
}

/// The smallest unit of a lettered duration, as an index of [`UNITS`].
fn lettered_finest(value: &str) -> Option<usize> {
    let mut finest = None;
    let mut rest = value.trim();
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let unit = rest[digits..].chars().next()?.to_ascii_lowercase();
        let index = UNITS.iter().position(|(letter, _, _)| *letter == unit)?;
        if digits == 0 || finest.is_some_and(|f| index <= f) {
            return None;
        }
        finest = Some(index);
        rest = rest[digits + 1..].trim_start_matches([' ', '-', ':', ',']);
    }
    finest
}

/// Whether a column's name contains one of `words`.
fn named(name: &str, words: &[&str]) -> bool {
    let name = name.to_ascii_lowercase();
    words.iter().any(|w| name.contains(w))
}

impl ClockProfile {
    /// Account for one trimmed, non-null value.
    pub fn observe(&mut self, value: &str) {
        self.seen += 1;
        self.times.retain(|format| dates::parses(value, format));
        if self.colons {
            match colon_hours(value) {
                Some(hours) => self.max_hour = self.max_hour.max(hours),
                None => self.colons = false,
            }
        }
        if let Some(finest) = self.lettered {
            self.lettered = lettered_finest(value).map(|f| f.max(finest));
        }
    }

    /// What the column holds, if its every value is a time of day or a duration.
    pub fn decide(&self, name: &str) -> Option<Clock> {
        if self.seen == 0 {
            return None;
        }
        if let Some(finest) = self.lettered {
            return Some(Clock::Duration(DurationStyle::Lettered { finest }));
        }
        let says_duration = named(name, DURATION_WORDS) || (self.max_hour == 0 && !named(name, TIME_WORDS));
        if self.colons && (self.max_hour > 23 || says_duration) {
            return Some(Clock::Duration(DurationStyle::Colons));
        }
        self.times.first().map(|format| Clock::TimeOfDay(format))
    }
}

impl Clock {
    /// The column's type in the metadata.
    pub fn kind(self) -> &'static str {
        match self {
            Clock::TimeOfDay(_) => "time",
            Clock::Duration(_) => "duration",
        }
    }

    /// The strptime format of a time of day.
    pub fn strptime(self) -> Option<&'static str> {
        match self {
            Clock::TimeOfDay(format) => Some(format),
            Clock::Duration(_) => None,
        }
    }

    /// The metadata `format`: how the values are written.
    pub fn format(self) -> String {
        match self {
            Clock::TimeOfDay(format) => dates::human(format),
            Clock::Duration(DurationStyle::Colons) => "H:MM:SS".into(),
            Clock::Duration(DurationStyle::Lettered { .. }) => "numbers with unit letters (d, h, m, s)".into(),
        }
    }

    /// The metadata `unit` of a duration: its smallest part, the unit of its seconds.
    pub fn unit(self) -> Option<&'static str> {
        match self {
            Clock::TimeOfDay(_) => None,
            Clock::Duration(DurationStyle::Colons) => Some("seconds"),
            Clock::Duration(DurationStyle::Lettered { finest }) => Some(UNITS[finest].1),
        }
    }

    /// The metadata `note`: what the values are and how a node reads them.
    pub fn note(self, example: &str) -> String {
        match self {
            Clock::TimeOfDay(format) => format!(
                "a time of day without a date (like `{example}`): `datetime.datetime.strptime(v, {format:?}).time()`; seconds since midnight: `t.hour * 3600 + t.minute * 60 + t.second`"
            ),
            Clock::Duration(DurationStyle::Colons) => format!(
                "a duration (like `{example}`), not a time of day; in seconds: `h, m, s = (int(p) for p in v.split(':')); h * 3600 + m * 60 + s`"
            ),
            Clock::Duration(DurationStyle::Lettered { .. }) => format!(
                "a duration (like `{example}`), not a time of day; in seconds: `sum(int(n) * {{'d': 86400, 'h': 3600, 'm': 60, 's': 1}}[u.lower()] for n, u in re.findall(r'(\\d+)\\s*([dhmsDHMS])', v))`"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(name: &str, values: &[&str]) -> Option<Clock> {
        let mut profile = ClockProfile::default();
        values.iter().for_each(|v| profile.observe(v));
        profile.decide(name)
    }

    #[test]
    fn times_of_day_and_durations_are_told_apart() {
        let hms = Some(Clock::TimeOfDay("%H:%M:%S"));
        let colons = Some(Clock::Duration(DurationStyle::Colons));
        assert_eq!(clock("Time", &["09:15:59", "15:29:00"]), hms);
        assert_eq!(clock("Tip", &["7:13 PM", "12:05 AM"]), Some(Clock::TimeOfDay("%I:%M %p")));
        assert_eq!(clock("Avg Wait", &["00:00:07", "00:01:12"]), colons, "the name says a duration");
        assert_eq!(clock("answer_speed", &["00:00:07", "00:00:31"]), colons, "every hour is 0");
        assert_eq!(clock("Time", &["00:00:07", "00:00:31"]), hms, "every hour is 0, but the name says a time");
        assert_eq!(clock("Time", &["09:15:59", "31:00:00"]), colons, "no day has 31 hours");
        assert_eq!(clock("opened", &["09:15:59", "12:00:00"]), hms);
        assert_eq!(
            clock("Queue", &["00h-00m-07s", "01h-10m-00s"]),
            Some(Clock::Duration(DurationStyle::Lettered { finest: 3 }))
        );
        assert_eq!(clock("x", &["2h 30m", "45m"]), Some(Clock::Duration(DurationStyle::Lettered { finest: 2 })));
        assert_eq!(clock("x", &["1h", "1s 2h"]), None, "units out of order are not a duration");
        assert_eq!(clock("x", &["09:15", "north"]), None);
        assert_eq!(clock("x", &[]), None);
    }

    #[test]
    fn metadata_says_how_to_read_them() {
        let lettered = Clock::Duration(DurationStyle::Lettered { finest: 3 });
        assert_eq!((lettered.kind(), lettered.unit(), lettered.strptime()), ("duration", Some("seconds"), None));
        let time = Clock::TimeOfDay("%I:%M %p");
        assert_eq!(
            (time.kind(), time.format(), time.strptime()),
            ("time", "hh:MM AM/PM".to_string(), Some("%I:%M %p"))
        );
        assert!(Clock::Duration(DurationStyle::Colons).note("00:00:07").contains("h * 3600 + m * 60 + s"));
    }
}
