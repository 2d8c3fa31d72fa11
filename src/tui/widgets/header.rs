//! The header: dataset, provider and model (or, when roles are played by
//! different models, each model with its roles, tokens and cost), elapsed time, tokens and cost,
//! counts by status, and the paused / replay indicator; for a comparison, the
//! two runs and the counts of each change; for several runs, the baseline and
//! the counts of regressions, disagreements and questions some run lacks.

use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::domain::LlmRole;
use crate::report::{AnswerSpread, role_usage};
use crate::run::{Outcome, Players, QuestionStatus, RunSettings, RunState};
use crate::text::{duration, plural};
use crate::tui::comparison::{CHANGES, Comparison};
use crate::tui::component::Ctx;
use crate::tui::keymap::Screen;
use crate::tui::replay::Replay;
use crate::tui::runs_matrix::RunsMatrix;
use crate::tui::screens::compare_detail::change_style;
use crate::tui::screens::dashboard::Dashboard;
use crate::tui::screens::matrix::{MatrixScreen, agreement_style};
use crate::tui::text::clean;
use crate::tui::theme::Ink;

fn message_line(ctx: &Ctx, otherwise: String) -> Line<'static> {
    match ctx.message {
        Some(message) => Line::from(Span::styled(format!(" {}", clean(message)), ctx.theme.fg(Ink::FeedControl))),
        None => Line::from(Span::styled(otherwise, ctx.theme.fg(Ink::Muted))),
    }
}

fn comparison(frame: &mut Frame, area: Rect, ctx: &Ctx, comparison: &Comparison) {
    let t = ctx.theme;
    let ([a, b], [a_label, b_label]) = (&comparison.names, &comparison.labels);
    let first = Line::from(vec![
        Span::styled(" eval-dag compare ", t.fg(Ink::Accent).add_modifier(Modifier::BOLD)),
        Span::styled(clean(&format!("{a_label}: {a}  →  {b_label}: {b}")).into_owned(), t.fg(Ink::Text)),
    ]);
    let mut second = vec![Span::styled(format!(" {}", plural(comparison.rows.len(), "question")), t.fg(Ink::Text))];
    for change in CHANGES.into_iter().filter(|c| comparison.count(*c) > 0) {
        second.push(Span::styled(" · ", t.fg(Ink::Muted)));
        second.push(Span::styled(format!("{} {}", comparison.count(change), change.label()), change_style(t, change)));
    }
    let showing = comparison.filter.map_or("all changes".into(), |c| format!("{} only", c.label()));
    let third = message_line(ctx, format!(" showing: {showing}"));
    frame.render_widget(Paragraph::new(vec![first, Line::from(second), third]), area);
}

fn matrix(frame: &mut Frame, area: Rect, ctx: &Ctx, view: &RunsMatrix) {
    let t = ctx.theme;
    let matrix = &view.matrix;
    let first = Line::from(vec![
        Span::styled(" eval-dag compare ", t.fg(Ink::Accent).add_modifier(Modifier::BOLD)),
        Span::styled(
            clean(&format!("{} runs · baseline A: {}", matrix.runs.len(), matrix.runs.first().map_or("", |r| &r.name)))
                .into_owned(),
            t.fg(Ink::Text),
        ),
    ]);
    let mut second = vec![Span::styled(format!(" {}", plural(matrix.questions.len(), "question")), t.fg(Ink::Text))];
    for agreement in [AnswerSpread::Regression, AnswerSpread::Disagree, AnswerSpread::Partial, AnswerSpread::Agree] {
        let count = matrix.count(agreement);
        if count > 0 {
            second.push(Span::styled(" · ", t.fg(Ink::Muted)));
            second.push(Span::styled(format!("{count} {}", agreement.label()), agreement_style(t, agreement)));
        }
    }
    let against = matrix.runs.get(view.column).map_or("—", |r| r.label.as_str());
    let third = message_line(ctx, format!(" Enter: A and {against} side by side · ←/→ another run"));
    frame.render_widget(Paragraph::new(vec![first, Line::from(second), third]), area);
}

