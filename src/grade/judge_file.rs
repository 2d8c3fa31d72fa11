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

use super::error::{GradeError, JudgeFileError};
use super::faithfulness::Faithfulness;
use super::judge_prompts::{JudgeInput, default_inputs};
use super::rubric::{Rubric, RubricLevel};
use super::rubric_reply::RubricOutput;
use super::tree_judge::DagJudge;
use super::tree_judge_build::{build_dag, from_table};
use crate::domain::GradingMethod;

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
    /// The grading method this judge is: itself, by name.
    pub fn method(&self) -> GradingMethod {
        GradingMethod::Judge(self.name.clone())
    }

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
