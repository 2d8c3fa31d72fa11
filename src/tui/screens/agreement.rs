//! The agreement screen: how far a run's reviewers agree with each other
//! (κ per pair, α over all) and the machines with people (κ, percent
//! agreement, the 2×2 table and a 95 % interval each), the items reviewers
//! dispute and the pairwise tallies — the figures `eval-dag agreement`
//! prints, worked out when the screen opens (from the dashboard, or the
//! review screen once every answer has a verdict).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::scroll_pane;
use crate::report::{AgreementReport, agreement_lines};
use crate::tui::component::{Component, Ctx, Handled};
use crate::tui::keymap::{Action, Screen};
use crate::tui::scroll::Scroll;
use crate::tui::text::clean;
use crate::tui::theme::Ink;

/// The agreement figures of one run.
pub struct AgreementScreen {
    /// The run, as its directory is named.
    run: String,
    /// The figures.
    report: AgreementReport,
    /// The lines' scroll.
    scroll: Scroll,
    /// What it shows, worked out on the first refresh.
    lines: Vec<Line<'static>>,
}

impl AgreementScreen {
    /// The screen over `report`, the figures of the run in directory `run`
    /// (named by its last component).
    pub fn new(run: String, report: AgreementReport) -> Self {
        Self { run, report, scroll: Scroll::default(), lines: Vec::new() }
    }

    /// What the screen shows, a line each.
    fn lines(&self, ctx: &Ctx) -> Vec<Line<'static>> {
        let t = ctx.theme;
        if self.report.reviewers.is_empty() {
            let how = ctx.key_label(Action::ReviewRun).map(|k| format!(" ({k} on the dashboard)")).unwrap_or_default();
            return vec![Line::styled(
                format!("no reviews of this run yet: review its answers first{how}"),
                t.fg(Ink::Muted),
            )];
        }
        let mut figures = agreement_lines(&self.report).into_iter();
        let mut lines = vec![Line::styled(
            clean(&figures.next().unwrap_or_default()).into_owned(),
            t.fg(Ink::Accent).add_modifier(Modifier::BOLD),
        )];
        lines.extend(figures.map(|line| Line::from(clean(&line).into_owned())));
        if !self.report.machines.is_empty() {
            lines.push(Line::from(""));
            lines.push(Line::styled("machine said yes/no × people said right/wrong", t.fg(Ink::Muted)));
        }
        for machine in &self.report.machines {
            let table = machine.figure.table;
            lines.push(Line::from(vec![
                Span::styled(format!("{:<20} ", clean(&machine.machine)), t.fg(Ink::Muted)),
                Span::raw(format!(
                    "yes·right {}  yes·wrong {}  no·right {}  no·wrong {}",
                    table.yes_yes, table.yes_no, table.no_yes, table.no_no
                )),
            ]));
        }
        lines
    }
}

impl Component for AgreementScreen {
    fn screen(&self) -> Screen {
        Screen::Agreement
    }

    fn handle(&mut self, action: Action, _ctx: &Ctx) -> Handled {
        scroll_pane(&mut self.scroll, action)
    }

    fn refresh(&mut self, ctx: &Ctx) {
        if self.lines.is_empty() {
            self.lines = self.lines(ctx);
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &Ctx) {
        let first = self.scroll.place(self.lines.len(), || 0);
        let block = Block::default()
            .borders(Borders::ALL)
            .title(format!(" agreement · {} ", clean(&self.run)))
            .border_style(ctx.theme.fg(Ink::Accent));
        let shown: Vec<Line> = self.lines.iter().skip(first).cloned().collect();
        frame.render_widget(Paragraph::new(shown).wrap(Wrap { trim: false }).block(block), area);
    }
}

#[cfg(test)]
mod tests {
    use crate::tui::frame_text::{SAMPLE_TRACE, SNAPSHOT_SIZES, replayed};
    use crate::tui::{App, People, Screen, frame_text, press_keys};

    /// The sample replayed, reviewed by `name` in `dir`.
    fn reviewed(dir: &std::path::Path, name: &str) -> App {
        let reviewer = name.parse().map_err(|_| String::new());
        replayed(SAMPLE_TRACE).with_people(People::new(dir.to_path_buf(), reviewer))
    }

    #[test]
    fn snapshots_at_both_sizes() {
        let temp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let dir = temp.path().join("run");
        let mut none = reviewed(&dir, "ann");
        press_keys(&mut none, "A");
        assert_eq!(none.screen(), Screen::Agreement);
        insta::assert_snapshot!("agreement_no_reviews_80x24", frame_text(&none, 80, 24));
        press_keys(&mut none, "\x1bVrw");
        let mut app = reviewed(&dir, "bo");
        press_keys(&mut app, "Vrr");
        press_keys(&mut app, "\x1bA");
        assert_eq!(app.screen(), Screen::Agreement);
        for (width, height) in SNAPSHOT_SIZES {
            insta::assert_snapshot!(format!("agreement_{width}x{height}"), frame_text(&app, width, height));
        }
    }
}
