//! Looking closer: the dataset schema the builder saw, opened where the
//! selected node's trouble lies; the critic's scorecard of the run; its
//! findings taxonomy, whose groups narrow the dashboard to the questions
//! they hit.

use super::app::App;
use super::keymap::Action;
use super::schema_text::{recorded_schema, schema_lines, target};
use super::view::{QuestionSet, Screen};
use crate::report::{CriticScorecard, FindingsTaxonomy, critic_scorecard, findings_taxonomy};

impl App {
    /// The critic's scorecard of the run as it stands.
    pub fn scorecard(&self) -> CriticScorecard {
        critic_scorecard(&self.state)
    }

    /// Open the critic's scorecard.
    pub(super) fn open_scorecard(&mut self) {
        self.screen = Screen::Scorecard;
        self.scrolls.scorecard.top();
    }

    /// The findings taxonomy of the run as it stands.
    pub fn taxonomy(&self) -> FindingsTaxonomy {
        findings_taxonomy(&self.state)
    }

    /// Open the findings taxonomy.
    pub(super) fn open_taxonomy(&mut self) {
        self.screen = Screen::Taxonomy;
        self.scrolls.taxonomy.top();
    }

    /// Select the group above or below.
    pub(super) fn move_findings_group(&mut self, action: Action) {
        let groups = self.taxonomy().groups.len();
        self.findings_group = match action {
            Action::Up => self.findings_group.saturating_sub(1),
            _ => (self.findings_group + 1).min(groups.saturating_sub(1)),
        };
    }

    /// Narrow the dashboard to the questions the selected group hit, and show it.
    pub(super) fn filter_to_findings_group(&mut self) {
        let taxonomy = self.taxonomy();
        let Some(group) = taxonomy.groups.get(self.findings_group.min(taxonomy.groups.len().saturating_sub(1))) else {
            self.message = Some("no findings to filter by".into());
            return;
        };
        self.dashboard.questions =
            Some(QuestionSet { label: group.label(), ids: group.questions.iter().cloned().collect() });
        self.dashboard.row = 0;
        self.screen = Screen::Dashboard;
    }

    /// Open the schema screen at the field (or key) the selected node's
    /// findings name.
    pub(super) fn open_schema(&mut self) {
        let node = self.current_iteration().and_then(|(_, it)| {
            let node = it.dag.as_ref()?.nodes.get(self.question.node)?;
            let lines = schema_lines(&recorded_schema(&self.state)?);
            target(&lines, node, it.feedback.as_ref())
        });
        self.schema_target = node;
        self.screen = Screen::Schema;
        self.scrolls.schema.jump_to_anchor();
    }
}
