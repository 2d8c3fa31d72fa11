//! Question templates: each makes a question, a multi-layer DAG of real
//! Python, and the answer computed independently in Rust from the data.
//!
//! Shared rules of the Python and the Rust: `None` values are skipped; ties in
//! an arg-max go to the smallest key; percentiles follow
//! `statistics.quantiles(values, n=100, method="inclusive")`; correlation is
//! Pearson's (`statistics.correlation`); means are `statistics.fmean`.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::ingredients::Ingredients;
use crate::domain::DifficultyLevel;

/// One step of a chain DAG: function name, operation, code, output type.
pub struct Step {
    /// Function name.
    pub function: &'static str,
    /// What it does.
    pub operation: String,
    /// Python source.
    pub code: String,
    /// Promised output type.
    pub output: &'static str,
}

/// A question the planner can ask, with its DAG and answer.
pub struct Candidate {
    /// Difficulty.
    pub level: DifficultyLevel,
    /// Question text.
    pub text: String,
    /// Why it has this difficulty.
    pub reasoning: String,
    /// The dataset key the first step reads.
    pub input_key: String,
    /// Name of the first step's parameter.
    pub input_param: &'static str,
    /// The steps, one per layer.
    pub steps: Vec<Step>,
    /// The answer.
    pub expected: Value,
}

fn lit(name: &str) -> String {
    serde_json::to_string(name).expect("strings serialise")
}

fn rows<'d>(data: &'d Map<String, Value>, key: &str) -> Vec<&'d Map<String, Value>> {
    data.get(key).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object).collect()
}

fn numbers(rows: &[&Map<String, Value>], field: &str) -> Vec<f64> {
    rows.iter().filter_map(|r| r.get(field).and_then(Value::as_f64)).collect()
}

fn mean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}

/// The key with the largest value; ties go to the smallest key.
fn arg_max<K: Clone + Ord>(values: &BTreeMap<K, f64>) -> Option<K> {
    let mut best: Option<(&K, f64)> = None;
    for (k, &v) in values {
        if best.is_none_or(|(_, b)| v > b) {
            best = Some((k, v));
        }
    }
    best.map(|(k, _)| k.clone())
}

