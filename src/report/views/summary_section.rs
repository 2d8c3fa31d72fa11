//! The view of the run at a glance for `templates/summary.html.j2`: cards,
//! where the tokens went, a table and a chart per difficulty, who played each
//! role, the run's settings.

use indexmap::IndexMap;
use serde::Serialize;

use super::bar_chart::BarChart;
use super::run_charts_section::difficulty_chart;
use crate::domain::{Baseline, DifficultyLevel};
use crate::report::analyses::baselines::{baselines_summary, tally_text};
use crate::report::analyses::economy::token_economy;
use crate::report::analyses::roles::role_usage;
use crate::report::analyses::write_results::{dataset_breakdown, level_breakdown};
use crate::report::documents::{BaselineAnswer, LevelBreakdown, TokenEconomy};
use crate::run::{Outcome, QuestionStatus, RunSettings, RunState};
use crate::text::thousands;

/// One card: a figure and what it counts.
#[derive(Debug, Serialize)]
struct Card {
    value: String,
    small: Option<&'static str>,
    label: &'static str,
    class: Option<&'static str>,
}

fn card(value: impl ToString, label: &'static str) -> Card {
    Card { value: value.to_string(), small: None, label, class: None }
}

/// Tokens and cost per question and per passed question, the share of
/// rejected iterations and the prompt cache's use.
#[derive(Debug, Serialize)]
struct EconomyView {
    per_question: String,
    per_passed_question: String,
    rejected_share: String,
    cache_hits: String,
    cached_tokens: String,
    prefix_shared: String,
}

fn economy_view(e: &TokenEconomy) -> EconomyView {
    let share = |rate: Option<f64>| rate.map_or("—".to_string(), |r| format!("{:.0}%", 100.0 * r));
    let per = |tokens: Option<f64>, cost: Option<f64>| match tokens.zip(cost) {
        Some((tokens, cost)) => format!("{} tokens (${cost:.4})", thousands(tokens.round() as u64)),
        None => "—".to_string(),
    };
    EconomyView {
        per_question: per(e.tokens_per_question, e.cost_per_question_usd),
        per_passed_question: per(e.tokens_per_passed_question, e.cost_per_passed_question_usd),
        rejected_share: share(e.rejected_iteration_token_share),
        cache_hits: share(e.cache_hit_rate),
        cached_tokens: thousands(e.cached_tokens),
        prefix_shared: share(e.prompt_prefix_shared),
    }
}

/// One difficulty's (or one dataset's) row.
#[derive(Debug, Serialize)]
struct LevelRow {
    level: String,
    total: usize,
    passed: usize,
    failed: usize,
    unfinished: usize,
    pass_rate: String,
    accuracy: String,
}

/// One role's model, calls, tokens and cost.
#[derive(Debug, Serialize)]
struct RoleRow {
    role: &'static str,
    provider: String,
    model: String,
    calls: usize,
    prompt_tokens: String,
    cached_tokens: String,
    completion_tokens: String,
    cost: String,
}

/// The run's settings as shown.
#[derive(Debug, Serialize)]
struct SettingsView<'a> {
    dataset_dir: std::borrow::Cow<'a, str>,
    dataset_hash: &'a str,
    provider: &'a str,
    model: &'a str,
    questions: u32,
    max_iterations: u32,
    concurrency: u32,
    review_concurrency: String,
    seed: u64,
    /// `3/8` for a shard of a run split with `run --shard`.
    shard: Option<String>,
}

/// One baseline's row beside the loop's (`run --baselines`).
#[derive(Debug, Serialize)]
struct BaselineRow {
    name: &'static str,
    accuracy: String,
}

fn settings_view(settings: &RunSettings) -> SettingsView<'_> {
    SettingsView {
        dataset_dir: settings.dataset_dir.to_string_lossy(),
        dataset_hash: &settings.dataset_hash,
        provider: settings.provider.name(),
        model: &settings.model,
        questions: settings.questions,
        max_iterations: settings.max_iterations,
        concurrency: settings.concurrency,
        review_concurrency: match settings.review_concurrency {
            0 => "all layers".to_string(),
            n => n.to_string(),
        },
        seed: settings.seed,
        shard: settings.shard.as_ref().map(ToString::to_string),
    }
}

/// Each baseline's accuracy over the scored questions (their baselines
/// `answers`), when the run asked for them.
fn baseline_rows(state: &RunState, answers: &[IndexMap<Baseline, BaselineAnswer>]) -> Vec<BaselineRow> {
    let Some(summary) = baselines_summary(state, answers) else { return Vec::new() };
    summary
        .baselines
        .iter()
        .map(|(baseline, tally)| BaselineRow { name: baseline.name(), accuracy: tally_text(tally) })
        .collect()
}

/// Calls sent in providers' batches against live ones, in one line, when any went in a batch.
fn batches_line(state: &RunState) -> Option<String> {
    let batches = crate::report::analyses::write_results::batch_use(state)?;
    Some(format!(
        "{} batched in {} · {} live · batched ${:.4}, live ${:.4}",
        crate::text::plural(batches.batched_calls, "call"),
        if batches.batches == 1 { "1 batch".to_string() } else { format!("{} batches", batches.batches) },
        batches.live_calls,
        batches.batched_cost_usd,
        batches.live_cost_usd
    ))
}