/// While playback waits a second or more for the next event: how long, and
/// whether the recorded gap was shortened.
fn waiting(now: Instant, replay: &Replay) -> Option<String> {
    let left = replay.deadline()?.saturating_duration_since(now);
    if left < Duration::from_secs(1) {
        return None;
    }
    let recorded = replay.recorded_gap().unwrap_or_default();
    let shortened = match replay.max_gap {
        Some(cap) if recorded.div_f64(replay.speed) > cap => {
            format!(", a recorded gap of {} shortened to {}", seconds(recorded), seconds(cap))
        }
        _ => String::new(),
    };
    Some(format!(" waiting for the next event ({} left{shortened}) · . jumps to it", seconds(left)))
}

/// A duration for people, in whole seconds rounded up (`38 s`, `1m05s`).
fn seconds(duration: Duration) -> String {
    let s = duration.as_secs_f64().ceil() as u64;
    if s < 60 { format!("{s} s") } else { crate::text::duration(s * 1000) }
}

/// Who played which role when not one model played them all, compactly: the
/// roles each played, named by model (and provider and server when they
/// differ), with their tokens and cost so far
/// (`builder builder-m 1.2k · critic critic-m 3.4k $0.0120`).
fn roles(settings: &RunSettings, state: &RunState) -> Option<String> {
    let players = Players::of(settings);
    if !players.differ() {
        return None;
    }
    let used = role_usage(state);
    let parts: Vec<String> = players
        .groups()
        .into_iter()
        .map(|(mut part, roles)| {
            let of = || roles.iter().filter_map(|r| used.get(r));
            let tokens: u64 = of().map(|u| u.prompt_tokens + u.completion_tokens).sum();
            let cost: f64 = of().map(|u| u.cost_usd).sum();
            if tokens > 0 {
                part.push_str(&format!(" {:.1}k", tokens as f64 / 1000.0));
            }
            if cost > 0.0 {
                part.push_str(&format!(" ${cost:.4}"));
            }
            part
        })
        .collect();
    Some(parts.join(" · "))
}

/// The third line: a replay's wait, the filter being typed, else what the
/// dashboard shows (or the status line's message).
fn status_line(ctx: &Ctx) -> Line<'static> {
    let t = ctx.theme;
    if let Some(wait) = ctx.replay.and_then(|replay| waiting(ctx.now, replay)) {
        message_line(ctx, wait)
    } else if let Some(dashboard) = ctx.find::<Dashboard>().filter(|d| d.editing_filter) {
        Line::from(Span::styled(format!(" filter: {}▏ (enter to apply)", clean(&dashboard.filter)), t.fg(Ink::Accent)))
    } else {
        let default = Dashboard::default();
        let dashboard = ctx.find::<Dashboard>().unwrap_or(&default);
        let filter =
            if dashboard.filter.is_empty() { String::new() } else { format!("  filter: {:?}", dashboard.filter) };
        let questions = dashboard.questions.as_ref().map_or(String::new(), |set| {
            let key = ctx.key_label(crate::tui::Action::ClearQuestions);
            let again = key.map_or(String::new(), |key| format!(" · {key} shows all"));
            format!("  questions: {} ({}){again}", clean(&set.label), set.ids.len())
        });
        message_line(
            ctx,
            format!(
                " showing: {}  sort: {}{filter}{questions}",
                dashboard.status_filter.label(),
                dashboard.sort.label()
            ),
        )
    }
}

/// The review screen's header: the run, the reviewer, the progress.
fn review(frame: &mut Frame, area: Rect, ctx: &Ctx, queue: &crate::tui::ReviewQueue) {
    let t = ctx.theme;
    let (reviewed, skipped, total) = queue.progress();
    let first = Line::from(vec![
        Span::styled(" eval-dag review ", t.fg(Ink::Accent).add_modifier(Modifier::BOLD)),
        Span::styled(
            clean(&format!("{} · reviewer {}", queue.run_dir.display(), queue.reviewer)).into_owned(),
            t.fg(Ink::Text),
        ),
    ]);
    let skipped = if skipped > 0 { format!(" · {skipped} skipped") } else { String::new() };
    let second = Line::from(format!(" {reviewed} / {total}{skipped}"));
    let third = message_line(ctx, " blind: the critic, grades and other reviews show after your verdict".into());
    frame.render_widget(Paragraph::new(vec![first, second, third]), area);
}

