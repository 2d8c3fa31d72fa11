//! How fast the critic loop converges: per run and per difficulty, how many
//! of the model's attempts the critic first approved at iteration 1, 2, …,
//! and how many ran out of iterations without an approval.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::run::{Attempt, Outcome, RunState};

/// Iterations to approval of a set of attempts.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ApprovalHistogram {
    /// `approved_at[i]`: attempts first approved at iteration `i + 1`
    /// (as long as the run's iteration limit, or the latest approval).
    pub approved_at: Vec<usize>,
    /// Attempts that used every iteration without an approval.
    pub never_approved: usize,
    /// Mean iterations to approval of the approved attempts; none when none was approved.
    pub mean: Option<f64>,
    /// Their median.
    pub median: Option<f64>,
}

impl ApprovalHistogram {
    /// The histogram of `approvals` (the iteration of each approval; none:
    /// never approved), with at least `buckets` buckets.
    fn of(approvals: &[Option<u32>], buckets: usize) -> Self {
        let mut approved: Vec<u32> = approvals.iter().flatten().copied().collect();
        approved.sort_unstable();
        let longest = approved.last().map_or(0, |&n| n as usize);
        let mut approved_at = vec![0; buckets.max(longest)];
        for &n in &approved {
            // Iterations count from 1.
            if let Some(slot) = (n as usize).checked_sub(1).and_then(|i| approved_at.get_mut(i)) {
                *slot += 1;
            }
        }
        let count = approved.len();
        let mean = (count > 0).then(|| approved.iter().map(|&n| f64::from(n)).sum::<f64>() / count as f64);
        let median = (count > 0).then(|| {
            let middle = f64::from(approved[count / 2]);
            if count % 2 == 1 { middle } else { (f64::from(approved[count / 2 - 1]) + middle) / 2.0 }
        });
        Self { approved_at, never_approved: approvals.len() - count, mean, median }
    }

    /// Attempts counted: approved and never approved.
    pub fn attempts(&self) -> usize {
        self.approved_at.iter().sum::<usize>() + self.never_approved
    }
}

/// Iterations to approval over the run and per difficulty level.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Convergence {
    /// Over every finished attempt of the model.
    pub run: ApprovalHistogram,
    /// Per difficulty level.
    pub by_difficulty: BTreeMap<String, ApprovalHistogram>,
}

/// The iteration the critic first approved `attempt` at; `Some(None)` when
/// it used every iteration without; none while it is undecided (under way,
/// cancelled).
fn approval(attempt: &Attempt) -> Option<Option<u32>> {
    let approved = attempt.iterations.iter().find(|it| it.feedback.as_ref().is_some_and(|f| f.is_approved));
    match approved {
        Some(it) => Some(Some(it.number)),
        None => (attempt.outcome == Some(Outcome::Exhausted)).then_some(None),
    }
}

/// How the model's attempts converged in `state`.
pub fn convergence(state: &RunState) -> Convergence {
    let mut all = Vec::new();
    let mut levels: BTreeMap<String, Vec<Option<u32>>> = BTreeMap::new();
    for q in &state.questions {
        for attempt in q.attempts().iter().filter(|a| !a.by_hand) {
            let Some(approval) = approval(attempt) else { continue };
            all.push(approval);
            levels.entry(q.question.difficulty_level.as_str().to_string()).or_default().push(approval);
        }
    }
    let buckets = state.settings.as_ref().map_or(0, |s| s.max_iterations as usize);
    let run = ApprovalHistogram::of(&all, buckets);
    let buckets = run.approved_at.len();
    let by_difficulty = levels.into_iter().map(|(level, a)| (level, ApprovalHistogram::of(&a, buckets))).collect();
    Convergence { run, by_difficulty }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::test_run::run_with_oscillation;

    #[test]
    fn attempts_are_counted_at_the_iteration_of_their_first_approval() {
        let c = convergence(&run_with_oscillation());
        // q_a approved at 4, q_b never (exhausted), q_c at 2; the run allows 4.
        assert_eq!(c.run.approved_at, vec![0, 1, 0, 1]);
        assert_eq!(c.run.never_approved, 1);
        assert_eq!((c.run.mean, c.run.median), (Some(3.0), Some(3.0)));
        assert_eq!(c.run.attempts(), 3);
        assert_eq!(c.by_difficulty["hard"].approved_at, vec![0, 1, 0, 0], "q_c, sized like the run's");
        assert_eq!((c.by_difficulty["medium"].never_approved, c.by_difficulty["easy"].approved_at[3]), (1, 1));
        assert_eq!(ApprovalHistogram::of(&[None], 0), ApprovalHistogram { never_approved: 1, ..Default::default() });
    }
}
