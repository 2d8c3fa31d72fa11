//! Turning the passes' accumulators into `data.json` and `metadata.json`.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde_json::{Map, Value, json};

use super::accumulate::{GroupTotals, Moments, OrderStatistics, Reservoir, quantile_ranks};
use super::dates;
use super::infer::{Column, ColumnProfile};
use super::records::Described;
use super::source::Encoded;
use super::terms::{PERCENTILES, PrepareOptions, Prepared as Prepare, TimeRange};
use super::values::positive;
use crate::dataset::is_measure;

/// Everything the passes produced.
pub struct Collected<'a> {
    pub source: &'a Path,
    pub options: &'a PrepareOptions,
    pub described: &'a Described,
    /// The 1-based row of the header.
    pub header_row: u64,
    pub headers: &'a [String],
    pub profiles: &'a [ColumnProfile],
    pub columns: &'a [Column],
    pub moments: &'a [Moments],
    pub groups: &'a [Option<HashMap<String, GroupTotals>>],
    pub strata: HashMap<String, (u64, Reservoir)>,
    pub order: &'a HashMap<usize, OrderStatistics>,
    pub numeric: &'a [usize],
    pub label: Option<usize>,
    pub time_column: Option<usize>,
    pub monthly: &'a BTreeMap<String, GroupTotals>,
    pub time_range: &'a HashMap<usize, TimeRange>,
    pub rows: u64,
}

