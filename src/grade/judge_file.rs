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
use super::tree_judge::DagJudge;
use super::tree_judge_build::build_dag;

/// The judges shipped in `prompts/judges/`: (file name, source).
const BUILT_IN: [(&str, &str); 2] = [
    ("well_formed_value.toml", include_str!("../../prompts/judges/well_formed_value.toml")),
    ("addresses_question.toml", include_str!("../../prompts/judges/addresses_question.toml")),
];

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
        let text = std::fs::read_to_string(path)
            .map_err(|err| GradeError::Judge { origin: origin.clone(), message: err.to_string() })?;
        Self::parse(&text, &origin)
    }

    /// Parse and validate judge-file text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Self, GradeError> {
        parse_judge(text).map_err(|message| GradeError::Judge { origin: origin.to_string(), message })
    }
}

/// The built-in judge called `name` (its name or its file name without `.toml`).
pub fn built_in_judge(name: &str) -> Result<Judge, GradeError> {
    let judges = built_in_judges()?;
    let names: Vec<&str> = BUILT_IN.iter().map(|(file, _)| file.trim_end_matches(".toml")).collect();
    let found = judges.iter().zip(&names).position(|(judge, file)| judge.name == name || *file == name);
    match found {
        Some(index) => Ok(judges[index].clone()),
        None => Err(GradeError::Judge {
            origin: name.to_string(),
            message: format!("no such judge file, and no built-in judge of that name (built in: {})", names.join(", ")),
        }),
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

/// Deserialize a table into `T`, with the serde message as the error.
pub(crate) fn from_table<T: DeserializeOwned>(table: toml::Table) -> Result<T, String> {
    toml::Value::Table(table).try_into().map_err(|err: toml::de::Error| err.message().trim().to_string())
}

fn parse_judge(text: &str) -> Result<Judge, String> {
    let mut table: toml::Table = toml::from_str(text).map_err(|err| err.to_string().trim().to_string())?;
    let mut common_table = toml::Table::new();
    for key in ["name", "kind", "description", "threshold", "strict_mode"] {
        if let Some(value) = table.remove(key) {
            common_table.insert(key.to_string(), value);
        }
    }
    let common: Common = from_table(common_table)?;
    if common.name.trim().is_empty() {
        return Err("\"name\" is empty".into());
    }
    if !(0.0..=1.0).contains(&common.threshold) {
        return Err(format!("\"threshold\" must be between 0 and 1, got {}", common.threshold));
    }
    let kind = match common.kind {
        FileKind::Dag => JudgeKind::Dag(build_dag(from_table::<DagFile>(table)?.node)?),
        FileKind::Rubric => JudgeKind::Rubric(build_rubric(from_table(table)?)?),
        FileKind::Faithfulness => {
            let file: FaithfulnessFile = from_table(table)?;
            if file.truths_limit == Some(0) {
                return Err("\"truths_limit\" must be at least 1".into());
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

fn build_rubric(file: RubricFile) -> Result<Rubric, String> {
    if file.criteria.trim().is_empty() {
        return Err("\"criteria\" is empty".into());
    }
    let mut levels: BTreeMap<i64, RubricLevel> = BTreeMap::new();
    for level in file.level {
        if level.description.trim().is_empty() {
            return Err(format!("level {} has no description", level.score));
        }
        if levels.contains_key(&level.score) {
            return Err(format!("two levels have score {}", level.score));
        }
        levels.insert(level.score, level);
    }
    if levels.len() < 2 {
        return Err(format!("a rubric needs at least two [[level]] tables, found {}", levels.len()));
    }
    Ok(Rubric {
        criteria: file.criteria,
        levels: levels.into_values().collect(),
        output: file.output,
        inputs: file.inputs,
    })
}
