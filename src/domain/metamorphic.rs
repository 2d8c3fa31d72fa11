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

impl Transform {
    /// How it is named to people (and in JSON).
    pub fn label(self) -> &'static str {
        match self {
            Transform::Shuffle => "shuffle",
            Transform::Duplicate => "duplicate",
            Transform::Rename => "rename",
            Transform::Scale => "scale",
        }
    }
}

impl Relation {
    /// How it is named to people (and in JSON).
    pub fn label(self) -> &'static str {
        match self {
            Relation::Holds => "holds",
            Relation::Doubles => "doubles",
            Relation::Scales => "scales",
            Relation::FollowsRenaming => "follows_renaming",
            Relation::Other => "other",
            Relation::TimedOut => "timed_out",
            Relation::Failed => "failed",
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_the_json_names() {
        let transforms = [Transform::Shuffle, Transform::Duplicate, Transform::Rename, Transform::Scale];
        for t in transforms {
            assert_eq!(serde_json::to_value(t).unwrap(), t.label());
        }
        let relations = [
            Relation::Holds,
            Relation::Doubles,
            Relation::Scales,
            Relation::FollowsRenaming,
            Relation::Other,
            Relation::TimedOut,
            Relation::Failed,
        ];
        for r in relations {
            assert_eq!(serde_json::to_value(r).unwrap(), r.label());
        }
    }
}