/// The row of `of`, the questions of a difficulty or a dataset named `level`.
fn level_row(level: String, of: &LevelBreakdown) -> LevelRow {
    LevelRow {
        level,
        total: of.total,
        passed: of.passed,
        failed: of.failed,
        unfinished: of.unfinished,
        pass_rate: if of.total == 0 { "—".to_string() } else { format!("{:.0}%", 100.0 * of.pass_rate) },
        accuracy: graded_text(of.grading.graded, of.grading.correct),
    }
}

/// The summary section.
#[derive(Debug, Serialize)]
pub struct SummaryView<'a> {
    cards: Vec<Card>,
    economy: EconomyView,
    levels: Vec<LevelRow>,
    /// Each dataset's row, in a run over several.
    datasets: Vec<LevelRow>,
    roles: Vec<RoleRow>,
    /// Each baseline's accuracy (`run --baselines`).
    baselines: Vec<BaselineRow>,
    /// Batched calls against live ones (`run --batch`).
    batches: Option<String>,
    difficulty_chart: BarChart,
    settings: Option<SettingsView<'a>>,
    failure: Option<&'a str>,
}

/// "NN% (right/graded)", or "—" when none was graded.
pub fn graded_text(graded: usize, right: usize) -> String {
    match graded {
        0 => "—".into(),
        _ => format!("{:.0}% ({right}/{graded})", 100.0 * right as f64 / graded as f64),
    }
}

fn cards(state: &RunState) -> Vec<Card> {
    let total = state.questions.len();
    let count = |o| state.count(|s| s == QuestionStatus::Done(o));
    let passed = count(Outcome::Passed);
    let rate = if total == 0 { 0.0 } else { 100.0 * passed as f64 / total as f64 };
    let mut cards = vec![
        card(format!("{rate:.0}%"), "pass rate"),
        card(format!("{passed}/{total}"), "passed"),
        card(count(Outcome::Failed), "failed"),
        card(count(Outcome::Exhausted), "exhausted"),
    ];
    // Stopped by the user, or by the run's budget: counted apart, and `run --resume` continues them.
    for (outcome, label) in
        [(Outcome::Cancelled, "cancelled (resumable)"), (Outcome::Budget, "stopped by budget (resumable)")]
    {
        if count(outcome) > 0 {
            cards.push(card(count(outcome), label));
        }
    }
    // Answers the user accepted by hand: shown apart, never in the pass rate or accuracy.
    if count(Outcome::FixedByHand) > 0 {
        cards.push(Card {
            class: Some("by-hand"),
            ..card(count(Outcome::FixedByHand), "fixed by hand (not the model's)")
        });
    }
    // Never finished (the run was stopped or killed first): neither passed nor failed.
    let unfinished = state.count(|s| !matches!(s, QuestionStatus::Done(_)));
    if unfinished > 0 {
        cards.push(card(unfinished, "unfinished"));
    }
    let (graded, right) = crate::report::analyses::write_results::graded_tally(&state.questions);
    cards.push(card(graded_text(graded, right), "accuracy (graded)"));
    let estimated = if state.tokens_estimated { "~" } else { "" };
    let tokens = format!("{estimated}{}", thousands(state.usage.total()));
    cards.push(card(tokens, if state.tokens_estimated { "tokens (some estimated)" } else { "tokens" }));
    cards.push(match state.cost_usd == 0.0 && state.usage.total() > 0 {
        true => Card { small: Some("no price for this model"), ..card("—", "estimated cost") },
        false => card(format!("${:.4}", state.cost_usd), "estimated cost"),
    });
    cards
}

/// The summary of `state`, whose questions' baselines are `answers`.
pub fn summary_view<'a>(state: &'a RunState, answers: &[IndexMap<Baseline, BaselineAnswer>]) -> SummaryView<'a> {
    let levels = DifficultyLevel::ALL
        .into_iter()
        .map(|level| level_row(level.as_str().to_string(), &level_breakdown(state, level)))
        .collect();
    let datasets = dataset_breakdown(state).iter().map(|(name, of)| level_row(name.clone(), of)).collect();
    let roles = role_usage(state)
        .into_iter()
        .map(|(role, used)| RoleRow {
            role: role.setting_name(),
            provider: used.provider.to_string(),
            model: used.model,
            calls: used.calls,
            prompt_tokens: thousands(used.prompt_tokens),
            cached_tokens: thousands(used.cached_tokens),
            completion_tokens: thousands(used.completion_tokens),
            cost: format!("${:.4}", used.cost_usd),
        })
        .collect();
    SummaryView {
        cards: cards(state),
        economy: economy_view(&token_economy(state)),
        levels,
        datasets,
        roles,
        baselines: baseline_rows(state, answers),
        batches: batches_line(state),
        difficulty_chart: difficulty_chart(state),
        settings: state.settings.as_ref().map(settings_view),
        failure: state.failure.as_deref(),
    }
}