/// The pairwise review screen's header: the reviewer and the progress, the runs' names hidden.
fn pair_review(frame: &mut Frame, area: Rect, ctx: &Ctx, queue: &crate::tui::PairQueue) {
    let t = ctx.theme;
    let first = Line::from(vec![
        Span::styled(" eval-dag review ", t.fg(Ink::Accent).add_modifier(Modifier::BOLD)),
        Span::styled(format!("side by side · reviewer {}", queue.reviewer), t.fg(Ink::Text)),
    ]);
    let second = Line::from(format!(" {} / {}", queue.mine.len(), queue.items.len()));
    let third = message_line(ctx, " blind: which run is on which side is drawn per question".into());
    frame.render_widget(Paragraph::new(vec![first, second, third]), area);
}

/// Draw the header into `area` (3 lines).
pub fn draw(frame: &mut Frame, area: Rect, ctx: &Ctx) {
    let t = ctx.theme;
    if let (Screen::Matrix, Some(screen)) = (ctx.screen, ctx.find::<MatrixScreen>()) {
        return matrix(frame, area, ctx, &screen.runs);
    }
    if let (Screen::Review, Some(screen)) = (ctx.screen, ctx.find::<crate::tui::screens::review::ReviewScreen>()) {
        return review(frame, area, ctx, &screen.queue);
    }
    if let (Screen::PairReview, Some(screen)) =
        (ctx.screen, ctx.find::<crate::tui::screens::pair_review::PairReviewScreen>())
    {
        return pair_review(frame, area, ctx, &screen.queue);
    }
    if let Some(c) = ctx.comparison() {
        comparison(frame, area, ctx, c);
        return;
    }
    let state = ctx.state;
    let (dataset, provider, model) = state
        .settings
        .as_ref()
        .map_or(("".into(), "", ""), |s| (s.dataset_dir.to_string_lossy(), s.provider.name(), s.model.as_str()));
    let models = state.settings.as_ref().and_then(|s| roles(s, state)).unwrap_or(format!("{provider}/{model}"));
    let budget = state.settings.as_ref().and_then(|s| s.budget).unwrap_or_default();
    let max_tokens = budget.max_tokens.map_or(String::new(), |max| format!(" / {max}"));
    let mut first = vec![
        Span::styled(" eval-dag ", t.fg(Ink::Accent).add_modifier(Modifier::BOLD)),
        Span::styled(format!("{}  ", clean(&dataset)), t.fg(Ink::Text)),
        Span::styled(format!("{}  ", clean(&models)), t.fg(Ink::Muted)),
        Span::styled(format!("⏱ {}  ", crate::text::duration(state.now_ms)), t.fg(Ink::Text)),
        Span::styled(
            format!("{}{}{max_tokens} tokens", if state.tokens_estimated { "~" } else { "" }, state.usage.total()),
            t.fg(Ink::Text),
        ),
    ];
    if state.cache_hits > 0 {
        let text = format!("  cache {}/{}", state.cache_hits, state.calls_finished);
        first.push(Span::styled(text, t.fg(Ink::Muted)));
    }
    if let Some(rate) = state.usage.cache_hit_rate().filter(|_| state.usage.cached_tokens > 0) {
        first.push(Span::styled(format!(" ({:.0}% cached)", 100.0 * rate), t.fg(Ink::Muted)));
    }
    if let Some(text) = batches_text(state) {
        first.push(Span::styled(text, t.fg(Ink::Muted)));
    }
    if state.cost_usd > 0.0 || budget.max_cost_usd.is_some() {
        let max_cost = budget.max_cost_usd.map_or(String::new(), |max| format!(" / ${max:.2}"));
        first.push(Span::styled(format!("  ${:.4}{max_cost}", state.cost_usd), t.fg(Ink::Text)));
    }
    let mut second = Vec::new();
    let bold = t.fg(Ink::FeedControl).add_modifier(Modifier::BOLD);
    if let Some(replay) = ctx.replay {
        let mark = if replay.playing() { "▶" } else { "⏸" };
        let text = format!(" REPLAY {mark} {}/{} ×{} ", replay.position, replay.len(), replay.speed);
        second.push(Span::styled(text, bold));
        if let Some(progress) = replay.loading_progress() {
            second.push(Span::styled(format!(" loading {:.0} % ", 100.0 * progress), t.fg(Ink::Muted)));
        }
    } else if let Some(dir) = ctx.recording {
        // A replay turned live: where its new work is recorded.
        second.push(Span::styled(clean(&format!(" DERIVED → {} ", dir.display())).into_owned(), bold));
    }
    if ctx.replay.is_some() {
        // Playback state says it all.
    } else if state.paused {
        second.push(Span::styled(" PAUSED (n step, p resume) ", bold));
    } else if state.summary.is_some() {
        second.push(Span::styled(" finished ", t.fg(Ink::Muted)));
    }
    if let Some(shard) = state.settings.as_ref().and_then(|s| s.shard.as_ref()) {
        second.push(Span::styled(format!(" shard {shard} "), bold));
    }
    // The engine, when not the default, and the differential check.
    if let Some(settings) = state.settings.as_ref().filter(|s| !s.engine.is_default() || s.differential) {
        let check = if settings.differential { " ≠ checked on both" } else { "" };
        second.push(Span::styled(format!(" {}{check} ", settings.engine), t.fg(Ink::Muted)));
    }
    match generating(state) {
        Some(text) => second.push(Span::styled(text, t.fg(Ink::StatusWorking))),
        None => second.push(Span::styled(format!(" {}", plural(state.questions.len(), "question")), t.fg(Ink::Text))),
    }
    let done = |outcome: Outcome| state.count(|s| s == QuestionStatus::Done(outcome));
    let groups = [
        ("passed", done(Outcome::Passed), Ink::StatusPassed),
        ("failed", done(Outcome::Failed), Ink::StatusFailed),
        ("exhausted", done(Outcome::Exhausted), Ink::StatusExhausted),
        ("cancelled", done(Outcome::Cancelled), Ink::StatusCancelled),
        ("stopped by budget", done(Outcome::Budget), Ink::StatusCancelled),
        ("fixed by hand", done(Outcome::FixedByHand), Ink::Accent),
        ("working", state.count(QuestionStatus::is_active), Ink::StatusWorking),
        ("queued", state.count(|s| s == QuestionStatus::Queued), Ink::StatusQueued),
    ];
    // Only the groups that have questions: the line fits 80 columns.
    for (label, n, color) in groups.into_iter().filter(|(_, n, _)| *n > 0) {
        second.push(Span::styled(" · ", t.fg(Ink::Muted)));
        second.push(Span::styled(format!("{n} {label}"), t.fg(color)));
    }
    let third = status_line(ctx);
    frame.render_widget(Paragraph::new(vec![Line::from(first), Line::from(second), third]), area);
}

