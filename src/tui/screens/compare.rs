//! Two runs question by question: the change (regressions and improvements
//! first), then status, answer, iterations and tokens of A and of B side by
//! side; the question text too when the terminal is wide. When A allowed
//! fewer iterations than B, the critic's lift heads the screen: accuracy
//! without and with rebuilds, the questions fixed and broken, and tokens and
//! cost per extra right answer.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState};

use super::compare_detail::{CompareDetailScreen, change_style, side_style};
use crate::report::{Lift, Side, lift_lines};
use crate::tui::comparison::Comparison;
use crate::tui::component::{Component, Ctx, Handled};
use crate::tui::keymap::Action;
use crate::tui::keymap::Screen;
use crate::tui::text::{clean, preview};
use crate::tui::theme::{Ink, Theme};

/// Terminal width from which the question text, iterations and tokens show.
const WIDE: u16 = 120;

fn side_cells(t: &Theme, side: Option<&Side>, answer_width: usize, wide: bool) -> Vec<Cell<'static>> {
    let Some(s) = side else {
        let blank = if wide { 4 } else { 2 };
        return std::iter::once(Cell::from(Span::styled("—", t.fg(Ink::Muted))))
            .chain((1..blank).map(|_| Cell::from("")))
            .collect();
    };
    let mut cells = vec![
        Cell::from(Span::styled(clean(s.status.label()).into_owned(), side_style(t, side))),
        Cell::from(Span::styled(preview(&s.answer, answer_width), t.fg(Ink::Text))),
    ];
    if wide {
        cells.push(Cell::from(Span::styled(s.iterations.to_string(), t.fg(Ink::Text))));
        cells.push(Cell::from(Span::styled(s.tokens.to_string(), t.fg(Ink::Muted))));
    }
    cells
}

/// The comparison screen: two runs, question by question.
pub struct CompareScreen {
    /// The two runs and the selected row.
    pub comparison: Comparison,
}

impl Component for CompareScreen {
    fn screen(&self) -> Screen {
        Screen::Compare
    }

    fn handle(&mut self, action: Action, _ctx: &Ctx) -> Handled {
        match action {
            Action::Up | Action::Down => self.comparison.move_selection(action == Action::Down),
            Action::ChangeFilter => self.comparison.cycle_filter(),
            Action::Open if self.comparison.selected().is_some() => {
                return Handled::open(Box::new(CompareDetailScreen::over_table()));
            }
            Action::Open => {}
            _ => return Handled::Ignored,
        }
        Handled::done()
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        draw(&self.comparison, frame, area, ctx);
    }

    fn comparison(&self) -> Option<&Comparison> {
        Some(&self.comparison)
    }

    fn comparison_mut(&mut self) -> Option<&mut Comparison> {
        Some(&mut self.comparison)
    }
}

