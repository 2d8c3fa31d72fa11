//! A question's or an epoch's status as the results file writes it.

use serde::{Deserialize, Serialize};

use crate::run::{Outcome, QuestionStatus};

/// The label of a `QuestionStatus` (`passed`, `exhausted`, `building`, …) or
/// `unfinished` for an attempt without an outcome, read back as the outcome
/// it names. A label this version does not know is kept as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ResultStatus(String);

impl ResultStatus {
    /// An attempt that has no outcome yet.
    pub fn unfinished() -> Self {
        Self("unfinished".to_string())
    }

    /// The label, as written.
    pub fn label(&self) -> &str {
        &self.0
    }

    /// The outcome it names; none for work under way, an unfinished attempt or a label not known.
    pub fn outcome(&self) -> Option<Outcome> {
        Outcome::from_label(&self.0)
    }
}

impl From<QuestionStatus> for ResultStatus {
    fn from(status: QuestionStatus) -> Self {
        Self(status.label().to_string())
    }
}

impl From<Outcome> for ResultStatus {
    fn from(outcome: Outcome) -> Self {
        Self(outcome.label().to_string())
    }
}

impl std::fmt::Display for ResultStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::Stage;

    #[test]
    fn a_status_reads_back_as_the_outcome_it_names() {
        for outcome in Outcome::ALL {
            let written = serde_json::to_value(ResultStatus::from(outcome)).unwrap();
            assert_eq!(written, serde_json::json!(outcome.label()));
            assert_eq!(serde_json::from_value::<ResultStatus>(written).unwrap().outcome(), Some(outcome));
        }
        assert_eq!(ResultStatus::from(QuestionStatus::Working(Stage::Build)).outcome(), None);
        assert_eq!(ResultStatus::unfinished().outcome(), None);
        let unknown: ResultStatus = serde_json::from_value(serde_json::json!("paused by a newer version")).unwrap();
        assert_eq!((unknown.label(), unknown.outcome()), ("paused by a newer version", None));
    }
}
