//! A schema shortened to a prompt's budget. A schema that fits is the whole
//! one, byte for byte. One that does not says so in its first line, describes
//! in full the fields the prompt is about (a question's: those its text names
//! or whose names are among its words; question generation's: a sample spread
//! over each table), as many as the budget holds, and lists every other field
//! by name — a run of names that share a pattern as one line
//! (`sensor_00000 … sensor_09999: 10,000 float columns, range 0.0..100.0`).
//! Budgets count an estimated token per four bytes.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use super::schema::{describe, describe_schema, types, write_fields};
use crate::dataset::{Dataset, FieldInfo, Shape};

/// Tokens a prompt's schema may take unless told otherwise (`--schema-budget`):
/// room for the reply and the rest of the prompt within a 128,000-token context.
pub const DEFAULT_SCHEMA_BUDGET: u64 = 32_000;

/// Bytes per token of the estimate a budget is held to.
const BYTES_PER_TOKEN: usize = 4;

/// Columns of each table question generation sees in full, spread over it.
const SAMPLED_IN_FULL: usize = 30;

/// Fewest fields sharing a pattern that are listed as one line.
const MIN_RUN: usize = 3;

/// Which fields a shortened schema describes in full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaFocus<'a> {
    /// Question generation: a sample spread over each table's fields.
    Sample,
    /// A question's prompts: the fields its text names or whose names are among its words.
    Question(&'a str),
}

fn tokens(text: &str) -> u64 {
    text.len().div_ceil(BYTES_PER_TOKEN) as u64
}

/// The fields of a top-level key's values (none for a list of scalars or a scalar).
fn fields(shape: &Shape) -> &[FieldInfo] {
    match shape {
        Shape::Rows { fields, .. } | Shape::DictOfDicts { fields, .. } | Shape::Dict { fields } => fields,
        Shape::List { .. } | Shape::Scalar { .. } => &[],
    }
}

/// The field list of every top-level key.
fn field_lists(dataset: &Dataset) -> Vec<&[FieldInfo]> {
    dataset.catalogue.entries.iter().map(|entry| fields(&entry.shape)).collect()
}

/// The schema of `dataset` for a prompt within `budget` tokens: the whole
/// schema when it fits, else the shortened one `focus` decides.
pub fn schema_within(dataset: &Dataset, budget: u64, focus: SchemaFocus<'_>) -> String {
    let whole = describe_schema(dataset);
    if tokens(&whole) <= budget {
        return whole;
    }
    let lists = field_lists(dataset);
    let mut full: Vec<HashSet<usize>> = vec![HashSet::new(); lists.len()];
    // The fields in full first, then the names in the room left.
    let mut left = budget.saturating_sub(tokens(&render(dataset, &full, budget, Some(0))));
    for (entry, index) in wanted(&lists, focus) {
        let mut line = String::new();
        write_fields(&mut line, [&lists[entry][index]], "    ");
        let cost = tokens(&line);
        if cost <= left && full[entry].insert(index) {
            left -= cost;
        }
    }
    let unlimited = render(dataset, &full, budget, None);
    if tokens(&unlimited) <= budget {
        return unlimited;
    }
    let fixed = tokens(&render(dataset, &full, budget, Some(0)));
    let room = usize::try_from(budget.saturating_sub(fixed)).unwrap_or(usize::MAX).saturating_mul(BYTES_PER_TOKEN);
    render(dataset, &full, budget, Some(room))
}

/// The fields `focus` wants in full, most wanted first: (entry, field) indices.
fn wanted(lists: &[&[FieldInfo]], focus: SchemaFocus<'_>) -> Vec<(usize, usize)> {
    let mut wanted = Vec::new();
    match focus {
        SchemaFocus::Question(text) => {
            let words: HashSet<&str> = text.split(|c: char| !c.is_alphanumeric() && c != '_').collect();
            for (entry, fields) in lists.iter().enumerate() {
                let named = |f: &FieldInfo| words.contains(f.name.as_str()) || text.contains(&format!("`{}`", f.name));
                wanted.extend(fields.iter().enumerate().filter(|(_, f)| named(f)).map(|(i, _)| (entry, i)));
            }
        }
        SchemaFocus::Sample => {
            for (entry, fields) in lists.iter().enumerate() {
                let shown = fields.len().min(SAMPLED_IN_FULL);
                wanted.extend((0..shown).map(|i| (entry, i * fields.len() / shown)));
            }
        }
    }
    wanted
}

