//! Where a value sits along a chart's x axis, for every view that draws the
//! frontier (the page's SVG, the terminal's braille): linear from zero, or
//! log10 between powers of ten when the values spread past [`LOG_SPREAD`].

use super::Axis;

/// A spread of placed values at least this wide (largest over smallest) is drawn on a log scale.
const LOG_SPREAD: f64 = 100.0;

/// An x axis fitted to some values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AxisScale {
    /// Log10 rather than linear.
    pub log: bool,
    /// The left end: a value, or its log10.
    low: f64,
    /// The right end: a value, or its log10.
    high: f64,
}

impl AxisScale {
    /// The scale that holds `values` (none placed: 0 to 1).
    pub fn of(values: &[f64]) -> Self {
        let max = values.iter().copied().fold(0.0, f64::max);
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        if values.len() > 1 && min > 0.0 && max / min >= LOG_SPREAD {
            Self { log: true, low: min.log10().floor(), high: max.log10().ceil() }
        } else {
            Self { log: false, low: 0.0, high: if max > 0.0 { max * 1.08 } else { 1.0 } }
        }
    }

    /// Where `value` sits, 0 at the left end and 1 at the right.
    pub fn fraction(&self, value: f64) -> f64 {
        let v = if self.log { value.max(f64::MIN_POSITIVE).log10() } else { value };
        ((v - self.low) / (self.high - self.low).max(f64::MIN_POSITIVE)).clamp(0.0, 1.0)
    }

    /// The values to mark: each power of ten on a log scale, five even steps from 0 otherwise.
    pub fn ticks(&self) -> Vec<f64> {
        if self.log {
            (self.low as i32..=self.high as i32).map(|p| 10f64.powi(p)).collect()
        } else {
            (0..=4).map(|i| self.high / 1.08 * f64::from(i) / 4.0).collect()
        }
    }
}

impl Axis {
    /// `value` on this axis, short, for a tick.
    pub fn tick_text(self, value: f64) -> String {
        match self {
            Axis::Cost if value < 0.01 && value > 0.0 => format!("${value:.4}"),
            Axis::Cost => format!("${value:.2}"),
            Axis::Tokens if value >= 1e6 => format!("{:.1}M", value / 1e6),
            Axis::Tokens if value >= 1e3 => format!("{:.0}k", value / 1e3),
            Axis::Tokens => format!("{value:.0}"),
            Axis::WallTime => format!("{value:.0}s"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wide_spread_goes_on_a_log_scale_between_powers_of_ten() {
        let scale = AxisScale::of(&[0.01, 0.5, 3.0]);
        assert!(scale.log);
        assert_eq!(scale.ticks(), [0.01, 0.1, 1.0, 10.0]);
        assert_eq!((scale.fraction(0.01), scale.fraction(10.0)), (0.0, 1.0));
        assert!((scale.fraction(0.1) - 1.0 / 3.0).abs() < 1e-12);
        let linear = AxisScale::of(&[1.0, 50.0]);
        assert!(!linear.log, "a spread under 100×");
        assert_eq!(linear.fraction(0.0), 0.0);
        assert!(linear.fraction(50.0) < 1.0, "room right of the largest");
        assert!(!AxisScale::of(&[0.0, 5.0]).log, "a zero has no log");
        assert_eq!(AxisScale::of(&[]).fraction(0.5), 0.5);
        assert_eq!((Axis::Cost.tick_text(0.005), Axis::Tokens.tick_text(12_500.0)), ("$0.0050".into(), "12k".into()));
    }
}
