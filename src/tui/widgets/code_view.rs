//! The selected node's highlighted code with line numbers, and beside it the
//! findings that blame this node.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::domain::{CriticFeedback, DagNodeSpec, FindingSource};
use crate::tui::highlight::HighlightCache;
use crate::tui::scroll::Scroll;
use crate::tui::text::{clean, clean_spans, width as columns};
use crate::tui::theme::{Ink, Theme};
use crate::tui::view::Pane;

/// Theme colour of a finding source.
pub fn source_color(source: FindingSource) -> Ink {
    match source {
        FindingSource::Structural => Ink::FindingStructural,
        FindingSource::TrialRun => Ink::FindingTrialRun,
        FindingSource::Semantic => Ink::FindingSemantic,
        FindingSource::Human => Ink::Accent,
    }
}

/// Width share of the findings pane, percent.
const FINDINGS_SHARE: u16 = 40;

/// Rows the code and findings of `node` need in `width` columns, borders
/// included (findings wrap in their pane; code is cut at the edge).
pub fn height(node: &DagNodeSpec, feedback: Option<&CriticFeedback>, width: u16) -> u16 {
    let code = node.code.lines().count() + 1;
    let pane = (width * FINDINGS_SHARE / 100).saturating_sub(2).max(1) as usize;
    let rows = |line: &str| columns(line).div_ceil(pane).max(1);
    let findings: usize = feedback.map_or(0, |f| {
        f.findings_for_node(&node.node_id).map(|f| f.message.lines().map(rows).sum::<usize>() + 2).sum()
    });
    (code.max(findings) + 2).min(u16::MAX as usize) as u16
}

/// What the code pane draws with: its scroll, the highlighted code, the focused pane.
pub struct CodePane<'a> {
    /// The pane's scroll.
    pub scroll: &'a Scroll,
    /// Highlighted code of the nodes on screen.
    pub highlight: &'a HighlightCache,
    /// The pane with the focus (the code's border shows it).
    pub focus: Pane,
}

/// Draw `node`'s code and its findings into `area`.
pub fn draw(
    frame: &mut Frame,
    area: Rect,
    t: &Theme,
    pane: CodePane,
    node: &DagNodeSpec,
    feedback: Option<&CriticFeedback>,
) {
    let findings: Vec<_> = feedback.map(|f| f.findings_for_node(&node.node_id).collect()).unwrap_or_default();
    let split = if findings.is_empty() {
        [Constraint::Percentage(100), Constraint::Length(0)]
    } else {
        [Constraint::Percentage(100 - FINDINGS_SHARE), Constraint::Percentage(FINDINGS_SHARE)]
    };
    let [code_area, findings_area] = Layout::horizontal(split).areas(area);
    let inputs: Vec<String> = node.inputs.iter().map(|(k, v)| format!("{k} ← {v}")).collect();
    let title = clean(&format!(" {} · layer {} · {} ", node.node_id, node.layer, node.operation)).into_owned();
    let mut lines = vec![Line::from(Span::styled(clean(&inputs.join(", ")).into_owned(), t.fg(Ink::Muted)))];
    let highlighted = pane.highlight.get(&node.code, t.syntax_dark);
    for (number, raw) in node.code.lines().enumerate() {
        // Tab stops count from the code's first column, after the line number.
        let code = match highlighted.and_then(|h| h.get(number)) {
            Some(line) if !t.monochrome => line.spans.clone(),
            _ => vec![Span::raw(raw.to_string())],
        };
        let mut spans = vec![Span::styled(format!("{:>3} ", number + 1), t.fg(Ink::Muted))];
        spans.extend(clean_spans(code));
        lines.push(Line::from(spans));
    }
    let first = pane.scroll.place(lines.len(), || 0);
    let border = super::pane_border(t, pane.focus, Pane::Code);
    let block = Block::default().borders(Borders::ALL).title(title).border_style(border);
    let shown: Vec<Line> = lines.into_iter().skip(first).collect();
    frame.render_widget(Paragraph::new(shown).block(block), code_area);
    if findings.is_empty() {
        return;
    }
    let mut notes = Vec::new();
    for finding in findings {
        notes.push(Line::from(vec![
            Span::styled(
                format!("[{}] ", finding.source.label()),
                t.fg(source_color(finding.source)).add_modifier(Modifier::BOLD),
            ),
            Span::styled(clean(finding.rule.name()).into_owned(), t.fg(Ink::Text).add_modifier(Modifier::BOLD)),
        ]));
        for line in finding.message.lines() {
            notes.push(Line::from(Span::styled(clean(line).into_owned(), t.fg(Ink::Text))));
        }
        notes.push(Line::from(""));
    }
    let block =
        Block::default().borders(Borders::ALL).title(" findings on this node ").border_style(t.fg(Ink::NodeFlagged));
    frame.render_widget(Paragraph::new(notes).wrap(Wrap { trim: false }).block(block), findings_area);
}
