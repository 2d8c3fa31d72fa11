//! What a run's baselines (`run --baselines`) say about each question, as the
//! dashboard and the benchmark screen show it: whether the baseline model
//! answers it right without the data, whether its scorer takes an empty
//! answer — both scored by `report`'s baselines, worked out once per change
//! of the run ([`BaselinesCache`], read through `Ctx::baselines` in the
//! screens' refresh) and shared by the screens that show them.

use std::cell::RefCell;
use std::sync::Arc;

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

/// The run's baselines as of one revision of the run (the app counts its
/// changes), worked out the first time a screen asks after a change.
#[derive(Debug, Default)]
pub struct BaselinesCache {
    /// The revision they were worked out at, and what they were.
    held: RefCell<Option<(u64, Option<Arc<RunBaselines>>)>>,
    /// How many times they were worked out.
    #[cfg(test)]
    computed: std::cell::Cell<usize>,
}

impl BaselinesCache {
    /// The baselines of `state` at `revision`: worked out now unless they were at that revision.
    pub fn get(&self, state: &RunState, revision: u64) -> Option<Arc<RunBaselines>> {
        let mut held = self.held.borrow_mut();
        match held.as_ref() {
            Some((at, baselines)) if *at == revision => baselines.clone(),
            _ => {
                #[cfg(test)]
                self.computed.set(self.computed.get() + 1);
                let baselines = run_baselines(state).map(Arc::new);
                *held = Some((revision, baselines.clone()));
                baselines
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::tui::Screen;
    use crate::tui::frame_text::replayed;
    use crate::tui::press_keys;

    /// The dashboard and the benchmark screen share one grading of the
    /// baselines per change of the run.
    #[test]
    fn the_screens_share_one_grading_per_change() {
        let mut app = replayed("sample-data/traces/benchmark-scripted.trace.jsonl");
        let computed = |app: &crate::tui::App| app.ctx().baselines_cache.computed.get();
        assert_eq!(computed(&app), 1, "the dashboard's");
        press_keys(&mut app, "B");
        assert_eq!(app.screen(), Screen::Benchmark);
        assert_eq!(computed(&app), 1, "the benchmark screen reads the dashboard's");
        press_keys(&mut app, "\x1b,");
        assert_eq!(computed(&app), 2, "one step back: once more");
        press_keys(&mut app, "B");
        assert_eq!(computed(&app), 2, "the benchmark screen opened again reads the same");
    }
}
