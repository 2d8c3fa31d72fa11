//! The settings a run was started with, as its trace header and first event
//! record them, and the datasets of a run over several.

use serde::{Deserialize, Serialize};

/// Settings a run was started with (recorded in the trace header and first event).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RunSettings {
    /// Dataset directory as given (written as text, lossily where it is not UTF-8).
    #[serde(with = "crate::domain::lossy_path")]
    pub dataset_dir: std::path::PathBuf,
    /// SHA-256 of the dataset files.
    pub dataset_hash: String,
    /// The builder's provider: `offline`, `openai`, `anthropic` or `replay`.
    pub provider: crate::domain::Provider,
    /// Model name.
    pub model: String,
    /// Questions requested.
    pub questions: u32,
    /// Iteration budget per attempt.
    pub max_iterations: u32,
    /// Critic loops at once.
    pub concurrency: u32,
    /// Layer reviews at once per DAG; 0 reviews every layer at once.
    #[serde(default)]
    pub review_concurrency: u32,
    /// Seed of everything random.
    pub seed: u64,
    /// Whether the run started paused.
    pub step: bool,
    /// How answers are graded.
    #[serde(default)]
    pub grading: crate::domain::GradingSettings,
    /// Who plays each role (`provider` and `model` above are the builder's).
    #[serde(default)]
    pub roles: crate::domain::RoleModels,
    /// Every dataset of a run over several (a question set's `datasets/`), with
    /// its hash; empty in a single-dataset run, whose one dataset is
    /// `dataset_dir` and `dataset_hash`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub datasets: Vec<DatasetRef>,
    /// The spending limits (`--max-cost`, `--max-tokens`, `[budget]`), when any;
    /// a continued run records the ones it was continued with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<crate::domain::Budget>,
    /// Independent epochs per question (`run --repeat`); 0 or 1 means one.
    #[serde(default, skip_serializing_if = "at_most_one")]
    pub repeat: u32,
    /// Independent DAGs per question and epoch (`run --consensus`); 0 or 1 means one.
    #[serde(default, skip_serializing_if = "at_most_one")]
    pub consensus: u32,
    /// Whether approved DAGs run again on transformed copies of the data (`run --metamorphic`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub metamorphic: bool,
    /// Repair exchanges per unreadable reply (`--repair`, `[llm] repair`), when
    /// given; the default otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repair: Option<u32>,
    /// Which shard of a run split with `run --shard K/N` this one is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<crate::domain::Shard>,
    /// Whether each question's baselines are asked and scored beside the loop (`run --baselines`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub baselines: bool,
    /// The run's clock: the instant node code's `datetime.now()` and
    /// `date.today()` read — when the run started, unless `--now` set it.
    /// Absent in a shard started without `--now` (shards started apart share
    /// no instant) and in traces before version 8: node code then reads the
    /// machine's clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub now: Option<crate::domain::RunClock>,
    /// The Python that ran DAGs (`--engine`; left out when RustPython).
    #[serde(default, skip_serializing_if = "crate::domain::Engine::is_default")]
    pub engine: crate::domain::Engine,
    /// Whether every approved DAG's final execution also ran on the other
    /// engine (`--differential`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub differential: bool,
    /// The CPython the run used, when it used one (as engine or as the
    /// differential check's other engine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<crate::domain::PythonRecord>,
}

fn at_most_one(repeat: &u32) -> bool {
    *repeat <= 1
}

/// One dataset of a run over several.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatasetRef {
    /// The name questions give in their `dataset` field.
    pub name: String,
    /// Its directory as the run found it.
    pub dir: String,
    /// SHA-256 of its files.
    pub hash: String,
}

impl RunSettings {
    /// Epochs per question: 1 unless the run repeats its questions.
    pub fn epochs(&self) -> u32 {
        self.repeat.max(1)
    }

    /// Drafts (independent DAGs) per question and epoch: 1 unless the run asks for consensus.
    pub fn drafts(&self) -> u32 {
        self.consensus.max(1)
    }

    /// The roles the run plays: every role but `baseline` unless the run asks for baselines.
    pub fn roles_played(&self) -> impl Iterator<Item = crate::domain::LlmRole> + '_ {
        crate::domain::LlmRole::ALL
            .into_iter()
            .filter(|role| *role != crate::domain::LlmRole::Baseline || self.baselines)
    }

    /// Who plays `role`: its entry in `roles`, else the run's provider and model.
    pub fn role(&self, role: crate::domain::LlmRole) -> crate::domain::RoleModel {
        self.roles.get(&role).cloned().unwrap_or_else(|| crate::domain::RoleModel {
            provider: self.provider.clone(),
            model: self.model.clone(),
            base_url: None,
        })
    }
}
