//! Column type inference from streamed values: pass one builds a
//! [`ColumnProfile`] per column, [`ColumnProfile::decide`] turns it into the
//! [`Column`] every later pass reads fields with.

use std::collections::HashMap;

use chrono::NaiveDateTime;
use serde_json::{Value, json};

use super::clock::{Clock, ClockProfile};
use super::dates::{self, COMPACT, EpochUnit};
use super::records::Stored;
use super::values::{self, BoolWords, NumberStyle, Unit, is_null};

/// Distinct values tracked per column; beyond this a column is not categorical.
pub const CATEGORICAL_LIMIT: usize = 60;

/// Everything pass one learns about a column.
#[derive(Debug, Clone)]
pub struct ColumnProfile {
    /// Column name.
    pub name: String,
    /// Non-missing values.
    pub non_null: u64,
    /// Missing values.
    pub nulls: u64,
    /// Every value was a boolean spelling (`0`/`1`, `true`/`false`, `yes`/`no`, `y`/`n`).
    pub all_bool: bool,
    /// Some boolean value was a word rather than `0`/`1`.
    bool_words: bool,
    /// Number styles that read every value, each with whether every value was a whole number.
    styles: Vec<(NumberStyle, bool)>,
    /// The currency every value carried (or none), `None` inside once two differ.
    currency: Option<Option<&'static str>>,
    /// Values with a `%` sign.
    percents: u64,
    /// Some number has a mark between its digits (`.`, `,`, a space or `'`).
    marked: bool,
    /// Candidate datetime formats that read every value so far (`None` before the first value).
    dates: Option<Vec<u16>>,
    /// Every value was an 8-digit `YYYYMMDD` date.
    compact: bool,
    /// The epoch unit of every value so far (`None` inside once they disagree).
    epoch: Option<Option<EpochUnit>>,
    /// A value as written, for notes.
    example: Option<String>,
    /// Value counts while the column has at most [`CATEGORICAL_LIMIT`] distinct values.
    pub distinct: Option<HashMap<String, u64>>,
    /// Longest value, in characters.
    pub max_len: usize,
    /// Whether any value contains whitespace (free text rather than a code).
    pub any_whitespace: bool,
    /// Whether every value is a time of day or a duration.
    clock: ClockProfile,
}

/// Where a datetime column's times come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateSource {
    /// Text in a strptime format (written to `data.json` as it is, trimmed).
    Text(&'static str),
    /// Epoch numbers (written to `data.json` as UTC text).
    Epoch(EpochUnit),
}

/// What a column is and how to read its fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// Type name: `boolean`, `integer`, `float`, `datetime`, `time`, `duration`, `categorical`, `identifier`, `string`.
    pub kind: &'static str,
    /// How numbers are written (integer and float columns).
    pub style: NumberStyle,
    /// Currency or percent.
    pub unit: Unit,
    /// Whether every number is whole (`typed` writes integers).
    pub whole: bool,
    /// Datetime columns: where the times come from.
    pub date: Option<DateSource>,
    /// Time-of-day and duration columns: how they are written.
    pub clock: Option<Clock>,
    /// Boolean columns: how values are spelled.
    pub bool_words: BoolWords,
    /// Metadata `format` beyond a datetime's (currency, percent).
    pub format: Option<String>,
    /// Metadata `note`: how the column was read and why.
    pub note: Option<String>,
}

fn id_like(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["id", "num", "number", "uuid", "key", "code"].iter().any(|s| name == *s || name.ends_with(&format!("_{s}")))
}

/// Whether a column name says it is a yes/no flag (so `0`/`1` values are booleans).
pub fn flag_like(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["is_", "has_", "was_", "can_", "did_", "should_", "will_"].iter().any(|p| name.starts_with(p))
        || ["_flag", "_yn", "_bool"].iter().any(|s| name.ends_with(s))
        || ["flag", "active", "churn", "churned", "fraud", "survived", "default", "label", "target"]
            .contains(&name.as_str())
}

