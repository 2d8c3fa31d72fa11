//! Judge files (TOML): loading and validation.
//!
//! Every file has `name`, `kind` (`dag`, `rubric` or `faithfulness`), and
//! optionally `description`, `threshold` (default 0.5) and `strict_mode`
//! (threshold 1). A `dag` judge lists `[[node]]` tables, each with an `id` and
//! a `kind`:
//! - `task`: `instructions`, `output_label`, `children`, optional `inputs`;
//! - `binary_judgement`: `criteria`, `children` (two verdicts: `true`, `false`);
//! - `non_binary_judgement`: `criteria`, `children` (verdicts with distinct strings);
//! - `verdict`: `verdict`, and either `score` (0-10) or `child` (a task or judgement).
//!
//! `inputs` is any of `question`, `answer`, `expected_answer`, `node_outputs`
//! (default: question and answer). Rules checked on load: ids are unique and
//! every child exists; the nodes form no cycle; exactly one node (the root) has
//! no parent, and it is not a verdict; task and judgement nodes have children,
//! so every leaf is a verdict; task nodes' children are not verdicts and their
//! output labels are unique; judgement nodes' children are verdicts of the
//! judgement's type; each verdict has exactly one parent, a judgement node.
//!
//! A `rubric` judge has `criteria`, optional `inputs`, `output` (`plain` or
//! `tagged`) and at least two `[[level]]` tables (`score`, `description`) with
//! distinct scores. A `faithfulness` judge has optional `penalize_unknown` and
//! `truths_limit`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::GradeError;
use super::faithfulness::Faithfulness;
use super::judge_prompts::JudgeInput;
use super::rubric::{Rubric, RubricLevel, RubricOutput};
use super::tree_judge::{DagJudge, Verdict};
use super::tree_judge_build::build_dag;

/// The judges shipped in `prompts/judges/`: (file name, source).
const BUILT_IN: [(&str, &str); 2] = [
    ("well_formed_value.toml", include_str!("../../prompts/judges/well_formed_value.toml")),
    ("addresses_question.toml", include_str!("../../prompts/judges/addresses_question.toml")),
];

