//! Iterations to approval as the results document holds them (computed in
//! `report/analyses/convergence.rs`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

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
    pub(in crate::report) fn of(approvals: &[Option<u32>], buckets: usize) -> Self {
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
