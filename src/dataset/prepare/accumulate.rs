//! Streaming accumulators: exact sums and moments, categorical group totals,
//! stratified reservoir samples and histogram-refined exact order statistics.

use std::collections::{BTreeMap, HashMap};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Buckets of the histogram that locates order statistics.
pub const BUCKETS: usize = 4096;

/// Sum, mean and variance of a stream of numbers, accurate over millions of
/// values (Neumaier-compensated sum, Welford variance).
#[derive(Debug, Clone, Default)]
pub struct Moments {
    /// Values seen.
    pub count: u64,
    sum: f64,
    compensation: f64,
    mean: f64,
    m2: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
}

impl Moments {
    /// Add one value.
    pub fn push(&mut self, x: f64) {
        if self.count == 0 {
            self.min = x;
            self.max = x;
        }
        self.count += 1;
        self.min = self.min.min(x);
        self.max = self.max.max(x);
        let t = self.sum + x;
        self.compensation += if self.sum.abs() >= x.abs() { (self.sum - t) + x } else { (x - t) + self.sum };
        self.sum = t;
        let delta = x - self.mean;
        self.mean += delta / self.count as f64;
        self.m2 += delta * (x - self.mean);
    }

    /// The sum.
    pub fn sum(&self) -> f64 {
        self.sum + self.compensation
    }

    /// The mean (sum / count).
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum() / self.count as f64)
    }

    /// Sample standard deviation (n − 1), as Python's `statistics.stdev`.
    pub fn std(&self) -> Option<f64> {
        (self.count > 1).then(|| (self.m2 / (self.count - 1) as f64).sqrt())
    }
}

/// Totals of the rows holding one value of a categorical column.
#[derive(Debug, Clone, Default)]
pub struct GroupTotals {
    /// Rows with the value.
    pub count: u64,
    /// Per numeric column (by index): the moments of its values in the group.
    pub numeric: HashMap<usize, Moments>,
    /// `(positive, non-null)` label counts.
    pub label: (u64, u64),
}

impl GroupTotals {
    /// Count one row: its `(column, value)` numbers and its label value.
    pub fn add(&mut self, numbers: &[(usize, f64)], label_value: Option<&str>) {
        self.count += 1;
        for &(j, x) in numbers {
            self.numeric.entry(j).or_default().push(x);
        }
        if let Some(v) = label_value {
            self.label.0 += u64::from(super::values::positive(v));
            self.label.1 += 1;
        }
    }
}

/// A uniform random sample of a stream (reservoir sampling), remembering row order.
#[derive(Debug, Clone)]
pub struct Reservoir {
    capacity: usize,
    seen: u64,
    /// `(row index, fields)` kept.
    pub rows: Vec<(u64, Vec<String>)>,
}

impl Reservoir {
    /// An empty reservoir of `capacity` rows.
    pub fn new(capacity: usize) -> Self {
        Self { capacity, seen: 0, rows: Vec::new() }
    }

    /// Offer row `index`.
    pub fn offer(&mut self, index: u64, fields: &csv::StringRecord, rng: &mut ChaCha8Rng) {
        self.seen += 1;
        if self.rows.len() < self.capacity {
            self.rows.push((index, fields.iter().map(str::to_string).collect()));
        } else {
            let slot = rng.random_range(0..self.seen);
            if (slot as usize) < self.capacity {
                self.rows[slot as usize] = (index, fields.iter().map(str::to_string).collect());
            }
        }
    }
}

