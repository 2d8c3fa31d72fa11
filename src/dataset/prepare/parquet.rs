//! A Parquet file as a [`RecordSource`], read row group by row group with the
//! `parquet` crate's record reader (no Arrow).
//!
//! Values become the text CSV inference reads as the type the schema gives:
//! integers and floats (`1.0` stays a float), decimals in their scale,
//! booleans as `true`/`false`, dates as `YYYY-MM-DD`, times of day and
//! timestamps in ISO order (with a `Z` when the schema says UTC), nulls as
//! empty fields; strings are stored text, never read as numbers, and lists,
//! maps and records are JSON text. A time column's seconds carry a fraction
//! only if some value has one (found by one more pass over the file), so one
//! strptime format reads every value. Instants stay in UTC; the time zone an
//! Arrow writer gave them (`arrow_zone.rs`) is said in the column's note.

use std::fs::File;
use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveTime};
use parquet::basic::{ConvertedType, LogicalType, TimeUnit, Type as Physical};
use parquet::data_type::Decimal;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use parquet::schema::types::{ColumnDescriptor, Type};
use serde_json::Value;

use super::arrow_zone;
use super::records::{Described, RecordSource, Row, Stored, float_text, one_line, without_panics};
use super::terms::PrepareError;

/// What a top-level column of the schema holds, where it changes how values are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Written as the value says.
    Plain,
    /// Instants: their unit, and whether they are adjusted to UTC.
    Timestamp(TimeUnit, bool),
    /// Times of day, in this unit.
    TimeOfDay(TimeUnit),
    /// Lists, maps or records (JSON text).
    Nested(&'static str),
}

impl Shape {
    fn of(field: &Type) -> Self {
        let info = field.get_basic_info();
        if !field.is_primitive() {
            return Self::Nested(match (info.logical_type_ref(), info.converted_type()) {
                (Some(LogicalType::List), _) | (_, ConvertedType::LIST) => "lists",
                (Some(LogicalType::Map), _) | (_, ConvertedType::MAP | ConvertedType::MAP_KEY_VALUE) => "maps",
                _ => "records",
            });
        }
        match (info.logical_type_ref(), info.converted_type(), field.get_physical_type()) {
            (Some(LogicalType::Timestamp(t)), _, _) => Self::Timestamp(t.unit, t.is_adjusted_to_u_t_c),
            (Some(LogicalType::Time(t)), _, _) => Self::TimeOfDay(t.unit),
            (_, ConvertedType::TIMESTAMP_MILLIS, _) => Self::Timestamp(TimeUnit::MILLIS, true),
            (_, ConvertedType::TIMESTAMP_MICROS, _) => Self::Timestamp(TimeUnit::MICROS, true),
            (_, ConvertedType::TIME_MILLIS, _) => Self::TimeOfDay(TimeUnit::MILLIS),
            (_, ConvertedType::TIME_MICROS, _) => Self::TimeOfDay(TimeUnit::MICROS),
            (_, _, Physical::INT96) => Self::Timestamp(TimeUnit::MILLIS, false),
            _ => Self::Plain,
        }
    }

    /// Digits of a second's fraction the unit holds (nanoseconds are kept to the microsecond, as Python's datetime).
    fn fraction_digits(self) -> u8 {
        match self {
            Self::Timestamp(TimeUnit::MILLIS, _) | Self::TimeOfDay(TimeUnit::MILLIS) => 3,
            Self::Timestamp(..) | Self::TimeOfDay(_) => 6,
            Self::Plain | Self::Nested(_) => 0,
        }
    }
}

/// What the column's schema holds that its type in `metadata.json` does not
/// show; `zone`: the time zone an Arrow writer gave its timestamps.
fn schema_note(field: &Type, shape: Shape, zone: Option<&str>) -> Option<String> {
    match shape {
        Shape::Nested(what) => Some(format!("{what} in the Parquet file, written here as JSON text")),
        Shape::Timestamp(unit, utc) => {
            let nanos = (unit == TimeUnit::NANOS)
                .then(|| "nanoseconds in the Parquet file, kept to the microsecond".to_string());
            let utc = utc.then(|| match zone {
                Some(zone) => format!(
                    "instants in UTC in the Parquet file, whose Arrow schema gives them the time zone {zone}: \
                     the times here are UTC, not {zone} local time"
                ),
                None => "instants in UTC in the Parquet file (it keeps no zone name)".to_string(),
            });
            let notes: Vec<String> = [utc, nanos].into_iter().flatten().collect();
            (!notes.is_empty()).then(|| notes.join("; "))
        }
        _ if field.get_basic_info().converted_type() == ConvertedType::DECIMAL => Some(format!(
            "decimal({}, {}) in the Parquet file, read as a float",
            field.get_precision(),
            field.get_scale()
        )),
        _ => None,
    }
}

