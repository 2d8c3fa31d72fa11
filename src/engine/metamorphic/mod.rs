//! Metamorphic checks of approved DAGs: the DAG runs again on transformed
//! copies of its dataset and each answer is set against what the
//! transformation implies, whatever the question — no label, no model call.
//!
//! - rows shuffled: the answer must not change (else the DAG is
//!   *order dependent*), unless the question is about order;
//! - every row duplicated: counts and sums double, means, rates, medians,
//!   extremes and most-common values hold — anything else is broken;
//! - category values renamed: a count keeps its number, a category answer
//!   follows the renaming (shown, never counted as broken);
//! - measure columns scaled: sums, means and quantiles scale, counts, rates
//!   and correlations hold — anything else is broken.
//!
//! A check only informs when the DAG reads a pre-aggregated key (the copies
//! leave those as they are), when the question is about order (shuffling),
//! or when the code holds the renamed strings or numeric literals (filters
//! and thresholds). A copy the DAG fails or times out on is recorded as
//! such, never as broken.
//!
//! Parts:
//! - `transform.rs`: the transformed copies of a dataset's row lists — shuffled,
//!   duplicated, categories renamed, measures scaled.
//! - `relation.rs`: how an answer on a copy relates to the original.
//! - `mod.rs`: what counts as broken or only informs; `RunChecks`, a run's checks
//!   (its one dataset's, or each dataset's by name, picked by the question).
//!
//! Elsewhere: `commands/metamorphic.rs` writes the copies and gives each a sandbox
//! pool (over a benchmark directory, every dataset's copies under one
//! `SandboxPools` limit); `report/analyses/metamorphic.rs` sums the checks for the results.

mod relation;
mod transform;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, LazyLock};

use regex::Regex;
use serde_json::Value;

use crate::dag::{DagExecutor, InputRef};
use crate::domain::{FailureKind, GeneratedDag, Metamorphic, MetamorphicCheck, Question, Relation, Transform};
pub use relation::relation;
pub use transform::{
    Changes, RENAME_PREFIX, SCALE_FACTOR, SHUFFLE_SEED, TransformedData, row_lists, transformed_copies,
};

/// Words that make a question about the order of the rows.
#[allow(clippy::expect_used, reason = "a literal pattern, which clippy's invalid_regex checks")]
static ORDER_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(first|last|earliest|latest|oldest|newest|streaks?|consecutive|in a row|date range|sequence|previous|next|running|order(ed)?)\b")
        .expect("the pattern is valid")
});
/// String literals of Python code.
#[allow(clippy::expect_used, reason = "a literal pattern, which clippy's invalid_regex checks")]
static STRINGS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)""#).expect("the pattern is valid"));
/// A number compared with something (`amt > 100`, `100 <= amt`): a threshold
/// that scaling the data moves past.
#[allow(clippy::expect_used, reason = "a literal pattern, which clippy's invalid_regex checks")]
static THRESHOLDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:[<>]=?|[=!]=)\s*-?(\d+(?:\.\d+)?)|(\d+(?:\.\d+)?)\s*(?:[<>]=?|[=!]=)")
        .expect("the pattern is valid")
});

/// One transformed copy, ready to run DAGs on.
pub struct PreparedCopy {
    /// The transformation.
    pub transform: Transform,
    /// What it changed.
    pub changes: Changes,
    /// Runs DAGs on the copy.
    pub executor: Arc<dyn DagExecutor>,
}

/// The copies of one dataset, and which of its keys are row lists.
pub struct MetamorphicChecks {
    row_lists: BTreeSet<String>,
    copies: Vec<PreparedCopy>,
}

/// A run's metamorphic checks (`run --metamorphic`): of its one dataset, or of
/// each dataset of a run over several.
pub enum RunChecks {
    /// The copies of the run's one dataset.
    One(MetamorphicChecks),
    /// The copies of each dataset, by the name a question's `dataset` gives.
    Each(BTreeMap<String, MetamorphicChecks>),
}

impl RunChecks {
    /// The checks on the dataset `question` is asked about (none for a
    /// question naming no dataset of a run over several).
    pub fn of(&self, question: &Question) -> Option<&MetamorphicChecks> {
        match self {
            Self::One(checks) => Some(checks),
            Self::Each(named) => named.get(question.dataset.as_ref()?),
        }
    }
}

/// What the code of a DAG holds: string literals and thresholds.
struct Literals {
    strings: BTreeSet<String>,
    thresholds: BTreeSet<String>,
}

/// The first group that matched, of every match of `re` in `text`.
fn captured(re: &Regex, text: &str) -> Vec<String> {
    re.captures_iter(text).filter_map(|c| c.get(1).or_else(|| c.get(2)).map(|m| m.as_str().to_string())).collect()
}