/// The seeded generator every sample uses.
pub fn sampler(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// Order-preserving integer key of a float.
fn sortable(x: f64) -> u64 {
    let bits = x.to_bits();
    if bits >> 63 == 1 { !bits } else { bits | (1 << 63) }
}

fn unsortable(key: u64) -> f64 {
    f64::from_bits(if key >> 63 == 1 { key & !(1 << 63) } else { !key })
}

/// The bucket of `x` in a histogram over `[min, max]`.
pub fn bucket_of(x: f64, min: f64, max: f64) -> usize {
    if max <= min {
        return 0;
    }
    (((x - min) / (max - min)) * BUCKETS as f64).floor().clamp(0.0, (BUCKETS - 1) as f64) as usize
}

/// Exact order statistics of one column, found in three passes: moments
/// (count, min, max), a histogram, then the values of the buckets holding the
/// wanted ranks.
#[derive(Debug, Clone)]
pub struct OrderStatistics {
    min: f64,
    max: f64,
    /// Values per bucket (pass two).
    pub histogram: Vec<u64>,
    /// Wanted 0-based ranks.
    ranks: Vec<u64>,
    /// Distinct values and counts of the buckets holding wanted ranks (pass three).
    collected: HashMap<usize, BTreeMap<u64, u64>>,
}

impl OrderStatistics {
    /// Prepare to find the values at `ranks` of a column with `min`/`max`.
    pub fn new(min: f64, max: f64, ranks: Vec<u64>) -> Self {
        Self { min, max, histogram: vec![0; BUCKETS], ranks, collected: HashMap::new() }
    }

    /// Pass two: count `x`.
    pub fn count(&mut self, x: f64) {
        self.histogram[bucket_of(x, self.min, self.max)] += 1;
    }

    /// Between passes two and three: which buckets hold the wanted ranks.
    pub fn target_buckets(&mut self) {
        let mut cumulative = 0u64;
        for (bucket, &n) in self.histogram.iter().enumerate() {
            if self.ranks.iter().any(|&r| r >= cumulative && r < cumulative + n) {
                self.collected.insert(bucket, BTreeMap::new());
            }
            cumulative += n;
        }
    }

    /// Pass three: keep `x` if its bucket holds a wanted rank.
    pub fn collect(&mut self, x: f64) {
        if let Some(values) = self.collected.get_mut(&bucket_of(x, self.min, self.max)) {
            *values.entry(sortable(x)).or_default() += 1;
        }
    }

    /// The value at 0-based `rank`.
    pub fn value_at(&self, rank: u64) -> Option<f64> {
        let mut cumulative = 0u64;
        for (bucket, &n) in self.histogram.iter().enumerate() {
            if rank < cumulative + n {
                let mut position = cumulative;
                for (&key, &count) in self.collected.get(&bucket)? {
                    if rank < position + count {
                        return Some(unsortable(key));
                    }
                    position += count;
                }
                return None;
            }
            cumulative += n;
        }
        None
    }
}

/// The 0-based ranks that linear-interpolation quantile `p` of `n` values needs.
pub fn quantile_ranks(n: u64, p: f64) -> (u64, u64, f64) {
    let h = (n.saturating_sub(1)) as f64 * p;
    let low = h.floor() as u64;
    let high = (low + 1).min(n.saturating_sub(1));
    (low, high, h - h.floor())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_match_textbook_values() {
        let mut m = Moments::default();
        for x in [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0] {
            m.push(x);
        }
        assert_eq!(m.sum(), 40.0);
        assert_eq!(m.mean(), Some(5.0));
        assert!((m.std().unwrap() - 2.138089935299395).abs() < 1e-12);
        assert_eq!((m.min, m.max), (2.0, 9.0));
    }

    #[test]
    fn order_statistics_are_exact() {
        let values: Vec<f64> = (0..10_001).map(|i| f64::from((i * 7919) % 10_001) / 3.0 - 100.0).collect();
        let (min, max) =
            (values.iter().copied().fold(f64::MAX, f64::min), values.iter().copied().fold(f64::MIN, f64::max));
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let ranks = vec![0, 2500, 5000, 9999, 10_000];
        let mut stats = OrderStatistics::new(min, max, ranks.clone());
        values.iter().for_each(|&x| stats.count(x));
        stats.target_buckets();
        values.iter().for_each(|&x| stats.collect(x));
        for r in ranks {
            assert_eq!(stats.value_at(r), Some(sorted[r as usize]), "rank {r}");
        }
        assert_eq!(unsortable(sortable(-3.5)), -3.5);
    }
}