/// Whether the record reader converts the leaf column's values (it panics on the others).
fn convertible(column: &ColumnDescriptor) -> bool {
    use ConvertedType as C;
    match column.physical_type() {
        Physical::BOOLEAN | Physical::INT96 | Physical::FLOAT | Physical::DOUBLE => true,
        Physical::INT32 => matches!(
            column.converted_type(),
            C::NONE
                | C::INT_8
                | C::INT_16
                | C::INT_32
                | C::UINT_8
                | C::UINT_16
                | C::UINT_32
                | C::DATE
                | C::TIME_MILLIS
                | C::DECIMAL
        ),
        Physical::INT64 => matches!(
            column.converted_type(),
            C::NONE | C::INT_64 | C::UINT_64 | C::TIME_MICROS | C::TIMESTAMP_MILLIS | C::TIMESTAMP_MICROS | C::DECIMAL
        ),
        Physical::BYTE_ARRAY => {
            matches!(column.converted_type(), C::NONE | C::UTF8 | C::ENUM | C::JSON | C::BSON | C::DECIMAL)
        }
        Physical::FIXED_LEN_BYTE_ARRAY => matches!(column.converted_type(), C::NONE | C::DECIMAL),
    }
}

/// A Parquet file's one table.
pub struct ParquetSource {
    path: PathBuf,
    names: Vec<String>,
    shapes: Vec<Shape>,
    /// Per column: digits of the fraction of a second its times are written with.
    digits: Vec<u8>,
    described: Described,
}

impl ParquetSource {
    /// Read the schema of the Parquet file at `path` (and, when it has time
    /// columns, which of them need fractions of a second).
    pub fn open(path: &Path) -> Result<Self, PrepareError> {
        let error = |message: String| PrepareError { path: path.to_path_buf(), message };
        let reader = open_reader(path)?;
        let schema = reader.metadata().file_metadata().schema_descr();
        if let Some(column) = schema.columns().iter().find(|c| !convertible(c)) {
            return Err(error(format!(
                "column {} has the Parquet type {} ({}), which cannot be read",
                column.path(),
                column.physical_type(),
                column.converted_type()
            )));
        }
        let fields = schema.root_schema().get_fields();
        let names: Vec<String> = fields.iter().map(|f| f.name().to_string()).collect();
        let shapes: Vec<Shape> = fields.iter().map(|f| Shape::of(f)).collect();
        let arrow = reader.metadata().file_metadata().key_value_metadata().and_then(|pairs| {
            pairs.iter().find(|pair| pair.key == "ARROW:schema").and_then(|pair| pair.value.as_deref())
        });
        let zones = arrow.map(arrow_zone::zones).unwrap_or_default();
        let notes = (fields.iter().zip(&shapes))
            .map(|(f, &s)| schema_note(f, s, zones.get(f.name()).map(String::as_str)))
            .collect();
        let remarks = vec!["read from a Parquet file, row group by row group; types are the schema's".to_string()];
        let described = Described { what: "Parquet file".into(), unit: "row", layout: None, notes, remarks };
        let mut source = Self { path: path.to_path_buf(), names, digits: vec![0; shapes.len()], shapes, described };
        if source.shapes.iter().any(|s| s.fraction_digits() > 0) {
            source.digits = source.fraction_digits()?;
        }
        Ok(source)
    }

    fn error(&self, message: String) -> PrepareError {
        PrepareError { path: self.path.clone(), message }
    }

    /// Call `visit` with each record and its 1-based number until it returns
    /// `false`. The record reader panics on some damaged pages: such a panic
    /// is this file's error, said in one line.
    fn records(&self, visit: &mut dyn FnMut(u64, &parquet::record::Row) -> bool) -> Result<(), PrepareError> {
        let read = || {
            let reader = open_reader(&self.path)?;
            let rows = reader.get_row_iter(None).map_err(|e| self.error(one_line(&e)))?;
            for (number, record) in (1..).zip(rows) {
                let record = record.map_err(|e| self.error(format!("row {number}: {}", one_line(&e))))?;
                if !visit(number, &record) {
                    break;
                }
            }
            Ok(())
        };
        without_panics(read, |why| self.error(format!("cannot read the Parquet file (damaged): {why}")))
    }

