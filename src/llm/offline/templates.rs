//! What a question template makes — a question, a multi-layer DAG of real
//! Python, the answer computed independently in Rust — and the easy
//! templates: lookups, filters and counts. Medium ones are in `groups.rs`,
//! hard ones in `advanced.rs`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::calc::{Row, by_frequency, lit, number_json, positive, rows};
use crate::domain::DifficultyLevel;

/// How many wordings a seed chooses among (`seed % WORDINGS`).
pub const WORDINGS: u64 = 3;

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

/// A step of a chain DAG.
pub fn step(
    function: &'static str,
    operation: impl Into<String>,
    code: impl Into<String>,
    output: &'static str,
) -> Step {
    Step { function, operation: operation.into(), code: code.into(), output }
}

/// A mistake a model could make in one step that only a reviewer catches
/// (a wrong filter or unit): the step's code with it, and what the reviewer says.
pub struct Slip {
    /// Index of the step (its layer).
    pub step: usize,
    /// The step's code with the mistake.
    pub code: String,
    /// The reviewer's finding: what is wrong and how to fix it.
    pub message: String,
}

/// A question the planner can ask, with its DAG and answer.
pub struct Candidate {
    /// Difficulty.
    pub level: DifficultyLevel,
    /// The operation template.
    pub template: &'static str,
    /// Question text.
    pub text: String,
    /// Why it has this difficulty.
    pub reasoning: String,
    /// The dataset key the first step reads.
    pub input_key: String,
    /// Name of the first step's parameter.
    pub input_param: &'static str,
    /// The columns (or stats fields) the question reads.
    pub reads: Vec<String>,
    /// The steps, one per layer.
    pub steps: Vec<Step>,
    /// The answer.
    pub expected: Value,
    /// A semantic slip the first draft may carry.
    pub slip: Option<Slip>,
    /// A second table the first step reads (as `other`), joined to the first.
    pub joined: Option<String>,
}

impl Candidate {
    /// A question over the row sample `rows_key`.
    pub fn over_rows(level: DifficultyLevel, template: &'static str, rows_key: &str, reads: &[&str]) -> Self {
        Self {
            level,
            template,
            text: String::new(),
            reasoning: String::new(),
            input_key: rows_key.into(),
            input_param: "rows",
            reads: reads.iter().map(|r| r.to_string()).collect(),
            steps: Vec::new(),
            expected: Value::Null,
            slip: None,
            joined: None,
        }
    }

    /// Set the question text and reasoning.
    pub fn ask(mut self, text: String, reasoning: impl Into<String>) -> Self {
        self.text = text;
        self.reasoning = reasoning.into();
        self
    }

    /// Set the steps and the answer.
    pub fn solve(mut self, steps: Vec<Step>, expected: Value) -> Self {
        self.steps = steps;
        self.expected = expected;
        self
    }

    /// Give the first draft a possible slip in step `step`.
    pub fn slip(mut self, step: usize, code: String, message: String) -> Self {
        self.slip = Some(Slip { step, code, message });
        self
    }

    /// The shape: the template and the keys and columns it reads. Rewording a
    /// question does not change it.
    pub fn shape(&self) -> (String, String, BTreeSet<String>) {
        let keys =
            self.joined.as_ref().map_or_else(|| self.input_key.clone(), |other| format!("{}+{other}", self.input_key));
        (self.template.to_string(), keys, self.reads.iter().cloned().collect())
    }
}

/// Picks the key with the largest value (ties: the smallest key).
pub const ARG_MAX: &str = "def pick(values):\n    return max(sorted(values), key=lambda k: values[k])\n";
/// Counts a list.
pub const COUNT: &str = "def count(values):\n    return len(values)\n";

/// The arg-max step.
pub fn arg_max_step(what: &str, output: &'static str) -> Step {
    step("pick", format!("pick the {what} with the largest value (ties: smallest)"), ARG_MAX, output)
}

/// The step listing every non-missing value of `column`.
pub fn values_step(column: &str) -> Step {
    step(
        "values",
        format!("every non-missing {column}"),
        format!("def values(rows):\n    return [r[{c}] for r in rows if r.get({c}) is not None]\n", c = lit(column)),
        "list",
    )
}

fn python_type(value: &Value) -> &'static str {
    match value {
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Bool(_) => "bool",
        _ => "object",
    }
}

