//! Accuracy over repeats (`run --repeat R`): each epoch's accuracy, their
//! mean and spread, and pass@k.
//!
//! - An epoch's accuracy: of the questions whose epoch answer was graded, the
//!   share graded right.
//! - `accuracy_std`: the sample standard deviation (n − 1) of those
//!   accuracies over the epochs that graded anything.
//! - pass@k, by the unbiased estimator: for a question with n graded epochs
//!   of which c are right, `1 − C(n−c, k) / C(n, k)` — the chance that at least
//!   one of k epochs drawn without replacement is right — averaged over the
//!   questions with at least k graded epochs.
//! - `pass_all_k`: of the questions graded in all R epochs, the share right in every one.

use std::collections::BTreeMap;

use crate::report::documents::Repeats;
use crate::run::RunState;

/// The run's figures over repeats; none for a run without `--repeat`.
pub fn repeats(state: &RunState) -> Option<Repeats> {
    let r = state.settings.as_ref()?.epochs();
    if r < 2 {
        return None;
    }
    // Per question: the grade of each epoch that has one.
    let graded: Vec<Vec<(u32, bool)>> = state
        .questions
        .iter()
        .map(|q| q.epochs().into_iter().filter_map(|(epoch, attempt)| Some((epoch, attempt.correct()?))).collect())
        .collect();
    let accuracies: Vec<f64> = (1..=r)
        .filter_map(|epoch| {
            let grades: Vec<bool> = graded.iter().flatten().filter(|(e, _)| *e == epoch).map(|(_, c)| *c).collect();
            (!grades.is_empty()).then(|| grades.iter().filter(|c| **c).count() as f64 / grades.len() as f64)
        })
        .collect();
    let mean = (!accuracies.is_empty()).then(|| accuracies.iter().sum::<f64>() / accuracies.len() as f64);
    let std = mean.map(|mean| {
        let spread: f64 = accuracies.iter().map(|a| (a - mean).powi(2)).sum();
        if accuracies.len() < 2 { 0.0 } else { (spread / (accuracies.len() - 1) as f64).sqrt() }
    });
    let mut pass_at_k = BTreeMap::new();
    for k in 1..=r as usize {
        let estimates: Vec<f64> = graded
            .iter()
            .filter(|grades| grades.len() >= k)
            .map(|grades| pass_at(grades.len(), grades.iter().filter(|(_, c)| *c).count(), k))
            .collect();
        if !estimates.is_empty() {
            pass_at_k.insert(k.to_string(), estimates.iter().sum::<f64>() / estimates.len() as f64);
        }
    }
    let complete: Vec<&Vec<(u32, bool)>> = graded.iter().filter(|grades| grades.len() == r as usize).collect();
    let pass_all_k = (!complete.is_empty()).then(|| {
        complete.iter().filter(|grades| grades.iter().all(|(_, c)| *c)).count() as f64 / complete.len() as f64
    });
    Some(Repeats { r, accuracy_mean: mean, accuracy_std: std, pass_at_k, pass_all_k })
}

/// The unbiased pass@k of a question with `n` graded epochs, `c` of them right:
/// `1 − C(n−c, k) / C(n, k)`, computed as a product to stay exact in floats.
pub fn pass_at(n: usize, c: usize, k: usize) -> f64 {
    if n - c < k {
        return 1.0;
    }
    1.0 - ((n - c + 1 - k)..=(n - c))
        .zip((n + 1 - k)..=n)
        .map(|(wrong, all)| wrong as f64 / all as f64)
        .product::<f64>()
}

#[cfg(test)]
mod tests {
    use super::pass_at;

    #[test]
    fn pass_at_k_follows_the_unbiased_estimator() {
        // n = 3, c = 1: pass@1 = 1/3, pass@2 = 1 − C(2,2)/C(3,2) = 2/3, pass@3 = 1.
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(pass_at(3, 1, 1), 1.0 / 3.0));
        assert!(close(pass_at(3, 1, 2), 2.0 / 3.0));
        assert!(close(pass_at(3, 1, 3), 1.0));
        assert!(close(pass_at(5, 0, 3), 0.0) && close(pass_at(5, 5, 1), 1.0));
        // n = 10, c = 3, k = 4: 1 − C(7,4)/C(10,4) = 1 − 35/210.
        assert!(close(pass_at(10, 3, 4), 1.0 - 35.0 / 210.0));
    }
}