/// Why a judge file cannot be used; [`GradeError::Judge`] names the file.
/// Node ids are shown quoted, as the file writes them.
#[derive(Debug, thiserror::Error)]
pub enum JudgeFileError {
    /// The file could not be read.
    #[error("{source}")]
    Read {
        /// The cause.
        source: std::io::Error,
    },
    /// No file of that name, and no built-in judge either.
    #[error("no such judge file, and no built-in judge of that name (built in: {})", built_in.join(", "))]
    NotBuiltIn {
        /// The built-in judges' names.
        built_in: Vec<&'static str>,
    },
    /// The text is not TOML.
    #[error("{}", error.to_string().trim())]
    Toml {
        /// The parser's error.
        error: toml::de::Error,
    },
    /// The top-level fields do not fit the judge's kind (unknown, missing or mistyped).
    #[error("{}", error.message().trim())]
    Fields {
        /// The deserializer's error.
        error: toml::de::Error,
    },
    /// `name` is blank.
    #[error("\"name\" is empty")]
    EmptyName,
    /// `threshold` is outside 0-1.
    #[error("\"threshold\" must be between 0 and 1, got {threshold}")]
    Threshold {
        /// The threshold given.
        threshold: f64,
    },
    /// A faithfulness judge's `truths_limit` is 0.
    #[error("\"truths_limit\" must be at least 1")]
    ZeroTruthsLimit,
    /// A rubric's `criteria` is blank.
    #[error("\"criteria\" is empty")]
    EmptyCriteria,
    /// A rubric level's description is blank.
    #[error("level {score} has no description")]
    LevelWithoutDescription {
        /// The level's score.
        score: i64,
    },
    /// Two rubric levels share a score.
    #[error("two levels have score {score}")]
    DuplicateLevel {
        /// The shared score.
        score: i64,
    },
    /// A rubric has fewer than two levels.
    #[error("a rubric needs at least two [[level]] tables, found {found}")]
    TooFewLevels {
        /// Distinct levels found.
        found: usize,
    },
    /// A dag judge has no `[[node]]` tables.
    #[error("a dag judge needs [[node]] tables, found none")]
    NoNodes,
    /// A node table has no usable `id`.
    #[error("node #{number} has no \"id\" (a non-empty string)")]
    NodeWithoutId {
        /// 1-based position of the table in the file.
        number: usize,
    },
    /// A node's fields do not fit its kind (unknown, missing or mistyped).
    #[error("node {id:?}: {}", error.message().trim())]
    NodeFields {
        /// The node.
        id: String,
        /// The deserializer's error.
        error: toml::de::Error,
    },
    /// Two nodes share an id.
    #[error("node {id:?} is declared twice")]
    DuplicateNode {
        /// The shared id.
        id: String,
    },
    /// A node lists the same child twice.
    #[error("node {id:?} lists child {child:?} twice")]
    DuplicateChild {
        /// The node.
        id: String,
        /// The repeated child.
        child: String,
    },
    /// A node names a child that is not declared.
    #[error("node {id:?} names unknown child {child:?}")]
    UnknownChild {
        /// The node.
        id: String,
        /// The missing child.
        child: String,
    },
    /// The nodes form a cycle.
    #[error("the nodes form a cycle through {id:?}")]
    Cycle {
        /// A node on the cycle.
        id: String,
    },
    /// Not exactly one node lacks a parent.
    #[error("exactly one node (the root) may have no parent, found {}: {}", roots.len(), quoted(roots))]
    RootCount {
        /// The nodes without a parent.
        roots: Vec<String>,
    },
    /// Two task nodes share an output label.
    #[error("task nodes {first:?} and {second:?} share the output label {label:?}")]
    SharedLabel {
        /// The node seen first.
        first: String,
        /// The other node.
        second: String,
        /// The shared label.
        label: String,
    },
    /// A node's text field is blank.
    #[error("node {id:?}: {field:?} is empty")]
    EmptyField {
        /// The node.
        id: String,
        /// The field.
        field: &'static str,
    },
    /// A verdict node has both a score and a child.
    #[error("verdict node {id:?} has both a score and a child; give one")]
    ScoreAndChild {
        /// The verdict node.
        id: String,
    },
    /// A verdict node has neither a score nor a child.
    #[error("verdict node {id:?} needs a score (0-10) or a child")]
    NoOutcome {
        /// The verdict node.
        id: String,
    },
    /// A verdict's score is outside 0-10.
    #[error("verdict node {id:?}: score must be 0-10, got {score}")]
    ScoreRange {
        /// The verdict node.
        id: String,
        /// The score given.
        score: i64,
    },
    /// A task node has no children.
    #[error("task node {id:?} has no children: every path must end in a verdict")]
    ChildlessTask {
        /// The task node.
        id: String,
    },
    /// A task node has a verdict child.
    #[error("task node {id:?} has verdict child {child:?}: verdicts belong under judgement nodes")]
    TaskVerdictChild {
        /// The task node.
        id: String,
        /// The verdict child.
        child: String,
    },
    /// A judgement node has a child that is not a verdict.
    #[error("judgement node {id:?} has child {child:?}, which is not a verdict")]
    NonVerdictChild {
        /// The judgement node.
        id: String,
        /// The child.
        child: String,
    },
    /// A verdict node's child is a verdict.
    #[error("verdict node {id:?} leads to verdict {child:?}: a verdict's child must be a task or judgement node")]
    VerdictChildVerdict {
        /// The verdict node.
        id: String,
        /// Its verdict child.
        child: String,
    },
    /// A verdict node has no parent.
    #[error("verdict node {id:?} has no parent: a verdict belongs to exactly one judgement node")]
    Orphan {
        /// The verdict node.
        id: String,
    },
    /// A verdict node has several parents.
    #[error(
        "verdict node {id:?} has {} parents ({}): a verdict belongs to exactly one judgement node",
        parents.len(),
        quoted(parents)
    )]
    ManyParents {
        /// The verdict node.
        id: String,
        /// Its parents, in the order of their quoted ids.
        parents: Vec<String>,
    },
    /// A verdict's type does not fit its judgement (a string under a binary one, or a bool under a non-binary one).
    #[error(
        "verdict node {child:?} says {verdict} but its parent {parent:?} is a {}binary judgement: its verdicts are {}",
        if *binary { "" } else { "non-" },
        if *binary { "true or false" } else { "a string" }
    )]
    VerdictKind {
        /// The verdict node.
        child: String,
        /// Its verdict.
        verdict: Verdict,
        /// The judgement node.
        parent: String,
        /// Whether the judgement is binary.
        binary: bool,
    },
    /// A binary judgement lacks exactly the verdicts true and false.
    #[error("binary judgement {id:?} needs exactly two verdict children, true and false; it has {count}")]
    BinaryVerdicts {
        /// The judgement node.
        id: String,
        /// Verdict children it has.
        count: usize,
    },
    /// A non-binary judgement has fewer than two verdicts.
    #[error("non-binary judgement {id:?} needs at least two verdict children, it has {count}")]
    TooFewVerdicts {
        /// The judgement node.
        id: String,
        /// Verdict children it has.
        count: usize,
    },
    /// Two verdicts of a non-binary judgement say the same (ignoring case and spaces).
    #[error("non-binary judgement {id:?} has the verdict {verdict} twice ({first:?} and {second:?})")]
    RepeatedVerdict {
        /// The judgement node.
        id: String,
        /// The repeated verdict, as the second node says it.
        verdict: Verdict,
        /// The verdict node seen first.
        first: String,
        /// The other verdict node.
        second: String,
    },
}

