//! The conversation log of one question: every LLM call of every attempt and
//! iteration in order — what it was for, tokens and latency, the prompt and
//! the response (streamed text while the call runs) — with the critic's
//! verdict after each iteration. Collapsed, a prompt shows only what changed
//! since the previous call of the same kind (a rebuild's new part is the
//! rejected DAG and the feedback) and long texts are cut; expanded, all of it.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::domain::{FinishReason, epoch_draft_prefix};
use crate::run::conversation::{Entry, call_label, changed_lines, entries, generation_entries, user_prompt};
use crate::run::{Attempt, Iteration, LlmCall, QuestionState, RunState};
use crate::text::{plural, preview};
use crate::tui::text::{clean, clean_spans};
use crate::tui::theme::{Ink, Theme};
use crate::tui::widgets::code_view::source_color;

/// Lines of a prompt or response shown when collapsed.
const PREVIEW_LINES: usize = 8;

/// The log as lines, with where each iteration starts.
pub struct Conversation {
    /// Every line, top to bottom.
    pub lines: Vec<Line<'static>>,
    /// Index of the first line of each iteration, in the order of
    /// [`Selection::iterations`](crate::tui::selection::Selection::iterations).
    pub anchors: Vec<usize>,
}

struct Builder<'a> {
    theme: &'a Theme,
    expanded: bool,
    lines: Vec<Line<'static>>,
}

impl Builder<'_> {
    /// One line; prompts, replies and findings are model text, cleaned here.
    fn push(&mut self, spans: Vec<Span<'static>>) {
        self.lines.push(Line::from(clean_spans(spans)));
    }

    fn text(&mut self, text: impl Into<String>, style: Style) {
        self.push(vec![Span::styled(text.into(), style)]);
    }

    /// `body` under a `│` rule, cut to `PREVIEW_LINES` unless expanded.
    fn quoted<'t>(&mut self, body: impl IntoIterator<Item = Option<&'t str>>, tail: bool) {
        let body: Vec<Option<&str>> = body.into_iter().collect();
        let keep = if self.expanded { body.len() } else { PREVIEW_LINES.min(body.len()) };
        let hidden = body.len() - keep;
        let shown = if tail { &body[hidden..] } else { &body[..keep] };
        let rule = Span::styled("  │ ", self.theme.fg(Ink::Border));
        if tail && hidden > 0 {
            self.push(vec![rule.clone(), Span::styled(format!("⋯ {hidden} earlier lines"), self.theme.fg(Ink::Muted))]);
        }
        for line in shown {
            let span = match line {
                Some(text) => Span::styled(text.to_string(), self.theme.fg(Ink::Text)),
                None => Span::styled("⋯", self.theme.fg(Ink::Muted)),
            };
            self.push(vec![rule.clone(), span]);
        }
        if !tail && hidden > 0 {
            let note = format!("⋯ {} more (e shows everything)", plural(hidden, "line"));
            self.push(vec![rule, Span::styled(note, self.theme.fg(Ink::Muted))]);
        }
    }

    fn call(&mut self, call: &LlmCall, previous: Option<&LlmCall>) {
        self.call_line(call);
        self.prompt_and_reply(call, previous);
    }

    fn call_line(&mut self, call: &LlmCall) {
        let t = self.theme;
        let status = match (&call.error, call.finished) {
            (Some(_), _) => Span::styled(" failed", t.fg(Ink::StatusFailed)),
            (None, true) => Span::styled(
                format!(
                    " {}{} tokens ({} in, {} out){} · {} ms{}{}",
                    if call.estimated { "~" } else { "" },
                    call.usage.total(),
                    call.usage.prompt_tokens,
                    call.usage.completion_tokens,
                    if call.cost_usd > 0.0 { format!(" ${:.4}", call.cost_usd) } else { String::new() },
                    call.latency_ms,
                    if call.retries > 0 {
                        format!(" · {}", plural(call.retries as usize, "retry"))
                    } else {
                        String::new()
                    },
                    call_notes(call)
                ),
                t.fg(Ink::Muted),
            ),
            (None, false) => match &call.batch_id {
                Some(batch) => Span::styled(format!(" waiting in batch {}", clean(&batch.0)), t.fg(Ink::StatusWorking)),
                None => Span::styled(" streaming…", t.fg(Ink::StatusWorking)),
            },
        };
        self.push(vec![
            Span::styled(format!("▸ {}", call_label(call)), t.fg(Ink::Accent).add_modifier(Modifier::BOLD)),
            Span::styled(format!(" · {} ·", call.model), t.fg(Ink::Muted)),
            status,
        ]);
    }

    fn prompt_and_reply(&mut self, call: &LlmCall, previous: Option<&LlmCall>) {
        let t = self.theme;
        let counts: Vec<String> = call.messages.iter().map(|m| m.text().lines().count().to_string()).collect();
        let size = format!("{} lines", counts.join(" + "));
        let user = user_prompt(call);
        let before = previous.and_then(user_prompt);
        match (self.expanded, user, before) {
            (true, _, _) => {
                self.text(format!("  prompt ({size})"), t.fg(Ink::Muted));
                for message in call.messages.iter() {
                    self.text(format!("  {}:", message.role), t.fg(Ink::Muted));
                    self.quoted(message.text().lines().map(Some), false);
                }
            }
            (false, Some(user), Some(before)) => {
                let changes = changed_lines(&before, &user);
                let what = if changes.is_empty() { "same as" } else { "changes since" };
                self.text(format!("  prompt ({size}), {what} the last {}:", call_label(call)), t.fg(Ink::Muted));
                self.quoted(changes, false);
            }
            (false, Some(user), None) => {
                self.text(format!("  prompt ({size}), user message:"), t.fg(Ink::Muted));
                self.quoted(user.lines().map(Some), false);
            }
            (false, None, _) => self.text(format!("  prompt ({size})"), t.fg(Ink::Muted)),
        }
        if let Some(error) = &call.error {
            self.text(format!("  ✗ {error}"), t.fg(Ink::StatusFailed));
        }
        if !call.response.is_empty() || call.finished && call.error.is_none() {
            self.text(if call.finished { "  response:" } else { "  response so far:" }, t.fg(Ink::Muted));
            self.quoted(call.response.lines().map(Some), !call.finished);
        }
    }

    fn verdict(&mut self, it: &Iteration) {
        let t = self.theme;
        let Some(feedback) = &it.feedback else {
            let stage = it.stages.last().map_or("waiting", |s| s.stage.label());
            self.text(format!("… no verdict yet ({stage})"), t.fg(Ink::StatusWorking));
            return;
        };
        if feedback.is_approved {
            self.text(
                format!("✓ iteration {} approved", it.number),
                t.fg(Ink::StatusApproved).add_modifier(Modifier::BOLD),
            );
            return;
        }
        let count = plural(feedback.findings.len(), "finding");
        self.text(
            format!("✗ iteration {} rejected: {count}", it.number),
            t.fg(Ink::StatusRejected).add_modifier(Modifier::BOLD),
        );
        for finding in &feedback.findings {
            self.push(vec![
                Span::styled(format!("  [{}] ", finding.source.label()), t.fg(source_color(finding.source))),
                Span::styled(
                    format!("{} {}: ", finding.node_id.as_deref().unwrap_or("DAG"), finding.rule),
                    t.fg(Ink::Text),
                ),
                Span::styled(finding.message.lines().next().unwrap_or_default().to_string(), t.fg(Ink::Muted)),
            ]);
        }
        if feedback.findings.is_empty() && !feedback.overall_reasoning.is_empty() {
            self.text(format!("  {}", feedback.overall_reasoning), t.fg(Ink::Muted));
        }
    }

    fn outcome(&mut self, attempt: &Attempt) {
        let t = self.theme;
        let Some(outcome) = attempt.outcome else { return };
        let detail = match (&attempt.final_answer, &attempt.reason) {
            (Some(answer), _) => format!(" → {}", preview(answer, 80)),
            (None, Some(reason)) => format!(": {reason}"),
            _ => String::new(),
        };
        let style = if attempt.final_answer.is_some() { t.fg(Ink::StatusPassed) } else { t.fg(Ink::StatusFailed) };
        self.text(
            format!(
                "■ {}attempt {} {}{detail}",
                epoch_draft_prefix(attempt.epoch, attempt.draft),
                attempt.number,
                outcome.label()
            ),
            style.add_modifier(Modifier::BOLD),
        );
    }
}

