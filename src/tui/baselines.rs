//! What a run's baselines (`run --baselines`) say about each question, as the
//! dashboard and the benchmark screen show it: whether the baseline model
//! answers it right without the data, whether its scorer takes an empty
//! answer — both scored by `report`'s baselines, worked out in a screen's
//! refresh when the run changed, never while drawing.

use crate::domain::Baseline;
use crate::report::{BaselineFloors, baselines_summary, question_baselines};
use crate::run::RunState;

/// One question's flags from its baselines; none while a baseline is not scored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BaselineFlags {
    /// The `no_data` baseline (the model, without the data) answers it right.
    pub without_data: Option<bool>,
    /// The `empty` baseline (an empty answer) is scored right.
    pub accepts_empty: Option<bool>,
}

impl BaselineFlags {
    /// The flags as a short cell: `D` answerable without the data, `E` the
    /// scorer accepts an empty answer, `·` neither, empty while unscored.
    pub fn text(self) -> &'static str {
        match (self.without_data, self.accepts_empty) {
            (Some(true), Some(true)) => "D E",
            (Some(true), _) => "D",
            (_, Some(true)) => "E",
            (None, None) => "",
            _ => "·",
        }
    }

    /// Whether a model answers the question right without the data.
    pub fn answerable_without_data(self) -> bool {
        self.without_data == Some(true)
    }
}

/// A run's baselines as the screens show them.
#[derive(Debug, Clone)]
pub struct RunBaselines {
    /// Every question's flags, in question order.
    pub flags: Vec<BaselineFlags>,
    /// Each baseline's accuracy over the run, beside the loop's.
    pub floors: BaselineFloors,
}

/// The run's baselines, when it asked for them.
pub fn run_baselines(state: &RunState) -> Option<RunBaselines> {
    let answers = question_baselines(state);
    let floors = baselines_summary(state, &answers)?;
    let flags = answers
        .iter()
        .map(|answers| {
            let correct = |baseline| answers.get(&baseline).and_then(|answer| answer.correct);
            BaselineFlags { without_data: correct(Baseline::NoData), accepts_empty: correct(Baseline::Empty) }
        })
        .collect();
    Some(RunBaselines { flags, floors })
}