/// `statistics.quantiles(xs, n=100, method="inclusive")[q - 1]`.
fn percentile(mut xs: Vec<f64>, q: usize) -> Option<f64> {
    if xs.len() < 2 {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    let m = xs.len() - 1;
    let j = q * m / 100;
    let delta = (q * m - j * 100) as f64;
    Some((xs[j] * (100.0 - delta) + xs[j + 1] * delta) / 100.0)
}

fn pearson(xs: &[f64], ys: &[f64]) -> Option<f64> {
    let (mx, my) = (mean(xs)?, mean(ys)?);
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    let syy: f64 = ys.iter().map(|y| (y - my).powi(2)).sum();
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

fn text_of(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

fn number_json(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

const ARG_MAX_STEP: &str = "def pick(values):\n    return max(sorted(values), key=lambda k: values[k])\n";

fn arg_max_step(what: &str, output: &'static str) -> Step {
    Step {
        function: "pick",
        operation: format!("pick the {what} with the largest value (ties: smallest)"),
        code: ARG_MAX_STEP.into(),
        output,
    }
}

/// Easy: the entry of a stats dict with the largest numeric field.
pub fn stats_arg_max(data: &Map<String, Value>, key: &str, field: &str) -> Option<Candidate> {
    let entries = data.get(key)?.as_object()?;
    let values: BTreeMap<String, f64> =
        entries.iter().filter_map(|(k, v)| Some((k.clone(), v.get(field)?.as_f64()?))).collect();
    let expected = json!(arg_max(&values)?);
    Some(Candidate {
        level: DifficultyLevel::Easy,
        text: format!("In `{key}`, which entry has the highest `{field}`?"),
        reasoning: "one lookup per entry of a pre-aggregated dict, then an arg-max".into(),
        input_key: key.into(),
        input_param: "stats",
        steps: vec![
            Step {
                function: "extract",
                operation: format!("read {field} of every entry"),
                code: format!(
                    "def extract(stats):\n    return {{name: entry[{f}] for name, entry in stats.items()}}\n",
                    f = lit(field)
                ),
                output: "dict",
            },
            arg_max_step("entry", "str"),
        ],
        expected,
    })
}

/// Easy: how many sample rows have the most common value of a categorical column.
pub fn count_matching(data: &Map<String, Value>, rows_key: &str, column: &str, value: &str) -> Option<Candidate> {
    let rows = rows(data, rows_key);
    let count = rows.iter().filter(|r| r.get(column).and_then(Value::as_str) == Some(value)).count();
    Some(Candidate {
        level: DifficultyLevel::Easy,
        text: format!("How many rows of `{rows_key}` have `{column}` equal to {value:?}?"),
        reasoning: "a filter and a count over the row sample".into(),
        input_key: rows_key.into(),
        input_param: "rows",
        steps: vec![
            Step {
                function: "select",
                operation: format!("keep rows whose {column} is {value}"),
                code: format!(
                    "def select(rows):\n    return [r for r in rows if r.get({c}) == {v}]\n",
                    c = lit(column),
                    v = lit(value)
                ),
                output: "list",
            },
            Step {
                function: "count",
                operation: "count them".into(),
                code: "def count(values):\n    return len(values)\n".into(),
                output: "int",
            },
        ],
        expected: json!(count),
    })
}

/// Medium: the group with the highest mean of a numeric column.
pub fn group_mean_arg_max(data: &Map<String, Value>, rows_key: &str, group: &str, measure: &str) -> Option<Candidate> {
    let rows = rows(data, rows_key);
    let mut groups: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for r in &rows {
        if let (Some(g), Some(x)) = (r.get(group).and_then(text_of), r.get(measure).and_then(Value::as_f64)) {
            groups.entry(g).or_default().push(x);
        }
    }
    let means: BTreeMap<String, f64> = groups.iter().filter_map(|(g, xs)| Some((g.clone(), mean(xs)?))).collect();
    let expected = json!(arg_max(&means)?);
    Some(Candidate {
        level: DifficultyLevel::Medium,
        text: format!("In the `{rows_key}` sample, which `{group}` has the highest average `{measure}`?"),
        reasoning: "group-by with a mean per group, skipping missing values, then an arg-max".into(),
        input_key: rows_key.into(),
        input_param: "rows",
        steps: vec![
            Step {
                function: "pairs",
                operation: format!("({group}, {measure}) of every row with both"),
                code: format!(
                    "def pairs(rows):\n    return [[r[{g}], r[{m}]] for r in rows if r.get({g}) is not None and r.get({m}) is not None]\n",
                    g = lit(group),
                    m = lit(measure)
                ),
                output: "list",
            },
            Step {
                function: "group_means",
                operation: format!("mean {measure} per {group}"),
                code: "def group_means(values):\n    groups = collections.defaultdict(list)\n    for key, x in values:\n        groups[key].append(x)\n    return {key: statistics.fmean(xs) for key, xs in groups.items()}\n".into(),
                output: "dict",
            },
            arg_max_step(group, "str"),
        ],
        expected,
    })
}

/// Medium: the busiest hour (or month) of the sample, parsing the datetime column.
pub fn busiest_time(data: &Map<String, Value>, rows_key: &str, column: &str, strptime: &str) -> Option<Candidate> {
    let by_hour = strptime.contains("%H");
    let rows = rows(data, rows_key);
    let mut counts: BTreeMap<i64, f64> = BTreeMap::new();
    for r in &rows {
        let Some(text) = r.get(column).and_then(Value::as_str) else { continue };
        let unit = if by_hour {
            chrono::NaiveDateTime::parse_from_str(text, strptime).ok().map(|t| chrono::Timelike::hour(&t) as i64)
        } else {
            chrono::NaiveDate::parse_from_str(text, strptime).ok().map(|d| chrono::Datelike::month(&d) as i64)
        };
        if let Some(unit) = unit {
            *counts.entry(unit).or_default() += 1.0;
        }
    }
    let expected = json!(arg_max(&counts)?);
    let (unit, attribute) = if by_hour { ("hour of the day (0-23)", "hour") } else { ("month (1-12)", "month") };
    Some(Candidate {
        level: DifficultyLevel::Medium,
        text: format!("In the `{rows_key}` sample, which {unit} of `{column}` has the most rows?"),
        reasoning: format!("datetime parsing with the format {strptime}, a count per {attribute}, an arg-max"),
        input_key: rows_key.into(),
        input_param: "rows",
        steps: vec![
            Step {
                function: "units",
                operation: format!("parse {column} and take the {attribute}"),
                code: format!(
                    "def units(rows):\n    return [datetime.datetime.strptime(r[{c}], {f}).{attribute} for r in rows if r.get({c}) is not None]\n",
                    c = lit(column),
                    f = lit(strptime)
                ),
                output: "list",
            },
            Step {
                function: "tally",
                operation: format!("rows per {attribute}"),
                code: "def tally(values):\n    return dict(collections.Counter(values))\n".into(),
                output: "dict",
            },
            arg_max_step(attribute, "int"),
        ],
        expected,
    })
}

/// Medium: the group with the highest label rate, among groups with at least `min_rows` rows.
pub fn label_rate_arg_max(
    data: &Map<String, Value>,
    rows_key: &str,
    group: &str,
    label: &str,
    min_rows: usize,
) -> Option<Candidate> {
    let rows = rows(data, rows_key);
    let mut tallies: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    for r in &rows {
        let (Some(g), Some(l)) = (r.get(group).and_then(text_of), r.get(label)) else { continue };
        let positive = l.as_i64() == Some(1) || l.as_bool() == Some(true);
        let t = tallies.entry(g).or_default();
        t.0 += f64::from(u8::from(positive));
        t.1 += 1;
    }
    let rates: BTreeMap<String, f64> =
        tallies.into_iter().filter(|(_, (_, n))| *n >= min_rows).map(|(g, (p, n))| (g, p / n as f64)).collect();
    let expected = json!(arg_max(&rates)?);
    Some(Candidate {
        level: DifficultyLevel::Medium,
        text: format!(
            "In the `{rows_key}` sample, which `{group}` has the highest `{label}` rate among groups with at least {min_rows} rows?"
        ),
        reasoning: "a rate against the label per group, a minimum group size, an arg-max".into(),
        input_key: rows_key.into(),
        input_param: "rows",
        steps: vec![
            Step {
                function: "tallies",
                operation: format!("positives and rows per {group}"),
                code: format!(
                    "def tallies(rows):\n    t = {{}}\n    for r in rows:\n        g, l = r.get({g}), r.get({l})\n        if g is None or l is None:\n            continue\n        pos, n = t.get(g, (0, 0))\n        t[g] = (pos + (1 if l in (1, True) else 0), n + 1)\n    return t\n",
                    g = lit(group),
                    l = lit(label)
                ),
                output: "dict",
            },
            Step {
                function: "rates",
                operation: format!("rate per {group} with at least {min_rows} rows"),
                code: format!(
                    "def rates(values):\n    return {{g: pos / n for g, (pos, n) in values.items() if n >= {min_rows}}}\n"
                ),
                output: "dict",
            },
            arg_max_step(group, "str"),
        ],
        expected,
    })
}

/// Hard: the 95th percentile of a numeric column in the sample.
pub fn percentile_95(data: &Map<String, Value>, rows_key: &str, column: &str) -> Option<Candidate> {
    let expected = number_json(percentile(numbers(&rows(data, rows_key), column), 95)?);
    Some(Candidate {
        level: DifficultyLevel::Hard,
        text: format!(
            "What is the 95th percentile of `{column}` in the `{rows_key}` sample (linear interpolation, missing values skipped)?"
        ),
        reasoning: "collect the values, skip missing ones, interpolate the 95th percentile".into(),
        input_key: rows_key.into(),
        input_param: "rows",
        steps: vec![
            Step {
                function: "values",
                operation: format!("every non-missing {column}"),
                code: format!(
                    "def values(rows):\n    return [r[{c}] for r in rows if r.get({c}) is not None]\n",
                    c = lit(column)
                ),
                output: "list",
            },
            Step {
                function: "p95",
                operation: "95th percentile".into(),
                code: "def p95(values):\n    return statistics.quantiles(values, n=100, method='inclusive')[94]\n"
                    .into(),
                output: "float",
            },
        ],
        expected,
    })
}

/// Hard: Pearson correlation of two numeric columns in the sample.
pub fn correlation(data: &Map<String, Value>, rows_key: &str, a: &str, b: &str) -> Option<Candidate> {
    let rows = rows(data, rows_key);
    let pairs: Vec<(f64, f64)> = rows.iter().filter_map(|r| Some((r.get(a)?.as_f64()?, r.get(b)?.as_f64()?))).collect();
    let (xs, ys): (Vec<f64>, Vec<f64>) = pairs.into_iter().unzip();
    let expected = number_json(pearson(&xs, &ys)?);
    Some(Candidate {
        level: DifficultyLevel::Hard,
        text: format!(
            "What is the Pearson correlation between `{a}` and `{b}` in the `{rows_key}` sample (rows missing either are skipped)?"
        ),
        reasoning: "paired values with missing data removed, then a correlation".into(),
        input_key: rows_key.into(),
        input_param: "rows",
        steps: vec![
            Step {
                function: "paired",
                operation: format!("({a}, {b}) of rows with both"),
                code: format!(
                    "def paired(rows):\n    both = [r for r in rows if r.get({a}) is not None and r.get({b}) is not None]\n    return {{'x': [r[{a}] for r in both], 'y': [r[{b}] for r in both]}}\n",
                    a = lit(a),
                    b = lit(b)
                ),
                output: "dict",
            },
            Step {
                function: "pearson",
                operation: "Pearson correlation".into(),
                code: "def pearson(values):\n    return statistics.correlation(values['x'], values['y'])\n".into(),
                output: "float",
            },
        ],
        expected,
    })
}

/// Hard: the longest run of consecutive rows (in time order) with the label set.
pub fn longest_streak(
    data: &Map<String, Value>,
    rows_key: &str,
    time: &str,
    strptime: &str,
    label: &str,
) -> Option<Candidate> {
    let rows = rows(data, rows_key);
    let parse = |text: &str| {
        chrono::NaiveDateTime::parse_from_str(text, strptime)
            .ok()
            .or_else(|| chrono::NaiveDate::parse_from_str(text, strptime).ok().and_then(|d| d.and_hms_opt(0, 0, 0)))
    };
    let mut timed: Vec<(chrono::NaiveDateTime, usize, bool)> = rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let t = parse(r.get(time)?.as_str()?)?;
            let l = r.get(label)?;
            Some((t, i, l.as_i64() == Some(1) || l.as_bool() == Some(true)))
        })
        .collect();
    timed.sort_by_key(|(t, i, _)| (*t, *i));
    let (mut best, mut run) = (0usize, 0usize);
    for (_, _, positive) in &timed {
        run = if *positive { run + 1 } else { 0 };
        best = best.max(run);
    }
    Some(Candidate {
        level: DifficultyLevel::Hard,
        text: format!("Sorting the `{rows_key}` sample by `{time}` (stable), what is the longest run of consecutive rows with `{label}` set?"),
        reasoning: "datetime parsing, a stable sort, then a streak scan".into(),
        input_key: rows_key.into(),
        input_param: "rows",
        steps: vec![
            Step {
                function: "ordered",
                operation: format!("label of every row in {time} order"),
                code: format!(
                    "def ordered(rows):\n    kept = [r for r in rows if r.get({t}) is not None and r.get({l}) is not None]\n    kept = sorted(kept, key=lambda r: datetime.datetime.strptime(r[{t}], {f}))\n    return [1 if r[{l}] in (1, True) else 0 for r in kept]\n",
                    t = lit(time),
                    l = lit(label),
                    f = lit(strptime)
                ),
                output: "list",
            },
            Step {
                function: "streak",
                operation: "longest run of 1s".into(),
                code: "def streak(values):\n    best = run = 0\n    for v in values:\n        run = run + 1 if v else 0\n        best = max(best, run)\n    return best\n".into(),
                output: "int",
            },
        ],
        expected: json!(best),
    })
}

/// Candidates of every template over `ingredients`, grouped by difficulty
/// (easy, medium, hard), each group cycling through different columns.
pub fn candidates(data: &Map<String, Value>, ing: &Ingredients) -> [Vec<Candidate>; 3] {
    let mut easy = Vec::new();
    let mut medium = Vec::new();
    let mut hard = Vec::new();
    for (key, fields) in &ing.stats {
        for field in fields {
            easy.extend(stats_arg_max(data, key, field));
        }
    }
    if let Some(rows_key) = &ing.rows_key {
        for (column, values) in &ing.categorical {
            if let Some(value) = values.first() {
                easy.extend(count_matching(data, rows_key, column, value));
            }
        }
        if let Some((time, format)) = &ing.datetime {
            medium.extend(busiest_time(data, rows_key, time, format));
        }
        for (group, _) in &ing.categorical {
            if let Some(label) = &ing.label {
                medium.extend(label_rate_arg_max(data, rows_key, group, label, 10));
            }
            for measure in &ing.numeric {
                medium.extend(group_mean_arg_max(data, rows_key, group, measure));
            }
        }
        if let (Some((time, format)), Some(label)) = (&ing.datetime, &ing.label) {
            hard.extend(longest_streak(data, rows_key, time, format, label));
        }
        for (i, a) in ing.numeric.iter().enumerate() {
            hard.extend(percentile_95(data, rows_key, a));
            if let Some(b) = ing.numeric.get(i + 1) {
                hard.extend(correlation(data, rows_key, a, b));
            }
        }
    }
    [easy, medium, hard]
}