/// The shortened schema: the fields `full` holds (per entry) in full, the
/// rest by name in at most `names_room` bytes (all of them when none).
fn render(dataset: &Dataset, full: &[HashSet<usize>], budget: u64, names_room: Option<usize>) -> String {
    let shown: usize = full.iter().map(HashSet::len).sum();
    let total: usize = field_lists(dataset).iter().map(|fields| fields.len()).sum();
    let mut out = format!(
        "(This schema is shortened to fit {} tokens: {shown} of its {} fields are described in full, the others \
         listed by name, a run of names that share a pattern on one line, as many as fit. Every name listed is a \
         real field.)\n",
        crate::text::thousands(budget),
        crate::text::thousands(total as u64)
    );
    let mut room = names_room;
    out.push_str(&describe(dataset, &mut |out, entry, fields, indent| {
        write_fields(out, fields.iter().enumerate().filter(|(i, _)| full[entry].contains(i)).map(|(_, f)| f), indent);
        let rest: Vec<&FieldInfo> =
            fields.iter().enumerate().filter(|(i, _)| !full[entry].contains(i)).map(|(_, f)| f).collect();
        write_names(out, &rest, indent, &mut room);
    }));
    out
}

/// A name's last run of digits: the text before it, its width, the text after it.
fn pattern(name: &str) -> Option<(&str, usize, &str)> {
    let end = name.rfind(|c: char| c.is_ascii_digit())? + 1;
    let start = name[..end].rfind(|c: char| !c.is_ascii_digit()).map_or(0, |i| i + 1);
    Some((&name[..start], end - start, &name[end..]))
}

/// `rest` by name: a line per field, or per run of at least `MIN_RUN` fields
/// of one type whose names differ only in one number; within `room` bytes
/// (taken from it) when given, the fields past it counted on one line.
fn write_names(out: &mut String, rest: &[&FieldInfo], indent: &str, room: &mut Option<usize>) {
    if rest.is_empty() {
        return;
    }
    let _ = writeln!(out, "{indent}and {} more, by name only:", crate::text::thousands(rest.len() as u64));
    let mut unlisted = 0;
    for (line, fields) in name_lines(rest, indent) {
        match room {
            Some(left) if line.len() > *left || unlisted > 0 => unlisted += fields,
            Some(left) => {
                *left -= line.len();
                out.push_str(&line);
            }
            None => out.push_str(&line),
        }
    }
    if unlisted > 0 {
        let _ = writeln!(
            out,
            "{indent}- … and {} more not listed for want of room (name one exactly and it is checked)",
            crate::text::thousands(unlisted as u64)
        );
    }
}

/// The lines listing `rest` by name, each with how many fields it names.
fn name_lines(rest: &[&FieldInfo], indent: &str) -> Vec<(String, usize)> {
    let mut lines = Vec::new();
    let mut groups: Vec<Vec<&FieldInfo>> = Vec::new();
    let mut at: HashMap<(&str, usize, &str, String), usize> = HashMap::new();
    for &field in rest {
        match pattern(&field.name) {
            Some((prefix, width, suffix)) => {
                let slot = *at.entry((prefix, width, suffix, types(field))).or_insert(groups.len());
                if slot == groups.len() {
                    groups.push(Vec::new());
                }
                groups[slot].push(field);
            }
            None => groups.push(vec![field]),
        }
    }
    for group in groups {
        if group.len() < MIN_RUN {
            lines.extend(group.iter().map(|field| (format!("{indent}- \"{}\": {}\n", field.name, types(field)), 1)));
            continue;
        }
        let order = |a: &&&FieldInfo, b: &&&FieldInfo| (a.name.len(), &a.name).cmp(&(b.name.len(), &b.name));
        let (first, last) = (group.iter().min_by(order), group.iter().max_by(order));
        let (Some(first), Some(last)) = (first, last) else { continue };
        let count = crate::text::thousands(group.len() as u64);
        let mut line = format!("{indent}- {} … {}: {count} {} fields", first.name, last.name, types(first));
        if let Some((low, high)) = span(&group) {
            let _ = write!(line, ", range {low:?}..{high:?}");
        }
        if group.iter().any(|f| f.nullable) {
            line.push_str(", some MAY BE None");
        }
        line.push('\n');
        lines.push((line, group.len()));
    }
    lines
}

