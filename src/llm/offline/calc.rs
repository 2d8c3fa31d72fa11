//! The arithmetic behind the planner's expected answers, written to give the
//! same floats as the Python the DAGs run: `math.fsum` (exactly rounded),
//! `statistics.fmean` (`fsum / n`), `statistics.quantiles(method="inclusive")`.
//!
//! Shared rules of the Python and the Rust: `None` values are skipped; ties in
//! an arg-max go to the smallest key.

use std::collections::BTreeMap;

use chrono::{NaiveDate, NaiveDateTime};
use serde_json::{Map, Value};

/// A JSON object: one row of a row sample.
pub type Row = Map<String, Value>;

/// A Python string literal of `text`.
pub fn lit(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// The rows of the row sample under `key`.
pub fn rows<'d>(data: &'d Map<String, Value>, key: &str) -> Vec<&'d Row> {
    data.get(key).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object).collect()
}

/// Every non-missing number of `field`.
pub fn numbers(rows: &[&Row], field: &str) -> Vec<f64> {
    rows.iter().filter_map(|r| r.get(field).and_then(Value::as_f64)).collect()
}

/// The text of a string value.
pub fn text_of(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

/// Whether a label value counts as set (`1` or `true`, as `l in (1, True)`).
pub fn positive(v: &Value) -> bool {
    v.as_i64() == Some(1) || v.as_bool() == Some(true)
}

/// A float as JSON (`null` when not finite).
pub fn number_json(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// `math.fsum`: the exactly rounded sum (CPython's `msum` with its final
/// half-even correction).
pub fn fsum(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut partials: Vec<f64> = Vec::new();
    for mut x in values {
        let mut kept = 0;
        for j in 0..partials.len() {
            let mut y = partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                partials[kept] = lo;
                kept += 1;
            }
            x = hi;
        }
        partials.truncate(kept);
        if x != 0.0 {
            partials.push(x);
        }
    }
    let mut n = partials.len();
    if n == 0 {
        return 0.0;
    }
    n -= 1;
    let mut hi = partials[n];
    let mut lo = 0.0;
    while n > 0 {
        let x = hi;
        n -= 1;
        let y = partials[n];
        hi = x + y;
        lo = y - (hi - x);
        if lo != 0.0 {
            break;
        }
    }
    if n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0)) {
        let y = lo * 2.0;
        let x = hi + y;
        if y == x - hi {
            hi = x;
        }
    }
    hi
}

/// `statistics.fmean`.
pub fn fmean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| fsum(xs.iter().copied()) / xs.len() as f64)
}

/// `statistics.quantiles(xs, n=n, method="inclusive")[i - 1]`.
pub fn quantile(mut xs: Vec<f64>, i: usize, n: usize) -> Option<f64> {
    if xs.len() < 2 || i == 0 || i >= n {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    let m = xs.len() - 1;
    let (j, delta) = (i * m / n, (i * m % n) as f64);
    Some((xs[j] * (n as f64 - delta) + xs[j + 1] * delta) / n as f64)
}

/// Pearson's correlation as the planner's Python computes it: means by
/// `fsum`, sums of products by `fsum`, `sxy / math.sqrt(sxx * syy)`.
pub fn pearson(xs: &[f64], ys: &[f64]) -> Option<f64> {
    let (mx, my) = (fmean(xs)?, fmean(ys)?);
    let sxy = fsum(xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)));
    let sxx = fsum(xs.iter().map(|x| (x - mx) * (x - mx)));
    let syy = fsum(ys.iter().map(|y| (y - my) * (y - my)));
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// The key with the largest value; ties go to the smallest key.
pub fn arg_max<K: Clone + Ord>(values: &BTreeMap<K, f64>) -> Option<K> {
    let mut best: Option<(&K, f64)> = None;
    for (k, &v) in values {
        if best.is_none_or(|(_, b)| v > b) {
            best = Some((k, v));
        }
    }
    best.map(|(k, _)| k.clone())
}

/// `datetime.datetime.strptime(text, format)` (a date-only format gives midnight).
pub fn parse_time(text: &str, format: &str) -> Option<NaiveDateTime> {
    NaiveDateTime::parse_from_str(text, format)
        .ok()
        .or_else(|| NaiveDate::parse_from_str(text, format).ok().and_then(|d| d.and_hms_opt(0, 0, 0)))
}

/// Values of a categorical column with their counts, most common first (ties by value).
pub fn by_frequency(rows: &[&Row], column: &str) -> Vec<(String, usize)> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for r in rows {
        if let Some(v) = r.get(column).and_then(text_of) {
            *counts.entry(v).or_default() += 1;
        }
    }
    let mut ordered: Vec<(String, usize)> = counts.into_iter().collect();
    ordered.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    ordered
}

/// Per group of `group`: the non-missing values of `measure`.
pub fn grouped(rows: &[&Row], group: &str, measure: &str) -> BTreeMap<String, Vec<f64>> {
    let mut groups: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for r in rows {
        if let (Some(g), Some(x)) = (r.get(group).and_then(text_of), r.get(measure).and_then(Value::as_f64)) {
            groups.entry(g).or_default().push(x);
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fsum_is_exactly_rounded_like_python() {
        // Python: math.fsum([0.1] * 10) == 1.0; sum([0.1] * 10) == 0.9999999999999999.
        assert_eq!(fsum([0.1; 10]), 1.0);
        // Python: math.fsum([1e100, 1.0, -1e100, 1e-100, 1e50, -1.0, -1e50]) == 1e-100.
        assert_eq!(fsum([1e100, 1.0, -1e100, 1e-100, 1e50, -1.0, -1e50]), 1e-100);
        // Python: math.fsum([1.0, 1e-16, 1e-16]) == 1.0000000000000002 (half-even correction).
        assert_eq!(fsum([1.0, 1e-16, 1e-16]), 1.000_000_000_000_000_2);
        assert_eq!(fsum([]), 0.0);
    }

    #[test]
    fn quantiles_follow_the_inclusive_method() {
        // Python: statistics.quantiles([1, 2, 3, 4, 10], n=4, method='inclusive') == [2.0, 3.0, 4.0].
        let xs = vec![10.0, 1.0, 2.0, 3.0, 4.0];
        assert_eq!((1..4).map(|i| quantile(xs.clone(), i, 4).unwrap()).collect::<Vec<_>>(), vec![2.0, 3.0, 4.0]);
        // Python: statistics.quantiles([1, 2, 3, 4, 10], n=100, method='inclusive')[94] == 8.8.
        assert_eq!(quantile(xs, 95, 100), Some(8.8));
    }
}
