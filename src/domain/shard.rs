//! A run split into shards that run apart (`run --shard K/N`) and are merged
//! back into one run (`eval-dag merge`): which shard this process is (`K/N`,
//! or `auto/N` read from the cluster engine's environment), which shard a
//! question belongs to, and the whole question list every shard writes into
//! its directory in the `--questions-file` format.
//!
//! A question's shard is a stable hash of its id and dataset — never its
//! position — so every node, given the same list, agrees on each question's
//! shard whatever order or selection it read them in.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::Question;

/// Which shard of a run this one is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// 1-based place among the shards.
    pub index: u32,
    /// How many shards the run was split into.
    pub count: u32,
    /// SHA-256 of the whole question list (`questions.jsonl`) every shard shares.
    pub questions_hash: String,
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// One shard a merged run was made of (the merged trace's header `merged_from`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergedShard {
    /// The shard's trace, as given to `merge`.
    pub path: String,
    /// SHA-256 of that trace file when it was merged.
    pub sha256: String,
    /// Its 1-based shard index.
    pub shard: u32,
}

/// Environment variables `--shard auto/N` reads, first set wins, each 0-based:
/// Kubernetes Indexed Jobs, Slurm array jobs, the Ray driver in `examples/ray/`.
pub const SHARD_INDEX_VARIABLES: [&str; 3] = ["JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "RAY_SHARD_INDEX"];

/// Most shards a run may be split into.
pub const MAX_SHARDS: u32 = 10_000;

/// The file each shard writes the whole question list into (its SHA-256 is
/// the shard's `questions_hash`).
pub const QUESTIONS_FILE: &str = "questions.jsonl";

/// Which shard `--shard` asks for: a given 1-based index, or one read from
/// the environment, out of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardSpec {
    /// The 1-based index; `None` for `auto`.
    pub index: Option<u32>,
    /// How many shards.
    pub count: u32,
}

/// Why a `--shard` value or its environment is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardSpecError {
    /// Not `K/N` or `auto/N` with whole numbers.
    #[error("expected K/N (K from 1 to N) or auto/N")]
    Form,
    /// N is 0 or too large.
    #[error("N must be from 1 to {MAX_SHARDS}")]
    Count,
    /// K is outside 1..=N.
    #[error("K counts from 1 to N ({0})")]
    Index(u32),
    /// `auto/N` and none of the variables is set.
    #[error(
        "--shard auto/{0} reads JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or RAY_SHARD_INDEX (0-based); none is set"
    )]
    NoVariable(u32),
    /// `auto/N` and the variable is not a 0-based index below N.
    #[error("--shard auto/{count}: {variable}={value} is not a 0-based index below {count}")]
    BadVariable {
        /// The variable read.
        variable: &'static str,
        /// Its value.
        value: String,
        /// N.
        count: u32,
    },
}

impl std::str::FromStr for ShardSpec {
    type Err = ShardSpecError;

    fn from_str(given: &str) -> Result<Self, Self::Err> {
        let (index, count) = given.trim().split_once('/').ok_or(ShardSpecError::Form)?;
        let count: u32 = count.trim().parse().map_err(|_| ShardSpecError::Form)?;
        let index = match index.trim() {
            "auto" => None,
            number => Some(number.parse::<u32>().map_err(|_| ShardSpecError::Form)?),
        };
        if count == 0 || count > MAX_SHARDS {
            return Err(ShardSpecError::Count);
        }
        if index.is_some_and(|k| k == 0 || k > count) {
            return Err(ShardSpecError::Index(count));
        }
        Ok(Self { index, count })
    }
}

impl ShardSpec {
    /// The 1-based index: the given one, or the first of
    /// [`SHARD_INDEX_VARIABLES`] `env` holds, plus one.
    pub fn resolve(&self, env: impl Fn(&str) -> Option<String>) -> Result<u32, ShardSpecError> {
        if let Some(index) = self.index {
            return Ok(index);
        }
        let (variable, value) = SHARD_INDEX_VARIABLES
            .iter()
            .find_map(|name| env(name).map(|value| (*name, value)))
            .ok_or(ShardSpecError::NoVariable(self.count))?;
        match value.trim().parse::<u32>() {
            Ok(zero_based) if zero_based < self.count => Ok(zero_based + 1),
            _ => Err(ShardSpecError::BadVariable { variable, value, count: self.count }),
        }
    }
}

