//! `run --dry-run`: what a run would cost, without calling anyone. The real
//! prompts are rendered (question generation; each question's first build;
//! a layer review) and their tokens counted; replies are reckoned at typical
//! sizes. A range per model: from every question approved at its first
//! iteration with a small DAG to every iteration spent on a large one. Each
//! question is built once per epoch (`--repeat R`) and draft (`--consensus
//! K`), and the range is set against the run's budget when it has one.

use std::collections::BTreeMap;
use std::process::ExitCode;

use super::datasets::RunDatasets;
use crate::config::RunConfig;
use crate::dataset::Dataset;
use crate::domain::{Budget, DifficultyLevel, ExecutionResult, GeneratedDag, Question};
use crate::domain::{ChatMessage, LlmRole, TokenUsage};
use crate::llm::{LlmClient, serving};
use crate::prompts::Prompts;

/// Typical reply of a DAG build, in tokens (a DAG of a few nodes with code).
const BUILD_REPLY_TOKENS: u64 = 900;
/// Typical reply of one layer review, in tokens.
const REVIEW_REPLY_TOKENS: u64 = 250;
/// Typical tokens per generated question (text, reasoning, keys).
const QUESTION_REPLY_TOKENS: u64 = 120;
/// Layers reviewed per iteration at the low end and at the high end.
const LAYERS: (u64, u64) = (2, 5);
/// The stand-in for a question not generated yet.
const TYPICAL_QUESTION: &str = "Which category has the highest average amount, and how much higher is it than the \
                                overall average?";

/// Tokens of `messages` as counted before sending: a quarter of their UTF-8
/// bytes, the usual rule of thumb for English text and code under the GPT and
/// Claude tokenisers (a provider's own count differs by some percent).
pub fn estimate_tokens(messages: &[ChatMessage]) -> u64 {
    messages.iter().map(|m| m.content.len() as u64).sum::<u64>().div_ceil(4)
}

/// The estimate `total` set against each run-wide limit of `budget`, a line each.
fn budget_lines(budget: Budget, total: &Share) -> Vec<String> {
    let tokens = (total.prompt.0 + total.completion.0, total.prompt.1 + total.completion.1);
    let verdict = |low: bool, high: bool| match (low, high) {
        (true, _) => "even the low estimate exceeds it",
        (false, true) => "the high estimate exceeds it",
        (false, false) => "the estimate stays within it",
    };
    let mut lines = Vec::new();
    if let Some(max) = budget.max_cost_usd {
        let (low, high) = (total.cost.0 > max, total.cost.1 > max);
        lines.push(format!("budget: --max-cost ${max}: {}", verdict(low, high)));
    }
    if let Some(max) = budget.max_tokens {
        let (low, high) = (tokens.0 > max, tokens.1 > max);
        lines.push(format!("budget: --max-tokens {max}: {}", verdict(low, high)));
    }
    lines
}

/// One model's share of a run, at the low and the high end.
#[derive(Debug, Clone, Copy, Default)]
struct Share {
    calls: (u64, u64),
    prompt: (u64, u64),
    completion: (u64, u64),
    cost: (f64, f64),
    /// The same calls sent in the provider's batches, when it has a batch API.
    batch_cost: Option<(f64, f64)>,
}

impl Share {
    /// The cost, and the batch price beside it when there is one.
    fn costs(&self) -> String {
        let usd = |(low, high): (f64, f64)| format!("${low:.4}–${high:.4}");
        match self.batch_cost {
            Some(batch) => format!("{} (in batches {})", usd(self.cost), usd(batch)),
            None => usd(self.cost),
        }
    }
}

/// What a dry run reckons: each model's share, and each role's largest call
/// (prompt and reply tokens) and largest prompt.
#[derive(Default)]
struct Tally {
    shares: BTreeMap<String, Share>,
    largest: BTreeMap<LlmRole, u64>,
    largest_prompt: BTreeMap<LlmRole, u64>,
}

impl Tally {
    /// Each role's largest prompt, in one line; none before any call.
    fn largest_prompt_line(&self) -> Option<String> {
        let largest: Vec<String> = self
            .largest_prompt
            .iter()
            .map(|(role, tokens)| format!("{} {}", role.setting_name(), crate::text::thousands(*tokens)))
            .collect();
        (!largest.is_empty()).then(|| format!("largest prompt (tokens): {}", largest.join(" · ")))
    }
}

