//! The review screen (`eval-dag review RUN_DIR`): one answer at a time — the
//! question, its dataset, the answer pretty-printed — and the reviewer's
//! verdict (right, wrong, unsure, with an optional reason and right answer),
//! written at once to `RUN_DIR/reviews/<reviewer>.jsonl`. Blind by default:
//! whether the critic approved it, how it was graded and what other
//! reviewers said stay hidden until this reviewer has given their verdict;
//! then one key shows them.

use crossterm::event::KeyCode;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::agreement::AgreementScreen;
use crate::domain::Verdict;
use crate::tui::component::{Component, Ctx, Handled};
use crate::tui::filter_line::type_into;
use crate::tui::keymap::{Action, Screen};
use crate::tui::review_queue::ReviewQueue;
use crate::tui::text::clean;
use crate::tui::theme::Ink;

/// What is being typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    /// The reason to go with the next verdict.
    Reason,
    /// The right answer, as JSON.
    Answer,
}

/// The review screen over a [`ReviewQueue`].
pub struct ReviewScreen {
    /// The queue.
    pub queue: ReviewQueue,
    /// The field being typed, and its text so far.
    typing: Option<(Field, String)>,
}

impl ReviewScreen {
    /// The screen over `queue`.
    pub fn new(queue: ReviewQueue) -> Self {
        Self { queue, typing: None }
    }

    fn verdict(&mut self, verdict: Verdict) -> Handled {
        match self.queue.give(verdict) {
            Ok(()) => Handled::message(format!("{}: recorded", verdict.name())),
            Err(why) => Handled::message(why),
        }
    }
}

impl Component for ReviewScreen {
    fn screen(&self) -> Screen {
        Screen::Review
    }

    fn handle(&mut self, action: Action, ctx: &Ctx) -> Handled {
        let key = |action| ctx.key_label(action).unwrap_or("?").to_string();
        match action {
            Action::ReviewRight => return self.verdict(Verdict::Right),
            Action::ReviewWrong => return self.verdict(Verdict::Wrong),
            Action::ReviewUnsure => return self.verdict(Verdict::Unsure),
            Action::PaneRight | Action::Down => self.queue.move_by(true),
            Action::PaneLeft | Action::Up => self.queue.move_by(false),
            Action::ReviewSkip => self.queue.skip(),
            Action::ReviewUndo => {
                if self.queue.undo().is_none() {
                    return Handled::message("nothing reviewed here yet to take back");
                }
                return Handled::message("back to your last review: give it again, or move on to keep it");
            }
            Action::ReviewReveal => {
                if !self.queue.reveal() {
                    let keys = [Action::ReviewRight, Action::ReviewWrong, Action::ReviewUnsure].map(key).join("/");
                    return Handled::message(format!(
                        "give your verdict first ({keys}): the rest stays hidden until then"
                    ));
                }
            }
            Action::ReviewReason => self.typing = Some((Field::Reason, self.queue.reason.clone().unwrap_or_default())),
            Action::Agreement => {
                if !self.queue.finished() {
                    let (reviewed, skipped, total) = self.queue.progress();
                    let left = total - reviewed - skipped;
                    return Handled::message(format!(
                        "{} left: the agreement figures once you are through",
                        crate::text::plural(left, "answer")
                    ));
                }
                let run = crate::tui::review_queue::run_name(&self.queue.run_dir);
                return Handled::open(Box::new(AgreementScreen::new(run, self.queue.agreement())));
            }
            Action::ReviewAnswer => {
                let given = self.queue.correct_answer.as_ref().map(ToString::to_string).unwrap_or_default();
                self.typing = Some((Field::Answer, given));
            }
            _ => return Handled::Ignored,
        }
        Handled::done()
    }

    fn typing(&self) -> bool {
        self.typing.is_some()
    }

    fn type_key(&mut self, code: KeyCode, _ctx: &Ctx) -> Handled {
        let Some((field, mut text)) = self.typing.take() else { return Handled::done() };
        if type_into(&mut text, code, false) {
            self.typing = Some((field, text));
            return Handled::done();
        }
        if code == KeyCode::Esc {
            return Handled::message("not kept");
        }
        let text = text.trim().to_string();
        match field {
            Field::Reason => self.queue.reason = Some(text).filter(|t| !t.is_empty()),
            Field::Answer if text.is_empty() => self.queue.correct_answer = None,
            Field::Answer => match serde_json::from_str(&text) {
                Ok(value) => self.queue.correct_answer = Some(value),
                Err(err) => {
                    self.typing = Some((field, text));
                    return Handled::message(format!("not JSON ({err}): write it as JSON, e.g. 42 or \"grocery_pos\""));
                }
            },
        }
        Handled::message("kept for your next verdict")
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        draw(self, frame, area, ctx);
    }
}

