//! The report's horizontal bar charts (inline SVG, no script): a label, a bar
//! of one or more stacked segments, and a note after the bar, one row each.
//! The CSS classes `good`, `bad`, `none` and `accuracy` colour the segments.

use std::fmt::Write;

use crate::render::html_escape;

/// One row of a chart.
pub struct Bar {
    /// Text left of the bar.
    pub label: String,
    /// Stacked segments, left to right: value and CSS class.
    pub segments: Vec<(u64, &'static str)>,
    /// Text right of the bar.
    pub note: String,
}

/// Row height in pixels.
const ROW: usize = 22;
/// Pixels per character of a note (12px text), for the chart's width.
const NOTE_CHAR: usize = 7;

/// A chart of `bars`, scaled so that `most` (at least 1) fills `bar_width`;
/// `class` names the chart (`<svg class="chart {class}">`), `title` is its
/// accessible name.
pub fn bar_chart(class: &str, title: &str, label_width: usize, bar_width: usize, most: u64, bars: &[Bar]) -> String {
    let most = most.max(1);
    let note_width = bars.iter().map(|b| b.note.chars().count()).max().unwrap_or(0) * NOTE_CHAR + 12;
    let mut svg = format!(
        "<svg class=\"chart {}\" role=\"img\" aria-label=\"{}\" width=\"{}\" height=\"{}\">",
        html_escape(class),
        html_escape(title),
        label_width + bar_width + note_width,
        bars.len() * ROW + 4
    );
    let scaled = |value: u64| (bar_width as u64 * value.min(most) / most) as usize;
    for (i, bar) in bars.iter().enumerate() {
        let (y, text_y) = (i * ROW + 2, i * ROW + 17);
        let _ = write!(svg, "<text x=\"0\" y=\"{text_y}\">{}</text>", html_escape(&bar.label));
        let (mut sum, mut x) = (0, label_width);
        for &(value, segment) in &bar.segments {
            sum += value;
            let end = label_width + scaled(sum);
            let _ = write!(
                svg,
                "<rect class=\"{segment}\" x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{}\"></rect>",
                end - x,
                ROW - 6
            );
            x = end;
        }
        let _ = write!(svg, "<text x=\"{}\" y=\"{text_y}\">{}</text>", x + 6, html_escape(&bar.note));
    }
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_stack_and_scale_to_the_longest() {
        let bars = [
            Bar { label: "a <b>".into(), segments: vec![(1, "good"), (1, "bad")], note: "2".into() },
            Bar { label: "c".into(), segments: vec![(4, "good")], note: "4".into() },
        ];
        let svg = bar_chart("demo", "demo chart", 100, 200, 4, &bars);
        assert!(svg.starts_with("<svg class=\"chart demo\" role=\"img\" aria-label=\"demo chart\""), "{svg}");
        assert!(svg.contains("<text x=\"0\" y=\"17\">a &lt;b&gt;</text>"), "labels are escaped: {svg}");
        assert!(svg.contains("<rect class=\"good\" x=\"100\" y=\"2\" width=\"50\""), "{svg}");
        assert!(svg.contains("<rect class=\"bad\" x=\"150\" y=\"2\" width=\"50\""), "stacked after the first: {svg}");
        assert!(svg.contains("<rect class=\"good\" x=\"100\" y=\"24\" width=\"200\""), "the longest fills: {svg}");
        assert!(svg.contains("<text x=\"306\" y=\"39\">4</text>"), "the note follows the bar: {svg}");
    }
}
