//! The time-format check: a `strptime` call reading a column whose metadata
//! names its strptime format (a datetime or a time of day) must use that
//! format, and a duration is never read with `strptime` (it is no time).

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::{Ranged, TextRange};

use super::fields::line_of;
use crate::dataset::SchemaCatalogue;

/// A `strptime` call that cannot read the column it is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatMismatch {
    /// 1-based line in the node's code.
    pub line: usize,
    /// What is wrong, and what reads the column.
    pub message: String,
}

/// `strptime` calls: the column read (a string subscript or `.get` key) and the literal format.
#[derive(Default)]
struct Calls {
    found: Vec<(String, Option<String>, TextRange)>,
}

fn literal(expr: &Expr) -> Option<String> {
    match expr {
        Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
        _ => None,
    }
}

/// The column `expr` reads: `row["name"]` or `row.get("name")`.
fn column_read(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Subscript(subscript) => literal(&subscript.slice),
        Expr::Call(call) => match call.func.as_ref() {
            Expr::Attribute(attribute) if attribute.attr.as_str() == "get" => {
                call.arguments.args.first().and_then(literal)
            }
            _ => None,
        },
        _ => None,
    }
}

impl<'a> Visitor<'a> for Calls {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(ast::ExprCall { func, arguments, .. }) = expr
            && let Expr::Attribute(attribute) = func.as_ref()
            && attribute.attr.as_str() == "strptime"
            && let Some(column) = arguments.args.first().and_then(column_read)
        {
            self.found.push((column, arguments.args.get(1).and_then(literal), expr.range()));
        }
        visitor::walk_expr(self, expr);
    }
}

/// The `strptime` calls of `code` that cannot read their column, by the
/// columns' metadata in `catalogue`.
pub fn format_mismatches(code: &str, catalogue: &SchemaCatalogue) -> Vec<FormatMismatch> {
    let Ok(parsed) = ruff_python_parser::parse_module(code) else { return Vec::new() };
    let mut calls = Calls::default();
    calls.visit_body(&parsed.syntax().body);
    let mut out = Vec::new();
    for (name, format, range) in calls.found {
        // Tables of one dataset may each have a column of this name: a call is
        // wrong only when it is wrong for every one of them.
        let columns: Vec<_> = catalogue.columns_named(&name).collect();
        let Some(column) = columns.first() else { continue };
        let wrong_format =
            |format: &String| columns.iter().all(|c| c.strptime.as_ref().is_some_and(|want| want != format));
        let message = if columns.iter().all(|c| c.column_type.as_deref() == Some("duration")) {
            let how = column.note.as_deref().unwrap_or("split it into its parts and add them up");
            format!("strptime reads '{name}', a duration, not a time: {how}")
        } else if let (Some(want), Some(format)) = (&column.strptime, &format)
            && wrong_format(format)
        {
            format!("strptime reads '{name}' with the format {format:?}, but its values are written {want:?}")
        } else {
            continue;
        };
        out.push(FormatMismatch { line: line_of(code, range), message });
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::dataset::Metadata;

    #[test]
    fn strptime_must_use_the_columns_format_and_never_read_a_duration() {
        let data = json!({"rows": [{"Time": "09:15:59", "Wait": "00:00:07", "Day": "2024-01-05", "n": 1}]});
        let metadata: Metadata = serde_json::from_value(json!({"columns": {
            "Time": {"type": "time", "strptime": "%H:%M:%S"},
            "Wait": {"type": "duration", "unit": "seconds", "note": "in seconds: h * 3600 + m * 60 + s"},
            "Day": {"type": "datetime", "strptime": "%Y-%m-%d"}}}))
        .unwrap();
        let catalogue = SchemaCatalogue::build(data.as_object().unwrap(), &metadata);
        let check = |code: &str| format_mismatches(code, &catalogue);
        let right =
            "def f(rows):\n    return [datetime.datetime.strptime(r['Time'], '%H:%M:%S').time() for r in rows]\n";
        assert_eq!(check(right), vec![]);
        let wrong = "def f(rows):\n    x = 1\n    return [datetime.datetime.strptime(r.get('Time'), '%I:%M %p') for r in rows]\n";
        let found = check(wrong);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].line, 3);
        assert!(found[0].message.contains("written \"%H:%M:%S\""), "{found:?}");
        let duration = "def f(rows):\n    return [datetime.datetime.strptime(r['Wait'], '%H:%M:%S') for r in rows]\n";
        assert!(check(duration)[0].message.contains("a duration, not a time: in seconds"), "{:?}", check(duration));
        let other =
            "def f(rows, fmt):\n    return [datetime.datetime.strptime(r['Day'], fmt), strptime(r['n'], 'x')]\n";
        assert_eq!(check(other), vec![], "a format that is not a literal, a column without a format");
    }

    #[test]
    fn a_column_name_two_tables_share_is_read_with_either_tables_format() {
        let data = json!({"orders": [{"day": "2024-01-05"}], "visits": [{"day": "05/01/2024"}]});
        let metadata: Metadata = serde_json::from_value(json!({"tables": {
            "orders": {"columns": {"day": {"type": "datetime", "strptime": "%Y-%m-%d"}}},
            "visits": {"columns": {"day": {"type": "datetime", "strptime": "%d/%m/%Y"}}}}}))
        .unwrap();
        let catalogue = SchemaCatalogue::build(data.as_object().unwrap(), &metadata);
        let call = |format: &str| {
            let code =
                format!("def f(rows):\n    return [datetime.datetime.strptime(r['day'], '{format}') for r in rows]\n");
            format_mismatches(&code, &catalogue)
        };
        assert_eq!(call("%d/%m/%Y"), vec![], "the second table's format, though the first's differs");
        assert_eq!(call("%Y-%m-%d"), vec![]);
        assert_eq!(call("%m-%d-%Y").len(), 1, "neither table's");
    }
}
