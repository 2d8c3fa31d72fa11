//! The view of the report's "Baselines" section for
//! `templates/baselines.html.j2` (`run --baselines`): each baseline's accuracy
//! beside the loop's over every question, per level and per dataset, the
//! loop's accuracy on the questions that need the data, its lift over
//! answering directly (`no_code`), and the questions answerable without the
//! data or whose scorer accepts an empty answer. Drawn only in a run with baselines.

use indexmap::IndexMap;
use serde::Serialize;

use crate::domain::{Baseline, DifficultyLevel};
use crate::report::analyses::baselines::{baselines_by, baselines_summary, tally_text};
use crate::report::documents::{BaselineAnswer, BaselineFloors, BaselineLift};
use crate::run::RunState;

/// One row: a group of questions, the loop's accuracy and each baseline's.
#[derive(Debug, Serialize)]
struct FloorRow {
    over: String,
    looped: String,
    baselines: Vec<String>,
    needs_data: String,
}

/// A question named by a flag.
#[derive(Debug, Serialize)]
struct QuestionRef {
    id: String,
    question: String,
}

/// The section.
#[derive(Debug, Serialize)]
pub struct BaselinesView {
    names: Vec<&'static str>,
    rows: Vec<FloorRow>,
    lift: String,
    without_data: Vec<QuestionRef>,
    accepts_empty: Vec<QuestionRef>,
}

fn row(over: String, floors: &BaselineFloors) -> FloorRow {
    FloorRow {
        over,
        looped: tally_text(&floors.looped),
        baselines: floors.baselines.values().map(tally_text).collect(),
        needs_data: tally_text(&floors.needs_data),
    }
}

/// What the loop adds over answering from the schema alone, in one sentence.
fn lift_text(lift: Option<&BaselineLift>) -> String {
    let Some(lift) = lift else { return String::new() };
    let per_extra = lift
        .tokens_per_extra_right
        .map_or(String::new(), |tokens| format!(", {} tokens per extra right answer", tokens.round() as i64));
    format!(
        "Over answering directly from the schema (no_code), the loop gets {} question(s) right that it gets wrong, and {} wrong that it gets right{per_extra}.",
        lift.gained, lift.lost
    )
}

/// The questions whose `baseline` is right.
fn flagged(state: &RunState, baselines: &[IndexMap<Baseline, BaselineAnswer>], baseline: Baseline) -> Vec<QuestionRef> {
    state
        .questions
        .iter()
        .zip(baselines)
        .filter(|(_, answers)| answers.get(&baseline).and_then(|a| a.correct) == Some(true))
        .map(|(q, _)| QuestionRef { id: q.question.id.to_string(), question: q.question.question.clone() })
        .collect()
}

/// The section of `state`, whose questions' baselines are `baselines`, when the run asked for them.
pub fn baselines_view(state: &RunState, baselines: &[IndexMap<Baseline, BaselineAnswer>]) -> Option<BaselinesView> {
    let overall = baselines_summary(state, baselines)?;
    let mut rows = vec![row("all questions".into(), &overall)];
    let by_level = baselines_by(state, baselines, |q| Some(q.question.difficulty_level.as_str().to_string()));
    for level in DifficultyLevel::ALL {
        if let Some(floors) = by_level.get(level.as_str()) {
            rows.push(row(level.as_str().to_string(), floors));
        }
    }
    let by_dataset = baselines_by(state, baselines, |q| q.question.dataset.clone());
    if by_dataset.len() > 1 {
        rows.extend(by_dataset.iter().map(|(name, floors)| row(format!("dataset {name}"), floors)));
    }
    Some(BaselinesView {
        names: Baseline::ALL.iter().map(|b| b.name()).collect(),
        rows,
        lift: lift_text(overall.baselines.get(&Baseline::NoCode).and_then(|t| t.lift.as_ref())),
        without_data: flagged(state, baselines, Baseline::NoData),
        accepts_empty: flagged(state, baselines, Baseline::Empty),
    })
}
