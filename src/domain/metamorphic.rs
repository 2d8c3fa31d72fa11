//! Metamorphic checks: an approved DAG run again on transformed copies of its
//! data (rows shuffled, duplicated, categories renamed, measures scaled), its
//! answers set against what each transformation implies — no label and no
//! model needed.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The label-free checks of an approved DAG run again on transformed copies of its data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metamorphic {
    /// One per transformation.
    pub checks: Vec<MetamorphicCheck>,
    /// Whether shuffling the rows changed an answer that should not depend on their order.
    pub order_dependent: bool,
}

/// How the data was transformed for a metamorphic check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transform {
    /// Rows in another order.
    Shuffle,
    /// Every row twice.
    Duplicate,
    /// Category strings consistently renamed.
    Rename,
    /// Numeric columns multiplied by 10.
    Scale,
}

/// What the answer on the transformed copy was, against the original.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// The same answer.
    Holds,
    /// Numbers doubled.
    Doubles,
    /// Numbers scaled by the factor.
    Scales,
    /// Categories renamed as the data was.
    FollowsRenaming,
    /// Anything else.
    Other,
    /// The DAG did not finish on the copy (not counted as broken).
    TimedOut,
    /// The DAG failed on the copy.
    Failed,
}

/// One metamorphic check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetamorphicCheck {
    /// The transformation.
    pub transform: Transform,
    /// What was observed.
    pub relation: Relation,
    /// The answer on the transformed copy.
    pub answer: Option<Value>,
    /// Whether the observation breaks an invariant the question implies.
    pub broken: bool,
    /// Whether the check only informs (the question is about order, or the
    /// code holds the renamed strings or scaled numbers).
    pub informational: bool,
    /// Why it is informational, or what broke, in one line.
    pub note: Option<String>,
}
