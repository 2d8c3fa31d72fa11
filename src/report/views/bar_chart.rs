//! The report's horizontal bar charts (inline SVG, no script, drawn by the
//! `bar_chart` macro of `templates/macros.html.j2`): a label, a bar of one or
//! more stacked segments, and a note after the bar, one row each. The CSS
//! classes `good`, `bad`, `none` and `accuracy` colour the segments.

use serde::Serialize;

/// One row of a chart, as the sections describe it.
pub struct Bar {
    /// Text left of the bar.
    pub label: String,
    /// Stacked segments, left to right: value and CSS class.
    pub segments: Vec<(u64, &'static str)>,
    /// Text right of the bar.
    pub note: String,
}

/// A chart laid out for its template.
#[derive(Debug, Serialize)]
pub struct BarChart {
    class: String,
    title: String,
    width: usize,
    height: usize,
    rows: Vec<ChartRow>,
}

/// One row of a laid-out chart.
#[derive(Debug, Serialize)]
struct ChartRow {
    text_y: usize,
    label: String,
    rects: Vec<ChartRect>,
    note_x: usize,
    note: String,
}

/// One segment of a bar.
#[derive(Debug, Serialize)]
struct ChartRect {
    class: &'static str,
    x: usize,
    y: usize,
    width: usize,
    height: usize,
}

#[cfg(test)]
impl BarChart {
    /// The label of every row, top to bottom.
    pub fn labels(&self) -> Vec<String> {
        self.rows.iter().map(|row| row.label.clone()).collect()
    }
}

/// Row height in pixels.
const ROW: usize = 22;
/// Pixels per character of a note (12px text), for the chart's width.
const NOTE_CHAR: usize = 7;

/// A chart of `bars`, scaled so that `most` (at least 1) fills `bar_width`;
/// `class` names the chart (`<svg class="chart {class}">`), `title` is its
/// accessible name.
pub fn bar_chart(
    class: &str,
    title: &str,
    label_width: usize,
    bar_width: usize,
    most: u64,
    bars: Vec<Bar>,
) -> BarChart {
    let most = most.max(1);
    let note_width = bars.iter().map(|b| b.note.chars().count()).max().unwrap_or(0) * NOTE_CHAR + 12;
    let height = bars.len() * ROW + 4;
    let scaled = |value: u64| (bar_width as u64 * value.min(most) / most) as usize;
    let rows = bars
        .into_iter()
        .enumerate()
        .map(|(i, bar)| {
            let y = i * ROW + 2;
            let (mut sum, mut x) = (0, label_width);
            let mut rects = Vec::with_capacity(bar.segments.len());
            for (value, class) in bar.segments {
                sum += value;
                let end = label_width + scaled(sum);
                rects.push(ChartRect { class, x, y, width: end - x, height: ROW - 6 });
                x = end;
            }
            ChartRow { text_y: i * ROW + 17, label: bar.label, rects, note_x: x + 6, note: bar.note }
        })
        .collect();
    BarChart { class: class.into(), title: title.into(), width: label_width + bar_width + note_width, height, rows }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::views::ReportTemplates;

    #[test]
    fn segments_stack_and_scale_to_the_longest() {
        let bars = vec![
            Bar { label: "a <b>".into(), segments: vec![(1, "good"), (1, "bad")], note: "2".into() },
            Bar { label: "c".into(), segments: vec![(4, "good")], note: "4".into() },
        ];
        let chart = bar_chart("demo", "demo chart", 100, 200, 4, bars);
        let svg = ReportTemplates::built_in().render_str(
            "{% from \"macros.html.j2\" import bar_chart %}{{ bar_chart(chart) }}",
            minijinja::context! { chart => minijinja::value::Serde(&chart) },
        );
        assert!(svg.starts_with("<svg class=\"chart demo\" role=\"img\" aria-label=\"demo chart\""), "{svg}");
        assert!(svg.contains("<text x=\"0\" y=\"17\">a &lt;b&gt;</text>"), "labels are escaped: {svg}");
        assert!(svg.contains("<rect class=\"good\" x=\"100\" y=\"2\" width=\"50\""), "{svg}");
        assert!(svg.contains("<rect class=\"bad\" x=\"150\" y=\"2\" width=\"50\""), "stacked after the first: {svg}");
        assert!(svg.contains("<rect class=\"good\" x=\"100\" y=\"24\" width=\"200\""), "the longest fills: {svg}");
        assert!(svg.contains("<text x=\"306\" y=\"39\">4</text>"), "the note follows the bar: {svg}");
    }
}