/// Easy: the entry of a stats dict with the largest numeric field.
pub fn stats_arg_max(data: &Map<String, Value>, key: &str, field: &str) -> Option<Candidate> {
    let entries = data.get(key)?.as_object()?;
    let values: BTreeMap<String, f64> =
        entries.iter().filter_map(|(k, v)| Some((k.clone(), v.get(field)?.as_f64()?))).collect();
    let expected = json!(super::calc::arg_max(&values)?);
    let extract = format!(
        "def extract(stats):\n    return {{name: entry[{f}] for name, entry in stats.items() if entry.get({f}) is not None}}\n",
        f = lit(field)
    );
    let mut candidate = Candidate::over_rows(DifficultyLevel::Easy, "stats_arg_max", key, &[field]);
    candidate.input_param = "stats";
    Some(
        candidate
            .ask(
                format!("In `{key}`, which entry has the highest `{field}`?"),
                "one lookup per entry of a pre-aggregated dict, then an arg-max",
            )
            .solve(vec![step("extract", format!("read {field} of every entry"), extract, "dict"), arg_max_step("entry", "str")], expected)
            .slip(
                1,
                ARG_MAX.replace("max(", "min("),
                "step_2 picks the entry with the smallest value, but the question asks for the highest: use max, not min"
                    .into(),
            ),
    )
}

/// Easy: one field of one entry of a stats dict (a lookup).
pub fn stats_lookup(data: &Map<String, Value>, key: &str, field: &str) -> Option<Candidate> {
    let entries = data.get(key)?.as_object()?;
    let mut names = entries.iter().filter(|(_, v)| v.get(field).is_some_and(Value::is_number)).map(|(k, _)| k);
    let (entry, other) = (names.next()?.clone(), names.next()?.clone());
    let expected = entries[&entry][field].clone();
    let read = |name: &str| format!("def entry(stats):\n    return stats[{}]\n", lit(name));
    let mut candidate = Candidate::over_rows(DifficultyLevel::Easy, "stats_lookup", key, &[field]);
    candidate.input_param = "stats";
    Some(
        candidate
            .ask(format!("In `{key}`, what is the `{field}` of {entry:?}?"), "a lookup in a pre-aggregated dict")
            .solve(
                vec![
                    step("entry", format!("the entry {entry}"), read(&entry), "dict"),
                    step(
                        "field",
                        format!("its {field}"),
                        format!("def field(values):\n    return values[{}]\n", lit(field)),
                        python_type(&expected),
                    ),
                ],
                expected,
            )
            .slip(0, read(&other), format!("step_1 reads the entry {other:?}, but the question asks about {entry:?}")),
    )
}

fn select_step(column: &str, value: &str, op: &str) -> Step {
    step(
        "select",
        format!("keep rows whose {column} is {value}"),
        format!("def select(rows):\n    return [r for r in rows if r.get({}) {op} {}]\n", lit(column), lit(value)),
        "list",
    )
}

/// Easy: how many sample rows have the most common value of a categorical column.
pub fn count_matching(data: &Map<String, Value>, rows_key: &str, column: &str) -> Option<Candidate> {
    let rows = rows(data, rows_key);
    let (value, count) = by_frequency(&rows, column).into_iter().next()?;
    let wrong = select_step(column, &value, "!=").code;
    Some(
        Candidate::over_rows(DifficultyLevel::Easy, "count_matching", rows_key, &[column])
            .ask(
                format!("How many rows of `{rows_key}` have `{column}` equal to {value:?}?"),
                "a filter and a count over the row sample",
            )
            .solve(vec![select_step(column, &value, "=="), step("count", "count them", COUNT, "int")], json!(count))
            .slip(
                0,
                wrong,
                format!(
                    "step_1 keeps the rows whose {column} is NOT {value:?}; the question counts the rows equal to it"
                ),
            ),
    )
}

/// Easy: how many distinct values a categorical column takes.
pub fn distinct_count(data: &Map<String, Value>, rows_key: &str, column: &str) -> Option<Candidate> {
    let distinct = by_frequency(&rows(data, rows_key), column).len();
    let code = format!(
        "def distinct(rows):\n    return sorted({{r[{c}] for r in rows if r.get({c}) is not None}})\n",
        c = lit(column)
    );
    Some(
        Candidate::over_rows(DifficultyLevel::Easy, "distinct_count", rows_key, &[column])
            .ask(
                format!("How many distinct values of `{column}` appear in the `{rows_key}` sample (missing values not counted)?"),
                "a set of values and its size",
            )
            .solve(vec![step("distinct", format!("the distinct {column} values"), code, "list"), step("count", "its size", COUNT, "int")], json!(distinct)),
    )
}

fn label_rows_step(label: &str) -> Step {
    step(
        "flagged",
        format!("rows with {label} set"),
        format!("def flagged(rows):\n    return [r for r in rows if r.get({}) in (1, True)]\n", lit(label)),
        "list",
    )
}