/// What a dry run reads.
pub struct DryRun<'a> {
    /// The run's settings.
    pub config: &'a RunConfig,
    /// The dataset (of a benchmark directory: the first).
    pub dataset: &'a Dataset,
    /// A benchmark directory's datasets: each question's build and review
    /// prompts are rendered with its own.
    pub datasets: Option<&'a RunDatasets>,
    /// The prompt templates.
    pub prompts: &'a Prompts,
    /// The run's clients (never called: their models and prices only).
    pub llm: &'a dyn LlmClient,
    /// Critic loops per question: epochs (`--repeat`) times drafts (`--consensus`).
    pub loops: (u32, u32),
    /// The run's spending limits.
    pub budget: Budget,
}

impl DryRun<'_> {
    /// The dataset `question` is asked about.
    fn dataset_of(&self, question: &Question) -> &Dataset {
        self.datasets.and_then(|datasets| datasets.of(question)).map_or(self.dataset, |dataset| dataset.as_ref())
    }

    /// Add `calls` calls of `role` with `prompt` and `completion` tokens each, at the low or high end.
    fn add(&self, tally: &mut Tally, role: LlmRole, high: bool, calls: u64, tokens: (u64, u64)) {
        let served = serving(self.llm, role);
        let largest = tally.largest.entry(role).or_default();
        *largest = (*largest).max(tokens.0 + tokens.1);
        let largest_prompt = tally.largest_prompt.entry(role).or_default();
        *largest_prompt = (*largest_prompt).max(tokens.0);
        let share = tally.shares.entry(format!("{}/{}", served.provider(), served.model())).or_default();
        let usage =
            TokenUsage { prompt_tokens: calls * tokens.0, completion_tokens: calls * tokens.1, ..Default::default() };
        let cost = served.cost_usd(usage);
        if let Some(batched) = served.batch_cost_usd(usage) {
            let batch = share.batch_cost.get_or_insert_default();
            if high { batch.1 += batched } else { batch.0 += batched }
        }
        let pick = |pair: &mut (u64, u64), n: u64| if high { pair.1 += n } else { pair.0 += n };
        pick(&mut share.calls, calls);
        pick(&mut share.prompt, usage.prompt_tokens);
        pick(&mut share.completion, usage.completion_tokens);
        if high { share.cost.1 += cost } else { share.cost.0 += cost }
    }

    /// Print the estimate of a run over `questions` (given), or over the
    /// configured number of generated ones.
    pub fn print(&self, questions: Option<&[Question]>) -> anyhow::Result<ExitCode> {
        let mut tally = Tally::default();
        let stand_in = [Question::new("q", TYPICAL_QUESTION, 1, DifficultyLevel::Medium)];
        let (asked, count) = match questions {
            Some(questions) => (questions, questions.len() as u64),
            None => (&stand_in[..], u64::from(self.config.questions)),
        };
        if questions.is_none() {
            let prompt = estimate_tokens(&self.prompts.question_generation(self.dataset, self.config.questions));
            for high in [false, true] {
                let tokens = (prompt, QUESTION_REPLY_TOKENS * count);
                self.add(&mut tally, LlmRole::QuestionGeneration, high, 1, tokens);
            }
        }
        let iterations = u64::from(self.config.max_iterations);
        let empty = GeneratedDag {
            question_id: Default::default(),
            description: String::new(),
            nodes: Vec::new(),
            edges: Vec::new(),
            final_answer_node: Default::default(),
        };
        let (epochs, drafts) = (u64::from(self.loops.0.max(1)), u64::from(self.loops.1.max(1)));
        for question in asked {
            let times = if questions.is_some() { 1 } else { count } * epochs * drafts;
            let dataset = self.dataset_of(question);
            let build = estimate_tokens(&self.prompts.dag_build(dataset, question, 1, None));
            let review =
                estimate_tokens(&self.prompts.layer_review(dataset, question, &empty, 1, &ExecutionResult::default()))
                    + BUILD_REPLY_TOKENS;
            // A rebuild also shows the rejected DAG and every layer's feedback.
            let rebuild = build + BUILD_REPLY_TOKENS + LAYERS.1 * REVIEW_REPLY_TOKENS;
            self.add(&mut tally, LlmRole::DagBuild, false, times, (build, BUILD_REPLY_TOKENS));
            self.add(&mut tally, LlmRole::LayerReview, false, times * LAYERS.0, (review, REVIEW_REPLY_TOKENS));
            self.add(&mut tally, LlmRole::DagBuild, true, times, (build, BUILD_REPLY_TOKENS));
            self.add(&mut tally, LlmRole::DagBuild, true, times * (iterations - 1), (rebuild, BUILD_REPLY_TOKENS));
            let reviews = times * iterations * LAYERS.1;
            self.add(&mut tally, LlmRole::LayerReview, true, reviews, (review, REVIEW_REPLY_TOKENS));
        }
        let source = if questions.is_some() { "given" } else { "to generate" };
        let loops = match (epochs, drafts) {
            (1, 1) => String::new(),
            (1, k) => format!(", {k} drafts each"),
            (r, 1) => format!(", {r} epochs each"),
            (r, k) => format!(", {r} epochs of {k} drafts each"),
        };
        say!(
            "dry run: {count} questions ({source}){loops}, up to {iterations} iterations each, {} to {} layers \
             reviewed per iteration; no model was called",
            LAYERS.0,
            LAYERS.1
        );
        let range = |(low, high): (u64, u64)| format!("{low}–{high}");
        let mut total = Share::default();
        for (model, share) in &tally.shares {
            say!(
                "{model}: calls {}, prompt tokens {}, completion tokens {}, cost {}",
                range(share.calls),
                range(share.prompt),
                range(share.completion),
                share.costs()
            );
            for (sum, part) in [
                (&mut total.calls, share.calls),
                (&mut total.prompt, share.prompt),
                (&mut total.completion, share.completion),
            ] {
                *sum = (sum.0 + part.0, sum.1 + part.1);
            }
            total.cost = (total.cost.0 + share.cost.0, total.cost.1 + share.cost.1);
            if let Some(batch) = share.batch_cost {
                let sum = total.batch_cost.get_or_insert_default();
                *sum = (sum.0 + batch.0, sum.1 + batch.1);
            }
        }
        say!(
            "total: calls {}, prompt tokens {}, completion tokens {}, cost {}",
            range(total.calls),
            range(total.prompt),
            range(total.completion),
            total.costs()
        );
        for line in budget_lines(self.budget, &total) {
            say!("{line}");
        }
        if let Some(line) = tally.largest_prompt_line() {
            say!("{line}");
        }
        for (&role, &tokens) in &tally.largest {
            if let Some(line) = self.unfitting(role, tokens) {
                say!("warning: the largest {line}");
            }
        }
        say!(
            "tokens: prompts rendered and counted as bytes/4; replies at typical sizes (build {BUILD_REPLY_TOKENS}, \
             layer review {REVIEW_REPLY_TOKENS}); judge calls not counted"
        );
        Ok(ExitCode::SUCCESS)
    }
}