impl JudgeFileError {
    /// This problem as the error of the judge file (or name) `origin`.
    fn at(self, origin: &str) -> GradeError {
        GradeError::Judge { origin: origin.to_string(), problem: Box::new(self) }
    }
}

/// Ids quoted and joined with commas.
fn quoted(ids: &[String]) -> String {
    ids.iter().map(|id| format!("{id:?}")).collect::<Vec<_>>().join(", ")
}

/// A judge loaded from a judge file.
#[derive(Debug, Clone)]
pub struct Judge {
    /// Method name its grades carry.
    pub name: String,
    /// What it checks.
    pub description: String,
    /// Lowest passing score (0-1).
    pub threshold: f64,
    /// Pass only a perfect score.
    pub strict_mode: bool,
    /// How it judges.
    pub kind: JudgeKind,
}

/// The kinds of judge.
#[derive(Debug, Clone)]
pub enum JudgeKind {
    /// A decision tree.
    Dag(DagJudge),
    /// A score rubric.
    Rubric(Rubric),
    /// Claims against node outputs.
    Faithfulness(Faithfulness),
}

impl Judge {
    /// The threshold in force: 1 in strict mode.
    pub fn effective_threshold(&self) -> f64 {
        if self.strict_mode { 1.0 } else { self.threshold }
    }

    /// Load and validate a judge file.
    pub fn load(path: &Path) -> Result<Self, GradeError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| JudgeFileError::Read { source }.at(&origin))?;
        Self::parse(&text, &origin)
    }

    /// Parse and validate judge-file text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Self, GradeError> {
        parse_judge(text).map_err(|problem| problem.at(origin))
    }
}

/// The built-in judge called `name` (its name or its file name without `.toml`).
pub fn built_in_judge(name: &str) -> Result<Judge, GradeError> {
    let judges = built_in_judges()?;
    let names: Vec<&str> = BUILT_IN.iter().map(|(file, _)| file.trim_end_matches(".toml")).collect();
    let found = judges.iter().zip(&names).position(|(judge, file)| judge.name == name || *file == name);
    match found {
        Some(index) => Ok(judges[index].clone()),
        None => Err(JudgeFileError::NotBuiltIn { built_in: names }.at(name)),
    }
}

