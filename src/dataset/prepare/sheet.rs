//! One sheet of a workbook (`.xlsx`, `.xlsm`, `.xlsb`, `.xls`, `.ods`) as a
//! [`RecordSource`], through `calamine`. An `.xlsx` (or `.xlsm`) sheet is
//! streamed cell by cell for every pass (its shared strings are held); the
//! other formats are read whole, then their rows are given to every pass. A
//! title above the header is found as in a CSV.
//!
//! Cells become the text CSV inference reads: numbers (whole ones as
//! integers, as a spreadsheet does not tell them apart), `true`/`false`,
//! dates as `YYYY-MM-DD` — with the time of day when some date in the column
//! has one, and times alone as `HH:MM:SS` — and durations as `H:MM:SS`.
//! Strings are stored text, never read as numbers; formulas give their saved
//! results; empty and error cells are null.

use std::path::{Path, PathBuf};

use calamine::{Data, Range, Reader, Sheets, Xlsx, open_workbook, open_workbook_auto};
use chrono::{NaiveDate, NaiveDateTime};

use super::records::{Described, RecordSource, Row, Stored, choose_table, float_text, one_line, without_panics};
use super::terms::PrepareError;

/// Largest whole number a float holds exactly (2^53).
const EXACT_WHOLE: f64 = 9_007_199_254_740_992.0;

/// How a column's dates are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Written {
    /// Times of day alone.
    Time,
    /// Dates alone.
    Date,
    /// Dates with times of day.
    DateTime,
}

/// A date cell's time, and what it holds.
fn moment(cell: &Data) -> Option<(NaiveDateTime, Written)> {
    let at = match cell {
        Data::DateTime(d) if d.is_datetime() => {
            let at = d.as_datetime()?;
            let written = if d.as_f64() < 1.0 { Written::Time } else { kind_of(at) };
            return Some((at, written));
        }
        Data::DateTimeIso(text) => NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f")
            .ok()
            .or_else(|| NaiveDate::parse_from_str(text, "%Y-%m-%d").ok().and_then(|d| d.and_hms_opt(0, 0, 0)))?,
        _ => return None,
    };
    Some((at, kind_of(at)))
}

fn kind_of(at: NaiveDateTime) -> Written {
    if at.time() == chrono::NaiveTime::MIN { Written::Date } else { Written::DateTime }
}

/// Where a sheet's cells come from.
enum Cells {
    /// The sheet, read whole.
    Whole(Range<Data>),
    /// An `.xlsx` sheet, read again cell by cell.
    Streamed {
        /// The workbook.
        path: PathBuf,
        /// The sheet's name.
        sheet: String,
        /// The first row and the first and last columns holding a value (0-based).
        bounds: Bounds,
    },
}

/// The first row and the first and last columns of a sheet's values (0-based).
#[derive(Debug, Clone, Copy, Default)]
struct Bounds {
    first_row: u32,
    first_column: u32,
    last_column: u32,
}

/// One sheet.
pub struct SheetSource {
    cells: Cells,
    /// Per column: how its dates are written.
    written: Vec<Written>,
    described: Described,
}

/// The cells of an `.xlsx` sheet in row order, each with its 0-based row and
/// column, until `visit` returns `false`.
fn each_cell(path: &Path, sheet: &str, visit: &mut dyn FnMut(u32, u32, Data) -> bool) -> Result<(), String> {
    let mut workbook: Xlsx<_> = open_workbook(path).map_err(|e| one_line(&e))?;
    let mut reader = workbook.worksheet_cells_reader(sheet).map_err(|e| one_line(&e))?;
    while let Some(cell) = reader.next_cell().map_err(|e| one_line(&e))? {
        let (row, column) = cell.get_position();
        let value = Data::from(cell.get_value().clone());
        if value != Data::Empty && !visit(row, column, value) {
            break;
        }
    }
    Ok(())
}

