//! How fast the critic loop converges: per run and per difficulty, how many
//! of the model's attempts the critic first approved at iteration 1, 2, …,
//! and how many ran out of iterations without an approval.

use std::collections::BTreeMap;

use crate::report::documents::{ApprovalHistogram, Convergence};
use crate::run::{Attempt, Outcome, RunState};

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