/// The lines of what the machines and other reviewers said, once revealed.
fn revealed_lines(queue: &ReviewQueue, ctx: &Ctx) -> Vec<Line<'static>> {
    let t = ctx.theme;
    let Some((item, result)) = queue.current() else { return Vec::new() };
    let mut lines = vec![Line::from(vec![
        Span::styled("critic  ", t.fg(Ink::Muted)),
        Span::styled(
            format!("{} after {} iterations", result.status.label(), result.iterations),
            t.fg(if result.success { Ink::StatusPassed } else { Ink::StatusFailed }),
        ),
    ])];
    for grade in &result.grades {
        let verdict = if grade.passed { "✓ passed" } else { "✗ failed" };
        let text = format!("{verdict} — {}", clean(&grade.reason));
        lines.push(Line::from(vec![
            Span::styled(format!("{:<8}", grade.method.name()), t.fg(Ink::Muted)),
            Span::raw(text),
        ]));
    }
    for review in queue.others.get(item).into_iter().flatten() {
        let reason = review.reason.as_deref().map(|r| format!(" — {}", clean(r))).unwrap_or_default();
        lines.push(Line::from(format!("{}: {}{reason}", review.reviewer, review.verdict.name())));
    }
    lines
}

fn draw(screen: &ReviewScreen, frame: &mut Frame, area: Rect, ctx: &Ctx) {
    let t = ctx.theme;
    let queue = &screen.queue;
    let title = match queue.items.len() {
        0 => " no answers ".to_string(),
        total => format!(" answer {} of {total} ", queue.position + 1),
    };
    let block = Block::default().borders(Borders::TOP).title(title).border_style(t.fg(Ink::Border));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some((item, result)) = queue.current() else {
        frame.render_widget(Paragraph::new(Span::styled(" no answer to review in this run", t.fg(Ink::Muted))), inner);
        return;
    };
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{} ", item.question_id), t.fg(Ink::Accent).add_modifier(Modifier::BOLD)),
        Span::styled(
            format!(
                "{} · {}",
                result.difficulty_level.as_str(),
                result.dataset.as_deref().unwrap_or("the run's dataset")
            ),
            t.fg(Ink::Muted),
        ),
    ])];
    lines.push(Line::from(clean(&result.question).into_owned()));
    lines.push(Line::from(""));
    lines.push(Line::styled("answer", t.fg(Ink::Muted).add_modifier(Modifier::BOLD)));
    match crate::report::shown(&queue.doc, item).and_then(|s| s.answer) {
        Some(answer) => {
            let pretty = serde_json::to_string_pretty(answer).unwrap_or_default();
            lines.extend(pretty.lines().map(|l| Line::from(clean(l).into_owned())));
        }
        None => lines.push(Line::styled("(no answer)", t.fg(Ink::Muted))),
    }
    lines.push(Line::from(""));
    let key = |action| ctx.key_label(action).unwrap_or("?").to_string();
    match queue.my_review() {
        Some(review) => {
            let reason = review.reason.as_deref().map(|r| format!(" — {}", clean(r))).unwrap_or_default();
            lines.push(Line::from(vec![
                Span::styled("your verdict  ", t.fg(Ink::Muted)),
                Span::styled(format!("{}{reason}", review.verdict.name()), t.fg(Ink::Accent)),
            ]));
            if queue.revealed {
                lines.extend(revealed_lines(queue, ctx));
            } else {
                let hint =
                    format!("{}: what the critic, the grades and other reviewers said", key(Action::ReviewReveal));
                lines.push(Line::styled(hint, t.fg(Ink::Muted)));
            }
        }
        None => {
            let hint = "the critic's verdict, the grades and other reviews stay hidden until you give yours";
            lines.push(Line::styled(hint, t.fg(Ink::Muted)));
        }
    }
    let mut pending = Vec::new();
    if let Some(reason) = &queue.reason {
        pending.push(format!("reason: {}", clean(reason)));
    }
    if let Some(answer) = &queue.correct_answer {
        pending.push(format!("right answer: {}", clean(&answer.to_string())));
    }
    if !pending.is_empty() {
        lines.push(Line::styled(format!("with your next verdict — {}", pending.join(" · ")), t.fg(Ink::NodeFlagged)));
    }
    if queue.finished() {
        let hint = format!("every answer has your verdict: {} shows the agreement figures", key(Action::Agreement));
        lines.push(Line::styled(hint, t.fg(Ink::Accent)));
    }
    let [body, typing] = Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(inner);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), body);
    if let Some((field, text)) = &screen.typing {
        let label = match field {
            Field::Reason => "reason (enter keeps it, esc drops it): ",
            Field::Answer => "right answer as JSON (enter checks and keeps it): ",
        };
        let line = Line::from(vec![Span::styled(label, t.fg(Ink::Accent)), Span::raw(format!("{}▏", clean(text)))]);
        frame.render_widget(Paragraph::new(line), typing);
    }
}