/// Where the values of an `.xlsx` sheet lie and how each column's dates are written.
fn survey(path: &Path, sheet: &str) -> Result<(Bounds, Vec<Written>), String> {
    let (mut bounds, mut written, mut seen) = (Bounds::default(), Vec::new(), false);
    each_cell(path, sheet, &mut |row, column, value| {
        if !seen {
            bounds = Bounds { first_row: row, first_column: column, last_column: column };
            seen = true;
        }
        bounds.first_column = bounds.first_column.min(column);
        bounds.last_column = bounds.last_column.max(column);
        let column = column as usize;
        if written.len() <= column {
            written.resize(column + 1, Written::Time);
        }
        if let Some((_, kind)) = moment(&value) {
            written[column] = written[column].max(kind);
        }
        true
    })?;
    let first = bounds.first_column as usize;
    let written = if seen { written[first..=bounds.last_column as usize].to_vec() } else { Vec::new() };
    Ok((bounds, written))
}

/// The names of the sheets of the workbook at `path`, in its order.
pub fn sheet_names(path: &Path) -> Result<Vec<String>, PrepareError> {
    let error = |message: String| PrepareError { path: path.to_path_buf(), message };
    let damaged = |why: String| error(format!("cannot read the workbook (damaged): {why}"));
    without_panics(
        || {
            let workbook =
                open_workbook_auto(path).map_err(|e| error(format!("cannot read the workbook: {}", one_line(&e))))?;
            Ok(workbook.sheet_names())
        },
        damaged,
    )
}

impl SheetSource {
    /// Read the sheet `table` names (or the workbook's only one) of the workbook at `path`.
    pub fn open(path: &Path, table: Option<&str>) -> Result<Self, PrepareError> {
        let damaged = |why: String| PrepareError {
            path: path.to_path_buf(),
            message: format!("cannot read the workbook (damaged): {why}"),
        };
        without_panics(|| Self::read(path, table), damaged)
    }

    fn read(path: &Path, table: Option<&str>) -> Result<Self, PrepareError> {
        let error = |message: String| PrepareError { path: path.to_path_buf(), message };
        let mut workbook =
            open_workbook_auto(path).map_err(|e| error(format!("cannot read the workbook: {}", one_line(&e))))?;
        let sheets = workbook.sheet_names();
        let name = choose_table(&sheets, table, "sheet", "workbook").map_err(error)?;
        let unreadable = |message: String| error(format!("cannot read sheet {name:?}: {message}"));
        let (cells, written, how) = if matches!(workbook, Sheets::Xlsx(_)) {
            let (bounds, written) = survey(path, &name).map_err(unreadable)?;
            (Cells::Streamed { path: path.to_path_buf(), sheet: name.clone(), bounds }, written, "cell by cell")
        } else {
            let range = workbook.worksheet_range(&name).map_err(|e| unreadable(one_line(&e)))?;
            let mut written = vec![Written::Time; range.width()];
            for row in range.rows() {
                for (column, cell) in row.iter().enumerate() {
                    if let Some((_, kind)) = moment(cell) {
                        written[column] = written[column].max(kind);
                    }
                }
            }
            (Cells::Whole(range), written, "whole")
        };
        let remarks = vec![format!(
            "read from sheet {name:?} of a workbook, {how}; formulas give their saved results, error cells are null"
        )];
        let described =
            Described { what: format!("sheet {name:?}"), unit: "row", layout: None, notes: Vec::new(), remarks };
        Ok(Self { cells, written, described })
    }
}

impl RecordSource for SheetSource {
    fn described(&self) -> &Described {
        &self.described
    }

    fn names(&self) -> Option<&[String]> {
        None
    }

