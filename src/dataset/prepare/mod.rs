//! `eval-dag prepare`: stream one table of a file into `data.json` (exact
//! pre-aggregates and a seeded row sample) and `metadata.json` (inferred
//! column annotations); several tables (a directory, a workbook's sheets, a
//! database's tables) into one dataset, each table as one (`several.rs`).
//!
//! The file's format comes from its extension, checked against its first bytes
//! (`format.rs`); each format is a `RecordSource` (`records.rs`) that gives the
//! table row by row as text fields, again for every pass: a CSV
//! (`csv_source.rs`, its encoding and delimiter found first by `source.rs`), a
//! Parquet file by row groups (`parquet.rs`), one sheet of a workbook
//! (`sheet.rs`: an `.xlsx` sheet cell by cell, the other formats' held whole),
//! JSON records (`json.rs`) and a SQLite table (`sqlite.rs`) row by row.
//! Formats with types write values as the text the CSV inference reads as those
//! types, and mark stored strings, which are never read as numbers; types a
//! file declares without enforcing them (SQLite's) are checked against what
//! pass one saw (`declared_type.rs` reads them, `declared.rs` checks them). An
//! empty table (no header, or no rows) is told apart from one that cannot be
//! read, so that a dataset of several leaves it out. Four streaming passes then
//! keep memory bounded by the number of columns, categorical values and the
//! sample, not by the file: (1) column profiles, from which each column's type
//! and reading are decided (number style, unit, datetime format); (2) moments,
//! group totals, the reservoir sample, the monthly series and datetime ranges;
//! (3) histograms; (4) the values of the histogram buckets holding the wanted
//! percentiles. Percentiles use linear interpolation between closest ranks
//! (numpy's default, Python's `statistics.quantiles(method="inclusive")`);
//! `std` is the sample standard deviation.

mod accumulate;
mod arrow_zone;
mod clock;
mod csv_source;
mod dates;
mod declared;
mod declared_type;
mod format;
mod infer;
mod json;
mod output;
mod parquet;
mod records;
mod several;
mod sheet;
mod source;
mod sqlite;
mod values;

use std::collections::HashMap;
use std::path::Path;

use accumulate::{GroupTotals, Moments, OrderStatistics, Reservoir, quantile_ranks, sampler};
use csv_source::CsvSource;
use format::Format;
use infer::{Column, ColumnProfile};
use json::JsonSource;
use parquet::ParquetSource;
use records::{RecordSource, Row};
use sheet::SheetSource;
use sqlite::SqliteSource;
use values::is_null;

pub use infer::CATEGORICAL_LIMIT;
pub use values::NULL_MARKERS;

mod terms;
pub use several::{TablePlace, prepare_several, table_key, tables_at, tables_word};
use terms::TimeRange;
use terms::Unprepared;
pub use terms::{DEFAULT_SAMPLE_SIZE, MAX_FIELD_BYTES, PERCENTILES, PrepareError, PrepareOptions, Prepared};

/// Rows read to find a header below a title.
const TITLE_SCAN_ROWS: usize = 10;

/// One table of a file, with the rows above its header.
struct Reader<'p> {
    path: &'p Path,
    source: Box<dyn RecordSource>,
    /// Rows above the header.
    skipped: u64,
}

impl Reader<'_> {
    fn error(&self, message: String) -> PrepareError {
        PrepareError { path: self.path.to_path_buf(), message }
    }

    /// What the table is, for messages (`CSV`, `sheet "Data"`).
    fn what(&self) -> &str {
        &self.source.described().what
    }

    /// Rows above the header when none is named: leading rows with fewer than
    /// half of their fields filled (a title such as `JAMES LOGAN,,,,`) before
    /// the first row with at least half of them filled, within the first rows.
    fn title_rows(&self) -> Result<u64, PrepareError> {
        let mut filled = Vec::new();
        self.source.rows(&mut |row| {
            filled.push((row.fields.iter().filter(|f| !f.trim().is_empty()).count(), row.fields.len()));
            filled.len() < TITLE_SCAN_ROWS
        })?;
        let header = filled.iter().position(|&(full, width)| 2 * full >= width);
        Ok(match header {
            Some(at) if filled[..at].iter().all(|&(full, _)| 2 * full < filled[at].1) => at as u64,
            _ => 0,
        })
    }

    /// The header's fields: the names the file declares, else the header row's.
    fn headers(&self) -> Result<Vec<String>, Unprepared> {
        if let Some(names) = self.source.names() {
            return Ok(names.to_vec());
        }
        let (mut header, mut row) = (None, 0u64);
        self.source.rows(&mut |fields| {
            if row == self.skipped {
                header = Some(fields.fields.iter().map(str::to_string).collect::<Vec<_>>());
                return false;
            }
            row += 1;
            true
        })?;
        let Some(mut names) = header else {
            return Err(match row {
                0 => Unprepared::Empty(self.error(format!("the {} is empty (no header row)", self.what()))),
                _ => Unprepared::Failed(self.error(format!(
                    "the {} has {row} rows, so none is the header row {}",
                    self.what(),
                    self.skipped + 1
                ))),
            });
        };
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

    /// Call `visit` with every row below the header (and its 0-based row
    /// index), each as wide as the header's `width`.
    fn each(&self, width: usize, mut visit: impl FnMut(u64, &Row)) -> Result<u64, PrepareError> {
        let above = if self.source.names().is_some() { 0 } else { self.skipped + 1 };
        let unit = self.source.described().unit;
        let (mut seen, mut index, mut fault) = (0u64, 0u64, None);
        self.source.rows(&mut |row| {
            if seen < above {
                seen += 1;
                return true;
            }
            let place = row.place;
            if row.fields.len() != width {
                fault = Some(format!("{unit} {place} has {} fields but the header has {width}", row.fields.len()));
            } else if let Some(field) = row.fields.iter().find(|f| f.len() > MAX_FIELD_BYTES) {
                fault = Some(format!(
                    "{unit} {place} has a field of {} bytes; the limit is {MAX_FIELD_BYTES}",
                    field.len()
                ));
            } else {
                visit(index, row);
                index += 1;
            }
            fault.is_none()
        })?;
        match fault {
            Some(message) => Err(self.error(message)),
            None => Ok(index),
        }
    }
}

