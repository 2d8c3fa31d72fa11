//! How far reviewers agree with each other and the machines with them:
//! Cohen's κ between two raters of right and wrong (a 2×2 table), and
//! Krippendorff's α (nominal) over any number of raters with reviews missing,
//! each with a 95 % interval from the report's one seeded bootstrap
//! ([`super::bootstrap::counted_interval`], [`RESAMPLES`](super::bootstrap::RESAMPLES) resamples of the
//! items: κ depends only on the table's four cells, α only on how many units
//! hold each mix of values, so a resample is drawn as counts).

use std::collections::BTreeMap;

use crate::report::documents::{AlphaFigure, KappaFigure, Table};

impl Table {
    /// The table of `pairs` (first rater, second rater).
    pub fn of(pairs: impl IntoIterator<Item = (bool, bool)>) -> Self {
        let mut table = Self::default();
        for pair in pairs {
            match pair {
                (true, true) => table.yes_yes += 1,
                (true, false) => table.yes_no += 1,
                (false, true) => table.no_yes += 1,
                (false, false) => table.no_no += 1,
            }
        }
        table
    }

    fn cells(self) -> [u64; 4] {
        [self.yes_yes, self.yes_no, self.no_yes, self.no_no]
    }

    fn from_cells(cells: &[u64]) -> Self {
        Self { yes_yes: cells[0], yes_no: cells[1], no_yes: cells[2], no_no: cells[3] }
    }

    /// Items in it.
    pub fn n(self) -> u64 {
        self.cells().iter().sum()
    }

    /// Share of items both raters gave the same value; none for no items.
    pub fn percent_agreement(self) -> Option<f64> {
        let n = self.n();
        (n > 0).then(|| (self.yes_yes + self.no_no) as f64 / n as f64)
    }

    /// Cohen's κ: (observed − chance agreement) / (1 − chance agreement);
    /// none for no items or when chance agreement is 1 (both raters gave one
    /// and the same value to every item).
    pub fn kappa(self) -> Option<f64> {
        let n = self.n() as f64;
        let observed = self.percent_agreement()?;
        let first_yes = (self.yes_yes + self.yes_no) as f64 / n;
        let second_yes = (self.yes_yes + self.no_yes) as f64 / n;
        let chance = first_yes * second_yes + (1.0 - first_yes) * (1.0 - second_yes);
        (chance < 1.0).then(|| (observed - chance) / (1.0 - chance))
    }

    /// Why κ is undefined, when it is.
    fn undefined(self) -> Option<String> {
        if self.n() == 0 {
            return Some("no item rated by both".into());
        }
        let constant = |yes: u64| yes == 0 || yes == self.n();
        let (first, second) = (self.yes_yes + self.yes_no, self.yes_yes + self.no_yes);
        (self.kappa().is_none() && constant(first) && constant(second))
            .then(|| "each side gave one value to every item: agreement is certain by chance".into())
    }
}

impl KappaFigure {
    /// The figure of `table`.
    pub fn of(table: Table) -> Self {
        let interval = super::bootstrap::counted_interval(&table.cells(), |c| Table::from_cells(c).kappa());
        Self {
            n: table.n(),
            percent_agreement: table.percent_agreement(),
            kappa: table.kappa(),
            undefined: table.undefined(),
            interval: table.kappa().and(interval),
            table,
        }
    }
}

/// α of units grouped by their mix of values: each distinct sorted mix with
/// how many units hold it.
fn alpha_of_mixes(mixes: &[(Vec<u8>, u64)]) -> Option<f64> {
    // The coincidence matrix: each ordered pair of values of a unit, weighted 1 / (m - 1).
    let mut coincidences: BTreeMap<(u8, u8), f64> = BTreeMap::new();
    for (mix, units) in mixes.iter().filter(|(mix, units)| mix.len() >= 2 && *units > 0) {
        let weight = *units as f64 / (mix.len() - 1) as f64;
        for (i, a) in mix.iter().enumerate() {
            for (j, b) in mix.iter().enumerate() {
                if i != j {
                    *coincidences.entry((*a, *b)).or_default() += weight;
                }
            }
        }
    }
    let mut totals: BTreeMap<u8, f64> = BTreeMap::new();
    for ((a, _), weight) in &coincidences {
        *totals.entry(*a).or_default() += weight;
    }
    let n: f64 = totals.values().sum();
    let observed: f64 = coincidences.iter().filter(|((a, b), _)| a != b).map(|(_, w)| w).sum();
    let expected: f64 =
        totals.iter().flat_map(|(a, na)| totals.iter().filter(move |(b, _)| a != *b).map(move |(_, nb)| na * nb)).sum();
    (n > 1.0 && expected > 0.0).then(|| 1.0 - (n - 1.0) * observed / expected)
}

/// Krippendorff's α (nominal) of `units` (each the values its raters gave;
/// a unit with fewer than two values counts for nothing).
pub fn krippendorff_alpha(units: &[Vec<u8>]) -> AlphaFigure {
    let mut mixes: BTreeMap<Vec<u8>, u64> = BTreeMap::new();
    for unit in units.iter().filter(|u| u.len() >= 2) {
        let mut mix = unit.clone();
        mix.sort_unstable();
        *mixes.entry(mix).or_default() += 1;
    }
    let mixes: Vec<(Vec<u8>, u64)> = mixes.into_iter().collect();
    let counts: Vec<u64> = mixes.iter().map(|(_, count)| *count).collect();
    let alpha = alpha_of_mixes(&mixes);
    let interval = super::bootstrap::counted_interval(&counts, |drawn| {
        let resampled: Vec<(Vec<u8>, u64)> = mixes.iter().zip(drawn).map(|((mix, _), n)| (mix.clone(), *n)).collect();
        alpha_of_mixes(&resampled)
    });
    AlphaFigure {
        units: counts.iter().sum(),
        values: mixes.iter().map(|(mix, n)| mix.len() as u64 * n).sum(),
        alpha,
        interval: alpha.and(interval),
    }
}

mod report;
#[cfg(test)]
mod tests;
mod text;

pub use report::agreement_report;
pub use text::{agreement_lines, alpha_text, kappa_text};