fn literals(dag: &GeneratedDag) -> Literals {
    let mut found = Literals { strings: BTreeSet::new(), thresholds: BTreeSet::new() };
    for node in &dag.nodes {
        found.strings.extend(captured(&STRINGS, &node.code));
        let code_without_strings = STRINGS.replace_all(&node.code, "''");
        // Comparing with zero holds whatever the scale.
        let thresholds = captured(&THRESHOLDS, &code_without_strings);
        found.thresholds.extend(thresholds.into_iter().filter(|n| n.parse::<f64>().is_ok_and(|v| v != 0.0)));
    }
    found
}

/// The first dataset key `dag` reads that is not a row list.
fn pre_aggregated(dag: &GeneratedDag, row_lists: &BTreeSet<String>) -> Option<String> {
    dag.nodes.iter().flat_map(|node| node.inputs.values()).find_map(|source| match InputRef::parse(source) {
        Ok(InputRef::Dataset(key)) => {
            let top = key.split('.').next().unwrap_or_default();
            (!row_lists.contains(top)).then(|| top.to_string())
        }
        _ => None,
    })
}

/// Why a check of `transform` only informs; none when it counts.
fn informational(
    transform: Transform,
    question: &str,
    changes: &Changes,
    literals: &Literals,
    reads: Option<&str>,
) -> Option<String> {
    if let Some(key) = reads {
        return Some(format!("the DAG reads `{key}`, which the copies leave as it is"));
    }
    match transform {
        Transform::Shuffle => ORDER_WORDS
            .find(question)
            .map(|word| format!("the question is about order (\"{}\")", word.as_str().to_lowercase())),
        Transform::Rename => changes
            .renames
            .keys()
            .find(|value| literals.strings.contains(*value))
            .map(|value| format!("the code names the category \"{value}\"")),
        Transform::Scale if !changes.scaled.is_empty() => {
            literals.thresholds.first().map(|number| format!("the code compares with the number {number}"))
        }
        Transform::Duplicate | Transform::Scale => None,
    }
}

/// Whether `relation` under `transform` breaks what the transformation implies.
fn breaks(transform: Transform, relation: Relation) -> bool {
    relation == Relation::Other && transform != Transform::Rename
}

/// The first line of `text`.
fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}

impl MetamorphicChecks {
    /// Checks over `copies` of a dataset whose row lists are `row_lists`.
    pub fn new(row_lists: BTreeSet<String>, copies: Vec<PreparedCopy>) -> Self {
        Self { row_lists, copies }
    }

    /// Run `dag` (approved for `question`, answering `original`) on every
    /// copy with `seed`, and judge each answer.
    pub async fn check(&self, question: &str, dag: &GeneratedDag, original: &Value, seed: u64) -> Metamorphic {
        let reads = pre_aggregated(dag, &self.row_lists);
        let literals = literals(dag);
        let runs = self.copies.iter().map(|copy| copy.executor.execute(dag, seed));
        let results = futures::future::join_all(runs).await;
        let checks: Vec<MetamorphicCheck> = self
            .copies
            .iter()
            .zip(results)
            .map(|(copy, result)| {
                let informs = informational(copy.transform, question, &copy.changes, &literals, reads.as_deref());
                if !result.success {
                    let error = result.error.as_deref().unwrap_or("the DAG produced no answer");
                    let timed_out = result.failure == Some(FailureKind::TimeOut);
                    return MetamorphicCheck {
                        transform: copy.transform,
                        relation: if timed_out { Relation::TimedOut } else { Relation::Failed },
                        answer: None,
                        broken: false,
                        informational: informs.is_some(),
                        note: Some(first_line(error)),
                    };
                }
                let answer = result.final_answer.unwrap_or(Value::Null);
                let relation = relation(copy.transform, original, &answer, &copy.changes.renames);
                let broken = informs.is_none() && breaks(copy.transform, relation);
                let note = informs.clone().or_else(|| match (copy.transform, relation) {
                    (Transform::Rename, Relation::Other) => {
                        Some("the answer did not follow the renaming (shown, not counted)".to_string())
                    }
                    (transform, Relation::Other) => Some(format!("not what {} implies", transform.label())),
                    _ => None,
                });
                MetamorphicCheck {
                    transform: copy.transform,
                    relation,
                    answer: Some(answer),
                    broken,
                    informational: informs.is_some(),
                    note,
                }
            })
            .collect();
        let order_dependent = checks.iter().any(|c| c.transform == Transform::Shuffle && c.broken);
        Metamorphic { checks, order_dependent }
    }
}
