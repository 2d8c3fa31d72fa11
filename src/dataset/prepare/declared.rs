//! Column types a file declares without enforcing them (see `declared_type`),
//! checked against the values: a column whose values bear its declared type
//! out is read as that type; one whose values contradict it (SQLite lets a
//! column hold anything) is read as its values say, and its note says so.

use super::dates::EpochUnit;
use super::declared_type::{Declared, Expects};
use super::infer::{Column, ColumnProfile, DateSource};

impl Declared {
    /// The column `inferred` from `profile`, read as this declared type where
    /// the values bear it out; else `inferred`, its note saying why the
    /// declared type was not kept.
    pub fn check(&self, profile: &ColumnProfile, mut inferred: Column) -> Column {
        if profile.non_null == 0 {
            return inferred;
        }
        let numbers = profile.plain_numbers();
        let contradiction = match self.expects {
            Expects::Text => None,
            Expects::Integer if numbers == Some(true) => None,
            Expects::Integer => Some("not every value is a whole number"),
            Expects::Real if numbers.is_some() => {
                if matches!(inferred.kind, "integer" | "identifier") {
                    inferred.kind = "float";
                    inferred.whole = false;
                }
                None
            }
            Expects::Numeric if numbers.is_some() => None,
            Expects::Real | Expects::Numeric => Some("not every value is a number"),
            Expects::Boolean if inferred.kind == "boolean" => None,
            Expects::Boolean => Some("not every value is 0 or 1"),
            Expects::Date if inferred.date.is_some() => None,
            Expects::Date => match profile.epoch_unit().filter(|_| numbers == Some(true)) {
                Some(unit) => return self.epoch(inferred, unit),
                None => Some("not every value reads as a date"),
            },
        };
        if let Some(why) = contradiction {
            let said =
                format!("declared {} in the database, but {why}: the type is inferred from the values", self.name);
            inferred.note = Some(match inferred.note.take() {
                Some(note) => format!("{said}; {note}"),
                None => said,
            });
        }
        inferred
    }

    /// `column` read as epoch numbers in `unit`.
    fn epoch(&self, mut column: Column, unit: EpochUnit) -> Column {
        column.kind = "datetime";
        column.date = Some(DateSource::Epoch(unit));
        column.format = None;
        column.note = Some(format!(
            "declared {} in the database and holding {}: written here as UTC text in the strptime format",
            self.name,
            unit.describe()
        ));
        column
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::prepare::records::Stored;

    fn expects(name: &str) -> Option<Expects> {
        Declared::sqlite(name).map(|d| d.expects)
    }

    #[test]
    fn declared_types_follow_sqlites_affinity_rules() {
        assert_eq!(expects("INTEGER"), Some(Expects::Integer));
        assert_eq!(expects("unsigned big int"), Some(Expects::Integer));
        assert_eq!(expects("VARCHAR(10)"), Some(Expects::Text));
        assert_eq!(expects("CHARINT"), Some(Expects::Integer), "INT is looked for first");
        assert_eq!(expects("BLOB"), None);
        assert_eq!(expects(""), None);
        assert_eq!(expects("DOUBLE PRECISION"), Some(Expects::Real));
        assert_eq!(expects("DECIMAL(10,2)"), Some(Expects::Real));
        assert_eq!(expects("DECIMAL(10)"), Some(Expects::Numeric));
        assert_eq!(expects("NUMERIC"), Some(Expects::Numeric));
        assert_eq!(expects("BOOLEAN"), Some(Expects::Boolean));
        assert_eq!(expects("DATETIME"), Some(Expects::Date));
        assert_eq!(expects("timestamp"), Some(Expects::Date));
    }

    fn checked(declared: &str, name: &str, values: &[(&str, Stored)]) -> Column {
        let mut profile = ColumnProfile::new(name);
        values.iter().for_each(|&(v, stored)| profile.observe(v, stored));
        Declared::sqlite(declared).unwrap().check(&profile, profile.decide(false, false))
    }

    #[test]
    fn values_that_bear_the_type_out_are_read_as_it_and_others_are_noted() {
        let g = Stored::Guessed;
        let price = checked("DECIMAL(10,2)", "price", &[("10", g), ("12", g)]);
        assert_eq!((price.kind, price.note), ("float", None), "whole decimals stay floats");
        let shipped = checked("DATE", "shipped", &[("1700000000", g), ("1700086400", g)]);
        assert_eq!((shipped.kind, shipped.strptime()), ("datetime", Some("%Y-%m-%d %H:%M:%S")));
        assert!(shipped.note.unwrap().starts_with("declared DATE in the database and holding epoch seconds"));
        let qty = checked("INTEGER", "qty", &[("3", g), ("three", Stored::Text)]);
        assert_eq!(qty.kind, "categorical");
        let note = qty.note.unwrap();
        assert_eq!(
            note,
            "declared INTEGER in the database, but not every value is a whole number: the type is inferred from the values"
        );
        let day = checked("DATE", "day", &[("2024-01-05", Stored::Text), ("soon", Stored::Text)]);
        assert!(day.note.unwrap().contains("not every value reads as a date"));
        let zip = checked("TEXT", "zip", &[("00123", Stored::Text), ("20500", Stored::Text)]);
        assert_eq!((zip.kind, zip.note), ("categorical", None));
    }
}
