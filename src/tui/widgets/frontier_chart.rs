//! The matrix screen's frontier: each run's accuracy (with its interval as a
//! bar) against cost, tokens or wall time, in braille dots, the frontier
//! joined, every point labelled with its run's letter; the y axis's marks on
//! the left, the x axis's under the plot (on a log scale when the values
//! spread past 100×), and a line naming the runs it cannot place.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::canvas::{Canvas, Line as Segment, Points};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::report::{Axis, AxisScale, Frontier, FrontierPoint};
use crate::tui::component::Ctx;
use crate::tui::keymap::Action;
use crate::tui::text::fit;
use crate::tui::theme::Ink;

/// Columns of the y axis's marks (`1.00 `).
const Y_MARKS: u16 = 5;

/// The title: what is drawn and the keys that change it.
fn title(frontier: &Frontier, axis: Axis, ctx: &Ctx) -> String {
    let key = |action| ctx.key_label(action).unwrap_or("?").to_string();
    let covered = frontier.points.first().map_or(0, |p| p.questions);
    format!(
        " {} against {} · {covered} questions · {}: axis · {}: questions ",
        frontier.basis.label(),
        axis.label(),
        key(Action::FrontierAxis),
        key(Action::Frontier)
    )
}

/// The marks under the plot: each tick's text starting at its column.
fn x_marks(scale: &AxisScale, axis: Axis, width: u16) -> String {
    let width = usize::from(width);
    let mut row = vec![' '; width];
    for value in scale.ticks() {
        let text: Vec<char> = axis.tick_text(value).chars().collect();
        let at = (scale.fraction(value) * (width.saturating_sub(1)) as f64).round() as usize;
        let start = at.min(width.saturating_sub(text.len()));
        // A mark that would overwrite the one before is left out.
        if row[start..].iter().take(text.len() + 1).all(|c| *c == ' ') || start == 0 {
            for (slot, c) in row[start..].iter_mut().zip(text) {
                *slot = c;
            }
        }
    }
    row.into_iter().collect()
}

/// The runs `axis` cannot place, in one line.
fn unplaced(frontier: &Frontier, axis: Axis) -> Option<String> {
    let missing: Vec<String> = frontier
        .points
        .iter()
        .filter(|p| axis.value(p).is_none() || p.accuracy.is_none())
        .map(|p| match (axis, p.cost_usd) {
            (Axis::Cost, None) => format!("{} (no price)", p.label),
            _ => p.label.clone(),
        })
        .collect();
    (!missing.is_empty()).then(|| format!("not placed: {}", missing.join(", ")))
}

