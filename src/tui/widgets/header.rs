//! The header: dataset, provider and model, elapsed time, tokens and cost,
//! counts by status, and the paused / replay indicator.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::engine::{Outcome, QuestionStatus};
use crate::tui::app::App;

fn elapsed(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..60 => format!("{:.1}s", ms as f64 / 1000.0),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s / 60 % 60),
    }
}

/// Draw the header into `area` (3 lines).
pub fn draw(frame: &mut Frame, area: Rect, app: &App) {
    let t = &app.theme;
    let state = &app.state;
    let (dataset, provider, model) = state
        .settings
        .as_ref()
        .map_or(("", "", ""), |s| (s.dataset_dir.as_str(), s.provider.as_str(), s.model.as_str()));
    let mut first = vec![
        Span::styled(" eval-dag ", t.fg("accent").add_modifier(Modifier::BOLD)),
        Span::styled(format!("{dataset}  "), t.fg("text")),
        Span::styled(format!("{provider}/{model}  "), t.fg("muted")),
        Span::styled(format!("⏱ {}  ", elapsed(state.now_ms)), t.fg("text")),
        Span::styled(format!("{} tokens", state.usage.total()), t.fg("text")),
    ];
    if state.cost_usd > 0.0 {
        first.push(Span::styled(format!("  ${:.4}", state.cost_usd), t.fg("text")));
    }
    let count = |f: fn(QuestionStatus) -> bool| state.count(f);
    let mut second = Vec::new();
    if let Some(replay) = &app.replay {
        let mark = if replay.playing { "▶" } else { "⏸" };
        second.push(Span::styled(
            format!(" REPLAY {mark} {}/{} ×{} ", replay.position, replay.len(), replay.speed),
            t.fg("feed_control").add_modifier(Modifier::BOLD),
        ));
    } else if state.paused {
        second.push(Span::styled(" PAUSED (n step, p resume) ", t.fg("feed_control").add_modifier(Modifier::BOLD)));
    } else if state.summary.is_some() {
        second.push(Span::styled(" finished ", t.fg("muted")));
    }
    second.extend([
        Span::styled(format!(" {} questions · ", state.questions.len()), t.fg("text")),
        Span::styled(
            format!("{} passed · ", count(|s| s == QuestionStatus::Done(Outcome::Passed))),
            t.fg("status_passed"),
        ),
        Span::styled(
            format!("{} failed · ", count(|s| s == QuestionStatus::Done(Outcome::Failed))),
            t.fg("status_failed"),
        ),
        Span::styled(
            format!("{} exhausted · ", count(|s| s == QuestionStatus::Done(Outcome::Exhausted))),
            t.fg("status_exhausted"),
        ),
        Span::styled(format!("{} working · ", count(|s| s.is_active())), t.fg("status_working")),
        Span::styled(format!("{} queued", count(|s| s == QuestionStatus::Queued)), t.fg("status_queued")),
    ]);
    let third = match (&app.message, app.editing_filter) {
        (_, true) => Line::from(Span::styled(format!(" filter: {}▏ (enter to apply)", app.filter), t.fg("accent"))),
        (Some(message), _) => Line::from(Span::styled(format!(" {message}"), t.fg("feed_control"))),
        (None, _) => Line::from(Span::styled(
            format!(
                " showing: {}  sort: {}{}",
                app.status_filter.label(),
                app.sort.label(),
                if app.filter.is_empty() { String::new() } else { format!("  filter: {:?}", app.filter) }
            ),
            t.fg("muted"),
        )),
    };
    frame.render_widget(Paragraph::new(vec![Line::from(first), Line::from(second), third]), area);
}
