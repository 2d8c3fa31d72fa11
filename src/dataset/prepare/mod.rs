//! `eval-dag prepare`: stream a CSV into `data.json` (exact pre-aggregates and
//! a seeded row sample) and `metadata.json` (inferred column annotations).
//!
//! The file's encoding and delimiter are found first (a byte scan, and the
//! first records). Four streaming passes then keep memory bounded by the
//! number of columns, categorical values and the sample, not by the file: (1)
//! column profiles, from which each column's type and reading are decided
//! (number style, unit, datetime format); (2) moments, group totals, the
//! reservoir sample, the monthly series and datetime ranges; (3) histograms;
//! (4) the values of the histogram buckets holding the wanted percentiles. Percentiles use linear interpolation between closest ranks
//! (numpy's default, Python's `statistics.quantiles(method="inclusive")`);
//! `std` is the sample standard deviation.

mod accumulate;
mod clock;
mod dates;
mod infer;
mod output;
mod source;
mod values;

use std::collections::HashMap;
use std::path::Path;

use accumulate::{GroupTotals, Moments, OrderStatistics, Reservoir, quantile_ranks, sampler};
use infer::{Column, ColumnProfile};
use source::Layout;
use values::is_null;

pub use infer::CATEGORICAL_LIMIT;
pub use values::NULL_MARKERS;

mod terms;
use terms::TimeRange;
pub use terms::{MAX_FIELD_BYTES, PERCENTILES, PrepareError, PrepareOptions, Prepared};

/// Rows read to find a header below a title.
const TITLE_SCAN_ROWS: usize = 10;

struct Reader<'p> {
    path: &'p Path,
    layout: Layout,
    /// Rows above the header.
    skipped: u64,
}

impl Reader<'_> {
    fn error(&self, message: String) -> PrepareError {
        PrepareError { path: self.path.to_path_buf(), message }
    }

    /// The file's rows from the first, each as it is (the widths are checked by [`Reader::each`]).
    fn open(&self) -> Result<csv::Reader<Box<dyn std::io::Read>>, PrepareError> {
        let text =
            source::text_reader(self.path, self.layout.encoded).map_err(|e| self.error(format!("cannot open: {e}")))?;
        Ok(csv::ReaderBuilder::new()
            .delimiter(self.layout.delimiter)
            .has_headers(false)
            .flexible(true)
            .from_reader(text))
    }

    /// The next row of `reader`, or `None` at the end of the file.
    fn next(
        &self,
        reader: &mut csv::Reader<Box<dyn std::io::Read>>,
        record: &mut csv::StringRecord,
    ) -> Result<bool, PrepareError> {
        reader.read_record(record).map_err(|err| self.error(describe_csv_error(&err)))
    }

    /// Rows above the header when none is named: leading rows with fewer than
    /// half of their fields filled (a title such as `JAMES LOGAN,,,,`) before
    /// the first row with at least half of them filled, within the first rows.
    fn title_rows(&self) -> Result<u64, PrepareError> {
        let mut reader = self.open()?;
        let mut record = csv::StringRecord::new();
        let mut filled = Vec::new();
        while filled.len() < TITLE_SCAN_ROWS && self.next(&mut reader, &mut record)? {
            filled.push((record.iter().filter(|f| !f.trim().is_empty()).count(), record.len()));
        }
        let header = filled.iter().position(|&(full, width)| 2 * full >= width);
        Ok(match header {
            Some(at) if filled[..at].iter().all(|&(full, _)| 2 * full < filled[at].1) => at as u64,
            _ => 0,
        })
    }

    /// The header's fields.
    fn headers(&self) -> Result<Vec<String>, PrepareError> {
        let mut reader = self.open()?;
        let mut record = csv::StringRecord::new();
        for row in 0..=self.skipped {
            if !self.next(&mut reader, &mut record)? {
                return Err(self.error(match row {
                    0 => "the CSV is empty (no header row)".to_string(),
                    _ => format!("the CSV has {row} rows, so none is the header row {}", self.skipped + 1),
                }));
            }
        }
        let mut names: Vec<String> = record.iter().map(str::to_string).collect();
        // A few unnamed columns in a header are named as pandas names them;
        // a row mostly empty is no header (its empty names then clash).
        let unnamed = names.iter().filter(|n| n.trim().is_empty()).count();
        if 2 * unnamed < names.len() {
            for (i, name) in names.iter_mut().enumerate().filter(|(_, n)| n.trim().is_empty()) {
                *name = format!("Unnamed: {i}");
            }
        }
        Ok(names)
    }

    /// Call `visit` with every record below the header (and its 0-based row
    /// index), each as wide as the header's `width`.
    fn each(&self, width: usize, mut visit: impl FnMut(u64, &csv::StringRecord)) -> Result<u64, PrepareError> {
        let mut reader = self.open()?;
        let mut record = csv::StringRecord::new();
        for _ in 0..=self.skipped {
            self.next(&mut reader, &mut record)?;
        }
        let mut index = 0u64;
        while self.next(&mut reader, &mut record)? {
            let line = record.position().map_or(0, |p| p.line());
            if record.len() != width {
                return Err(self.error(format!("line {line} has {} fields but the header has {width}", record.len())));
            }
            if let Some(field) = record.iter().find(|f| f.len() > MAX_FIELD_BYTES) {
                return Err(self.error(format!(
                    "line {line} has a field of {} bytes; the limit is {MAX_FIELD_BYTES}",
                    field.len()
                )));
            }
            visit(index, &record);
            index += 1;
        }
        Ok(index)
    }
}