/// Easy: how many rows have the label set.
pub fn label_count(data: &Map<String, Value>, rows_key: &str, label: &str) -> Option<Candidate> {
    let count = rows(data, rows_key).iter().filter(|r| r.get(label).is_some_and(positive)).count();
    Some(
        Candidate::over_rows(DifficultyLevel::Easy, "label_count", rows_key, &[label])
            .ask(
                format!("How many rows of the `{rows_key}` sample have `{label}` set?"),
                "a filter on the label and a count",
            )
            .solve(vec![label_rows_step(label), step("count", "count them", COUNT, "int")], json!(count)),
    )
}

/// Easy: the share of rows with the label set, as a fraction.
pub fn label_share(data: &Map<String, Value>, rows_key: &str, label: &str) -> Option<Candidate> {
    let rows = rows(data, rows_key);
    let known: Vec<&&Row> = rows.iter().filter(|r| r.get(label).is_some_and(|v| !v.is_null())).collect();
    let set = known.iter().filter(|r| r.get(label).is_some_and(positive)).count();
    let expected = number_json(set as f64 / (!known.is_empty()).then_some(known.len())? as f64);
    let tally = format!(
        "def tally(rows):\n    known = [r[{l}] for r in rows if r.get({l}) is not None]\n    return [sum(1 for v in known if v in (1, True)), len(known)]\n",
        l = lit(label)
    );
    let share = "def share(values):\n    return values[0] / values[1]\n";
    Some(
        Candidate::over_rows(DifficultyLevel::Easy, "label_share", rows_key, &[label])
            .ask(
                format!("What share of the `{rows_key}` rows with a known `{label}` have it set, as a fraction between 0 and 1?"),
                "a count of positives over a count of rows: a rate against the label",
            )
            .solve(vec![step("tally", format!("rows with {label} set, and rows with it known"), tally, "list"), step("share", "their ratio", share, "float")], expected)
            .slip(
                1,
                "def share(values):\n    return 100 * values[0] / values[1]\n".into(),
                "step_2 returns a percentage (×100), but the question asks for a fraction between 0 and 1".into(),
            ),
    )
}

/// Easy: the largest value of a numeric column.
pub fn max_value(data: &Map<String, Value>, rows_key: &str, column: &str) -> Option<Candidate> {
    let rows = rows(data, rows_key);
    let best = rows
        .iter()
        .filter_map(|r| r.get(column).filter(|v| v.is_number()))
        .max_by(|a, b| a.as_f64().unwrap_or(f64::MIN).total_cmp(&b.as_f64().unwrap_or(f64::MIN)))?;
    Some(
        Candidate::over_rows(DifficultyLevel::Easy, "max_value", rows_key, &[column])
            .ask(
                format!("What is the largest `{column}` in the `{rows_key}` sample?"),
                "the values of one column and their maximum",
            )
            .solve(
                vec![
                    values_step(column),
                    step("largest", "the largest", "def largest(values):\n    return max(values)\n", python_type(best)),
                ],
                best.clone(),
            )
            .slip(
                1,
                "def largest(values):\n    return min(values)\n".into(),
                "step_2 returns the smallest value; the question asks for the largest: use max".into(),
            ),
    )
}

/// Easy: how many rows have a numeric column above its median value.
pub fn count_above(data: &Map<String, Value>, rows_key: &str, column: &str) -> Option<Candidate> {
    let rows = rows(data, rows_key);
    let mut values: Vec<&Value> = rows.iter().filter_map(|r| r.get(column).filter(|v| v.is_number())).collect();
    values.sort_by(|a, b| a.as_f64().unwrap_or(0.0).total_cmp(&b.as_f64().unwrap_or(0.0)));
    let threshold = (*values.get(values.len() / 2)?).clone();
    let t = threshold.as_f64()?;
    let count = values.iter().filter(|v| v.as_f64().is_some_and(|x| x > t)).count();
    let select = |op: &str| {
        format!(
            "def select(rows):\n    return [r for r in rows if r.get({c}) is not None and r[{c}] {op} {threshold}]\n",
            c = lit(column)
        )
    };
    Some(
        Candidate::over_rows(DifficultyLevel::Easy, "count_above", rows_key, &[column])
            .ask(format!("How many rows of `{rows_key}` have `{column}` greater than {threshold}?"), "a numeric filter and a count")
            .solve(vec![step("select", format!("rows with {column} > {threshold}"), select(">"), "list"), step("count", "count them", COUNT, "int")], json!(count))
            .slip(
                0,
                select(">="),
                format!("step_1 also keeps rows whose {column} equals {threshold}; the question asks for strictly greater (>)"),
            ),
    )
}
