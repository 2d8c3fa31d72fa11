//! The one bootstrap every interval of the report draws with: the mean of
//! some per-item values, resampled with replacement a fixed number of times
//! from a fixed seed, so the same values always give the same interval. The
//! paired significance test resamples per-question differences; the
//! frontier resamples per-question scores of a run with repeats.
//!
//! Those values take few distinct values (a difference of right and wrong is
//! -1, 0 or 1): a resample is then drawn as how many times each distinct value
//! comes up — one multinomial draw, as sequential binomials — which has the
//! same distribution as drawing every item and costs the distinct values, not
//! the items (10,000 resamples of 10,000 questions: 30,000 draws, not 10⁸).
//!
//! One rule for every interval and p value: [`RESAMPLES`] resamples drawn
//! from [`SEED`], so reviews' agreement, the frontier and `compare`'s
//! significance never disagree on how they resample.

use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Binomial, Distribution};

/// Resamples of every bootstrap of the report.
pub const RESAMPLES: usize = 2_000;

/// The seed every bootstrap of the report starts from: the same values always
/// give the same interval.
pub const SEED: u64 = 0x5EED_C0DE;

/// Values with at most this many distinct values are resampled by counts.
const FEW_VALUES: usize = 64;

/// The means of [`RESAMPLES`] resamples of `values` (each as many draws with
/// replacement as there are values), seeded with [`SEED`], sorted ascending.
/// Empty for no values.
pub fn resampled_means(values: &[f64]) -> Vec<f64> {
    means_drawn(values, RESAMPLES, SEED)
}

/// [`resampled_means`] with another count and seed (the tests' check that
/// the seed decides the draw).
fn means_drawn(values: &[f64], resamples: usize, seed: u64) -> Vec<f64> {
    if values.is_empty() {
        return Vec::new();
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = values.len();
    let distinct = distinct_counts(values);
    let mut means: Vec<f64> = if distinct.len() <= FEW_VALUES {
        (0..resamples).map(|_| counted_mean(&distinct, n as u64, &mut rng)).collect()
    } else {
        (0..resamples).map(|_| (0..n).map(|_| values[rng.random_range(0..n)]).sum::<f64>() / n as f64).collect()
    };
    means.sort_by(f64::total_cmp);
    means
}

/// Each distinct value of `values` with how often it occurs, in ascending order.
fn distinct_counts(values: &[f64]) -> Vec<(f64, u64)> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mut counts: Vec<(f64, u64)> = Vec::new();
    for value in sorted {
        match counts.last_mut() {
            Some((last, count)) if last.total_cmp(&value).is_eq() => *count += 1,
            _ => counts.push((value, 1)),
        }
    }
    counts
}

/// The mean of one resample of `n` items from `distinct` (value, count).
fn counted_mean(distinct: &[(f64, u64)], n: u64, rng: &mut impl Rng) -> f64 {
    let counts: Vec<u64> = distinct.iter().map(|(_, count)| *count).collect();
    let drawn = resample_counts(&counts, rng);
    distinct.iter().zip(drawn).map(|((value, _), drawn)| value * drawn as f64).fold(0.0, |a, b| a + b) / n as f64
}

/// One resample of items that fall in categories `counts` (as many draws as
/// items, with replacement): how many land in each category — each one's
/// draws binomial given those left to the categories not yet drawn.
fn resample_counts(counts: &[u64], rng: &mut impl Rng) -> Vec<u64> {
    let total: u64 = counts.iter().sum();
    let (mut left, mut weight_left) = (total, total as f64);
    let mut drawn = Vec::with_capacity(counts.len());
    for (index, count) in counts.iter().enumerate() {
        let this = if index + 1 == counts.len() || left == 0 {
            left
        } else {
            let p = (*count as f64 / weight_left).clamp(0.0, 1.0);
            Binomial::new(left, p).map_or(0, |b| b.sample(rng))
        };
        drawn.push(this);
        left -= this;
        weight_left -= *count as f64;
    }
    drawn
}

/// A statistic of items in categories `counts` (a 2×2 table's cells, units
/// grouped by their values), recomputed over `resamples` resamples of the
/// items ([`RESAMPLES`] times from [`SEED`]): its 95 % percentile interval,
/// over the resamples where it is defined; none when it never is.
pub fn counted_interval(counts: &[u64], statistic: impl Fn(&[u64]) -> Option<f64>) -> Option<[f64; 2]> {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut values: Vec<f64> = (0..RESAMPLES).filter_map(|_| statistic(&resample_counts(counts, &mut rng))).collect();
    values.sort_by(f64::total_cmp);
    Some([quantile(&values, 0.025)?, quantile(&values, 0.975)?])
}

/// The `q` quantile (0–1) of `sorted`, the nearest rank; none when empty.
pub fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    Some(sorted[((q * last as f64).round() as usize).min(last)])
}

/// The 95 % percentile interval of the mean of `values`; none without values.
pub fn percentile_interval(values: &[f64]) -> Option<[f64; 2]> {
    let means = resampled_means(values);
    Some([quantile(&means, 0.025)?, quantile(&means, 0.975)?])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_values_and_seed_give_the_same_sorted_means() {
        let values = [1.0, 0.0, 0.5, 1.0, 0.0, 1.0];
        let first = resampled_means(&values);
        assert_eq!(first.len(), RESAMPLES);
        assert_eq!(first, resampled_means(&values));
        assert_ne!(first, means_drawn(&values, RESAMPLES, SEED + 1), "another seed draws otherwise");
        assert!(first.windows(2).all(|w| w[0] <= w[1]), "sorted");
        assert!(first.iter().all(|m| (0.0..=1.0).contains(m)));
        assert!(resampled_means(&[]).is_empty());
        assert_eq!(percentile_interval(&[]), None);
        assert_eq!(percentile_interval(&[0.25; 9]), Some([0.25, 0.25]), "no spread, no width");
    }

    #[test]
    fn resampling_by_counts_has_the_spread_of_resampling_every_item() {
        // 60 % ones, 40 % zeros over 400 items: the mean's standard error is sqrt(0.24 / 400) ≈ 0.0245.
        let values: Vec<f64> = (0..400).map(|i| f64::from(u8::from(i % 5 < 3))).collect();
        let means = means_drawn(&values, 4_000, 3);
        let mean = means.iter().sum::<f64>() / means.len() as f64;
        let spread = (means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / means.len() as f64).sqrt();
        assert!((mean - 0.6).abs() < 0.003, "{mean}");
        assert!((spread - 0.0245).abs() < 0.002, "{spread}");
        // Past 64 distinct values every item is drawn: the same spread.
        let many: Vec<f64> = (0..400).map(|i| f64::from(i % 100) / 99.0).collect();
        let direct = means_drawn(&many, 4_000, 3);
        let centre = many.iter().sum::<f64>() / 400.0;
        let m = direct.iter().sum::<f64>() / direct.len() as f64;
        assert!((m - centre).abs() < 0.003, "{m} {centre}");
        assert_eq!(distinct_counts(&[1.0, -1.0, 1.0, 0.0, 1.0]), [(-1.0, 1), (0.0, 1), (1.0, 3)]);
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