/// The range every field of `group` declares, joined: the lowest low and the highest high.
fn span(group: &[&FieldInfo]) -> Option<(f64, f64)> {
    let mut joined: Option<(f64, f64)> = None;
    for field in group {
        let range = field.column.as_ref()?.range.as_ref()?;
        let (low, high) = (range.first()?.as_f64()?, range.get(1)?.as_f64()?);
        joined = Some(joined.map_or((low, high), |(l, h)| (l.min(low), h.max(high))));
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// A dataset of a `region` and `sensors` float columns (range 0..100), in `dir`.
    fn wide(dir: &std::path::Path, sensors: usize) -> Dataset {
        let name = |s: usize| format!("sensor_{s:05}");
        let rows: Vec<Value> = (0..5)
            .map(|r| {
                let mut row: serde_json::Map<String, Value> =
                    (0..sensors).map(|s| (name(s), json!(r as f64))).collect();
                row.insert("region".into(), json!(["north", "south"][r % 2]));
                Value::Object(row)
            })
            .collect();
        let mut columns: serde_json::Map<String, Value> =
            (0..sensors).map(|s| (name(s), json!({"type": "float", "range": [0.0, 100.0]}))).collect();
        columns.insert("region".into(), json!({"type": "categorical", "values": ["north", "south"]}));
        let metadata = json!({"description": "sensors", "columns": columns, "dataset_keys": {"rows": "rows"}});
        std::fs::write(dir.join("data.json"), json!({ "rows": rows }).to_string()).unwrap();
        std::fs::write(dir.join("metadata.json"), metadata.to_string()).unwrap();
        Dataset::load(dir).unwrap()
    }

    #[test]
    fn a_schema_that_fits_is_the_whole_one_byte_for_byte() {
        let fraud = Dataset::load(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data/fraud")).unwrap();
        for focus in [SchemaFocus::Sample, SchemaFocus::Question("How many rows?")] {
            assert_eq!(schema_within(&fraud, DEFAULT_SCHEMA_BUDGET, focus), describe_schema(&fraud));
        }
    }

    #[test]
    fn a_question_sees_its_columns_in_full_and_every_other_by_pattern_within_the_budget() {
        let dir = tempfile::tempdir().unwrap();
        let dataset = wide(dir.path(), 2_000);
        let question = "What is the largest `sensor_01234` among rows whose region is north?";
        let schema = schema_within(&dataset, 2_000, SchemaFocus::Question(question));
        assert!(schema.starts_with("(This schema is shortened to fit 2,000 tokens: 2 of its 2,001 fields"), "{schema}");
        assert!(schema.contains("- \"sensor_01234\": float — float; range 0.0..100.0\n"), "{schema}");
        assert!(schema.contains("- \"region\": str — categorical; values [\"north\", \"south\"]\n"), "{schema}");
        assert!(schema.contains("and 1,999 more, by name only:\n"), "{schema}");
        assert!(
            schema.contains("- sensor_00000 … sensor_01999: 1,999 float fields, range 0.0..100.0\n"),
            "every other name, as one pattern: {schema}"
        );
        assert!(!schema.contains("\"sensor_00042\""), "not in full: {schema}");
        assert!(tokens(&schema) <= 2_000, "{} tokens", tokens(&schema));
    }

    #[test]
    fn question_generation_sees_a_spread_sample_in_full() {
        let dir = tempfile::tempdir().unwrap();
        let dataset = wide(dir.path(), 2_000);
        let schema = schema_within(&dataset, 3_000, SchemaFocus::Sample);
        let full: Vec<&str> = schema.lines().filter(|l| l.starts_with("    - \"") && l.contains(" — ")).collect();
        assert_eq!(full.len(), SAMPLED_IN_FULL, "{schema}");
        assert!(full.iter().any(|l| l.contains("sensor_01")), "spread over the table: {full:?}");
        assert!(tokens(&schema) <= 3_000);
        assert!(
            !schema.contains("\"sensor_01777\""),
            "by name only (the field check still knows it: see tests/suite/offline_planner.rs)"
        );
    }

    #[test]
    fn each_table_of_a_shortened_schema_keeps_its_own_annotations() {
        let dir = tempfile::tempdir().unwrap();
        let name = |s: usize| format!("sensor_{s:05}");
        let readings: Vec<Value> = (0..4)
            .map(|r| {
                let mut row: serde_json::Map<String, Value> =
                    (0..1_500).map(|s| (name(s), json!(f64::from(r)))).collect();
                row.insert("station".into(), json!(r % 2));
                Value::Object(row)
            })
            .collect();
        let stations = json!([{"station": "0", "kind": "coast"}, {"station": "1", "kind": "hill"}]);
        let mut sensors: serde_json::Map<String, Value> =
            (0..1_500).map(|s| (name(s), json!({"type": "float", "range": [0.0, 9.0]}))).collect();
        sensors.insert("station".into(), json!({"type": "integer", "note": "the station's number"}));
        let metadata = json!({"description": "two tables", "dataset_keys": {"readings": "r", "stations": "s"},
            "tables": {"readings": {"columns": sensors},
                       "stations": {"columns": {"station": {"type": "identifier", "note": "a code, as text"}}}}});
        std::fs::write(dir.path().join("data.json"), json!({"readings": readings, "stations": stations}).to_string())
            .unwrap();
        std::fs::write(dir.path().join("metadata.json"), metadata.to_string()).unwrap();
        let dataset = Dataset::load(dir.path()).unwrap();
        let schema = schema_within(&dataset, 2_000, SchemaFocus::Question("Which `kind` of `station` reads highest?"));
        assert!(tokens(&schema) <= 2_000, "{} tokens", tokens(&schema));
        let (readings, stations) = schema.split_once("dataset.stations").unwrap();
        assert!(readings.contains("- \"station\": int — integer; the station's number\n"), "{schema}");
        assert!(stations.contains("- \"station\": str — identifier; a code, as text\n"), "{schema}");
    }

    #[test]
    fn names_past_the_room_are_counted_after_the_fields_in_full() {
        let dir = tempfile::tempdir().unwrap();
        let name = |c: usize| format!("{}_{}", ["amber", "birch", "cedar"][c % 3], "x".repeat(c / 3 + 1));
        let rows: Vec<Value> = (0..3)
            .map(|r| Value::Object((0..600).map(|c| (name(c), json!(r))).collect::<serde_json::Map<_, _>>()))
            .collect();
        let columns: serde_json::Map<String, Value> = (0..600).map(|c| (name(c), json!({"type": "int"}))).collect();
        let metadata = json!({"description": "unpatterned", "columns": columns, "dataset_keys": {"rows": "rows"}});
        std::fs::write(dir.path().join("data.json"), json!({ "rows": rows }).to_string()).unwrap();
        std::fs::write(dir.path().join("metadata.json"), metadata.to_string()).unwrap();
        let dataset = Dataset::load(dir.path()).unwrap();
        let question = format!("What is the total of `{}`?", name(599));
        let schema = schema_within(&dataset, 3_000, SchemaFocus::Question(&question));
        assert!(tokens(&schema) <= 3_000, "{} tokens", tokens(&schema));
        assert!(schema.contains(&format!("- \"{}\": int", name(599))), "the question's field in full: {schema}");
        let listed = schema.lines().filter(|l| l.trim_start().starts_with("- \"") && !l.contains(" — ")).count();
        let last = schema.lines().rev().find(|l| l.contains("more not listed for want of room")).expect("counted");
        let unlisted: usize = last.split_whitespace().nth(3).unwrap().replace(',', "").parse().unwrap();
        assert_eq!(listed + unlisted, 599, "every other field listed or counted: {last}");
        assert!(listed > 100, "the room is used: {listed} listed");
    }

    #[test]
    fn names_group_by_their_last_number_and_type() {
        assert_eq!(pattern("sensor_00042"), Some(("sensor_", 5, "")));
        assert_eq!(pattern("q3_answer"), Some(("q", 1, "_answer")));
        assert_eq!(pattern("region"), None);
    }
}
