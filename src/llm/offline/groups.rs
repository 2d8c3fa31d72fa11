//! Medium templates: group-bys, rates against a label, date parts and
//! ranges, top-k, a filtered mean.

use std::collections::BTreeMap;

use chrono::{Datelike, NaiveDate, Timelike};
use serde_json::{Map, Value, json};

use super::calc::{arg_max, by_frequency, fmean, grouped, lit, number_json, parse_time, positive, rows, text_of};
use super::templates::{Candidate, arg_max_step, step};
use crate::domain::DifficultyLevel::Medium;

/// The step pairing a group column with a measure.
pub fn pairs_step(group: &str, measure: &str) -> super::templates::Step {
    step(
        "pairs",
        format!("({group}, {measure}) of every row with both"),
        format!(
            "def pairs(rows):\n    return [[r[{g}], r[{m}]] for r in rows if r.get({g}) is not None and r.get({m}) is not None]\n",
            g = lit(group),
            m = lit(measure)
        ),
        "list",
    )
}

/// The step computing the mean per group of pairs.
pub const GROUP_MEANS: &str = "def group_means(values):\n    groups = collections.defaultdict(list)\n    for key, x in values:\n        groups[key].append(x)\n    return {key: statistics.fmean(xs) for key, xs in groups.items()}\n";

/// Medium: the group with the highest mean of a numeric column.
pub fn group_mean_arg_max(data: &Map<String, Value>, rows_key: &str, group: &str, measure: &str) -> Option<Candidate> {
    let means: BTreeMap<String, f64> = grouped(&rows(data, rows_key), group, measure)
        .iter()
        .filter_map(|(g, xs)| Some((g.clone(), fmean(xs)?)))
        .collect();
    let expected = json!(arg_max(&means)?);
    Some(
        Candidate::over_rows(Medium, "group_mean_arg_max", rows_key, &[group, measure])
            .ask(
                format!("In the `{rows_key}` sample, which `{group}` has the highest average `{measure}`?"),
                "group-by with a mean per group, skipping missing values, then an arg-max",
            )
            .solve(
                vec![
                    pairs_step(group, measure),
                    step("group_means", format!("mean {measure} per {group}"), GROUP_MEANS, "dict"),
                    arg_max_step(group, "str"),
                ],
                expected,
            ),
    )
}

/// Medium: the group with the highest label rate, among groups with at least `min_rows` rows.
pub fn label_rate_arg_max(data: &Map<String, Value>, rows_key: &str, group: &str, label: &str) -> Option<Candidate> {
    const MIN_ROWS: usize = 10;
    let mut tallies: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    for r in rows(data, rows_key) {
        let (Some(g), Some(l)) = (r.get(group).and_then(text_of), r.get(label).filter(|l| !l.is_null())) else {
            continue;
        };
        let t = tallies.entry(g).or_default();
        t.0 += f64::from(u8::from(positive(l)));
        t.1 += 1;
    }
    let rates: BTreeMap<String, f64> =
        tallies.into_iter().filter(|(_, (_, n))| *n >= MIN_ROWS).map(|(g, (p, n))| (g, p / n as f64)).collect();
    let expected = json!(arg_max(&rates)?);
    let tallies = format!(
        "def tallies(rows):\n    t = {{}}\n    for r in rows:\n        g, l = r.get({g}), r.get({l})\n        if g is None or l is None:\n            continue\n        pos, n = t.get(g, (0, 0))\n        t[g] = (pos + (1 if l in (1, True) else 0), n + 1)\n    return t\n",
        g = lit(group),
        l = lit(label)
    );
    let rates =
        format!("def rates(values):\n    return {{g: pos / n for g, (pos, n) in values.items() if n >= {MIN_ROWS}}}\n");
    Some(
        Candidate::over_rows(Medium, "label_rate_arg_max", rows_key, &[group, label])
            .ask(
                format!(
                    "In the `{rows_key}` sample, which `{group}` has the highest `{label}` rate among groups with at least {MIN_ROWS} rows?"
                ),
                "a rate against the label per group, a minimum group size, an arg-max",
            )
            .solve(
                vec![
                    step("tallies", format!("positives and rows per {group}"), tallies, "dict"),
                    step("rates", format!("rate per {group} with at least {MIN_ROWS} rows"), rates, "dict"),
                    arg_max_step(group, "str"),
                ],
                expected,
            ),
    )
}

/// A date part: its name, the Python attribute or call that reads it, and how Rust reads it.
struct Part {
    name: &'static str,
    python: &'static str,
    read: fn(&chrono::NaiveDateTime) -> i64,
}

