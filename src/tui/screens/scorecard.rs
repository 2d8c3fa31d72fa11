//! The critic's scorecard: every verdict of the run set against the graded
//! answer of the iteration it judged — how often the critic approved a wrong
//! answer or sent a right one back, where (difficulty, finding source, rule),
//! what the wrong rejections cost, which iterations it misjudged — and, where
//! a run raised them, how its label-free flags (drafts that disagree, a broken
//! invariant) line up with the same grades.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::scroll_pane;
use crate::report::{
    CriticScorecard, FateCounts, GradedBy, LabelFreeSignal, SignalAgainstLabels, VerdictFate, critic_scorecard,
    label_free_signals,
};
use crate::text::percent;
use crate::tui::component::{Component, Ctx, Handled};
use crate::tui::keymap::Action;
use crate::tui::keymap::Screen;
use crate::tui::scroll::Scroll;
use crate::tui::text::clean;
use crate::tui::theme::Ink;

/// Rows of the "by rule" table shown at most.
const RULES_SHOWN: usize = 12;

/// The header of a breakdown table.
fn breakdown_header(ctx: &Ctx, what: &str) -> Line<'static> {
    let text = format!(
        "{what:<18} {:>6} {:>6} {:>6} {:>6} {:>8} {:>9} {:>9}",
        "✓ appr", "✗ appr", "✓ rej", "✗ rej", "same ans", "no answer", "agreement"
    );
    Line::styled(text, ctx.theme.fg(Ink::Muted).add_modifier(Modifier::BOLD))
}

fn breakdown_row(ctx: &Ctx, name: &str, counts: &FateCounts) -> Line<'static> {
    let t = ctx.theme;
    let wrong = |n: usize| if n > 0 { t.fg(Ink::StatusFailed) } else { t.fg(Ink::Text) };
    Line::from(vec![
        Span::styled(format!("{:<18}", crate::tui::text::fit(&clean(name), 18)), t.fg(Ink::Text)),
        Span::styled(format!(" {:>6}", counts.correct_approvals), t.fg(Ink::Text)),
        Span::styled(format!(" {:>6}", counts.wrong_approvals), wrong(counts.wrong_approvals)),
        Span::styled(format!(" {:>6}", counts.correct_rejections), t.fg(Ink::Text)),
        Span::styled(format!(" {:>6}", counts.wrong_rejections), wrong(counts.wrong_rejections)),
        Span::styled(format!(" {:>8}", counts.answer_neutral_rejections), t.fg(Ink::Text)),
        Span::styled(format!(" {:>9}", counts.rejections_without_answer), t.fg(Ink::Text)),
        Span::styled(format!(" {:>9}", percent(counts.agreement())), t.fg(Ink::Accent)),
    ])
}

/// What a misjudged verdict did, in words.
fn misjudged(fate: VerdictFate) -> Option<&'static str> {
    match fate {
        VerdictFate::WrongApproval => Some("approved a wrong answer"),
        VerdictFate::WrongRejection => Some("rejected a right answer"),
        VerdictFate::NeutralRejection => Some("rejected the answer it approved later"),
        _ => None,
    }
}

/// ` [judged by an LLM]`: how a grade not from an expected answer is marked.
fn marked(graded_by: Option<GradedBy>) -> String {
    graded_by.and_then(GradedBy::mark).map(|mark| format!("  [{mark}]")).unwrap_or_default()
}

/// The label-free flags set against the graded answers (`run --consensus`,
/// `run --metamorphic`), a heading and a row each; nothing when there are none.
fn signal_lines(ctx: &Ctx, signals: &[(LabelFreeSignal, SignalAgainstLabels)]) -> Vec<Line<'static>> {
    if signals.is_empty() {
        return Vec::new();
    }
    let t = ctx.theme;
    let mut lines = vec![
        Line::default(),
        Line::styled("label-free signals against the grades", t.fg(Ink::Accent).add_modifier(Modifier::BOLD)),
        Line::styled(
            format!(
                "{:<18} {:>9} {:>9} {:>11} {:>11} {:>14} {:>14}",
                "signal", "flagged ✓", "flagged ✗", "unflagged ✓", "unflagged ✗", "wrong if flag", "wrong if not"
            ),
            t.fg(Ink::Muted).add_modifier(Modifier::BOLD),
        ),
    ];
    for (signal, counts) in signals {
        lines.push(Line::styled(
            format!(
                "{:<18} {:>9} {:>9} {:>11} {:>11} {:>14} {:>14}",
                signal.label(),
                counts.flagged_right,
                counts.flagged_wrong,
                counts.unflagged_right,
                counts.unflagged_wrong,
                percent(counts.flagged_wrong_rate()),
                percent(counts.unflagged_wrong_rate())
            ),
            t.fg(Ink::Text),
        ));
    }
    lines
}