    /// Per column: the digits its fractions of a second need (none when every value is a whole second).
    fn fraction_digits(&self) -> Result<Vec<u8>, PrepareError> {
        let mut fractional = vec![false; self.shapes.len()];
        self.records(&mut |_, record| {
            for (i, (_, field)) in record.get_column_iter().enumerate() {
                if self.shapes[i].fraction_digits() > 0 && !fractional[i] {
                    fractional[i] =
                        nanos_of(field, self.shapes[i]).is_some_and(|(_, nanos)| nanos % 1_000_000_000 != 0);
                }
            }
            true
        })?;
        Ok(self.shapes.iter().zip(fractional).map(|(s, f)| if f { s.fraction_digits() } else { 0 }).collect())
    }
}

fn open_reader(path: &Path) -> Result<SerializedFileReader<File>, PrepareError> {
    let error = |message: String| PrepareError { path: path.to_path_buf(), message };
    let file = File::open(path).map_err(|e| error(format!("cannot open: {e}")))?;
    SerializedFileReader::new(file).map_err(|e| error(format!("cannot read the Parquet file: {}", one_line(&e))))
}

impl RecordSource for ParquetSource {
    fn described(&self) -> &Described {
        &self.described
    }

    fn names(&self) -> Option<&[String]> {
        Some(&self.names)
    }

    fn rows(&self, visit: &mut dyn FnMut(&Row) -> bool) -> Result<(), PrepareError> {
        let mut row = Row::default();
        let mut fault = None;
        self.records(&mut |number, record| {
            row.clear();
            row.place = number;
            for (i, (name, field)) in record.get_column_iter().enumerate() {
                match text(field, self.shapes[i], self.digits[i]) {
                    Some((value, stored)) => row.push(&value, stored),
                    None => {
                        fault = Some(format!("row {number}: the value of {name} is out of range ({field:?})"));
                        return false;
                    }
                }
            }
            visit(&row)
        })?;
        fault.map_or(Ok(()), |message| Err(self.error(message)))
    }
}

/// An instant or a time of day as whole seconds and nanoseconds (of the epoch or of midnight).
fn nanos_of(field: &Field, shape: Shape) -> Option<(i64, i64)> {
    let (value, per_second): (i64, i64) = match (field, shape) {
        (Field::TimestampMillis(v), _) => (*v, 1_000),
        (Field::TimestampMicros(v) | Field::TimeMicros(v), _) => (*v, 1_000_000),
        (Field::TimeMillis(v), _) => (i64::from(*v), 1_000),
        (Field::Long(v), Shape::Timestamp(TimeUnit::NANOS, _) | Shape::TimeOfDay(TimeUnit::NANOS)) => {
            (*v, 1_000_000_000)
        }
        _ => return None,
    };
    Some((value.div_euclid(per_second), value.rem_euclid(per_second) * (1_000_000_000 / per_second)))
}

/// The text of one value and what the file stored, or `None` for a time out of range.
fn text(field: &Field, shape: Shape, digits: u8) -> Option<(String, Stored)> {
    let fraction = match digits {
        0 => "",
        3 => "%.3f",
        _ => "%.6f",
    };
    if let Some((seconds, nanos)) = nanos_of(field, shape) {
        let nanos = u32::try_from(nanos).ok()?;
        return Some(match shape {
            Shape::TimeOfDay(_) => {
                let time = NaiveTime::from_num_seconds_from_midnight_opt(u32::try_from(seconds).ok()?, nanos)?;
                (time.format(&format!("%H:%M:%S{fraction}")).to_string(), Stored::Guessed)
            }
            _ => {
                let time = DateTime::from_timestamp(seconds, nanos)?.naive_utc();
                let zone = if matches!(shape, Shape::Timestamp(_, true)) { "Z" } else { "" };
                (time.format(&format!("%Y-%m-%d %H:%M:%S{fraction}{zone}")).to_string(), Stored::Guessed)
            }
        });
    }
    let guessed = |text: String| Some((text, Stored::Guessed));
    match field {
        Field::Null => guessed(String::new()),
        Field::Bool(b) => guessed(b.to_string()),
        Field::Byte(v) => guessed(v.to_string()),
        Field::Short(v) => guessed(v.to_string()),
        Field::Int(v) => guessed(v.to_string()),
        Field::Long(v) => guessed(v.to_string()),
        Field::UByte(v) => guessed(v.to_string()),
        Field::UShort(v) => guessed(v.to_string()),
        Field::UInt(v) => guessed(v.to_string()),
        Field::ULong(v) => guessed(v.to_string()),
        Field::Float16(v) => guessed(float_text(f64::from(*v))),
        Field::Float(v) => guessed(float_text(f64::from(*v))),
        Field::Double(v) => guessed(float_text(*v)),
        Field::Decimal(d) => guessed(decimal_text(d)?),
        Field::Date(days) => {
            let date = DateTime::from_timestamp(i64::from(*days) * 86_400, 0)?.date_naive();
            guessed(date.format("%Y-%m-%d").to_string())
        }
        Field::Str(s) => Some((s.clone(), Stored::Text)),
        Field::Bytes(b) => Some((b.data().iter().map(|byte| format!("{byte:02x}")).collect(), Stored::Text)),
        nested => Some((json(nested).to_string(), Stored::Text)),
    }
}