const HOUR: Part = Part { name: "hour of the day (0-23)", python: "hour", read: |t| i64::from(t.hour()) };
const MONTH: Part = Part { name: "month (1-12)", python: "month", read: |t| i64::from(t.month()) };
const WEEKDAY: Part = Part {
    name: "weekday (0 = Monday … 6 = Sunday)",
    python: "weekday()",
    read: |t| i64::from(t.weekday().num_days_from_monday()),
};

fn busiest(
    data: &Map<String, Value>,
    rows_key: &str,
    column: &str,
    strptime: &str,
    part: &Part,
    wrong: &Part,
) -> Option<Candidate> {
    let mut counts: BTreeMap<i64, f64> = BTreeMap::new();
    for r in rows(data, rows_key) {
        if let Some(t) = r.get(column).and_then(Value::as_str).and_then(|s| parse_time(s, strptime)) {
            *counts.entry((part.read)(&t)).or_default() += 1.0;
        }
    }
    let expected = json!(arg_max(&counts)?);
    let units = |python: &str| {
        format!(
            "def units(rows):\n    return [datetime.datetime.strptime(r[{c}], {f}).{python} for r in rows if r.get({c}) is not None]\n",
            c = lit(column),
            f = lit(strptime)
        )
    };
    Some(
        Candidate::over_rows(Medium, "busiest_part", rows_key, &[column])
            .ask(
                format!("In the `{rows_key}` sample, which {} of `{column}` has the most rows?", part.name),
                format!("datetime parsing with the format {strptime}, a count per date part, an arg-max"),
            )
            .solve(
                vec![
                    step("units", format!("parse {column} and take the {}", part.python), units(part.python), "list"),
                    step(
                        "tally",
                        "rows per value",
                        "def tally(values):\n    return dict(collections.Counter(values))\n",
                        "dict",
                    ),
                    arg_max_step(part.python, "int"),
                ],
                expected,
            )
            .slip(
                0,
                units(wrong.python),
                format!("step_1 takes .{} of each date, but the question asks for the {}", wrong.python, part.name),
            ),
    )
}

/// Medium: the busiest date part of the sample — the hour of the day (for
/// times), the weekday or the month, by `seed`. One template: the parts are
/// rewordings of one operation over one column.
pub fn busiest_part(
    data: &Map<String, Value>,
    rows_key: &str,
    column: &str,
    strptime: &str,
    seed: u64,
) -> Option<Candidate> {
    const DAY: Part = Part { name: "day of the month", python: "day", read: |t| i64::from(t.day()) };
    const ISO: Part =
        Part { name: "ISO weekday", python: "isoweekday()", read: |t| i64::from(t.weekday().number_from_monday()) };
    let timed = strptime.contains("%H");
    match seed % super::templates::WORDINGS {
        0 if timed => busiest(data, rows_key, column, strptime, &HOUR, &MONTH),
        1 => busiest(data, rows_key, column, strptime, &WEEKDAY, &ISO),
        _ => busiest(data, rows_key, column, strptime, &MONTH, &DAY),
    }
}

/// Medium: the most common values of a categorical column (three, or one
/// fewer than it has).
pub fn top_values(data: &Map<String, Value>, rows_key: &str, column: &str) -> Option<Candidate> {
    let ordered = by_frequency(&rows(data, rows_key), column);
    let k = ordered.len().saturating_sub(1).min(3);
    if k < 2 {
        return None;
    }
    let expected = json!(ordered.iter().take(k).map(|(v, _)| v).collect::<Vec<_>>());
    let tally = format!(
        "def tally(rows):\n    return dict(collections.Counter(r[{c}] for r in rows if r.get({c}) is not None))\n",
        c = lit(column)
    );
    let top =
        |sign: &str| format!("def top(values):\n    return sorted(values, key=lambda v: ({sign}values[v], v))[:{k}]\n");
    Some(
        Candidate::over_rows(Medium, "top_values", rows_key, &[column])
            .ask(
                format!("What are the {k} most common values of `{column}` in the `{rows_key}` sample, most common first (ties by name)?"),
                "a count per value, then a sort and the top k",
            )
            .solve(vec![step("tally", format!("rows per {column}"), tally, "dict"), step("top", format!("the {k} most common"), top("-"), "list")], expected)
            .slip(1, top(""), "step_2 sorts the least common values first; the question asks for the most common first".into()),
    )
}

