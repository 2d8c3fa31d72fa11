//! A native fast path for `datetime.datetime.strftime`, which RustPython
//! otherwise runs as pure Python (`_wrap_strftime`, ~30 µs a call).
//!
//! It writes what CPython writes on Linux (glibc, C locale) for the
//! directives `%Y %y %m %d %H %I %p %M %S %f %j %a %A %b %B %%`. Anything else
//! — another directive (`%z`, `%Z`, `%c`, ...), a trailing `%`, non-ASCII
//! text, a year before 1000 — gets `None`, and the caller runs Python's
//! implementation.

use std::fmt::Write;

use chrono::{Datelike, NaiveDate};

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAYS: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

/// `datetime(*fields).strftime(format)` (fields: year, month, day, hour,
/// minute, second, microsecond) as CPython writes it, or `None` where the
/// Python implementation must decide.
pub fn strftime(fields: [i64; 7], format: &str) -> Option<String> {
    let [year, month, day, hour, minute, second, micro] = fields;
    if !format.is_ascii() || !(1000..=9999).contains(&year) {
        return None;
    }
    let date =
        NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, u32::try_from(month).ok()?, u32::try_from(day).ok()?)?;
    let month_name = MONTHS[date.month0() as usize];
    let weekday_name = WEEKDAYS[date.weekday().num_days_from_monday() as usize];
    let mut out = String::with_capacity(format.len() + 16);
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'Y' => write!(out, "{year}"),
            'y' => write!(out, "{:02}", year % 100),
            'm' => write!(out, "{month:02}"),
            'd' => write!(out, "{day:02}"),
            'H' => write!(out, "{hour:02}"),
            'I' => write!(out, "{:02}", if hour % 12 == 0 { 12 } else { hour % 12 }),
            'p' => write!(out, "{}", if hour < 12 { "AM" } else { "PM" }),
            'M' => write!(out, "{minute:02}"),
            'S' => write!(out, "{second:02}"),
            'f' => write!(out, "{micro:06}"),
            'j' => write!(out, "{:03}", date.ordinal()),
            'a' => write!(out, "{}", &weekday_name[..3]),
            'A' => write!(out, "{weekday_name}"),
            'b' => write!(out, "{}", &month_name[..3]),
            'B' => write!(out, "{month_name}"),
            '%' => write!(out, "%"),
            _ => return None,
        }
        .ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::strftime;

    #[test]
    fn common_directives_are_written_like_cpython() {
        let fields = [2020, 1, 5, 0, 7, 9, 2500];
        assert_eq!(strftime(fields, "%Y-%m").as_deref(), Some("2020-01"));
        assert_eq!(strftime(fields, "%A %a %B %b %d").as_deref(), Some("Sunday Sun January Jan 05"));
        assert_eq!(strftime(fields, "%I:%M:%S.%f %p %j %y %%").as_deref(), Some("12:07:09.002500 AM 005 20 %"));
        assert_eq!(strftime([2020, 12, 31, 13, 0, 0, 0], "%I %p %j").as_deref(), Some("01 PM 366"));
    }

    #[test]
    fn other_directives_and_early_years_are_left_to_python() {
        let fields = [2020, 1, 5, 0, 0, 0, 0];
        assert_eq!(strftime(fields, "%Y %z"), None);
        assert_eq!(strftime(fields, "%c"), None);
        assert_eq!(strftime(fields, "100%"), None);
        assert_eq!(strftime(fields, "é %Y"), None);
        assert_eq!(strftime([999, 1, 1, 0, 0, 0, 0], "%Y"), None);
    }
}