/// The 1-based shard, of `count`, that `question` belongs to: the SHA-256 of
/// its id and dataset, read as a number, modulo `count`.
pub fn shard_of(question: &Question, count: u32) -> u32 {
    let mut hasher = Sha256::new();
    hasher.update(question.id.as_bytes());
    hasher.update([0]);
    hasher.update(question.dataset.as_deref().unwrap_or_default().as_bytes());
    let digest = hasher.finalize();
    let mut head = [0u8; 8];
    head.copy_from_slice(&digest[..8]);
    (u64::from_be_bytes(head) % u64::from(count.max(1))) as u32 + 1
}

/// `question` as a line of a questions file: every field the file's reader
/// takes, written only when it holds something, fields it keeps unread last.
fn question_line(question: &Question) -> Map<String, Value> {
    let mut line = Map::new();
    line.insert("id".into(), question.id.as_str().into());
    line.insert("question".into(), question.question.clone().into());
    let optional = [
        ("difficulty", serde_json::to_value(question.difficulty_level).ok()),
        ("expected_answer", question.expected_answer.clone()),
        ("match", (!question.match_overrides.is_empty()).then(|| question.match_overrides.clone().into())),
        ("reasoning", (!question.reasoning.is_empty()).then(|| question.reasoning.clone().into())),
        (
            "relevant_data_keys",
            (!question.relevant_data_keys.is_empty()).then(|| question.relevant_data_keys.clone().into()),
        ),
        ("dataset", question.dataset.clone().map(Value::from)),
        ("source_id", question.source_id.clone().map(Value::from)),
        ("answer_format", question.answer_format.clone().map(Value::from)),
        ("constraints", question.constraints.clone().map(Value::from)),
        ("scorer", question.scorer.as_ref().and_then(|scorer| serde_json::to_value(scorer).ok())),
    ];
    for (name, value) in optional {
        if let Some(value) = value {
            line.insert(name.into(), value);
        }
    }
    for (name, value) in &question.extra {
        line.entry(name.clone()).or_insert_with(|| value.clone());
    }
    line
}

/// `questions` as a questions file (`run --questions-file`), one line each in
/// list order: read back, it gives the same questions.
pub fn questions_jsonl(questions: &[Question]) -> String {
    questions.iter().map(|question| Value::Object(question_line(question)).to_string() + "\n").collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::DifficultyLevel;

    #[test]
    fn a_shard_is_k_of_n_or_read_from_the_first_variable_set() {
        assert_eq!("2/3".parse(), Ok(ShardSpec { index: Some(2), count: 3 }));
        assert_eq!("auto/4".parse(), Ok(ShardSpec { index: None, count: 4 }));
        let refused = |given: &str| given.parse::<ShardSpec>().unwrap_err().to_string();
        assert_eq!(refused("0/3"), "K counts from 1 to N (3)");
        assert_eq!(refused("4/3"), "K counts from 1 to N (3)");
        assert_eq!(refused("x/y"), "expected K/N (K from 1 to N) or auto/N");
        assert_eq!(refused("3"), refused("x/y"));
        assert!(refused("1/0").starts_with("N must be"));
        let auto: ShardSpec = "auto/4".parse().unwrap();
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string())
        };
        assert_eq!(auto.resolve(env(&[("SLURM_ARRAY_TASK_ID", "3"), ("RAY_SHARD_INDEX", "0")])), Ok(4));
        assert_eq!(auto.resolve(env(&[("JOB_COMPLETION_INDEX", "0"), ("SLURM_ARRAY_TASK_ID", "3")])), Ok(1));
        assert!(matches!(auto.resolve(env(&[("RAY_SHARD_INDEX", "4")])), Err(ShardSpecError::BadVariable { .. })));
        assert_eq!(auto.resolve(env(&[])), Err(ShardSpecError::NoVariable(4)));
    }

    #[test]
    fn a_questions_shard_follows_its_id_and_dataset_not_its_place() {
        let question = |id: &str, dataset: Option<&str>| Question {
            dataset: dataset.map(String::from),
            ..Question::new(id, "?", 1, DifficultyLevel::Easy)
        };
        let ids: Vec<Question> = (0..300).map(|n| question(&format!("q_{n}"), None)).collect();
        let shards: Vec<u32> = ids.iter().map(|q| shard_of(q, 3)).collect();
        assert!((1..=3).all(|k| shards.iter().filter(|s| **s == k).count() > 60), "{shards:?}");
        let mut moved = ids.clone();
        moved.reverse();
        assert!(moved.iter().all(|q| shard_of(q, 3) == shards[ids.iter().position(|o| o.id == q.id).unwrap()]));
        let on = |dataset| (0..50).filter(|n| shard_of(&question(&format!("q_{n}"), Some(dataset)), 5) == 1).count();
        assert_ne!(on("shop"), on("zoo"), "the dataset takes part");
        assert_eq!(shard_of(&ids[7], 1), 1);
    }
}