/// The judges shipped with eval-dag.
pub fn built_in_judges() -> Result<Vec<Judge>, GradeError> {
    BUILT_IN.iter().map(|(name, text)| Judge::parse(text, &format!("prompts/judges/{name} (built in)"))).collect()
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum FileKind {
    Dag,
    Rubric,
    Faithfulness,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Common {
    name: String,
    kind: FileKind,
    #[serde(default)]
    description: String,
    #[serde(default = "default_threshold")]
    threshold: f64,
    #[serde(default)]
    strict_mode: bool,
}

fn default_threshold() -> f64 {
    0.5
}

/// What a judge step shows when the file does not say.
pub(crate) fn default_inputs() -> Vec<JudgeInput> {
    vec![JudgeInput::Question, JudgeInput::Answer]
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DagFile {
    #[serde(default)]
    node: Vec<toml::Table>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RubricFile {
    criteria: String,
    #[serde(default = "default_inputs")]
    inputs: Vec<JudgeInput>,
    #[serde(default)]
    output: RubricOutput,
    #[serde(default)]
    level: Vec<RubricLevel>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FaithfulnessFile {
    #[serde(default)]
    penalize_unknown: bool,
    #[serde(default)]
    truths_limit: Option<usize>,
}

/// Deserialize a table into `T`.
pub(crate) fn from_table<T: DeserializeOwned>(table: toml::Table) -> Result<T, toml::de::Error> {
    toml::Value::Table(table).try_into()
}

fn parse_judge(text: &str) -> Result<Judge, JudgeFileError> {
    let fields = |error| JudgeFileError::Fields { error };
    let mut table: toml::Table = toml::from_str(text).map_err(|error| JudgeFileError::Toml { error })?;
    let mut common_table = toml::Table::new();
    for key in ["name", "kind", "description", "threshold", "strict_mode"] {
        if let Some(value) = table.remove(key) {
            common_table.insert(key.to_string(), value);
        }
    }
    let common: Common = from_table(common_table).map_err(fields)?;
    if common.name.trim().is_empty() {
        return Err(JudgeFileError::EmptyName);
    }
    if !(0.0..=1.0).contains(&common.threshold) {
        return Err(JudgeFileError::Threshold { threshold: common.threshold });
    }
    let kind = match common.kind {
        FileKind::Dag => JudgeKind::Dag(build_dag(from_table::<DagFile>(table).map_err(fields)?.node)?),
        FileKind::Rubric => JudgeKind::Rubric(build_rubric(from_table(table).map_err(fields)?)?),
        FileKind::Faithfulness => {
            let file: FaithfulnessFile = from_table(table).map_err(fields)?;
            if file.truths_limit == Some(0) {
                return Err(JudgeFileError::ZeroTruthsLimit);
            }
            JudgeKind::Faithfulness(Faithfulness {
                penalize_unknown: file.penalize_unknown,
                truths_limit: file.truths_limit,
            })
        }
    };
    Ok(Judge {
        name: common.name,
        description: common.description,
        threshold: common.threshold,
        strict_mode: common.strict_mode,
        kind,
    })
}

fn build_rubric(file: RubricFile) -> Result<Rubric, JudgeFileError> {
    if file.criteria.trim().is_empty() {
        return Err(JudgeFileError::EmptyCriteria);
    }
    let mut levels: BTreeMap<i64, RubricLevel> = BTreeMap::new();
    for level in file.level {
        if level.description.trim().is_empty() {
            return Err(JudgeFileError::LevelWithoutDescription { score: level.score });
        }
        if levels.contains_key(&level.score) {
            return Err(JudgeFileError::DuplicateLevel { score: level.score });
        }
        levels.insert(level.score, level);
    }
    if levels.len() < 2 {
        return Err(JudgeFileError::TooFewLevels { found: levels.len() });
    }
    Ok(Rubric {
        criteria: file.criteria,
        levels: levels.into_values().collect(),
        output: file.output,
        inputs: file.inputs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message of the error loading `text`.
    fn problem(text: &str) -> String {
        Judge::parse(text, "t.toml").unwrap_err().to_string()
    }

    #[test]
    fn judge_file_errors_read_as_they_always_have() {
        let dag = "name = \"d\"\nkind = \"dag\"\n";
        assert_eq!(problem(dag), "judge t.toml: a dag judge needs [[node]] tables, found none");
        assert_eq!(
            problem(&format!("{dag}[[node]]\nkind = \"task\"\n")),
            "judge t.toml: node #1 has no \"id\" (a non-empty string)"
        );
        // Two judgements share the verdicts; one id needs quoting.
        let parents = r#"
            [[node]]
            id = "r"
            kind = "task"
            instructions = "i"
            output_label = "l"
            children = ["b", 'a"']
            [[node]]
            id = 'a"'
            kind = "binary_judgement"
            criteria = "c"
            children = ["y", "n"]
            [[node]]
            id = "b"
            kind = "binary_judgement"
            criteria = "c"
            children = ["y", "n"]
            [[node]]
            id = "y"
            kind = "verdict"
            verdict = true
            score = 10
            [[node]]
            id = "n"
            kind = "verdict"
            verdict = false
            score = 0
        "#;
        assert_eq!(
            problem(&format!("{dag}{parents}")),
            "judge t.toml: verdict node \"n\" has 2 parents (\"a\\\"\", \"b\"): a verdict belongs to exactly one \
             judgement node"
        );
        let unknown = built_in_judge("nope").unwrap_err().to_string();
        assert_eq!(
            unknown,
            "judge nope: no such judge file, and no built-in judge of that name (built in: well_formed_value, \
             addresses_question)"
        );
    }
}
