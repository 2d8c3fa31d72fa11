//! How an answer on a transformed copy relates to the original answer:
//! the same, its numbers doubled or scaled, its categories renamed, or other.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::transform::SCALE_FACTOR;
use crate::domain::{Relation, Transform};

/// Relative tolerance of number comparisons (sums in another order round differently).
const RELATIVE: f64 = 1e-6;
/// Absolute tolerance, for numbers near zero.
const ABSOLUTE: f64 = 1e-9;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= ABSOLUTE.max(RELATIVE * a.abs().max(b.abs()))
}

/// How each number of `new` relates to the matching number of `original`
/// when they may hold or be multiplied by `factor`: none when some part is
/// neither (or the shapes differ); else whether any number was multiplied.
fn leaves(original: &Value, new: &Value, factor: f64) -> Option<bool> {
    match (original, new) {
        (Value::Number(a), Value::Number(b)) => {
            let (a, b) = (a.as_f64()?, b.as_f64()?);
            if close(a, b) { Some(false) } else { close(a * factor, b).then_some(true) }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            a.iter().zip(b).try_fold(false, |any, (a, b)| Some(any | leaves(a, b, factor)?))
        }
        (Value::Object(a), Value::Object(b)) if a.len() == b.len() => {
            a.iter().try_fold(false, |any, (key, a)| Some(any | leaves(a, b.get(key)?, factor)?))
        }
        (a, b) => (a == b).then_some(false),
    }
}

/// `value` with every string (and object key) that was renamed replaced by its new name.
fn renamed(value: &Value, renames: &BTreeMap<String, String>) -> Value {
    let name = |text: &String| renames.get(text).cloned().unwrap_or_else(|| text.clone());
    match value {
        Value::String(text) => Value::String(name(text)),
        Value::Array(items) => Value::Array(items.iter().map(|item| renamed(item, renames)).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(key, item)| (name(key), renamed(item, renames))).collect::<Map<_, _>>())
        }
        other => other.clone(),
    }
}

/// What `new` (the answer on the copy made by `transform`) is to `original`;
/// `renames` are the category renames the copy made.
pub fn relation(transform: Transform, original: &Value, new: &Value, renames: &BTreeMap<String, String>) -> Relation {
    match transform {
        Transform::Shuffle => match leaves(original, new, 1.0) {
            Some(_) => Relation::Holds,
            None => Relation::Other,
        },
        Transform::Duplicate | Transform::Scale => {
            let factor = if transform == Transform::Duplicate { 2.0 } else { SCALE_FACTOR };
            match leaves(original, new, factor) {
                Some(false) => Relation::Holds,
                Some(true) if transform == Transform::Duplicate => Relation::Doubles,
                Some(true) => Relation::Scales,
                None => Relation::Other,
            }
        }
        Transform::Rename => {
            let expected = renamed(original, renames);
            match leaves(&expected, new, 1.0) {
                Some(_) if expected != *original => Relation::FollowsRenaming,
                Some(_) => Relation::Holds,
                None => Relation::Other,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn of(transform: Transform, original: Value, new: Value) -> Relation {
        let renames = BTreeMap::from([("a".to_string(), "renamed_a".to_string())]);
        relation(transform, &original, &new, &renames)
    }

    #[test]
    fn each_transformation_names_what_it_sees() {
        use Relation::*;
        use Transform::*;
        assert_eq!(of(Shuffle, json!(0.1 + 0.2), json!(0.3)), Holds, "summed in another order");
        assert_eq!(of(Shuffle, json!({"x": [1, "a"]}), json!({"x": [1, "a"]})), Holds);
        assert_eq!(of(Shuffle, json!("first"), json!("second")), Other);
        assert_eq!(of(Duplicate, json!(5), json!(10)), Doubles);
        assert_eq!(of(Duplicate, json!(2.5), json!(2.5)), Holds, "a mean");
        assert_eq!(
            of(Duplicate, json!({"count": 3, "mean": 2.0}), json!({"count": 6, "mean": 2.0})),
            Doubles,
            "each part holds or doubles"
        );
        assert_eq!(of(Duplicate, json!(5), json!(11)), Other);
        assert_eq!(of(Duplicate, json!([1, 2]), json!([1, 2, 1, 2])), Other, "another shape");
        assert_eq!(of(Scale, json!(1.5), json!(15.0)), Scales);
        assert_eq!(of(Scale, json!(0.25), json!(0.25)), Holds, "a rate");
        assert_eq!(of(Scale, json!(3), json!(30.000001)), Scales, "within the relative tolerance");
        assert_eq!(of(Rename, json!("a"), json!("renamed_a")), FollowsRenaming);
        assert_eq!(of(Rename, json!({"a": 3}), json!({"renamed_a": 3})), FollowsRenaming, "keys too");
        assert_eq!(of(Rename, json!(7), json!(7)), Holds, "a count keeps its number");
        assert_eq!(of(Rename, json!("a"), json!("a")), Other, "a category that did not follow");
        assert_eq!(of(Rename, json!(null), json!(null)), Holds);
    }
}