/// Draw the critic's lift into `area`: its lines, the fixed ones in the
/// passed colour, the broken ones in the failed colour.
fn draw_lift(lift: &Lift, frame: &mut Frame, area: Rect, ctx: &Ctx) {
    let t = ctx.theme;
    let lines: Vec<Line> = lift_lines(lift)
        .into_iter()
        .map(|line| {
            let ink = match line {
                _ if line.starts_with("fixed by the loop") && !lift.fixed.is_empty() => Ink::StatusPassed,
                _ if line.starts_with("broken by the loop") && !lift.broken.is_empty() => Ink::StatusFailed,
                _ => Ink::Text,
            };
            Line::from(vec![Span::raw(" "), Span::styled(line, t.fg(ink))])
        })
        .collect();
    let block = Block::default()
        .borders(Borders::TOP)
        .title(" the critic's lift: A without rebuilds, B with them ")
        .border_style(t.fg(Ink::Border));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// Draw the lift (when there is one, on up to half the height) above the comparison table.
fn draw(comparison: &Comparison, frame: &mut Frame, area: Rect, ctx: &Ctx) {
    let Some(lift) = &comparison.lift else {
        return draw_table(comparison, frame, area, ctx);
    };
    let wanted = lift_lines(lift).len() as u16 + 1;
    let height = wanted.min(area.height / 2);
    draw_lift(lift, frame, Rect { height, ..area }, ctx);
    draw_table(comparison, frame, Rect { y: area.y + height, height: area.height - height, ..area }, ctx);
}

/// Draw the comparison table into `area`.
fn draw_table(comparison: &Comparison, frame: &mut Frame, area: Rect, ctx: &Ctx) {
    let t = ctx.theme;
    let wide = area.width >= WIDE;
    let visible = comparison.visible();
    // Narrow: id, change and two statuses, the rest split between the answers (5 column gaps).
    let answer_width = if wide { 18 } else { ((area.width as usize).saturating_sub(6 + 14 + 2 * 9 + 5) / 2).max(8) };
    let height = area.height.saturating_sub(2).max(1) as usize;
    let first = comparison.row.saturating_sub(height - 1).min(visible.len().saturating_sub(height));
    // Wide: the question gets what the fixed columns and 9 gaps leave.
    let question_width = (area.width as usize).saturating_sub(6 + 14 + 2 * (9 + 18 + 4 + 7) + 9).max(10);
    let rows: Vec<Row> = visible
        .iter()
        .skip(first)
        .take(height)
        .map(|row| {
            let tag = (row.change.label(), change_style(t, row.change));
            let width = wide.then_some(question_width);
            let mut cells = super::question_cells(t, &row.question_id, tag, &row.question, width);
            cells.extend(side_cells(t, row.a.as_ref(), answer_width, wide));
            cells.extend(side_cells(t, row.b.as_ref(), answer_width, wide));
            Row::new(cells)
        })
        .collect();
    let side = |name: &'static str| -> Vec<&'static str> {
        if wide { vec![name, "answer", "iter", "tokens"] } else { vec![name, "answer"] }
    };
    let mut header = vec!["id", "change"];
    let mut widths = vec![Constraint::Length(6), Constraint::Length(14)];
    if wide {
        header.push("question");
        widths.push(Constraint::Min(10));
    }
    for name in ["A status", "B status"] {
        header.extend(side(name));
        widths.extend([Constraint::Length(9), Constraint::Length(answer_width as u16)]);
        if wide {
            widths.extend([Constraint::Length(4), Constraint::Length(7)]);
        }
    }
    let title = match comparison.filter {
        Some(change) => format!(" questions: {} only ", change.label()),
        None => " questions ".into(),
    };
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(t.fg(Ink::Muted)))
        .row_highlight_style(t.selected())
        .block(Block::default().borders(Borders::TOP).title(title).border_style(t.fg(Ink::Border)));
    let selected = (!visible.is_empty()).then(|| comparison.row - first);
    frame.render_stateful_widget(table, area, &mut TableState::default().with_selected(selected));
    if visible.is_empty() {
        let inner = Rect { y: area.y + 2, height: 1, ..area };
        frame.render_widget(Paragraph::new(Span::styled("  no question in either run", t.fg(Ink::Muted))), inner);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::report::{compare, load_results};
    use crate::tui::frame_text::{SAMPLE_TRACE, SNAPSHOT_SIZES};
    use crate::tui::{App, Comparison, Screen, Theme, frame_text, press_keys};
    use serde_json::json;

    /// The sample run as A, and as B an edited copy: q_02 fails (a
    /// regression), q_01 answers otherwise with a changed final DAG.
    pub(crate) fn comparison() -> Comparison {
        let a = load_results(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLE_TRACE))
            .unwrap_or_else(|e| panic!("the sample trace: {e}"));
        let mut b = a.clone();
        for result in &mut b.detailed_results {
            match result.question_id.as_str() {
                "q_02" => {
                    result.success = false;
                    result.status = crate::run::Outcome::Failed.into();
                    result.final_answer = None;
                }
                "q_01" => result.final_answer = Some(json!("shopping_net")),
                _ => {}
            }
        }
        let trace = b.question_traces.iter_mut().find(|t| t.question_id == "q_01");
        let node =
            trace.and_then(|t| t.iterations.last_mut()).and_then(|i| i.dag.as_mut()).map(|dag| &mut dag.nodes[1]);
        if let Some(node) = node {
            node.code = node.code.replace("max(", "min(");
        }
        let names = ["runs/a/trace.jsonl".to_string(), "runs/b/eval_results.json".to_string()];
        Comparison::new(names, compare(&a, &b), &a, &b)
    }

    /// The sample run as A allowed one iteration and as B allowed three, its
    /// questions scored by a benchmark's rules: q_02 right in both, q_01 only
    /// in B, at 500 more tokens.
    fn lift_comparison() -> Comparison {
        let mut a = load_results(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLE_TRACE))
            .unwrap_or_else(|e| panic!("the sample trace: {e}"));
        let mut b = a.clone();
        for (doc, iterations, right) in [(&mut a, 1, &["q_02"][..]), (&mut b, 3, &["q_01", "q_02"][..])] {
            doc.summary.settings.get_or_insert_with(Default::default).max_iterations = iterations;
            for result in &mut doc.detailed_results {
                let correct = right.contains(&result.question_id.as_str());
                let score = json!({"scorer": "dabstep", "sub_answers": [], "correct": correct});
                result.benchmark = Some(serde_json::from_value(score).unwrap());
                // B's rebuilds of q_01 cost 500 tokens more.
                if iterations == 3 && result.question_id == "q_01" {
                    result.tokens.total += 500;
                }
            }
        }
        let names = ["runs/one/trace.jsonl".to_string(), "runs/three/trace.jsonl".to_string()];
        Comparison::new(names, compare(&a, &b), &a, &b)
    }

    #[test]
    fn a_benchmark_compare_heads_the_screen_with_the_critics_lift() {
        for (width, height) in SNAPSHOT_SIZES {
            let app = App::comparing(lift_comparison(), Theme::dark());
            let text = frame_text(&app, width, height);
            assert!(
                text.contains("fixed by the loop: q_01") && text.contains("per extra right answer: 500 tokens"),
                "{text}"
            );
            insta::assert_snapshot!(format!("compare_lift_{width}x{height}"), text);
        }
        let app = App::comparing(comparison(), Theme::dark());
        assert!(!frame_text(&app, 160, 48).contains("lift"), "no lift without fewer iterations in A");
    }

    #[test]
    fn snapshots_at_both_sizes() {
        for (width, height) in SNAPSHOT_SIZES {
            let app = App::comparing(comparison(), Theme::dark());
            insta::assert_snapshot!(format!("compare_{width}x{height}"), frame_text(&app, width, height));
        }
    }

    #[test]
    fn compare_keys_filter_open_and_go_back() {
        let mut app = App::comparing(comparison(), Theme::dark());
        let ids = |app: &App| -> Vec<String> {
            app.comparison().unwrap().visible().iter().map(|r| r.question_id.clone()).collect()
        };
        assert_eq!(ids(&app), ["q_02", "q_01"], "the regression first");
        press_keys(&mut app, "f");
        assert_eq!(ids(&app), ["q_02"], "regressions only");
        press_keys(&mut app, "f");
        assert_eq!(ids(&app), ["q_01"], "then answer changes (no improvement to show)");
        press_keys(&mut app, "f");
        assert_eq!(ids(&app), ["q_02", "q_01"], "then everything");
        press_keys(&mut app, "jj\n");
        assert_eq!(app.screen(), Screen::CompareDetail);
        let text = frame_text(&app, 160, 48);
        assert!(text.contains("~ changed highest") && text.contains("min(sorted(rates)"), "{text}");
        assert!(text.contains("\"grocery_pos\"") && text.contains("\"shopping_net\""), "{text}");
        press_keys(&mut app, "k");
        assert!(frame_text(&app, 160, 48).contains("q_02 regression"), "↑ shows the previous question");
        press_keys(&mut app, "r?");
        assert!(app.help_open() && app.message().is_none(), "no rerun on a comparison: r does nothing");
        let help = frame_text(&app, 80, 24);
        assert!(help.contains("back") && help.contains("scroll down") && !help.contains("rerun"), "{help}");
        press_keys(&mut app, "x\x1b");
        assert_eq!(app.screen(), Screen::Compare);
        press_keys(&mut app, "q");
        assert!(app.quitting());
    }
}
