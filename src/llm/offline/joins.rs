//! Questions that join two tables of a dataset on a column both have (of the
//! same type): how many rows of one find a partner in the other, and — when
//! the other has one row per value of the column and a category — which
//! category the first table's rows add up to most in.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Map, Value, json};

use super::calc::{arg_max, fsum, lit, rows};
use super::templates::{COUNT, Candidate, arg_max_step, step};
use crate::dataset::{Dataset, FieldInfo, Shape, is_measure};
use crate::domain::DifficultyLevel::{Easy, Medium};

/// Most values a category may have to group by it.
const MAX_GROUPS: usize = 15;

/// Most shared columns of two tables weighed as join columns (wide tables share thousands).
const MAX_SHARED: usize = 16;

/// Two tables that join on the column `on`: rows of `many` find partners in
/// `one`. When each row of `one` has its own value of `on`, `group` is a
/// category of `one` and `measure` a numeric column of `many` (none: rows are counted).
#[derive(Debug, Clone, PartialEq)]
pub struct Join {
    /// The table whose rows are joined.
    pub many: String,
    /// The table they find partners in.
    pub one: String,
    /// The column both have.
    pub on: String,
    /// A category of `one`, when `on` names each row of `one` once.
    pub group: Option<String>,
    /// A measure of `many`.
    pub measure: Option<String>,
}

/// Whether two fields of the same name can be joined: the same one type,
/// text or a whole number that is no measure (an identifier, a code).
fn compatible(a: &FieldInfo, b: &FieldInfo) -> bool {
    let key = |f: &FieldInfo| matches!(f.types.as_slice(), [t] if t == "str" || (t == "int" && !measure(f)));
    a.types == b.types && key(a) && key(b)
}

/// Whether `on` names each row of `rows` once.
fn unique(rows: &[&Map<String, Value>], on: &str) -> bool {
    let mut seen = std::collections::HashSet::new();
    rows.len() >= 2 && rows.iter().all(|r| r.get(on).is_some_and(|v| !v.is_null() && seen.insert(v.to_string())))
}

/// The first two text columns of `rows` with between 2 and [`MAX_GROUPS`]
/// values, fewer than the rows (categories, not names): a join column is
/// grouped by the first that is not itself.
fn categories<'f>(fields: &'f [FieldInfo], rows: &[&Map<String, Value>]) -> Vec<&'f str> {
    let category = |name: &&str| {
        let values: std::collections::BTreeSet<&str> = rows.iter().filter_map(|r| r.get(*name)?.as_str()).collect();
        (2..=MAX_GROUPS).contains(&values.len()) && values.len() < rows.len()
    };
    fields.iter().filter(|f| f.types == ["str"]).map(|f| f.name.as_str()).filter(category).take(2).collect()
}

/// Whether `field` is a number worth totalling: a measure, not an identifier.
fn measure(field: &FieldInfo) -> bool {
    let identifier = field.column.as_ref().is_some_and(|c| c.column_type.as_deref() == Some("identifier"))
        || field.name.to_ascii_lowercase().rsplit(['_', ' ', '-']).next() == Some("id");
    !identifier
        && is_measure(&field.name)
        && !field.types.is_empty()
        && field.types.iter().all(|t| t == "int" || t == "float")
}

/// The joins `dataset`'s tables offer: one per ordered pair of tables at most.
pub fn find(dataset: &Dataset) -> Vec<Join> {
    let tables: Vec<(&str, &[FieldInfo])> = dataset
        .catalogue
        .entries
        .iter()
        .filter_map(|e| match &e.shape {
            Shape::Rows { fields, .. } => Some((e.key.as_str(), &fields[..])),
            _ => None,
        })
        .collect();
    let mut joins = Vec::new();
    if tables.len() < 2 {
        return joins;
    }
    for &(one, one_fields) in &tables {
        let one_rows = rows(&dataset.data, one);
        let categories = categories(one_fields, &one_rows);
        for &(many, many_fields) in tables.iter().filter(|(key, _)| *key != one) {
            let by_name: HashMap<&str, &FieldInfo> = many_fields.iter().map(|f| (f.name.as_str(), f)).collect();
            let shared: Vec<&str> = one_fields
                .iter()
                .filter(|f| by_name.get(f.name.as_str()).is_some_and(|m| compatible(f, m)))
                .map(|f| f.name.as_str())
                .take(MAX_SHARED)
                .collect();
            // The column that names each row of `one` once, with a category beside it; else the first shared.
            let grouped = shared.iter().filter(|on| unique(&one_rows, on)).find_map(|on| {
                let group = categories.iter().find(|c| *c != on)?;
                Some((*on, Some((*group).to_string())))
            });
            let Some((on, group)) = grouped.or_else(|| shared.first().map(|on| (*on, None))) else { continue };
            let measure = many_fields.iter().find(|f| f.name != on && measure(f)).map(|f| f.name.clone());
            joins.push(Join { many: many.into(), one: one.into(), on: on.into(), group, measure });
        }
    }
    joins
}