/// Prepare the table in the file at `path` (its format known by its extension, checked against its content).
pub fn prepare(path: &Path, options: &PrepareOptions) -> Result<Prepared, PrepareError> {
    prepare_table(path, options).map_err(Unprepared::into_error)
}

/// [`prepare`], telling an empty table (no header, or no rows) from one that cannot be read.
fn prepare_table(path: &Path, options: &PrepareOptions) -> Result<Prepared, Unprepared> {
    let (reader, headers, label) = open(path, options)?;
    // Pass one: what each column holds.
    let columns = headers.len();
    let (profiles, rows) = profile_columns(&reader, &headers, label)?;
    let described = reader.source.described();
    let semicolons = described.layout.is_some_and(|layout| layout.delimiter == b';');
    let declared = reader.source.declared();
    let kinds: Vec<Column> = (profiles.iter().enumerate())
        .map(|(i, p)| match declared.get(i).and_then(Option::as_ref) {
            Some(declared) if Some(i) != label => declared.check(p, p.decide(false, semicolons)),
            _ => p.decide(Some(i) == label, semicolons),
        })
        .collect();

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
        described,
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

/// The table of the file at `path`, by its format; the options that only
/// some formats take are refused by the others.
fn open_source(path: &Path, options: &PrepareOptions) -> Result<Box<dyn RecordSource>, PrepareError> {
    let error = |message: String| PrepareError { path: path.to_path_buf(), message };
    let format = Format::of(path).map_err(error)?;
    if options.encoding.is_some() && format != Format::Csv {
        return Err(error(format!("--encoding applies to CSV files; this is a {}", format.name())));
    }
    if options.header_row.is_some() && !matches!(format, Format::Csv | Format::Workbook) {
        return Err(error(format!("--header-row applies to CSV files and sheets; this is a {}", format.name())));
    }
    let table = options.table.as_deref();
    if table.is_some() && !matches!(format, Format::Workbook | Format::Sqlite) {
        return Err(error(format!(
            "--table chooses a sheet of a workbook or a table of a SQLite database; a {} holds one table",
            format.name()
        )));
    }
    Ok(match format {
        Format::Csv => Box::new(CsvSource::open(path, options.encoding.as_deref())?),
        Format::Parquet => Box::new(ParquetSource::open(path)?),
        Format::Workbook => Box::new(SheetSource::open(path, table)?),
        Format::Json => Box::new(JsonSource::open(path, false)?),
        Format::JsonLines => Box::new(JsonSource::open(path, true)?),
        Format::Sqlite => Box::new(SqliteSource::open(path, table)?),
    })
}

/// The reader of `path` past its title rows, the header, and the label column's index.
fn open<'p>(path: &'p Path, options: &PrepareOptions) -> Result<(Reader<'p>, Vec<String>, Option<usize>), Unprepared> {
    let mut reader = Reader { path, source: open_source(path, options)?, skipped: 0 };
    reader.skipped = match options.header_row {
        Some(0) => return Err(reader.error("--header-row counts from 1 (the first row)".into()).into()),
        Some(row) => row - 1,
        None if reader.source.names().is_some() => 0,
        None => reader.title_rows()?,
    };
    let headers = reader.headers()?;
    if headers.is_empty() || headers.iter().all(String::is_empty) {
        return Err(match reader.source.names() {
            Some(_) => Unprepared::Empty(reader.error(format!("the {} has no columns", reader.what()))),
            None => reader
                .error(format!("row {} of the {} is empty; it cannot be the header", reader.skipped + 1, reader.what()))
                .into(),
        });
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(duplicate) = headers.iter().find(|h| !seen.insert(h.as_str())) {
        return Err(reader.error(format!("the header names column {duplicate:?} twice")).into());
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
) -> Result<(Vec<ColumnProfile>, u64), Unprepared> {
    let mut profiles: Vec<ColumnProfile> = headers.iter().map(|h| ColumnProfile::new(h)).collect();
    let rows = reader.each(headers.len(), |_, row| {
        for (i, raw) in row.fields.iter().enumerate() {
            profiles[i].observe(raw, row.stored(i));
        }
    })?;
    if rows == 0 {
        return Err(Unprepared::Empty(reader.error(match reader.source.names() {
            Some(_) => format!("the {} has no rows", reader.what()),
            None => format!("the {} has a header but no data rows", reader.what()),
        })));
    }
    if let Some(l) = label {
        let profile = &profiles[l];
        let distinct = profile.distinct.as_ref().map_or(usize::MAX, |d| d.len());
        if !profile.all_bool && distinct > 2 {
            let binary = format!("the label column {:?} is not binary (0/1 or true/false)", headers[l]);
            return Err(reader.error(binary).into());
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
    reader.each(columns, |index, row| {
        let record = &row.fields;
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
    reader.each(kinds.len(), |_, row| {
        for (&i, statistics) in &mut order {
            if let Some(x) = number(kinds, &row.fields, i) {
                statistics.count(x);
            }
        }
    })?;
    order.values_mut().for_each(OrderStatistics::target_buckets);
    reader.each(kinds.len(), |_, row| {
        for (&i, statistics) in &mut order {
            if let Some(x) = number(kinds, &row.fields, i) {
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
