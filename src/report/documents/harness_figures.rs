//! The parts of `eval_results.json` that repeats, consensus, metamorphic
//! checks, published benchmarks, the response cache, budgets and batches add: each is
//! written only where its feature produced something, and defaults when a
//! file of an earlier version lacks it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::result_status::ResultStatus;
use crate::domain::TokenUsage;

/// Token counts, with their sum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// Tokens in prompts.
    pub prompt: u64,
    /// Tokens generated.
    pub completion: u64,
    /// Both together.
    pub total: u64,
    /// Whether some of the counts were computed locally because a server sent none.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}

impl From<TokenUsage> for Tokens {
    fn from(usage: TokenUsage) -> Self {
        Self {
            prompt: usage.prompt_tokens,
            completion: usage.completion_tokens,
            total: usage.total(),
            estimated: false,
        }
    }
}

/// Calls the response cache served and those it did not.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CacheUse {
    /// Calls served from the cache.
    pub hits: usize,
    /// Calls sent to a model.
    pub misses: usize,
    /// What the served calls would have cost at list price, USD, on the usage
    /// they were stored with: a cached rerun is not free (0 in results written
    /// before it was recorded).
    #[serde(default, skip_serializing_if = "no_cost")]
    pub list_cost_usd: f64,
}

/// Whether a cost is nothing (left out of the document: no price, or none recorded).
fn no_cost(usd: &f64) -> bool {
    *usd == 0.0
}

/// Calls sent through providers' batch APIs against live ones (`run --batch`).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct BatchUse {
    /// Batches submitted.
    pub batches: usize,
    /// Calls whose reply was read from a batch.
    pub batched_calls: usize,
    /// Calls sent one request each (the response cache's hits not counted).
    pub live_calls: usize,
    /// What the batched calls cost, USD.
    pub batched_cost_usd: f64,
    /// What the live calls cost, USD.
    pub live_cost_usd: f64,
}

/// What the run's budget allowed and what it stopped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BudgetUse {
    /// The run's cost limit, USD, when it had one.
    pub max_cost_usd: Option<f64>,
    /// What the run spent, USD.
    pub spent_usd: f64,
    /// Questions not started or stopped because the budget was reached.
    pub stopped: usize,
}

/// One repeat of a question (`run --repeat`): its latest attempt that speaks for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpochResult {
    /// 1-based.
    pub epoch: u32,
    /// Status label of that attempt (`passed`, `exhausted`, `budget`, …).
    pub status: ResultStatus,
    /// Its answer, when one was produced.
    pub answer: Option<Value>,
    /// Whether its answer was graded right; none when ungraded.
    pub correct: Option<bool>,
    /// Its iterations.
    pub iterations: usize,
    /// Tokens spent on the epoch.
    pub tokens: Tokens,
}

/// Run-wide figures of a run whose questions were each asked `r` times (`run --repeat`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Repeats {
    /// Epochs per question.
    pub r: u32,
    /// Mean over epochs of the accuracy of each epoch; none when nothing was graded.
    pub accuracy_mean: Option<f64>,
    /// Standard deviation over epochs of that accuracy; none when nothing was graded.
    pub accuracy_std: Option<f64>,
    /// pass@k (k as a string key, 1..=r): the chance that at least one of k
    /// epochs drawn without replacement is right, averaged over graded questions.
    #[serde(default)]
    pub pass_at_k: BTreeMap<String, f64>,
    /// Share of graded questions right in every epoch; none when nothing was graded.
    pub pass_all_k: Option<f64>,
}

/// A published benchmark's own metrics, as its scorer computes them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkSummary {
    /// The benchmark (`infiagent`, `dabstep`).
    pub name: String,
    /// Questions whose every part is right, over answered questions.
    pub accuracy_by_question: Option<f64>,
    /// Parts right over all parts of answered questions.
    pub accuracy_by_sub_question: Option<f64>,
    /// Mean over answered questions of the share of their parts that are right.
    pub proportional_accuracy_by_sub_question: Option<f64>,
    /// Questions the benchmark's rules score (those with an expected answer).
    #[serde(default)]
    pub questions: usize,
    /// Of those, questions the model answered.
    #[serde(default)]
    pub answered: usize,
    /// The same metrics over every scored question, an unanswered one wrong in every part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_all_questions: Option<BenchmarkMetrics>,
    /// The same metrics over every scored question graded on the trial answer
    /// of its first DAG, before any rebuild (none there counts wrong in every part).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_iteration: Option<BenchmarkMetrics>,
    /// Questions right at the end but not on their first DAG's answer: the critic loop fixed them.
    #[serde(default)]
    pub fixed: usize,
    /// Questions right on their first DAG's answer but not at the end: the critic loop broke them.
    #[serde(default)]
    pub broken: usize,
    /// First DAG's answer against the final one, overall, per level and per
    /// dataset, with the questions fixed and broken and the tokens and cost
    /// per extra right answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lift: Option<super::lift_figures::Lift>,
}

