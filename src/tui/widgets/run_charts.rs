//! The dashboard's charts of a live run or a replay, over the run's time:
//! questions finished (passed above, failed below), tokens and cost spent,
//! calls in flight. They read the reducer's `Timeline` (a replay's state is
//! at its cursor, so they follow it) — at most `MAX_BUCKETS` buckets, never
//! the events — and show only when the dashboard has room for them.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::{Block, Borders, Sparkline};

use crate::run::{TimeBucket, Timeline};
use crate::text::duration;
use crate::tui::component::Ctx;
use crate::tui::theme::Ink;

/// Rows the charts take: a title and two rows for each of two series.
const HEIGHT: u16 = 5;
/// The least dashboard height that shows them.
const MIN_AREA_HEIGHT: u16 = 26;
/// The least dashboard width that shows them.
const MIN_AREA_WIDTH: u16 = 90;

/// Rows the charts take in a dashboard of `area` (none when it is too small).
pub fn height(area: Rect) -> u16 {
    if area.height >= MIN_AREA_HEIGHT && area.width >= MIN_AREA_WIDTH { HEIGHT } else { 0 }
}

/// `buckets` merged into at most `width` columns, each of as many neighbours.
fn columns(buckets: &[TimeBucket], width: usize) -> Vec<TimeBucket> {
    let per_column = buckets.len().div_ceil(width.max(1)).max(1);
    buckets.chunks(per_column).filter_map(|chunk| chunk.iter().copied().reduce(TimeBucket::merged)).collect()
}

/// Draw the charts into `area` (as tall as [`height`] says).
pub fn draw(frame: &mut Frame, area: Rect, ctx: &Ctx) {
    let t = ctx.theme;
    let timeline: &Timeline = &ctx.state.timeline;
    let parts = Layout::horizontal([Constraint::Ratio(1, 3); 3]).spacing(1).split(area);
    let width = parts[0].width as usize;
    let series = columns(timeline.buckets(), width);
    let per_column = timeline.width_ms() * timeline.buckets().len().div_ceil(width.max(1)).max(1) as u64;
    let of = |value: fn(&TimeBucket) -> u64| series.iter().map(value).collect::<Vec<u64>>();
    let sum = |value: fn(&TimeBucket) -> u64| timeline.buckets().iter().map(value).sum::<u64>();
    let charts = [
        (
            format!(
                " finished ✓{} ✗{} · a bar {} ",
                sum(|b| b.passed.into()),
                sum(|b| b.failed.into()),
                duration(per_column)
            ),
            [(of(|b| b.passed.into()), Ink::StatusPassed), (of(|b| b.failed.into()), Ink::StatusFailed)],
            true,
        ),
        (
            format!(" tokens {} · ${:.4} ", ctx.state.usage.total(), ctx.state.cost_usd),
            [(of(|b| b.tokens), Ink::Accent), (of(|b| (b.cost_usd * 1e6) as u64), Ink::StatusWorking)],
            false,
        ),
        (
            format!(" calls in flight: {} ", timeline.in_flight()),
            [(of(|b| b.most_in_flight.into()), Ink::StatusQueued), (Vec::new(), Ink::Muted)],
            false,
        ),
    ];
    for ((title, [upper, lower], shared_scale), part) in charts.into_iter().zip(parts.iter()) {
        let block = Block::default().borders(Borders::TOP).title(title).border_style(t.fg(Ink::Border));
        let inner = block.inner(*part);
        frame.render_widget(block, *part);
        let rows =
            if lower.0.is_empty() { [inner.height, 0] } else { [inner.height / 2, inner.height - inner.height / 2] };
        let [top, bottom] = Layout::vertical(rows.map(Constraint::Length)).areas(inner);
        let max = if shared_scale { upper.0.iter().chain(&lower.0).copied().max() } else { None };
        for ((values, ink), place) in [(upper, top), (lower, bottom)] {
            let mut line = Sparkline::default().data(&values).style(t.fg(ink));
            if let Some(max) = max.or(values.iter().copied().max()) {
                line = line.max(max.max(1));
            }
            frame.render_widget(line, place);
        }
    }
}