impl ColumnProfile {
    /// An empty profile.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_string(),
            non_null: 0,
            nulls: 0,
            all_bool: true,
            bool_words: false,
            styles: NumberStyle::ALL.iter().map(|s| (*s, true)).collect(),
            currency: None,
            percents: 0,
            marked: false,
            dates: None,
            compact: true,
            epoch: None,
            example: None,
            distinct: Some(HashMap::new()),
            max_len: 0,
            any_whitespace: false,
            clock: ClockProfile::default(),
        }
    }

    /// Account for one raw field, which the file stored as `stored` (a string
    /// the file stored as text rules out numbers, `0`/`1` flags and epochs).
    pub fn observe(&mut self, raw: &str, stored: Stored) {
        if is_null(raw) {
            self.nulls += 1;
            return;
        }
        self.non_null += 1;
        let value = raw.trim();
        if stored == Stored::Text {
            self.styles.clear();
            self.compact = false;
            self.epoch = Some(None);
            self.all_bool &= values::boolean(value).is_some_and(|(_, words)| words == BoolWords::Words);
        }
        self.example.get_or_insert_with(|| value.to_string());
        self.max_len = self.max_len.max(raw.chars().count());
        if !self.any_whitespace && raw.contains(char::is_whitespace) {
            self.any_whitespace = true;
        }
        if self.all_bool {
            match values::boolean(value) {
                Some((_, BoolWords::Words)) => self.bool_words = true,
                Some((_, BoolWords::ZeroOne)) => {}
                None => self.all_bool = false,
            }
        }
        self.observe_number(value);
        self.clock.observe(value);
        let plain_number = self.styles.first().is_some_and(|(s, _)| s.is_plain());
        if self.compact {
            self.compact = value.len() == 8 && value.bytes().all(|b| b.is_ascii_digit()) && {
                let year: u32 = value[..4].parse().unwrap_or(0);
                (1900..=2100).contains(&year) && dates::parses(value, COMPACT)
            };
        }
        if self.epoch != Some(None) {
            let unit = value.parse::<i64>().ok().and_then(EpochUnit::of);
            self.epoch = Some(if self.epoch.is_none() || self.epoch == Some(unit) { unit } else { None });
        }
        match &mut self.dates {
            None if plain_number => self.dates = Some(Vec::new()),
            None => self.dates = Some(dates::candidates_for(value)),
            Some(candidates) if !candidates.is_empty() => {
                candidates.retain(|&i| dates::parses(value, dates::format_of(i)));
            }
            Some(_) => {}
        }
        if let Some(distinct) = &mut self.distinct {
            *distinct.entry(raw.to_string()).or_default() += 1;
            if distinct.len() > CATEGORICAL_LIMIT {
                self.distinct = None;
            }
        }
    }

    /// `Some(whole)` when every value is a plain number (no currency, percent
    /// or marks between thousands), `whole` when every one is whole too.
    pub fn plain_numbers(&self) -> Option<bool> {
        if self.percents > 0 || self.currency.flatten().is_some() {
            return None;
        }
        self.styles.iter().find(|(s, _)| s.is_plain()).map(|&(_, whole)| whole)
    }

    /// The epoch unit every value reads in, when there is one.
    pub fn epoch_unit(&self) -> Option<EpochUnit> {
        self.epoch.flatten()
    }

    fn observe_number(&mut self, value: &str) {
        if self.styles.is_empty() {
            return;
        }
        let Some(text) = values::number_text(value) else {
            self.styles.clear();
            return;
        };
        self.styles.retain_mut(|(style, whole)| {
            // Only plain numbers are ever written as integers.
            *whole &= style.is_plain() && value.parse::<i64>().is_ok();
            style.read(&text.digits).is_some()
        });
        let currency = text.unit.currency;
        self.currency = match self.currency {
            None => Some(currency),
            Some(seen) if seen == currency || currency.is_none() => Some(seen),
            Some(None) => Some(currency),
            Some(Some(_)) => {
                self.styles.clear();
                Some(None)
            }
        };
        self.percents += u64::from(text.unit.percent);
        self.marked |= text.digits.contains(['.', ',', ' ', '\'']);
    }

    /// The column's type and how to read it. `label`: it is the `--label`
    /// column; `semicolons`: the file is semicolon-separated, where decimal
    /// commas are the custom.
    pub fn decide(&self, label: bool, semicolons: bool) -> Column {
        let mut column = Column {
            kind: "string",
            style: NumberStyle::ALL[0],
            unit: Unit::default(),
            whole: false,
            date: None,
            clock: None,
            bool_words: if self.bool_words { BoolWords::Words } else { BoolWords::ZeroOne },
            format: None,
            note: None,
        };
        if self.non_null == 0 {
            return column;
        }
        if self.all_bool && (self.bool_words || label || flag_like(&self.name)) {
            column.kind = "boolean";
            return column;
        }
        let mut styles = self.styles.clone();
        if !self.marked {
            // Every style reads the same numbers: keep them plain.
            styles.retain(|(s, _)| s.is_plain());
        } else if semicolons {
            styles.sort_by_key(|(s, _)| s.decimal != ',');
        }
        let percent = self.percents == self.non_null;
        if let Some(&(style, whole)) = styles.first()
            && (self.percents == 0 || percent)
        {
            column.style = style;
            column.whole = whole;
            column.unit = Unit { currency: self.currency.flatten(), percent };
            let plain = style.is_plain() && column.unit == Unit::default();
            if let Some(date) = self.integer_date(plain && whole) {
                column.kind = "datetime";
                column.note = Some(match date {
                    DateSource::Epoch(unit) => {
                        format!("{} in the CSV, written here as UTC text in the strptime format", unit.describe())
                    }
                    DateSource::Text(_) => "compact dates (YYYYMMDD), written here as text".into(),
                });
                column.date = Some(date);
                return column;
            }
            if !plain {
                column.note = Some(self.number_note(&styles, &column));
                column.format = column
                    .unit
                    .currency
                    .map(|c| format!("currency ({c})"))
                    .or_else(|| percent.then(|| "percent".to_string()));
            }
            column.kind = if column.whole && (id_like(&self.name) || self.max_len >= 12) && self.distinct.is_none() {
                "identifier"
            } else if column.whole {
                "integer"
            } else {
                "float"
            };
            return column;
        }
        if let Some(&first) = self.dates.as_ref().and_then(|d| d.first()) {
            let format = dates::format_of(first);
            column.kind = "datetime";
            column.date = Some(DateSource::Text(format));
            column.note = self.date_note(format);
            return column;
        }
        if let Some(clock) = self.clock.decide(&self.name) {
            column.kind = clock.kind();
            column.format = Some(clock.format());
            column.note = Some(clock.note(self.example.as_deref().unwrap_or_default()));
            column.clock = Some(clock);
            return column;
        }
        column.kind = if self.distinct.is_some() {
            "categorical"
        } else if id_like(&self.name) || (self.max_len >= 16 && !self.any_whitespace) {
            "identifier"
        } else {
            "string"
        };
        column
    }

    /// An integer column's dates: epoch numbers under a time-like name, or `YYYYMMDD`.
    fn integer_date(&self, plain_whole: bool) -> Option<DateSource> {
        if !plain_whole {
            return None;
        }
        if dates::time_like_name(&self.name)
            && let Some(Some(unit)) = self.epoch
        {
            return Some(DateSource::Epoch(unit));
        }
        (self.compact && !id_like(&self.name)).then_some(DateSource::Text(COMPACT))
    }

    fn number_note(&self, styles: &[(NumberStyle, bool)], column: &Column) -> String {
        let describe = |s: NumberStyle| {
            let group = match s.group {
                Some(' ') => " and spaces between thousands".to_string(),
                Some(g) => format!(" and `{g}` between thousands"),
                None => String::new(),
            };
            format!("a decimal `{}`{group}", s.decimal)
        };
        let example = self.example.as_deref().unwrap_or_default();
        let mut note = format!("written like `{example}`");
        if let Some(c) = column.unit.currency {
            note.push_str(&format!("; amounts in {c}"));
        }
        if column.unit.percent {
            note.push_str("; percentages: 12.5 means 12.5%");
        }
        note.push_str(&format!("; read with {}, stored as plain numbers", describe(column.style)));
        if let Some((other, _)) = styles.iter().find(|(o, _)| o.decimal != column.style.decimal) {
            note.push_str(&format!(
                " (every value also reads with {}; {} chosen as the file is {}-separated)",
                describe(*other),
                describe(column.style),
                if column.style.decimal == ',' { "semicolon" } else { "not semicolon" }
            ));
        }
        note
    }

    /// The note of a datetime column: an assumed day/month order (an order the
    /// data settled is stated by the `format` alone, so that preparing a file
    /// whose dates are unambiguous gives the metadata it always gave), and UTC.
    fn date_note(&self, format: &str) -> Option<String> {
        let mut notes = Vec::new();
        if let Some(other) = dates::swapped(format)
            && self.dates.as_deref().unwrap_or_default().iter().any(|&i| dates::format_of(i) == other)
        {
            let chosen = if format.find("%d") < format.find("%m") { "day" } else { "month" };
            notes.push(format!(
                "every value reads both day-first and month-first; {chosen}-first assumed (the usual order for this separator)"
            ));
        }
        if format.contains("%z") {
            notes.push("times carry UTC offsets: strptime gives aware datetimes; hours are local".into());
        } else if format.ends_with('Z') {
            notes.push("times are UTC (a literal Z)".into());
        }
        (!notes.is_empty()).then(|| notes.join("; "))
    }
}

