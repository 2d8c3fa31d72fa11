//! Looking closer: the dataset schema the builder saw, opened where the
//! selected node's trouble lies; the critic's scorecard of the run.

use super::app::App;
use super::schema_text::{recorded_schema, schema_lines, target};
use super::view::Screen;
use crate::report::{CriticScorecard, critic_scorecard};

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