/// Draw the frontier of `frontier` against `axis` into `area`.
pub fn draw(frame: &mut Frame, area: Rect, frontier: &Frontier, axis: Axis, ctx: &Ctx) {
    let t = ctx.theme;
    let block =
        Block::default().borders(Borders::TOP).title(title(frontier, axis, ctx)).border_style(t.fg(Ink::Border));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if frontier.shared_questions == 0 {
        let text = Span::styled(format!(" {}", frontier.heading()), t.fg(Ink::Muted));
        frame.render_widget(Paragraph::new(text), inner);
        return;
    }
    let [plot_rows, marks_row, note_row] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(1), Constraint::Length(1)]).areas(inner);
    let [y_area, plot] = Layout::horizontal([Constraint::Length(Y_MARKS), Constraint::Min(1)]).areas(plot_rows);
    let placed: Vec<(&FrontierPoint, f64, f64)> = frontier.placed(axis).collect();
    let scale = AxisScale::of(&placed.iter().map(|(_, x, _)| *x).collect::<Vec<_>>());
    let line: Vec<(f64, f64)> =
        frontier.line(axis).iter().filter_map(|p| Some((scale.fraction(axis.value(p)?), p.accuracy?))).collect();
    // One cell of the plot in the canvas's units: labels sit a cell right of
    // their dot (left of it near the right edge), never on it.
    let cell = 1.0 / f64::from(plot.width.max(1));
    let label_x = |x: f64, label: &str| {
        let room = cell * (label.chars().count() + 2) as f64;
        if x + room > 1.0 { x - room } else { x + 2.0 * cell }
    };
    // A dot and its four neighbours (a braille cell is 2 × 4 dots): a point stands out from its bar.
    let (dx, dy) = (cell / 2.0, 1.0 / (4.0 * f64::from(plot.height.max(1))));
    let canvas = Canvas::default().marker(Marker::Braille).x_bounds([0.0, 1.0]).y_bounds([0.0, 1.0]).paint(|c| {
        for (point, x, _) in &placed {
            if let Some([low, high]) = point.interval {
                let x = scale.fraction(*x);
                c.draw(&Segment { x1: x, y1: low, x2: x, y2: high, color: t.stroke(Ink::Border) });
            }
        }
        for pair in line.windows(2) {
            let ((x1, y1), (x2, y2)) = (pair[0], pair[1]);
            c.draw(&Segment { x1, y1, x2, y2, color: t.stroke(Ink::StatusPassed) });
        }
        c.layer();
        for (point, x, accuracy) in &placed {
            let on = point.on_frontier_by.on(axis);
            let ink = if on { Ink::StatusPassed } else { Ink::Muted };
            let (x, y) = (scale.fraction(*x), *accuracy);
            let coords = [(x, y), (x - dx, y), (x + dx, y), (x, y - dy), (x, y + dy)];
            c.draw(&Points { coords: &coords, color: t.stroke(ink) });
            let style = if on { t.fg(ink).add_modifier(Modifier::BOLD) } else { t.fg(Ink::Text) };
            c.print(label_x(x, &point.label), y, Span::styled(point.label.clone(), style));
        }
    });
    frame.render_widget(canvas, plot);
    let mut marks = vec![Line::from(""); usize::from(y_area.height)];
    let last = marks.len().saturating_sub(1);
    for (row, text) in [(0, "1.00"), (last / 2, "0.50"), (last, "0.00")] {
        marks[row] = Line::from(Span::styled(text, t.fg(Ink::Muted)));
    }
    frame.render_widget(Paragraph::new(marks), y_area);
    let scale_note = if scale.log { " (log)" } else { "" };
    let ticks = format!("{}{scale_note}", x_marks(&scale, axis, plot.width.saturating_sub(scale_note.len() as u16)));
    let marks_area = Rect { x: plot.x, width: plot.width, ..marks_row };
    frame.render_widget(Paragraph::new(Span::styled(ticks, t.fg(Ink::Muted))), marks_area);
    let legend = " ● on the frontier  ● beaten  ";
    let note = unplaced(frontier, axis).unwrap_or_default();
    let text = Line::from(vec![
        Span::styled(" ● on the frontier", t.fg(Ink::StatusPassed)),
        Span::styled("  ● beaten  ", t.fg(Ink::Muted)),
        Span::styled(
            fit(&note, usize::from(note_row.width).saturating_sub(legend.chars().count())),
            t.fg(Ink::NodeFlagged),
        ),
    ]);
    frame.render_widget(Paragraph::new(text), note_row);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_sit_at_their_place_and_never_overwrite_each_other() {
        let scale = AxisScale::of(&[0.01, 3.0]);
        let row = x_marks(&scale, Axis::Cost, 40);
        assert_eq!(row.chars().count(), 40);
        assert!(row.starts_with("$0.01"), "{row:?}");
        assert!(row.contains("$0.10") && row.contains("$1.00") && row.trim_end().ends_with("$10.00"), "{row:?}");
        let narrow = x_marks(&scale, Axis::Cost, 12);
        assert_eq!(narrow.chars().count(), 12);
        assert!(narrow.starts_with("$0.01") && !narrow.contains("$0.10$"), "{narrow:?}");
    }
}