/// A decimal's digits with its scale (`-12.50`), or `None` when it is wider than 128 bits.
fn decimal_text(decimal: &Decimal) -> Option<String> {
    let bytes = decimal.data();
    if bytes.is_empty() || bytes.len() > 16 {
        return None;
    }
    let fill = if bytes[0] & 0x80 == 0 { 0 } else { 0xff };
    let mut wide = [fill; 16];
    wide[16 - bytes.len()..].copy_from_slice(bytes);
    let value = i128::from_be_bytes(wide);
    let scale = usize::try_from(decimal.scale()).unwrap_or(0);
    let digits = format!("{:0width$}", value.unsigned_abs(), width = scale + 1);
    let (whole, part) = digits.split_at(digits.len() - scale);
    let sign = if value < 0 { "-" } else { "" };
    Some(if scale == 0 { format!("{sign}{whole}") } else { format!("{sign}{whole}.{part}") })
}

/// A nested value (or one inside it) as JSON.
fn json(field: &Field) -> Value {
    match field {
        Field::Group(record) => {
            Value::Object(record.get_column_iter().map(|(name, value)| (name.clone(), json(value))).collect())
        }
        Field::ListInternal(list) => Value::Array(list.elements().iter().map(json).collect()),
        Field::MapInternal(map) => {
            Value::Array(map.entries().iter().map(|(key, value)| Value::Array(vec![json(key), json(value)])).collect())
        }
        Field::Str(s) => Value::String(s.clone()),
        Field::Null => Value::Null,
        Field::Bool(b) => Value::Bool(*b),
        other => match text(other, Shape::Plain, 6) {
            Some((text, _)) => {
                serde_json::from_str::<serde_json::Number>(&text).map_or(Value::String(text), Value::Number)
            }
            None => Value::Null,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_keep_their_scale() {
        let d = |v: i64, scale| decimal_text(&Decimal::from_i64(v, 18, scale)).unwrap();
        assert_eq!(d(-1250, 2), "-12.50");
        assert_eq!(d(5, 3), "0.005");
        assert_eq!(d(42, 0), "42");
        let wide = Decimal::from_bytes(vec![0xff; 3].into(), 9, 1);
        assert_eq!(decimal_text(&wide).unwrap(), "-0.1");
    }

    #[test]
    fn times_are_written_in_iso_order_with_their_fraction() {
        let stamp = Shape::Timestamp(TimeUnit::MICROS, false);
        let (text0, _) = text(&Field::TimestampMicros(1_704_447_000_000_000), stamp, 0).unwrap();
        assert_eq!(text0, "2024-01-05 09:30:00");
        let (text6, _) = text(&Field::TimestampMicros(1_704_447_000_250_000), stamp, 6).unwrap();
        assert_eq!(text6, "2024-01-05 09:30:00.250000");
        let utc = Shape::Timestamp(TimeUnit::NANOS, true);
        assert_eq!(text(&Field::Long(-1_000_000_000), utc, 0).unwrap().0, "1969-12-31 23:59:59Z");
        assert_eq!(text(&Field::Date(19_727), Shape::Plain, 0).unwrap().0, "2024-01-05");
        assert_eq!(
            text(&Field::TimeMillis(3_723_500), Shape::TimeOfDay(TimeUnit::MILLIS), 3).unwrap().0,
            "01:02:03.500"
        );
        assert_eq!(text(&Field::Str("007".into()), Shape::Plain, 0), Some(("007".into(), Stored::Text)));
        assert_eq!(text(&Field::Double(2.0), Shape::Plain, 0).unwrap().0, "2.0");
        assert_eq!(text(&Field::Null, Shape::Plain, 0).unwrap().0, "");
    }
}
