//! Baselines: what a question's answer scores without the critic loop, so an
//! accuracy can be read against the floor under it (`run --baselines`).

use serde::{Deserialize, Serialize};

/// A baseline, by the name results give it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Baseline {
    /// An empty answer.
    Empty,
    /// The most common expected answer of the same JSON type among the run's other questions.
    Constant,
    /// The baseline model's answer to the question alone, nothing about the data.
    NoData,
    /// The baseline model's answer from the question, the schema and the sample rows, no DAG.
    NoCode,
}

impl Baseline {
    /// Every baseline, in the order results list them.
    pub const ALL: [Self; 4] = every_variant!(Self: Empty, Constant, NoData, NoCode);

    /// Its name in results and on screen.
    pub fn name(self) -> &'static str {
        match self {
            Self::Empty => "empty",
            Self::Constant => "constant",
            Self::NoData => "no_data",
            Self::NoCode => "no_code",
        }
    }
}

/// A baseline that asks a model: what a baseline call's key (`CallKey.baseline`) names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BaselineCall {
    /// The question (and its answer format) and nothing about the data.
    NoData,
    /// The question with the schema and sample rows the builder gets, answered directly.
    NoCode,
}

impl BaselineCall {
    /// Both, in the order a question asks them.
    pub const ALL: [Self; 2] = every_variant!(Self: NoData, NoCode);
}

impl From<BaselineCall> for Baseline {
    fn from(call: BaselineCall) -> Self {
        match call {
            BaselineCall::NoData => Self::NoData,
            BaselineCall::NoCode => Self::NoCode,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_baseline_call_is_written_as_the_baseline_it_answers() {
        for call in BaselineCall::ALL {
            let written = serde_json::to_value(call).unwrap();
            assert_eq!(written, serde_json::to_value(Baseline::from(call)).unwrap());
            assert_eq!(written, serde_json::json!(Baseline::from(call).name()));
        }
        let names: Vec<&str> = Baseline::ALL.iter().map(|b| b.name()).collect();
        assert_eq!(names, ["empty", "constant", "no_data", "no_code"]);
    }
}