/// Every line of the screen: the critic's scorecard, with the run's
/// label-free `signals` set against the same grades.
pub fn lines(
    ctx: &Ctx,
    card: &CriticScorecard,
    signals: &[(LabelFreeSignal, SignalAgainstLabels)],
) -> Vec<Line<'static>> {
    let t = ctx.theme;
    let total = &card.total;
    let heading = |text: &str| Line::styled(text.to_string(), t.fg(Ink::Accent).add_modifier(Modifier::BOLD));
    let mut lines = vec![Line::from(vec![
        Span::styled("agreement ", t.fg(Ink::Muted)),
        Span::styled(percent(total.agreement()), t.fg(Ink::Accent).add_modifier(Modifier::BOLD)),
        Span::styled(format!(" of {} graded verdicts", total.graded()), t.fg(Ink::Muted)),
        Span::styled(card.graded_by_note().map(|note| format!(" ({note})")).unwrap_or_default(), t.fg(Ink::Muted)),
    ])];
    // People's verdicts against the critic's, once the run has reviews.
    if let Some(critic) = ctx.people.and_then(super::super::people::People::critic) {
        lines.push(Line::styled(crate::tui::text::clean(critic).into_owned(), t.fg(Ink::Accent)));
    }
    lines.extend([
        Line::default(),
        Line::styled(
            format!("{:<12} {:>8} {:>8} {:>10} {:>10}", "", "right", "wrong", "ungraded", "no answer"),
            t.fg(Ink::Muted),
        ),
        Line::styled(
            format!(
                "{:<12} {:>8} {:>8} {:>10} {:>10}",
                "approved", total.correct_approvals, total.wrong_approvals, total.ungraded_approvals, "—"
            ),
            t.fg(Ink::Text),
        ),
        Line::styled(
            format!(
                "{:<12} {:>8} {:>8} {:>10} {:>10}",
                "rejected",
                total.wrong_rejections,
                total.correct_rejections,
                total.ungraded_rejections + total.answer_neutral_rejections,
                total.rejections_without_answer
            ),
            t.fg(Ink::Text),
        ),
        Line::styled(
            format!("{} rejections kept the answer approved in the end", total.answer_neutral_rejections),
            t.fg(Ink::Muted),
        ),
        Line::styled(
            format!(
                "wrong rejections cost {} more iterations, {} tokens",
                card.wrong_rejection_iterations, card.wrong_rejection_tokens
            ),
            t.fg(Ink::Muted),
        ),
    ]);
    lines.extend(signal_lines(ctx, signals));
    lines.extend([Line::default(), heading("by difficulty"), breakdown_header(ctx, "level")]);
    lines.extend(card.by_difficulty.iter().map(|(level, counts)| breakdown_row(ctx, level, counts)));
    lines.extend([Line::default(), heading("rejections by finding source"), breakdown_header(ctx, "source")]);
    lines.extend(card.by_source.iter().map(|(source, counts)| breakdown_row(ctx, source, counts)));
    lines.extend([Line::default(), heading("rejections by rule"), breakdown_header(ctx, "rule")]);
    let mut rules: Vec<_> = card.by_rule.iter().collect();
    rules.sort_by_key(|(rule, counts)| {
        (std::cmp::Reverse(counts.wrong_rejections), std::cmp::Reverse(counts.graded()), *rule)
    });
    lines.extend(rules.iter().take(RULES_SHOWN).map(|(rule, counts)| breakdown_row(ctx, rule, counts)));
    if rules.len() > RULES_SHOWN {
        lines.push(Line::styled(format!("… {} more rules", rules.len() - RULES_SHOWN), t.fg(Ink::Muted)));
    }
    lines.extend([Line::default(), heading("misjudged iterations")]);
    let wrong: Vec<_> = card.iterations.iter().filter_map(|it| Some((it, misjudged(it.fate)?))).collect();
    if wrong.is_empty() {
        lines.push(Line::styled("none: every graded verdict agrees with the expected answer", t.fg(Ink::Muted)));
    }
    for (it, what) in wrong {
        let why = if it.rules.is_empty() {
            String::new()
        } else {
            format!("  ({})", it.rules.iter().map(|r| r.name()).collect::<Vec<_>>().join(", "))
        };
        let answer = it.answer.as_ref().map(|a| crate::text::preview(a, 30)).unwrap_or_default();
        lines.push(Line::from(vec![
            Span::styled(
                format!("{:<8} a{} it{}  ", clean(&it.question_id), it.attempt, it.iteration),
                t.fg(Ink::Text),
            ),
            Span::styled(what.to_string(), t.fg(Ink::StatusFailed)),
            Span::styled(format!("  → {}{why}{}", clean(&answer), marked(it.graded_by)), t.fg(Ink::Muted)),
        ]));
    }
    lines
}

/// The scorecard screen: whether the critic was right, over the run as it stands.
#[derive(Default)]
pub struct ScorecardScreen {
    /// The card's scroll.
    scroll: Scroll,
    /// The card's lines, worked out when the run changed.
    lines: Vec<Line<'static>>,
}

impl Component for ScorecardScreen {
    fn screen(&self) -> Screen {
        Screen::Scorecard
    }

    fn handle(&mut self, action: Action, _ctx: &Ctx) -> Handled {
        scroll_pane(&mut self.scroll, action)
    }

    fn refresh(&mut self, ctx: &Ctx) {
        if ctx.run_changed {
            self.lines = lines(ctx, &critic_scorecard(ctx.state), &label_free_signals(ctx.state));
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        let first = self.scroll.place(self.lines.len(), || 0);
        let block = Block::default()
            .borders(Borders::ALL)
            .title(" critic scorecard: was the critic right? ")
            .border_style(ctx.theme.fg(Ink::Accent));
        let shown: Vec<Line> = self.lines.iter().skip(first).take(usize::from(area.height)).cloned().collect();
        frame.render_widget(Paragraph::new(shown).style(Style::default()).block(block), area);
    }
}

#[cfg(test)]
mod tests {
    use crate::tui::Screen;
    use crate::tui::frame_text::{SAMPLE_TRACE, assert_screen_snapshots};

    #[test]
    fn snapshots_at_both_sizes() {
        assert_screen_snapshots!(SAMPLE_TRACE, "c", Screen::Scorecard, "scorecard");
    }
}