    fn rows(&self, visit: &mut dyn FnMut(&Row) -> bool) -> Result<(), PrepareError> {
        let mut row = Row::default();
        let mut give = |number: u32, cells: &[Data]| {
            row.clear();
            row.place = u64::from(number) + 1;
            for (column, cell) in cells.iter().enumerate() {
                let (text, stored) = text(cell, self.written[column]);
                row.push(&text, stored);
            }
            visit(&row)
        };
        match &self.cells {
            Cells::Whole(range) => {
                let first = range.start().map_or(0, |(row, _)| row);
                for (number, cells) in (first..).zip(range.rows()) {
                    if !give(number, cells) {
                        break;
                    }
                }
                Ok(())
            }
            Cells::Streamed { path, sheet, bounds } => {
                let failed = |message: String| PrepareError {
                    path: path.clone(),
                    message: format!("cannot read sheet {sheet:?}: {message}"),
                };
                without_panics(|| stream(path, sheet, *bounds, &mut give).map_err(failed), failed)
            }
        }
    }
}

/// Give the rows of an `.xlsx` sheet from its first row holding a value, an
/// empty row for each row without one, until `give` returns `false`.
fn stream(path: &Path, sheet: &str, bounds: Bounds, give: &mut dyn FnMut(u32, &[Data]) -> bool) -> Result<(), String> {
    let width = (bounds.last_column - bounds.first_column) as usize + 1;
    let mut cells = vec![Data::Empty; width];
    let (mut current, mut going) = (bounds.first_row, true);
    each_cell(path, sheet, &mut |row, column, value| {
        while current < row && going {
            going = give(current, &cells);
            cells.fill(Data::Empty);
            current += 1;
        }
        cells[(column - bounds.first_column) as usize] = value;
        going
    })?;
    if going && cells.iter().any(|c| *c != Data::Empty) {
        give(current, &cells);
    }
    Ok(())
}

/// The text of one cell and what the workbook stored, its dates written as the column's are.
fn text(cell: &Data, written: Written) -> (String, Stored) {
    if let Some((at, _)) = moment(cell) {
        let format = match written {
            Written::Time => "%H:%M:%S",
            Written::Date => "%Y-%m-%d",
            Written::DateTime => "%Y-%m-%d %H:%M:%S",
        };
        return (at.format(format).to_string(), Stored::Guessed);
    }
    let text = match cell {
        Data::String(s) => return (s.clone(), Stored::Text),
        Data::Int(i) => i.to_string(),
        Data::Float(x) if x.fract() == 0.0 && x.abs() < EXACT_WHOLE => format!("{x:.0}"),
        Data::Float(x) => float_text(*x),
        Data::Bool(b) => b.to_string(),
        Data::DateTime(d) => match d.as_duration() {
            Some(length) => {
                let seconds = length.num_seconds();
                format!("{}:{:02}:{:02}", seconds / 3600, seconds % 3600 / 60, seconds % 60)
            }
            None => String::new(),
        },
        Data::DurationIso(s) => return (s.clone(), Stored::Text),
        Data::DateTimeIso(_) | Data::Error(_) | Data::Empty => String::new(),
    };
    (text, Stored::Guessed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use calamine::{ExcelDateTime, ExcelDateTimeType};

    #[test]
    fn cells_are_written_as_csv_inference_reads_them() {
        let date = Data::DateTime(ExcelDateTime::new(45_296.0, ExcelDateTimeType::DateTime, false));
        assert_eq!(text(&date, Written::Date).0, "2024-01-05");
        assert_eq!(text(&date, Written::DateTime).0, "2024-01-05 00:00:00");
        let noon = Data::DateTime(ExcelDateTime::new(0.5, ExcelDateTimeType::DateTime, false));
        assert_eq!(moment(&noon).map(|m| m.1), Some(Written::Time));
        assert_eq!(text(&noon, Written::Time).0, "12:00:00");
        let iso = Data::DateTimeIso("2024-01-05T09:30:00".into());
        assert_eq!(moment(&iso).map(|m| m.1), Some(Written::DateTime));
        assert_eq!(text(&Data::Float(3.0), Written::Time).0, "3");
        assert_eq!(text(&Data::Float(2.5), Written::Time).0, "2.5");
        assert_eq!(text(&Data::String("007".into()), Written::Time), ("007".into(), Stored::Text));
        assert_eq!(text(&Data::Bool(true), Written::Time).0, "true");
        assert_eq!(text(&Data::Error(calamine::CellErrorType::Div0), Written::Time).0, "");
    }
}