fn describe_csv_error(err: &csv::Error) -> String {
    let line = err.position().map(|p| p.line()).unwrap_or(0);
    match err.kind() {
        csv::ErrorKind::Utf8 { .. } => {
            format!("line {line} is not valid UTF-8 (name the file's encoding with --encoding, e.g. --encoding latin1)")
        }
        csv::ErrorKind::Io(io) => format!("cannot read: {io}"),
        _ => format!("line {line}: {err}"),
    }
}

/// Prepare the CSV at `path`.
pub fn prepare(path: &Path, options: &PrepareOptions) -> Result<Prepared, PrepareError> {
    let (reader, headers, label) = open(path, options)?;
    // Pass one: what each column holds.
    let columns = headers.len();
    let (profiles, rows) = profile_columns(&reader, &headers, label)?;
    let kinds: Vec<Column> =
        profiles.iter().enumerate().map(|(i, p)| p.decide(Some(i) == label, reader.layout.delimiter == b';')).collect();

    // Pass two: moments, group totals, the reservoir sample, the monthly series, datetime ranges.
    let numeric: Vec<usize> =
        (0..columns).filter(|&i| matches!(kinds[i].kind, "integer" | "float") && Some(i) != label).collect();
    let time_column = time_column(&kinds);
    let totals = collect_totals(&reader, &kinds, &numeric, label, time_column, options)?;
    // Passes three and four: histograms of numeric columns, then the exact values at the wanted ranks.
    let order = order_statistics(&reader, &kinds, &numeric, &totals.moments)?;

    let input = output::Collected {
        source: path,
        options,
        layout: reader.layout,
        header_row: reader.skipped + 1,
        headers: &headers,
        profiles: &profiles,
        columns: &kinds,
        moments: &totals.moments,
        groups: &totals.groups,
        strata: totals.strata,
        order: &order,
        numeric: &numeric,
        label,
        time_column,
        monthly: &totals.monthly,
        time_range: &totals.time_range,
        rows,
    };
    Ok(output::build(input))
}