impl Column {
    /// The number in `raw` (numeric columns).
    pub fn number(&self, raw: &str) -> Option<f64> {
        if is_null(raw) {
            return None;
        }
        if self.style.is_plain() && self.unit == Unit::default() {
            return raw.trim().parse::<f64>().ok().filter(|x| x.is_finite());
        }
        values::number(raw, self.style).map(|(x, _)| x)
    }

    /// The strptime format of a datetime column.
    pub fn strptime(&self) -> Option<&'static str> {
        match self.date? {
            DateSource::Text(format) => Some(format),
            DateSource::Epoch(unit) => Some(unit.strptime()),
        }
    }

    /// The time in `raw` (datetime columns).
    pub fn time(&self, raw: &str) -> Option<NaiveDateTime> {
        if is_null(raw) {
            return None;
        }
        match self.date? {
            DateSource::Text(format) => dates::parse(raw.trim(), format),
            DateSource::Epoch(unit) => unit.time(raw.trim().parse().ok()?),
        }
    }

    /// The text a datetime value is written as in `data.json`.
    pub fn time_text(&self, raw: &str) -> Option<String> {
        match self.date? {
            DateSource::Text(_) => Some(raw.trim().to_string()),
            DateSource::Epoch(unit) => Some(unit.text(self.time(raw)?)),
        }
    }

    /// A raw field as a typed JSON value.
    pub fn typed(&self, raw: &str) -> Value {
        if is_null(raw) {
            return Value::Null;
        }
        match self.kind {
            "boolean" => match (values::boolean(raw), self.bool_words) {
                (Some((b, _)), BoolWords::ZeroOne) => json!(u8::from(b)),
                (Some((b, _)), BoolWords::Words) => json!(b),
                (None, _) => json!(raw),
            },
            "datetime" => self.time_text(raw).map_or_else(|| json!(raw), Value::String),
            "integer" | "identifier" if self.whole && self.style.is_plain() && self.unit == Unit::default() => {
                raw.trim().parse::<i64>().map_or_else(|_| json!(raw), |i| json!(i))
            }
            "integer" | "float" => {
                self.number(raw).and_then(serde_json::Number::from_f64).map_or(json!(raw), Value::Number)
            }
            _ => json!(raw),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str, values: &[&str]) -> Column {
        let mut p = ColumnProfile::new(name);
        for v in values {
            p.observe(v, Stored::Guessed);
        }
        p.decide(false, false)
    }

    fn kind(name: &str, values: &[&str]) -> &'static str {
        column(name, values).kind
    }

    #[test]
    fn kinds_are_inferred() {
        assert_eq!(kind("is_fraud", &["0", "1", "0"]), "boolean");
        assert_eq!(kind("rating", &["0", "1", "0"]), "integer", "0/1 is a flag only by its name");
        assert_eq!(kind("paid", &["yes", "no", "Yes"]), "boolean");
        assert_eq!(kind("zip", &["12345", "54321", ""]), "integer");
        assert_eq!(kind("amt", &["1.5", "2", "NA"]), "float");
        assert_eq!(kind("t", &["21-01-2020 18:23", "08-02-2020 08:36"]), "datetime");
        assert_eq!(kind("cat", &["a", "b", "a"]), "categorical");
        assert_eq!(kind("cc_num", &["4263982640269299", "4111111111111111"]), "integer");
        let many: Vec<String> = (0..100).map(|i| format!("{:016}", 4_000_000_000_000_000u64 + i)).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(kind("cc_num", &refs), "identifier");
        assert_eq!(kind("day", &["20240105", "20231231"]), "datetime");
        assert_eq!(kind("event_ts", &["1700000000", "1700003600"]), "datetime");
        assert_eq!(kind("unix_time", &["1700000000", "1700003600"]), "integer");
        assert_eq!(kind("Time", &["09:15:59", "09:16:03", "NA"]), "time");
        assert_eq!(kind("Avg Wait", &["00:00:07", "00:00:07"]), "duration", "a duration, not a category");
        assert_eq!(kind("opened", &["2024-01-05 09:15:59"]), "datetime", "a date with a time stays a datetime");
    }

    #[test]
    fn text_the_file_stored_is_never_a_number() {
        let mut p = ColumnProfile::new("is_zip");
        ["00123", "1", "0"].iter().for_each(|v| p.observe(v, Stored::Text));
        let c = p.decide(false, false);
        assert_eq!((c.kind, c.typed("00123")), ("categorical", json!("00123")));
        let mut p = ColumnProfile::new("paid");
        ["yes", "no"].iter().for_each(|v| p.observe(v, Stored::Text));
        assert_eq!(p.decide(false, false).kind, "boolean", "words are booleans whatever stored them");
    }

    #[test]
    fn day_first_is_chosen_when_both_orders_parse() {
        let c = column("d", &["01-02-2020", "03-04-2020"]);
        assert_eq!(c.strptime(), Some("%d-%m-%Y"));
        assert!(c.note.unwrap().contains("both day-first and month-first"));
        let c = column("d", &["01/02/2020", "25/02/2020"]);
        assert_eq!(c.strptime(), Some("%d/%m/%Y"), "a day above 12 settles it");
        assert_eq!(c.note, None, "the format alone states a settled order");
    }

    #[test]
    fn styled_numbers_are_numeric() {
        let c = column("price", &["$1,234.50", "$3.00", "-"]);
        assert_eq!((c.kind, c.unit.currency, c.format.as_deref()), ("float", Some("$"), Some("currency ($)")));
        assert_eq!(c.typed("$1,234.50"), json!(1234.5));
        let c = column("rate", &["12.5%", "3%"]);
        assert_eq!((c.kind, c.unit.percent), ("float", true));
        assert_eq!(c.typed("12.5%"), json!(12.5));
        let mut p = ColumnProfile::new("x");
        ["1.234,5", "2,25"].iter().for_each(|v| p.observe(v, Stored::Guessed));
        let c = p.decide(false, true);
        assert_eq!((c.kind, c.typed("1.234,5")), ("float", json!(1234.5)));
        assert_eq!(kind("mixed", &["$1", "€2"]), "categorical");
    }
}
