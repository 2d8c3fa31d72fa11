//! The pairwise review screen (`eval-dag review RUN_DIR OTHER_RUN_DIR`): one
//! question at a time with the two runs' final answers side by side, which
//! run is on which side drawn per question and the run names hidden; the
//! reviewer says left better, right better, a tie or both wrong, written at
//! once to the first run's `reviews/<reviewer>.jsonl`.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use serde_json::Value;

use crate::domain::Verdict;
use crate::tui::component::{Component, Ctx, Handled};
use crate::tui::keymap::{Action, Screen};
use crate::tui::pair_queue::PairQueue;
use crate::tui::text::clean;
use crate::tui::theme::Ink;

/// The pairwise review screen over a [`PairQueue`].
pub struct PairReviewScreen {
    /// The queue.
    pub queue: PairQueue,
}

impl PairReviewScreen {
    fn verdict(&mut self, verdict: Verdict) -> Handled {
        match self.queue.give(verdict) {
            Ok(()) => Handled::message(format!("{}: recorded", verdict_text(verdict))),
            Err(why) => Handled::message(why),
        }
    }
}

/// A pairwise verdict as the screen says it.
fn verdict_text(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Left => "left better",
        Verdict::RightSide => "right better",
        Verdict::Tie => "tie",
        Verdict::BothWrong => "both wrong",
        _ => verdict.name(),
    }
}

impl Component for PairReviewScreen {
    fn screen(&self) -> Screen {
        Screen::PairReview
    }

    fn handle(&mut self, action: Action, _ctx: &Ctx) -> Handled {
        match action {
            Action::PairLeft => return self.verdict(Verdict::Left),
            Action::PairRight => return self.verdict(Verdict::RightSide),
            Action::PairTie => return self.verdict(Verdict::Tie),
            Action::PairBothWrong => return self.verdict(Verdict::BothWrong),
            Action::PaneRight | Action::Down => self.queue.move_by(true),
            Action::PaneLeft | Action::Up => self.queue.move_by(false),
            _ => return Handled::Ignored,
        }
        Handled::done()
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        draw(&self.queue, frame, area, ctx);
    }
}

/// An answer pretty-printed, line by line, cleaned for the terminal.
fn answer_lines(answer: Option<&Value>, ctx: &Ctx) -> Vec<Line<'static>> {
    match answer {
        Some(answer) => {
            let pretty = serde_json::to_string_pretty(answer).unwrap_or_default();
            pretty.lines().map(|l| Line::from(clean(l).into_owned())).collect()
        }
        None => vec![Line::styled("(no answer)", ctx.theme.fg(Ink::Muted))],
    }
}

fn draw(queue: &PairQueue, frame: &mut Frame, area: Rect, ctx: &Ctx) {
    let t = ctx.theme;
    let title = match queue.items.len() {
        0 => " no shared questions ".to_string(),
        total => format!(" question {} of {total} · side by side ", queue.position + 1),
    };
    let block = Block::default().borders(Borders::TOP).title(title).border_style(t.fg(Ink::Border));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some((pair, result, sides)) = queue.current() else {
        let text = " the two runs share no question (the same id and text)";
        frame.render_widget(Paragraph::new(Span::styled(text, t.fg(Ink::Muted))), inner);
        return;
    };
    let mut top = vec![
        Line::from(vec![
            Span::styled(format!("{} ", pair.item.question_id), t.fg(Ink::Accent).add_modifier(Modifier::BOLD)),
            Span::styled(result.difficulty_level.as_str(), t.fg(Ink::Muted)),
        ]),
        Line::from(clean(&result.question).into_owned()),
    ];
    let verdict = match queue.my_review() {
        Some(review) => Line::from(vec![
            Span::styled("your verdict  ", t.fg(Ink::Muted)),
            Span::styled(verdict_text(review.verdict), t.fg(Ink::Accent)),
        ]),
        None => Line::styled("which answer is better? the runs' names stay hidden", t.fg(Ink::Muted)),
    };
    top.push(verdict);
    let [heading, body] = Layout::vertical([Constraint::Length(4), Constraint::Min(1)]).areas(inner);
    frame.render_widget(Paragraph::new(top).wrap(Wrap { trim: false }), heading);
    let columns = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).split(body);
    for ((side, answer), column) in ["left", "right"].into_iter().zip(sides).zip(columns.iter()) {
        let block = Block::default().borders(Borders::ALL).title(format!(" {side} ")).border_style(t.fg(Ink::Border));
        let lines = answer_lines(answer, ctx);
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }).block(block), *column);
    }
}