/// A benchmark's three metrics over a set of questions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkMetrics {
    /// Questions whose every part is right.
    pub accuracy_by_question: Option<f64>,
    /// Parts right over all parts.
    pub accuracy_by_sub_question: Option<f64>,
    /// Mean of the share of each question's parts that are right.
    pub proportional_accuracy_by_sub_question: Option<f64>,
}

/// What the metamorphic checks of a run found (`run --metamorphic`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetamorphicSummary {
    /// Approved answers whose DAG was checked.
    pub checked: usize,
    /// Of those, answers that break an invariant.
    pub broken: usize,
    /// Of those, answers that change when the rows are shuffled.
    pub order_dependent: usize,
    /// Where answers were graded: how the flag lines up with right and wrong;
    /// none when no checked answer was graded.
    pub against_labels: Option<SignalAgainstLabels>,
}

/// The engines checked against each other over a run (`run --differential`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DifferentialSummary {
    /// Approved DAGs whose final execution ran on both engines.
    pub checked: usize,
    /// Of those, the ones whose results differ.
    pub diverged: usize,
    /// The divergences by kind.
    pub kinds: DivergenceCounts,
}

/// Divergences by kind (see `DivergenceKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DivergenceCounts {
    /// Different answers.
    pub answer: usize,
    /// The same items in another order.
    pub order: usize,
    /// The same failing node, other messages.
    pub error_text: usize,
    /// One engine failed, or they failed at different nodes.
    pub outcome: usize,
}

impl DivergenceCounts {
    /// Count one divergence of `kind`.
    pub fn add(&mut self, kind: crate::domain::DivergenceKind) {
        use crate::domain::DivergenceKind;
        *match kind {
            DivergenceKind::Answer => &mut self.answer,
            DivergenceKind::Order => &mut self.order,
            DivergenceKind::ErrorText => &mut self.error_text,
            DivergenceKind::Outcome => &mut self.outcome,
        } += 1;
    }
}

/// A label-free flag (a broken invariant, a disagreement between DAGs) set
/// against graded answers: how far to trust it on data without labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SignalAgainstLabels {
    /// Flagged, and graded right.
    pub flagged_right: usize,
    /// Flagged, and graded wrong.
    pub flagged_wrong: usize,
    /// Not flagged, and graded right.
    pub unflagged_right: usize,
    /// Not flagged, and graded wrong.
    pub unflagged_wrong: usize,
}

impl SignalAgainstLabels {
    /// Count one graded answer.
    pub fn add(&mut self, flagged: bool, right: bool) {
        match (flagged, right) {
            (true, true) => self.flagged_right += 1,
            (true, false) => self.flagged_wrong += 1,
            (false, true) => self.unflagged_right += 1,
            (false, false) => self.unflagged_wrong += 1,
        }
    }

    /// Of the flagged answers, the share graded wrong; none when nothing was flagged.
    pub fn flagged_wrong_rate(&self) -> Option<f64> {
        let flagged = self.flagged_right + self.flagged_wrong;
        (flagged > 0).then(|| self.flagged_wrong as f64 / flagged as f64)
    }

    /// One line for people: how often a flagged answer, and an unflagged one, was wrong.
    pub fn describe(&self) -> String {
        let rate = |r: Option<f64>| r.map_or("—".to_string(), |r| format!("{:.0}%", r * 100.0));
        format!(
            "flagged answers wrong {} ({} of {}), unflagged answers wrong {} ({} of {})",
            rate(self.flagged_wrong_rate()),
            self.flagged_wrong,
            self.flagged_wrong + self.flagged_right,
            rate(self.unflagged_wrong_rate()),
            self.unflagged_wrong,
            self.unflagged_wrong + self.unflagged_right
        )
    }

    /// Of the unflagged answers, the share graded wrong; none when every answer was flagged.
    pub fn unflagged_wrong_rate(&self) -> Option<f64> {
        let unflagged = self.unflagged_right + self.unflagged_wrong;
        (unflagged > 0).then(|| self.unflagged_wrong as f64 / unflagged as f64)
    }
}

/// How far independently built DAGs agreed over a run (`run --consensus`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConsensusSummary {
    /// Drafts per question and epoch.
    pub k: u32,
    /// Questions whose drafts all ended.
    pub questions: usize,
    /// Mean share of drafts in the majority.
    pub mean_agreement: f64,
    /// Questions whose drafts all agreed.
    pub unanimous: usize,
    /// Where answers were graded: disagreement (not unanimous) set against right and wrong.
    pub against_labels: Option<SignalAgainstLabels>,
}