impl DryRun<'_> {
    /// What is wrong when a call of `role` of `tokens` (prompt and reply) does
    /// not fit the context window of the role's model (unknown windows fit).
    fn unfitting(&self, role: LlmRole, tokens: u64) -> Option<String> {
        let served = serving(self.llm, role);
        let context = served.context_tokens().filter(|&context| tokens > context)?;
        Some(format!(
            "{} call of about {tokens} tokens (prompt and reply) does not fit {}'s context of {context} tokens: lower \
             --schema-budget or give the role a model with a larger context",
            role.label(),
            served.model()
        ))
    }

    /// Refuse, in one line, a run whose smallest question-generation or DAG
    /// build call (prompt and reply) cannot fit its model's context: every such
    /// call would fail.
    pub fn refuse_unfitting(&self, questions: Option<&[Question]>) -> anyhow::Result<()> {
        let mut smallest = Vec::new();
        if questions.is_none() {
            let prompt = estimate_tokens(&self.prompts.question_generation(self.dataset, self.config.questions));
            smallest.push((LlmRole::QuestionGeneration, prompt + QUESTION_REPLY_TOKENS));
        }
        let stand_in = [Question::new("q", TYPICAL_QUESTION, 1, DifficultyLevel::Medium)];
        let builds = questions
            .unwrap_or(&stand_in)
            .iter()
            .map(|question| estimate_tokens(&self.prompts.dag_build(self.dataset_of(question), question, 1, None)));
        smallest.extend(builds.min().map(|prompt| (LlmRole::DagBuild, prompt + BUILD_REPLY_TOKENS)));
        match smallest.into_iter().find_map(|(role, tokens)| self.unfitting(role, tokens)) {
            Some(line) => anyhow::bail!("the smallest {line}"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_is_set_against_each_limit_of_the_budget() {
        let total = Share { prompt: (100, 900), completion: (50, 300), cost: (0.5, 3.0), ..Share::default() };
        let budget = Budget { max_cost_usd: Some(1.0), max_tokens: Some(100), per_question_usd: None };
        assert_eq!(
            budget_lines(budget, &total),
            [
                "budget: --max-cost $1: the high estimate exceeds it",
                "budget: --max-tokens 100: even the low estimate exceeds it"
            ]
        );
        let roomy = Budget { max_cost_usd: Some(5.0), ..Budget::default() };
        assert_eq!(budget_lines(roomy, &total), ["budget: --max-cost $5: the estimate stays within it"]);
        assert!(budget_lines(Budget::default(), &total).is_empty(), "no budget, no line");
    }
}
