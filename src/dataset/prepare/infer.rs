//! Column type inference from streamed values.

use std::collections::HashMap;

use chrono::{NaiveDate, NaiveDateTime};

/// Distinct values tracked per column; beyond this a column is not categorical.
pub const CATEGORICAL_LIMIT: usize = 60;

/// Field values treated as missing.
pub const NULL_MARKERS: &[&str] = &["", "NA", "N/A", "na", "n/a", "null", "NULL", "None", "NaN", "nan"];

/// strptime formats tried for datetime columns, in order of preference (day
/// before month for `-` and `.` separated dates, month first for `/`).
pub const DATETIME_FORMATS: &[&str] = &[
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%Y-%m-%d",
    "%d-%m-%Y %H:%M:%S",
    "%d-%m-%Y %H:%M",
    "%d-%m-%Y",
    "%m-%d-%Y %H:%M",
    "%m/%d/%Y %H:%M:%S",
    "%m/%d/%Y %H:%M",
    "%m/%d/%Y",
    "%d/%m/%Y %H:%M",
    "%d/%m/%Y",
    "%d.%m.%Y %H:%M",
    "%d.%m.%Y",
];

/// Whether `value` parses with strptime-style `format` (chrono's syntax is the same for these).
pub fn parses_as(value: &str, format: &str) -> bool {
    if format.contains("%H") {
        NaiveDateTime::parse_from_str(value, format).is_ok()
    } else {
        NaiveDate::parse_from_str(value, format).is_ok()
    }
}

/// The `YYYY-MM` of a datetime value in `format`.
pub fn month_of(value: &str, format: &str) -> Option<String> {
    let date = if format.contains("%H") {
        NaiveDateTime::parse_from_str(value, format).ok()?.date()
    } else {
        NaiveDate::parse_from_str(value, format).ok()?
    };
    Some(date.format("%Y-%m").to_string())
}

/// Everything pass one learns about a column.
#[derive(Debug, Clone)]
pub struct ColumnProfile {
    /// Column name.
    pub name: String,
    /// Non-missing values.
    pub non_null: u64,
    /// Missing values.
    pub nulls: u64,
    /// Every value parsed as an integer.
    pub all_int: bool,
    /// Every value parsed as a number.
    pub all_float: bool,
    /// Every value was 0/1/true/false.
    pub all_bool: bool,
    /// Formats that parsed every value so far.
    pub datetime_formats: Vec<&'static str>,
    /// Value counts while the column has at most [`CATEGORICAL_LIMIT`] distinct values.
    pub distinct: Option<HashMap<String, u64>>,
    /// Longest value, in characters.
    pub max_len: usize,
    /// Whether any value contains whitespace (free text rather than a code).
    pub any_whitespace: bool,
}

impl ColumnProfile {
    /// An empty profile.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_string(),
            non_null: 0,
            nulls: 0,
            all_int: true,
            all_float: true,
            all_bool: true,
            datetime_formats: DATETIME_FORMATS.to_vec(),
            distinct: Some(HashMap::new()),
            max_len: 0,
            any_whitespace: false,
        }
    }

    /// Account for one raw field.
    pub fn observe(&mut self, raw: &str) {
        if NULL_MARKERS.contains(&raw) {
            self.nulls += 1;
            return;
        }
        self.non_null += 1;
        self.max_len = self.max_len.max(raw.chars().count());
        if !self.any_whitespace && raw.contains(char::is_whitespace) {
            self.any_whitespace = true;
        }
        if self.all_int && raw.parse::<i64>().is_err() {
            self.all_int = false;
        }
        if self.all_float && raw.parse::<f64>().map(|f| !f.is_finite()).unwrap_or(true) {
            self.all_float = false;
        }
        if self.all_bool
            && !matches!(raw, "0" | "1")
            && !raw.eq_ignore_ascii_case("true")
            && !raw.eq_ignore_ascii_case("false")
        {
            self.all_bool = false;
        }
        if !self.datetime_formats.is_empty() && !self.all_float {
            self.datetime_formats.retain(|f| parses_as(raw, f));
        }
        if let Some(distinct) = &mut self.distinct {
            *distinct.entry(raw.to_string()).or_default() += 1;
            if distinct.len() > CATEGORICAL_LIMIT {
                self.distinct = None;
            }
        }
    }

    /// The inferred type name (`boolean`, `integer`, `float`, `datetime`,
    /// `categorical`, `identifier`, `string`).
    pub fn kind(&self) -> &'static str {
        let name = self.name.to_ascii_lowercase();
        let id_like_name = ["id", "num", "number", "uuid", "key", "code"]
            .iter()
            .any(|s| name == *s || name.ends_with(&format!("_{s}")));
        if self.non_null == 0 {
            return "string";
        }
        if self.all_bool {
            return "boolean";
        }
        if self.all_int && (id_like_name || self.max_len >= 12) && self.distinct.is_none() {
            return "identifier";
        }
        if self.all_int {
            return "integer";
        }
        if self.all_float {
            return "float";
        }
        if !self.datetime_formats.is_empty() {
            return "datetime";
        }
        if self.distinct.is_some() {
            return "categorical";
        }
        if id_like_name || (self.max_len >= 16 && !self.any_whitespace) {
            return "identifier";
        }
        "string"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(name: &str, values: &[&str]) -> &'static str {
        let mut p = ColumnProfile::new(name);
        for v in values {
            p.observe(v);
        }
        p.kind()
    }

    #[test]
    fn kinds_are_inferred() {
        assert_eq!(kind("is_fraud", &["0", "1", "0"]), "boolean");
        assert_eq!(kind("zip", &["12345", "54321", ""]), "integer");
        assert_eq!(kind("amt", &["1.5", "2", "NA"]), "float");
        assert_eq!(kind("t", &["21-01-2020 18:23", "08-02-2020 08:36"]), "datetime");
        assert_eq!(kind("cat", &["a", "b", "a"]), "categorical");
        assert_eq!(kind("cc_num", &["4263982640269299", "4111111111111111"]), "integer");
        let many: Vec<String> = (0..100).map(|i| format!("{:016}", 4_000_000_000_000_000u64 + i)).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(kind("cc_num", &refs), "identifier");
    }

    #[test]
    fn day_first_is_chosen_when_both_orders_parse() {
        let mut p = ColumnProfile::new("d");
        for v in ["01-02-2020", "03-04-2020"] {
            p.observe(v);
        }
        assert_eq!(p.datetime_formats[0], "%d-%m-%Y");
        let mut p = ColumnProfile::new("d");
        p.observe("25-02-2020");
        assert!(!p.datetime_formats.contains(&"%m-%d-%Y %H:%M"));
    }
}