fn number(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

fn group_stats(c: &Collected<'_>, totals: &GroupTotals) -> Value {
    let mut out = Map::new();
    out.insert("count".into(), json!(totals.count));
    for &j in c.numeric.iter().filter(|&&j| is_measure(&c.headers[j])) {
        if let Some(m) = totals.numeric.get(&j) {
            out.insert(format!("{}_sum", c.headers[j]), number(m.sum()));
            out.insert(format!("{}_mean", c.headers[j]), m.mean().map_or(Value::Null, number));
        }
    }
    if let Some(l) = c.label
        && totals.label.1 > 0
    {
        out.insert(format!("{}_count", c.headers[l]), json!(totals.label.0));
        out.insert(format!("{}_rate", c.headers[l]), number(totals.label.0 as f64 / totals.label.1 as f64));
    }
    Value::Object(out)
}

fn percentile(stats: &OrderStatistics, n: u64, p: f64) -> Option<f64> {
    let (low, high, fraction) = quantile_ranks(n, p);
    let (a, b) = (stats.value_at(low)?, stats.value_at(high)?);
    Some(a + fraction * (b - a))
}

fn sample(c: &Collected<'_>) -> (Vec<Value>, String) {
    let total: u64 = c.strata.values().map(|(n, _)| *n).sum();
    let size = c.options.sample_size.map_or(u64::MAX, |rows| rows as u64);
    let mut keys: Vec<String> = c.strata.keys().cloned().collect();
    keys.sort();
    let mut quotas: Vec<(String, u64)> = keys
        .iter()
        .map(|k| {
            let n = c.strata[k].0;
            let proportional = ((size as f64) * n as f64 / total as f64).round() as u64;
            let floor = if c.label.is_some() { n.min(size / 20) } else { 0 };
            (k.clone(), proportional.max(floor).min(n))
        })
        .collect();
    while quotas.iter().map(|q| q.1).sum::<u64>() > size.min(total) {
        let Some(largest) = quotas.iter_mut().max_by_key(|q| q.1) else { break };
        largest.1 -= 1;
    }
    let mut rows: Vec<(u64, Vec<String>)> = Vec::new();
    for (key, quota) in &quotas {
        rows.extend(c.strata[key].1.rows.iter().take(*quota as usize).cloned());
    }
    rows.sort_by_key(|(index, _)| *index);
    let values = rows
        .into_iter()
        .map(|(_, fields)| {
            let row: Map<String, Value> = c
                .headers
                .iter()
                .zip(fields.iter())
                .enumerate()
                .map(|(i, (h, raw))| (h.clone(), c.columns[i].typed(raw)))
                .collect();
            Value::Object(row)
        })
        .collect::<Vec<_>>();
    let how = match c.label {
        _ if c.options.sample_size.is_none() => format!("every one of the {} rows", c.rows),
        Some(l) => format!(
            "a sample of {} of the {} rows, stratified by {} (each class in proportion, rare classes at least 5% of the sample), seed {}",
            values.len(),
            c.rows,
            c.headers[l],
            c.options.seed
        ),
        None => format!("a uniform random sample of {} of the {} rows, seed {}", values.len(), c.rows, c.options.seed),
    };
    (values, how)
}

fn column_meta(c: &Collected<'_>, i: usize) -> Value {
    let (profile, column) = (&c.profiles[i], &c.columns[i]);
    let kind = column.kind;
    let total = profile.non_null + profile.nulls;
    let null_rate = if total == 0 { 0.0 } else { profile.nulls as f64 / total as f64 };
    let mut meta = Map::new();
    let what = &c.described.what;
    meta.insert("description".into(), json!(format!("{kind} column `{}` of the source {what}", c.headers[i])));
    meta.insert("type".into(), json!(kind));
    if let Some(format) = column.strptime() {
        meta.insert("format".into(), json!(dates::human(format)));
        meta.insert("strptime".into(), json!(format));
        if let Some(((_, first), (_, last))) = c.time_range.get(&i) {
            meta.insert("range".into(), json!([first, last]));
        }
    } else if let Some(format) = &column.format {
        meta.insert("format".into(), json!(format));
    }
    if let Some(clock) = column.clock {
        if let Some(strptime) = clock.strptime() {
            meta.insert("strptime".into(), json!(strptime));
        }
        if let Some(unit) = clock.unit() {
            meta.insert("unit".into(), json!(unit));
        }
    }
    meta.insert("nullable".into(), json!(profile.nulls > 0));
    meta.insert("null_rate".into(), number(null_rate));
    if matches!(kind, "categorical" | "boolean")
        && let Some(distinct) = &profile.distinct
    {
        let mut values: Vec<(&String, &u64)> = distinct.iter().collect();
        values.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let mut typed: Vec<Value> = Vec::new();
        for (v, _) in values {
            let value = column.typed(v);
            if !typed.contains(&value) {
                typed.push(value);
            }
        }
        meta.insert("values".into(), Value::Array(typed));
    }
    if matches!(kind, "integer" | "float") && c.moments[i].count > 0 {
        meta.insert("range".into(), json!([number(c.moments[i].min), number(c.moments[i].max)]));
    }
    let read = if kind == "identifier" {
        Some("an identifier: compare or count it, do not average it")
    } else {
        column.note.as_deref()
    };
    let stored = c.described.notes.get(i).and_then(Option::as_deref);
    let note = [stored, read].into_iter().flatten().collect::<Vec<_>>().join("; ");
    if !note.is_empty() {
        meta.insert("note".into(), json!(note));
    }
    Value::Object(meta)
}

/// Assemble both documents.
pub fn build(c: Collected<'_>) -> Prepare {
    let mut data = Map::new();
    data.insert("overview".into(), overview(&c));
    let mut keys = Map::new();
    keys.insert("overview".into(), json!("exact counts over all rows: row_count, column_count, non_null_counts per column, and the label's count and rate"));
    data.insert("numeric_distributions".into(), distributions(&c));
    keys.insert("numeric_distributions".into(), json!("per numeric column over all rows: count, min, max, mean, std (sample), median, p25, p75, p95, p99 (linear interpolation)"));
    group_tables(&c, &mut data, &mut keys);
    let (rows, how) = sample(&c);
    let rows_key = c.options.rows_key.clone();
    keys.insert(rows_key.clone(), json!(format!("{how}; every column of the {}, typed", c.described.what)));
    data.insert(rows_key.clone(), Value::Array(rows));

    let columns: Map<String, Value> =
        (0..c.headers.len()).map(|i| (c.headers[i].clone(), column_meta(&c, i))).collect();
    let name = c.source.file_name().map_or_else(|| c.described.what.clone(), |n| n.to_string_lossy().into_owned());
    let metadata = json!({
        "description": format!("Prepared from {name}: {} rows, {} columns", c.rows, c.headers.len()),
        "domain": "",
        "columns": columns,
        "dataset_keys": keys,
        "important_notes": notes(&c, &rows_key, &how),
    });
    Prepare {
        data: Value::Object(data),
        metadata,
        header_row: c.header_row,
        what: c.described.what.clone(),
        tables: Vec::new(),
        left_out: Vec::new(),
    }
}

/// Exact counts over all rows, and the label's count and rate.
fn overview(c: &Collected<'_>) -> Value {
    let non_null: Map<String, Value> =
        c.headers.iter().zip(c.profiles).map(|(h, p)| (h.clone(), json!(p.non_null))).collect();
    let mut overview = Map::new();
    overview.insert("row_count".into(), json!(c.rows));
    overview.insert("column_count".into(), json!(c.headers.len()));
    overview.insert("non_null_counts".into(), Value::Object(non_null));
    if let Some(l) = c.label {
        let positives = c.profiles[l]
            .distinct
            .as_ref()
            .map_or(0, |d| d.iter().filter(|(v, _)| positive(v)).map(|(_, n)| *n).sum::<u64>());
        overview.insert(format!("{}_count", c.headers[l]), json!(positives));
        overview
            .insert(format!("{}_rate", c.headers[l]), number(positives as f64 / c.profiles[l].non_null.max(1) as f64));
    }
    Value::Object(overview)
}

/// Each numeric column's distribution over all rows.
fn distributions(c: &Collected<'_>) -> Value {
    let mut distributions = Map::new();
    for &i in c.numeric {
        let m = &c.moments[i];
        let mut d = Map::new();
        d.insert("count".into(), json!(m.count));
        d.insert("min".into(), number(m.min));
        d.insert("max".into(), number(m.max));
        d.insert("mean".into(), m.mean().map_or(Value::Null, number));
        d.insert("std".into(), m.std().map_or(Value::Null, number));
        for (name, p) in PERCENTILES {
            d.insert(name.into(), percentile(&c.order[&i], m.count, p).map_or(Value::Null, number));
        }
        distributions.insert(c.headers[i].clone(), Value::Object(d));
    }
    Value::Object(distributions)
}

/// The per-value stats of each categorical column and the monthly series, into
/// `data` with their descriptions in `keys`.
fn group_tables(c: &Collected<'_>, data: &mut Map<String, Value>, keys: &mut Map<String, Value>) {
    for (i, table) in c.groups.iter().enumerate() {
        let Some(table) = table else { continue };
        if c.columns[i].kind != "categorical" || Some(i) == c.label {
            continue;
        }
        let mut values: Vec<(&String, &GroupTotals)> = table.iter().collect();
        values.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(b.0)));
        let stats: Map<String, Value> = values.iter().map(|(v, t)| ((*v).clone(), group_stats(c, t))).collect();
        let key = format!("{}_stats", c.headers[i]);
        keys.insert(
            key.clone(),
            json!(format!(
                "per value of {} over all rows: count, <numeric column>_sum and _mean{}",
                c.headers[i],
                c.label.map(|l| format!(", {0}_count and {0}_rate", c.headers[l])).unwrap_or_default()
            )),
        );
        data.insert(key, Value::Object(stats));
    }
    if let Some(t) = c.time_column {
        let series: Map<String, Value> =
            c.monthly.iter().map(|(m, totals)| (m.clone(), group_stats(c, totals))).collect();
        keys.insert(
            "monthly_stats".into(),
            json!(format!(
                "per month (YYYY-MM) of {} over all rows: the same fields as the per-value stats",
                c.headers[t]
            )),
        );
        data.insert("monthly_stats".into(), Value::Object(series));
    }
}

