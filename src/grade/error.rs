//! Why grading input cannot be used: a questions file's line, a judge file,
//! a template, matching options — each error names its file and line or node.

use serde_json::Value;

use super::judged::Verdict;

/// What a valid `difficulty` is.
const DIFFICULTY_HELP: &str = "\"difficulty\" must be easy, medium, hard or an integer 1-10";

/// A value as a difficulty error shows it: a string quoted, anything else as JSON.
fn shown(value: &Value) -> String {
    match value {
        Value::String(word) => format!("{word:?}"),
        other => other.to_string(),
    }
}

/// Why grading input could not be used.
#[derive(Debug, thiserror::Error)]
pub enum GradeError {
    /// A file could not be read, or holds nothing usable.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A line of a questions file is wrong.
    #[error("{path}:{line}: {problem}")]
    QuestionsFile {
        /// The file.
        path: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        #[source]
        problem: QuestionsFileError,
    },
    /// A judge file is wrong, or no judge has that name.
    #[error("judge {origin}: {problem}")]
    Judge {
        /// The file, or the built-in name.
        origin: String,
        /// What is wrong, naming the node when there is one (boxed: it is large).
        #[source]
        problem: Box<JudgeFileError>,
    },
    /// A built-in judge template does not compile.
    #[error("judge prompts/judges/{template}: {source}")]
    Template {
        /// The template's file name.
        template: String,
        /// The template engine's error.
        source: minijinja::Error,
    },
    /// Matching options are wrong.
    #[error("match options: {0}")]
    MatchOptions(String),
}

/// What is wrong with a line of a questions file; [`GradeError::QuestionsFile`]
/// names the file and line.
#[derive(Debug, thiserror::Error)]
pub enum QuestionsFileError {
    /// The line is not a JSON object of the known fields.
    #[error("not a valid question object: {source}")]
    NotAnObject {
        /// The parser's error.
        source: serde_json::Error,
    },
    /// There is no question text.
    #[error("missing \"question\" (or \"text\")")]
    NoQuestion,
    /// There is no `difficulty`.
    #[error("missing {DIFFICULTY_HELP}")]
    NoDifficulty,
    /// The `difficulty` is not a level or an integer 1-10.
    #[error("{DIFFICULTY_HELP}, got {}", shown(given))]
    BadDifficulty {
        /// The value given.
        given: Value,
    },
    /// The `match` overrides are wrong.
    #[error("\"match\": {source}")]
    Match {
        /// Why the options are wrong.
        source: Box<GradeError>,
    },
    /// The `id` is only spaces.
    #[error("\"id\" is blank")]
    BlankId,
    /// An earlier line has the same `id`.
    #[error("id {id:?} is already used on line {first}")]
    DuplicateId {
        /// The id.
        id: String,
        /// 1-based line that used it first.
        first: usize,
    },
}

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
    pub(super) fn at(self, origin: &str) -> GradeError {
        GradeError::Judge { origin: origin.to_string(), problem: Box::new(self) }
    }
}

/// Ids quoted and joined with commas.
fn quoted(ids: &[String]) -> String {
    ids.iter().map(|id| format!("{id:?}")).collect::<Vec<_>>().join(", ")
}
