//! The footer: key hints of the current screen from the one keymap, as many
//! as fit (`? keys` lists them all); the draft keys' only in a consensus run,
//! the benchmark screen's only in a run with benchmark-scored questions or
//! baselines, its list's switch only in a run with baselines.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::component::Ctx;
use crate::tui::keymap::Action;
use crate::tui::keymap::Context;
use crate::tui::screens::benchmark::has_benchmark_figures;
use crate::tui::theme::Ink;

/// Draw the key hints into `area` (1 line).
pub fn draw(frame: &mut Frame, area: Rect, ctx: &Ctx) {
    let mut spans = Vec::new();
    let mut width = 0;
    let drafts = ctx.state.settings.as_ref().is_some_and(|s| s.drafts() > 1);
    let benchmark = has_benchmark_figures(ctx.state);
    let baselines = ctx.state.settings.as_ref().is_some_and(|s| s.baselines);
    let hinted = |b: &&crate::tui::keymap::Bound| {
        !b.binding.hint.is_empty()
            && !b.keys.is_empty()
            && (drafts || !b.binding.action.is_about_drafts())
            && (benchmark || b.binding.action != Action::Benchmark)
            && (baselines || (b.binding.action, b.binding.context) != (Action::ChangeFilter, Context::Benchmark))
    };
    for binding in ctx.keys.active(ctx.screen, ctx.replay.is_some()).filter(hinted) {
        let keys = format!(" {} ", binding.label);
        let hint = format!("{} ", binding.binding.hint);
        width += keys.chars().count() + hint.chars().count();
        if width > area.width as usize {
            break;
        }
        spans.push(Span::styled(keys, ctx.theme.fg(Ink::Accent)));
        spans.push(Span::styled(hint, ctx.theme.fg(Ink::Muted)));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