/// Before the question list arrives, what the run is doing: the question
/// generator's call in flight (its model and what it has streamed), else
/// that the run is starting. `None` once there are questions or the run ended.
fn generating(state: &RunState) -> Option<String> {
    if !state.questions.is_empty() || state.summary.is_some() || state.failure.is_some() {
        return None;
    }
    // Before the list arrives only the generator's calls exist: the newest is the one in flight.
    let call = state.calls.values().rev().find(|c| c.key.role == LlmRole::QuestionGeneration && !c.finished);
    Some(match call {
        None => " starting: the questions come first…".to_string(),
        Some(call) if call.response.is_empty() => format!(" generating questions with {}…", clean(&call.model)),
        Some(call) => format!(
            " generating questions with {}… {} characters so far",
            clean(&call.model),
            crate::text::thousands(call.response.chars().count() as u64)
        ),
    })
}

/// The run's provider batches, when it has some: the newest still open — its
/// number, its calls done of all and how long it has been out (`batch 3 ·
/// 117/240 done · 6m05s`, with how many others are open) — else how many there
/// were, all ended.
fn batches_text(state: &RunState) -> Option<String> {
    if state.batches.is_empty() {
        return None;
    }
    // The reducer counts the open batches and each one's waiting calls: no walk over the calls per frame.
    let open = state.batches_open();
    let newest = (open > 0).then(|| state.batches.values().enumerate().rev().find(|(_, batch)| batch.ended.is_none()));
    let Some((index, batch)) = newest.flatten() else {
        return Some(format!("  batches {} · all ended", state.batches.len()));
    };
    let age = duration(state.now_ms.saturating_sub(batch.submitted_ms));
    let others = if open > 1 { format!(" (+{} open)", open - 1) } else { String::new() };
    let done = batch.calls.len().saturating_sub(batch.waiting);
    Some(format!("  batch {} · {done}/{} done · {age}{others}", index + 1, batch.calls.len()))
}