/// The reader of `path` past its title rows, the header, and the label column's index.
fn open<'p>(
    path: &'p Path,
    options: &PrepareOptions,
) -> Result<(Reader<'p>, Vec<String>, Option<usize>), PrepareError> {
    let error = |message: String| PrepareError { path: path.to_path_buf(), message };
    let encoded = source::encoding(path, options.encoding.as_deref()).map_err(|e| error(e.to_string()))?;
    let delimiter = source::delimiter(path, encoded).map_err(|e| error(format!("cannot read: {e}")))?;
    let mut reader = Reader { path, layout: Layout { encoded, delimiter }, skipped: 0 };
    reader.skipped = match options.header_row {
        Some(0) => return Err(reader.error("--header-row counts from 1 (the first row)".into())),
        Some(row) => row - 1,
        None => reader.title_rows()?,
    };
    let headers = reader.headers()?;
    if headers.is_empty() || headers.iter().all(String::is_empty) {
        return Err(reader.error(format!("row {} of the CSV is empty; it cannot be the header", reader.skipped + 1)));
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(duplicate) = headers.iter().find(|h| !seen.insert(h.as_str())) {
        return Err(reader.error(format!("the header names column {duplicate:?} twice")));
    }
    let label = match &options.label {
        Some(name) => Some(
            headers
                .iter()
                .position(|h| h == name)
                .ok_or_else(|| reader.error(format!("the label column {name:?} is not in the header")))?,
        ),
        None => None,
    };
    Ok((reader, headers, label))
}

/// Pass one: what each column holds, and how many data rows there are (a
/// label column must be binary).
fn profile_columns(
    reader: &Reader,
    headers: &[String],
    label: Option<usize>,
) -> Result<(Vec<ColumnProfile>, u64), PrepareError> {
    let mut profiles: Vec<ColumnProfile> = headers.iter().map(|h| ColumnProfile::new(h)).collect();
    let rows = reader.each(headers.len(), |_, record| {
        for (i, raw) in record.iter().enumerate() {
            profiles[i].observe(raw);
        }
    })?;
    if rows == 0 {
        return Err(reader.error("the CSV has a header but no data rows".into()));
    }
    if let Some(l) = label {
        let profile = &profiles[l];
        let distinct = profile.distinct.as_ref().map_or(usize::MAX, |d| d.len());
        if !profile.all_bool && distinct > 2 {
            return Err(reader.error(format!("the label column {:?} is not binary (0/1 or true/false)", headers[l])));
        }
    }
    Ok((profiles, rows))
}

/// The datetime column the monthly series follows: one with a time of day
/// first, else the leftmost.
fn time_column(kinds: &[Column]) -> Option<usize> {
    let datetimes = (0..kinds.len()).filter(|&i| kinds[i].date.is_some());
    datetimes.max_by_key(|&i| (kinds[i].strptime().is_some_and(dates::has_time), std::cmp::Reverse(i)))
}

/// The number in column `j` of `record`, read as the column's kind says.
fn number(kinds: &[Column], record: &csv::StringRecord, j: usize) -> Option<f64> {
    record.get(j).and_then(|f| kinds[j].number(f))
}

/// What pass two sums up.
struct Totals {
    moments: Vec<Moments>,
    groups: Vec<Option<HashMap<String, GroupTotals>>>,
    strata: HashMap<String, (u64, Reservoir)>,
    monthly: std::collections::BTreeMap<String, GroupTotals>,
    time_range: HashMap<usize, TimeRange>,
}

/// Pass two: moments, group totals, the reservoir sample, the monthly series, datetime ranges.
fn collect_totals(
    reader: &Reader,
    kinds: &[Column],
    numeric: &[usize],
    label: Option<usize>,
    time_column: Option<usize>,
    options: &PrepareOptions,
) -> Result<Totals, PrepareError> {
    let columns = kinds.len();
    let categorical: Vec<usize> =
        (0..columns).filter(|&i| kinds[i].kind == "categorical" && Some(i) != label).collect();
    let datetimes: Vec<usize> = (0..columns).filter(|&i| kinds[i].date.is_some()).collect();
    let mut totals = Totals {
        moments: vec![Moments::default(); columns],
        groups: (0..columns).map(|i| categorical.contains(&i).then(HashMap::new)).collect(),
        strata: HashMap::new(),
        monthly: Default::default(),
        time_range: HashMap::new(),
    };
    let mut rng = sampler(options.seed);
    reader.each(columns, |index, record| {
        let numbers: Vec<(usize, f64)> = numeric.iter().filter_map(|&j| Some((j, number(kinds, record, j)?))).collect();
        let label_value = label.and_then(|l| record.get(l)).filter(|v| !is_null(v));
        for &(j, x) in &numbers {
            totals.moments[j].push(x);
        }
        for &i in &categorical {
            let raw = record.get(i).unwrap_or("");
            if let Some(table) = &mut totals.groups[i]
                && !is_null(raw)
            {
                table.entry(raw.to_string()).or_default().add(&numbers, label_value);
            }
        }
        let stratum = label_value.unwrap_or("").to_string();
        let (count, reservoir) = totals
            .strata
            .entry(stratum)
            .or_insert_with(|| (0, Reservoir::new(options.sample_size.unwrap_or(usize::MAX))));
        *count += 1;
        reservoir.offer(index, record, &mut rng);
        for &i in &datetimes {
            let raw = record.get(i).unwrap_or("");
            if let Some(t) = kinds[i].time(raw) {
                let text = || kinds[i].time_text(raw).unwrap_or_default();
                let range = totals.time_range.entry(i).or_insert_with(|| ((t, text()), (t, text())));
                if t < range.0.0 {
                    range.0 = (t, text());
                }
                if t > range.1.0 {
                    range.1 = (t, text());
                }
            }
        }
        if let Some(t) = time_column
            && let Some(time) = kinds[t].time(record.get(t).unwrap_or(""))
        {
            totals.monthly.entry(time.format("%Y-%m").to_string()).or_default().add(&numbers, label_value);
        }
    })?;
    Ok(totals)
}

/// Passes three and four: each numeric column's histogram, then the exact
/// values at the wanted ranks.
fn order_statistics(
    reader: &Reader,
    kinds: &[Column],
    numeric: &[usize],
    moments: &[Moments],
) -> Result<HashMap<usize, OrderStatistics>, PrepareError> {
    let mut order: HashMap<usize, OrderStatistics> = numeric
        .iter()
        .map(|&i| {
            let n = moments[i].count;
            let ranks = PERCENTILES.iter().flat_map(|(_, p)| {
                let (low, high, _) = quantile_ranks(n, *p);
                [low, high]
            });
            (i, OrderStatistics::new(moments[i].min, moments[i].max, ranks.collect()))
        })
        .collect();
    reader.each(kinds.len(), |_, record| {
        for (&i, statistics) in &mut order {
            if let Some(x) = number(kinds, record, i) {
                statistics.count(x);
            }
        }
    })?;
    order.values_mut().for_each(OrderStatistics::target_buckets);
    reader.each(kinds.len(), |_, record| {
        for (&i, statistics) in &mut order {
            if let Some(x) = number(kinds, record, i) {
                statistics.collect(x);
            }
        }
    })?;
    Ok(order)
}

/// Write `prepared` into `dir` (created if needed) as `data.json` and `metadata.json`.
pub fn write(prepared: &Prepared, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let data = serde_json::to_string(&prepared.data)?;
    std::fs::write(dir.join("data.json"), data + "\n")?;
    let metadata = serde_json::to_string_pretty(&prepared.metadata)?;
    std::fs::write(dir.join("metadata.json"), metadata + "\n")
}