/// Medium: the category of `one` whose rows of `many` have the largest total
/// `measure` (or are the most), the two tables joined on `on`.
pub fn join_arg_max(data: &Map<String, Value>, join: &Join) -> Option<Candidate> {
    let Join { many, one, on, group, measure } = join;
    let group = group.as_ref()?;
    let lookup: HashMap<String, &str> = rows(data, one)
        .into_iter()
        .filter_map(|r| Some((r.get(on).filter(|v| !v.is_null())?.to_string(), r.get(group)?.as_str()?)))
        .collect();
    let mut groups: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for r in rows(data, many) {
        let Some(g) = r.get(on).and_then(|v| lookup.get(&v.to_string())) else { continue };
        let x = match measure {
            Some(m) => r.get(m).and_then(Value::as_f64),
            None => Some(1.0),
        };
        if let Some(x) = x {
            groups.entry((*g).to_string()).or_default().push(x);
        }
    }
    let totals: BTreeMap<String, f64> = groups.into_iter().map(|(g, xs)| (g, fsum(xs))).collect();
    let expected = json!(arg_max(&totals)?);
    let (what, value, skip) = match measure {
        Some(m) => (
            format!("the largest total `{m}`"),
            format!("r[{}]", lit(m)),
            format!(" and r.get({}) is not None", lit(m)),
        ),
        None => (format!("the most rows of `{many}`"), "1".into(), String::new()),
    };
    let joined = format!(
        "def joined(rows, other):\n    lookup = {{o[{on}]: o[{g}] for o in other if o.get({on}) is not None and o.get({g}) is not None}}\n    return [[lookup[r[{on}]], {value}] for r in rows if r.get({on}) in lookup{skip}]\n",
        on = lit(on),
        g = lit(group),
    );
    let totals = "def totals(values):\n    groups = collections.defaultdict(list)\n    for key, x in values:\n        groups[key].append(x)\n    return {key: math.fsum(xs) for key, xs in groups.items()}\n";
    let reads: Vec<&str> = [on.as_str(), group.as_str()].into_iter().chain(measure.as_deref()).collect();
    let mut candidate = Candidate::over_rows(Medium, "join_arg_max", many, &reads)
        .ask(
            format!("Joining `{many}` to `{one}` on `{on}`, which `{group}` has {what}?"),
            format!("a join of two tables on `{on}`, a total per group of the other table's category, then an arg-max"),
        )
        .solve(
            vec![
                step(
                    "joined",
                    format!("({group} of the {one} row, value) of every {many} row with a match on {on}"),
                    joined,
                    "list",
                ),
                step("totals", format!("total per {group}"), totals, "dict"),
                arg_max_step(group, "str"),
            ],
            expected,
        );
    candidate.joined = Some(one.clone());
    Some(candidate)
}

/// Easy: how many rows of `many` find a partner in `one` on `on`.
pub fn join_count(data: &Map<String, Value>, join: &Join) -> Option<Candidate> {
    let Join { many, one, on, .. } = join;
    let keys: HashSet<String> =
        rows(data, one).into_iter().filter_map(|r| Some(r.get(on).filter(|v| !v.is_null())?.to_string())).collect();
    let count =
        rows(data, many).into_iter().filter(|r| r.get(on).is_some_and(|v| keys.contains(&v.to_string()))).count();
    let matched = format!(
        "def matched(rows, other):\n    keys = {{o[{on}] for o in other if o.get({on}) is not None}}\n    return [r for r in rows if r.get({on}) in keys]\n",
        on = lit(on),
    );
    let mut candidate = Candidate::over_rows(Easy, "join_count", many, &[on.as_str()])
        .ask(
            format!("How many rows of `{many}` have a `{on}` that some row of `{one}` has too?"),
            format!("a join of two tables on `{on}` (rows with a partner kept), then a count"),
        )
        .solve(
            vec![
                step("matched", format!("the {many} rows whose {on} is among the {one} rows'"), matched, "list"),
                step("count", "count them", COUNT, "int"),
            ],
            json!(count),
        );
    candidate.joined = Some(one.clone());
    (count > 0).then_some(candidate)
}
