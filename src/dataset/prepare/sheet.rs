//! One sheet of a workbook (`.xlsx`, `.xlsm`, `.xlsb`, `.xls`, `.ods`) as a
//! [`RecordSource`], through `calamine`. The sheet is read whole (no
//! workbook format is streamed here), then its rows are given to every pass;
//! a title above the header is found as in a CSV.
//!
//! Cells become the text CSV inference reads: numbers (whole ones as
//! integers, as a spreadsheet does not tell them apart), `true`/`false`,
//! dates as `YYYY-MM-DD` — with the time of day when some date in the column
//! has one, and times alone as `HH:MM:SS` — and durations as `H:MM:SS`.
//! Strings are stored text, never read as numbers; formulas give their saved
//! results; empty and error cells are null.

use std::path::Path;

use calamine::{Data, Range, Reader, open_workbook_auto};
use chrono::{NaiveDate, NaiveDateTime};

use super::records::{Described, RecordSource, Row, Stored, choose_table, float_text, one_line};
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

/// One sheet, held whole.
pub struct SheetSource {
    range: Range<Data>,
    /// Per column: how its dates are written.
    written: Vec<Written>,
    described: Described,
}

impl SheetSource {
    /// Read the sheet `table` names (or the workbook's only one) of the workbook at `path`.
    pub fn open(path: &Path, table: Option<&str>) -> Result<Self, PrepareError> {
        let error = |message: String| PrepareError { path: path.to_path_buf(), message };
        let mut workbook =
            open_workbook_auto(path).map_err(|e| error(format!("cannot read the workbook: {}", one_line(&e))))?;
        let sheets = workbook.sheet_names();
        let name = choose_table(&sheets, table, "sheet", "workbook").map_err(error)?;
        let range = workbook
            .worksheet_range(&name)
            .map_err(|e| error(format!("cannot read sheet {name:?}: {}", one_line(&e))))?;
        let mut written = vec![Written::Time; range.width()];
        for row in range.rows() {
            for (column, cell) in row.iter().enumerate() {
                if let Some((_, kind)) = moment(cell) {
                    written[column] = written[column].max(kind);
                }
            }
        }
        let remarks = vec![format!(
            "read from sheet {name:?} of a workbook, whole; formulas give their saved results, error cells are null"
        )];
        let described =
            Described { what: format!("sheet {name:?}"), unit: "row", layout: None, notes: Vec::new(), remarks };
        Ok(Self { range, written, described })
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
        let first = self.range.start().map_or(0, |(row, _)| u64::from(row));
        let mut row = Row::default();
        for (number, cells) in (first + 1..).zip(self.range.rows()) {
            row.clear();
            row.place = number;
            for (column, cell) in cells.iter().enumerate() {
                let (text, stored) = text(cell, self.written[column]);
                row.push(&text, stored);
            }
            if !visit(&row) {
                break;
            }
        }
        Ok(())
    }
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
