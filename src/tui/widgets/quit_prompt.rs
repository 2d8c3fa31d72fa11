//! Asked before quitting a live run whose questions are still working: what
//! quitting does to them, and how to continue later; with batches in flight
//! at a provider, whether to cancel them there or leave them for `--resume`.

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use crate::text::plural;
use crate::tui::component::Ctx;
use crate::tui::keymap::Action;
use crate::tui::text::clean;
use crate::tui::theme::Ink;

/// Draw the question over `area` (the body of the screen).
pub fn draw(frame: &mut Frame, area: Rect, ctx: &Ctx) {
    let t = ctx.theme;
    // The work may end while the question is open.
    let question = match ctx.work_in_progress {
        0 => "Nothing is working any more. Quit now?".to_string(),
        working => format!("{} still working. Quit now?", plural(working, "question")),
    };
    let mut lines = vec![
        Line::from(Span::styled(question, t.fg(Ink::Text).add_modifier(Modifier::BOLD))),
        Line::from(Span::styled(
            "They are cancelled; everything finished so far is kept in the trace.",
            t.fg(Ink::Text),
        )),
    ];
    if let Some(resume) = ctx.resume {
        lines.push(Line::from(vec![
            Span::styled("Continue later with: ", t.fg(Ink::Muted)),
            Span::styled(clean(resume).into_owned(), t.fg(Ink::Accent)),
        ]));
    }
    let key = |action| {
        Span::styled(ctx.keys.quit_prompt_label(action).to_string(), t.fg(Ink::Accent).add_modifier(Modifier::BOLD))
    };
    let mut answers = vec![key(Action::ConfirmQuit), Span::styled(" quit · ", t.fg(Ink::Muted))];
    let batches = ctx.state.batches_in_flight();
    if batches > 0 {
        let calls = plural(ctx.state.calls_waiting_in_batches(), "call");
        let batches = if batches == 1 { "1 batch".to_string() } else { format!("{batches} batches") };
        let text = format!("{batches} in flight at the provider with {calls}.");
        lines.push(Line::from(Span::styled(text, t.fg(Ink::Text))));
        answers = vec![
            key(Action::ConfirmQuit),
            Span::styled(" quit, leave them for --resume · ", t.fg(Ink::Muted)),
            key(Action::CancelBatches),
            Span::styled(" cancel them there, then quit · ", t.fg(Ink::Muted)),
        ];
    }
    answers.push(Span::styled("any other key", t.fg(Ink::Accent)));
    answers.push(Span::styled(" keep watching", t.fg(Ink::Muted)));
    lines.push(Line::from(answers));
    let width = area.width.min(76);
    let height = (lines.len() as u16 + 4).min(area.height);
    let [row] = Layout::vertical([Constraint::Length(height)]).flex(Flex::Center).areas(area);
    let [popup] = Layout::horizontal([Constraint::Length(width)]).flex(Flex::Center).areas(row);
    frame.render_widget(Clear, popup);
    let block = Block::default().borders(Borders::ALL).title(" quit? ").border_style(t.fg(Ink::StatusRejected));
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }).block(block), popup);
}