/// The conversation of `question`, with the iteration at `selected` (index
/// over all attempts' iterations) marked; whole texts when `expanded`.
pub fn build(
    state: &RunState,
    question: &QuestionState,
    selected: usize,
    expanded: bool,
    theme: &Theme,
) -> Conversation {
    let mut b = Builder { theme, expanded, lines: Vec::new() };
    let mut anchors = Vec::new();
    for entry in generation_entries(state).into_iter().chain(entries(state, question)) {
        match entry {
            Entry::Call { call, previous } => b.call(call, previous),
            Entry::Iteration { attempt, iteration: it } => {
                let marked = anchors.len() == selected;
                anchors.push(b.lines.len());
                let place = epoch_draft_prefix(attempt.epoch, attempt.draft);
                let mut title = format!("━━ {place}attempt {} · iteration {} ", attempt.number, it.number);
                if let (Some(from), 1) = (attempt.forked_from, it.number) {
                    let how = if attempt.by_hand { "by hand, from" } else { "forked from" };
                    title.push_str(&format!("({how} {}) ", from.label()));
                }
                let style = if marked { theme.selected() } else { theme.fg(Ink::Accent) };
                let fill = "━".repeat(80usize.saturating_sub(title.chars().count()));
                b.text(format!("{title}{fill}"), style.add_modifier(Modifier::BOLD));
            }
            Entry::Verdict(it) => b.verdict(it),
            Entry::Outcome(attempt) => b.outcome(attempt),
            Entry::Grading(attempt) => b.text(
                format!("━━ {}attempt {} · grading ", epoch_draft_prefix(attempt.epoch, attempt.draft), attempt.number),
                theme.fg(Ink::Accent).add_modifier(Modifier::BOLD),
            ),
        }
    }
    if anchors.is_empty() {
        b.text("no LLM call for this question yet", theme.fg(Ink::Muted));
    }
    Conversation { lines: b.lines, anchors }
}

/// What else a finished call's line says: served from the response cache, or
/// a reply that did not end as a finished one (cut off, withheld).
fn call_notes(call: &LlmCall) -> String {
    let mut notes = String::new();
    if call.from_cache {
        notes.push_str(" · from cache");
    }
    if let Some(batch) = &call.batch_id {
        notes.push_str(&format!(" · batch {}", clean(&batch.0)));
    }
    if call.estimated {
        notes.push_str(" · tokens estimated");
    }
    match &call.finish_reason {
        Some(FinishReason::Length) => notes.push_str(" · cut off at the token limit"),
        Some(FinishReason::ContentFilter) => notes.push_str(" · withheld by the provider"),
        Some(FinishReason::Other(reason)) => notes.push_str(&format!(" · stopped: {reason}")),
        Some(FinishReason::Stop | FinishReason::ToolCalls) | None => {}
    }
    notes
}
