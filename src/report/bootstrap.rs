//! The one bootstrap every interval of the report draws with: the mean of
//! some per-item values, resampled with replacement a fixed number of times
//! from a fixed seed, so the same values always give the same interval. The
//! paired significance test resamples per-question differences; the
//! frontier resamples per-question scores of a run with repeats.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The means of `resamples` resamples of `values` (each as many draws with
/// replacement as there are values), seeded with `seed`, sorted ascending.
/// Empty for no values.
pub fn resampled_means(values: &[f64], resamples: usize, seed: u64) -> Vec<f64> {
    if values.is_empty() {
        return Vec::new();
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = values.len();
    let mut means: Vec<f64> =
        (0..resamples).map(|_| (0..n).map(|_| values[rng.random_range(0..n)]).sum::<f64>() / n as f64).collect();
    means.sort_by(f64::total_cmp);
    means
}

/// The `q` quantile (0–1) of `sorted`, the nearest rank; none when empty.
pub fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    Some(sorted[((q * last as f64).round() as usize).min(last)])
}

/// The 95 % percentile interval of the mean of `values`; none without values.
pub fn percentile_interval(values: &[f64], resamples: usize, seed: u64) -> Option<[f64; 2]> {
    let means = resampled_means(values, resamples, seed);
    Some([quantile(&means, 0.025)?, quantile(&means, 0.975)?])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_values_and_seed_give_the_same_sorted_means() {
        let values = [1.0, 0.0, 0.5, 1.0, 0.0, 1.0];
        let first = resampled_means(&values, 500, 7);
        assert_eq!(first, resampled_means(&values, 500, 7));
        assert_ne!(first, resampled_means(&values, 500, 8), "another seed draws otherwise");
        assert!(first.windows(2).all(|w| w[0] <= w[1]), "sorted");
        assert!(first.iter().all(|m| (0.0..=1.0).contains(m)));
        assert!(resampled_means(&[], 10, 1).is_empty());
        assert_eq!(percentile_interval(&[], 10, 1), None);
        assert_eq!(percentile_interval(&[0.25; 9], 100, 1), Some([0.25, 0.25]), "no spread, no width");
    }

    #[test]
    fn quantiles_take_the_nearest_rank() {
        let sorted: Vec<f64> = (0..=100).map(f64::from).collect();
        assert_eq!(quantile(&sorted, 0.025), Some(3.0), "2.5 rounds to 3");
        assert_eq!(quantile(&sorted, 0.975), Some(98.0));
        assert_eq!((quantile(&sorted, 0.0), quantile(&sorted, 1.0)), (Some(0.0), Some(100.0)));
        assert_eq!(quantile(&[], 0.5), None);
    }
}