/// The notes on the sample, missing values, how the file was read and its header row.
fn notes(c: &Collected<'_>, rows_key: &str, how: &str) -> Vec<String> {
    let mut notes = vec![format!(
        "`{rows_key}` is {how}: totals, rates and distributions over all rows are in the pre-aggregated keys, not in the sample"
    )];
    for (i, p) in c.profiles.iter().enumerate() {
        if p.nulls > 0 {
            let rate = p.nulls as f64 / (p.nulls + p.non_null) as f64 * 100.0;
            notes.push(format!("{} is missing (null) in {rate:.1}% of rows; skip None values", c.headers[i]));
        }
    }
    if let Some(layout) = c.described.layout
        && (layout.encoded != (Encoded::Utf8 { skip: 0 }) || layout.delimiter != b',')
    {
        let delimiter = match layout.delimiter {
            b'\t' => "tab".to_string(),
            d => format!("`{}`", char::from(d)),
        };
        notes.push(format!(
            "the CSV was read as {} text separated by {delimiter}; values in `{rows_key}` are Unicode text",
            layout.encoded.name()
        ));
    }
    if c.header_row > 1 {
        notes.push(format!(
            "the {}'s header is its row {}; the rows above it (a title) are not data",
            c.described.what, c.header_row
        ));
    }
    notes.extend(c.described.remarks.iter().cloned());
    notes
}