/// Medium: the group with the most rows whose numeric column is above its median value.
pub fn group_count_above(data: &Map<String, Value>, rows_key: &str, group: &str, measure: &str) -> Option<Candidate> {
    let rows = rows(data, rows_key);
    let mut values: Vec<&Value> = rows.iter().filter_map(|r| r.get(measure).filter(|v| v.is_number())).collect();
    values.sort_by(|a, b| a.as_f64().unwrap_or(0.0).total_cmp(&b.as_f64().unwrap_or(0.0)));
    let threshold = (*values.get(values.len() / 2)?).clone();
    let t = threshold.as_f64()?;
    let mut counts: BTreeMap<String, f64> = BTreeMap::new();
    for (g, xs) in grouped(&rows, group, measure) {
        counts.insert(g, xs.iter().filter(|&&x| x > t).count() as f64);
    }
    let expected = json!(arg_max(&counts)?);
    let above = format!(
        "def above(rows):\n    return [r[{g}] for r in rows if r.get({g}) is not None and r.get({m}) is not None and r[{m}] > {threshold}]\n",
        g = lit(group),
        m = lit(measure)
    );
    Some(
        Candidate::over_rows(Medium, "group_count_above", rows_key, &[group, measure])
            .ask(
                format!("In the `{rows_key}` sample, which `{group}` has the most rows with `{measure}` greater than {threshold}?"),
                "a numeric filter, a count per group, an arg-max",
            )
            .solve(
                vec![
                    step("above", format!("{group} of rows with {measure} > {threshold}"), above, "list"),
                    step("tally", format!("rows per {group}"), "def tally(values):\n    return dict(collections.Counter(values))\n", "dict"),
                    arg_max_step(group, "str"),
                ],
                expected,
            ),
    )
}

/// Medium: the mean of a numeric column over the rows with the most common value of a categorical one.
pub fn mean_where(data: &Map<String, Value>, rows_key: &str, group: &str, measure: &str) -> Option<Candidate> {
    let rows = rows(data, rows_key);
    let mut values = by_frequency(&rows, group).into_iter().map(|(v, _)| v);
    let (value, other) = (values.next()?, values.next()?);
    let expected = number_json(fmean(grouped(&rows, group, measure).get(&value)?)?);
    let select = |v: &str| {
        format!(
            "def select(rows):\n    return [r[{m}] for r in rows if r.get({g}) == {v} and r.get({m}) is not None]\n",
            g = lit(group),
            m = lit(measure),
            v = lit(v)
        )
    };
    Some(
        Candidate::over_rows(Medium, "mean_where", rows_key, &[group, measure])
            .ask(
                format!("What is the average `{measure}` of the `{rows_key}` rows whose `{group}` is {value:?} (missing values skipped)?"),
                "a filter, then a mean",
            )
            .solve(
                vec![
                    step("select", format!("{measure} of rows whose {group} is {value}"), select(&value), "list"),
                    step("average", "their mean", "def average(values):\n    return statistics.fmean(values)\n", "float"),
                ],
                expected,
            )
            .slip(0, select(&other), format!("step_1 keeps the rows whose {group} is {other:?}; the question asks about {value:?}")),
    )
}

/// Medium: how many rows fall in a date range (both ends included).
pub fn date_range_count(data: &Map<String, Value>, rows_key: &str, column: &str, strptime: &str) -> Option<Candidate> {
    let mut dates: Vec<NaiveDate> = rows(data, rows_key)
        .iter()
        .filter_map(|r| Some(parse_time(r.get(column)?.as_str()?, strptime)?.date()))
        .collect();
    dates.sort();
    let (from, to) = (*dates.get(dates.len() / 4)?, *dates.get(dates.len() * 3 / 4)?);
    if from >= to {
        return None;
    }
    let count = dates.iter().filter(|d| (from..=to).contains(d)).count();
    let date = |d: NaiveDate| format!("datetime.date({}, {}, {})", d.year(), d.month(), d.day());
    let select = |op: &str| {
        format!(
            "def in_range(rows):\n    days = [datetime.datetime.strptime(r[{c}], {f}).date() for r in rows if r.get({c}) is not None]\n    return [d for d in days if {} <= d {op} {}]\n",
            date(from),
            date(to),
            c = lit(column),
            f = lit(strptime)
        )
    };
    Some(
        Candidate::over_rows(Medium, "date_range_count", rows_key, &[column])
            .ask(
                format!("How many rows of `{rows_key}` have `{column}` between {from} and {to}, both days included?"),
                format!("datetime parsing with the format {strptime}, a date-range filter, a count"),
            )
            .solve(
                vec![
                    step("in_range", format!("dates of {column} from {from} to {to}"), select("<="), "list"),
                    step("count", "count them", super::templates::COUNT, "int"),
                ],
                json!(count),
            )
            .slip(0, select("<"), format!("step_1 leaves out the rows dated {to}; the range includes both ends (<=)")),
    )
}
