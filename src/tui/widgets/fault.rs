//! What the screen shows when drawing it failed: the fault in one line, and
//! that the run goes on. Drawn with nothing that could fail the same way.

use ratatui::Frame;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Wrap};

use crate::tui::Action;
use crate::tui::component::Ctx;
use crate::tui::text::clean;

/// Draw the fault screen over the whole frame.
pub fn draw(frame: &mut Frame, ctx: &Ctx) {
    let area = frame.area();
    frame.render_widget(Clear, area);
    let fault = ctx.fault.unwrap_or("the screen could not be drawn");
    let key = |action| ctx.key_label(action);
    let next = if ctx.confirm_quit {
        "Quit now? y quits (questions still working are cancelled), any other key stays.".to_string()
    } else {
        let back = key(Action::Back).map_or(String::new(), |k| format!(" {k} goes back,"));
        format!("The fault is in the log; the run goes on.{back} {} quits.", key(Action::Quit).unwrap_or("ctrl-c"))
    };
    let lines = vec![Line::from(clean(fault).into_owned()), Line::from(progress(ctx)), Line::from(next)];
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
}

/// Where the run stands, so a faulted screen still says whether it is safe to quit.
fn progress(ctx: &Ctx) -> String {
    let state = ctx.state;
    if let Some(summary) = &state.summary {
        return format!("Run finished: {} of {} questions passed.", summary.passed, summary.total);
    }
    let working = ctx.work_in_progress;
    let total = state.questions.len();
    format!("{} of {total} questions finished, {working} at work.", total - working.min(total))
}
