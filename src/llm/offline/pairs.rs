//! Templates for data without measures or dates (a list of places, codes and
//! names): distinct values of one column per group of another, a string
//! property, and great-circle distances from coordinates.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::calc::{arg_max, lit, rows, text_of};
use super::ingredients::Ingredients;
use super::templates::{Candidate, arg_max_step, step, values_step};
use crate::domain::DifficultyLevel::{Hard, Medium};

/// The Earth's mean radius, km.
const EARTH_RADIUS_KM: f64 = 6371.0;

/// Every question of these templates over `ing`: distinct values of each
/// other text column per categorical column of at most `max_groups` values,
/// the longest of each text column, the place farthest from the first by
/// each text column that tells the rows apart.
pub fn without_measures(
    data: &Map<String, Value>,
    rows_key: &str,
    ing: &Ingredients,
    max_groups: usize,
) -> Vec<Option<Candidate>> {
    let mut all = Vec::new();
    let groups = ing.categorical.iter().filter(|(_, values)| values.len() <= max_groups).map(|(c, _)| c);
    for group in groups {
        let others = ing.categorical.iter().map(|(c, _)| c).chain(&ing.text).filter(|c| *c != group);
        all.extend(others.map(|other| most_distinct_within(data, rows_key, group, other)));
    }
    all.extend(ing.text.iter().map(|column| longest_value(data, rows_key, column)));
    if let Some((lat, lon)) = &ing.coordinates {
        all.extend(ing.text.iter().map(|name| farthest_from(data, rows_key, name, lat, lon)));
    }
    all
}

/// Hard: the group of one column with the most distinct values of another.
pub fn most_distinct_within(data: &Map<String, Value>, rows_key: &str, group: &str, other: &str) -> Option<Candidate> {
    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for r in rows(data, rows_key) {
        if let (Some(g), Some(o)) = (r.get(group).and_then(text_of), r.get(other).and_then(text_of)) {
            seen.entry(g).or_default().insert(o);
        }
    }
    let spread: BTreeMap<String, f64> = seen.iter().map(|(g, values)| (g.clone(), values.len() as f64)).collect();
    // A question whose every group has one value asks nothing.
    if spread.values().all(|&n| n < 2.0) {
        return None;
    }
    let expected = json!(arg_max(&spread)?);
    let pairs = format!(
        "def pairs(rows):\n    return [[r[{g}], r[{o}]] for r in rows if r.get({g}) is not None and r.get({o}) is not None]\n",
        g = lit(group),
        o = lit(other)
    );
    let spread_code = |kind: &str, add: &str| {
        format!(
            "def spread(values):\n    groups = collections.defaultdict({kind})\n    for key, x in values:\n        groups[key].{add}(x)\n    return {{key: len(xs) for key, xs in groups.items()}}\n"
        )
    };
    Some(
        Candidate::over_rows(Hard, "most_distinct_within", rows_key, &[group, other])
            .ask(
                format!("In the `{rows_key}` sample, which `{group}` has the most distinct `{other}` values (ties: the first by name)?"),
                "pairs of two columns, a set of values per group, its size, an arg-max",
            )
            .solve(
                vec![
                    step("pairs", format!("({group}, {other}) of every row with both"), pairs, "list"),
                    step("spread", format!("distinct {other} values per {group}"), spread_code("set", "add"), "dict"),
                    arg_max_step(group, "str"),
                ],
                expected,
            )
            .slip(
                1,
                spread_code("list", "append"),
                format!("step_2 counts the rows of each {group}, repeats included; the question counts distinct {other} values"),
            ),
    )
}

/// Medium: the longest value of a text column (most characters; ties: the first alphabetically).
pub fn longest_value(data: &Map<String, Value>, rows_key: &str, column: &str) -> Option<Candidate> {
    let values: BTreeSet<String> =
        rows(data, rows_key).iter().filter_map(|r| r.get(column).and_then(text_of)).collect();
    let lengths: BTreeSet<usize> = values.iter().map(|v| v.chars().count()).collect();
    // Values all of one length (codes) have no longest one to ask about.
    if lengths.len() < 2 {
        return None;
    }
    let longest = values.iter().min_by_key(|v| (std::cmp::Reverse(v.chars().count()), (*v).clone()))?;
    let code = |sign: &str| format!("def longest(values):\n    return min(values, key=lambda v: ({sign}len(v), v))\n");
    Some(
        Candidate::over_rows(Medium, "longest_value", rows_key, &[column])
            .ask(
                format!("Which `{column}` in the `{rows_key}` sample is the longest (most characters; ties: the first in alphabetical order)?"),
                "a string property per value, then a minimum with a tie-break",
            )
            .solve(vec![values_step(column), step("longest", "the longest value", code("-"), "str")], json!(longest))
            .slip(1, code(""), "step_2 picks the shortest value; the question asks for the longest".into()),
    )
}

/// Great-circle distance in km (haversine) between two points given in degrees,
/// computed as the Python of [`farthest_from`] computes it.
fn haversine_km((lat0, lon0): (f64, f64), (lat, lon): (f64, f64)) -> f64 {
    let radians = |degrees: f64| degrees * std::f64::consts::PI / 180.0;
    let (lat0, lon0, lat, lon) = (radians(lat0), radians(lon0), radians(lat), radians(lon));
    let a = ((lat - lat0) / 2.0).sin().powi(2) + lat0.cos() * lat.cos() * ((lon - lon0) / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_KM * a.sqrt().asin()
}

/// Hard: the place farthest from the sample's first place, by great-circle
/// distance from latitude and longitude; `name` must tell every row apart.
pub fn farthest_from(data: &Map<String, Value>, rows_key: &str, name: &str, lat: &str, lon: &str) -> Option<Candidate> {
    let places: Vec<(String, f64, f64)> = rows(data, rows_key)
        .iter()
        .filter_map(|r| Some((r.get(name).and_then(text_of)?, r.get(lat)?.as_f64()?, r.get(lon)?.as_f64()?)))
        .collect();
    let names: BTreeSet<&String> = places.iter().map(|(n, _, _)| n).collect();
    if places.len() < 3 || names.len() < places.len() {
        return None;
    }
    let (origin, lat0, lon0) = places[0].clone();
    let distances: BTreeMap<String, f64> =
        places.iter().map(|(n, la, lo)| (n.clone(), haversine_km((lat0, lon0), (*la, *lo)))).collect();
    let expected = json!(arg_max(&distances)?);
    let points = format!(
        "def points(rows):\n    return [[r[{n}], r[{a}], r[{o}]] for r in rows if r.get({n}) is not None and r.get({a}) is not None and r.get({o}) is not None]\n",
        n = lit(name),
        a = lit(lat),
        o = lit(lon)
    );
    let distance_code = format!(
        "def distances(values):\n    lat0, lon0 = math.radians({lat0:?}), math.radians({lon0:?})\n    out = {{}}\n    for name, lat, lon in values:\n        la, lo = math.radians(lat), math.radians(lon)\n        a = math.sin((la - lat0) / 2) ** 2 + math.cos(lat0) * math.cos(la) * math.sin((lo - lon0) / 2) ** 2\n        out[name] = 2 * {EARTH_RADIUS_KM:?} * math.asin(math.sqrt(a))\n    return out\n"
    );
    Some(
        Candidate::over_rows(Hard, "farthest_from", rows_key, &[name, lat, lon])
            .ask(
                format!("In the `{rows_key}` sample, which `{name}` lies farthest from {origin:?} by great-circle distance (haversine on `{lat}` and `{lon}` in degrees, Earth radius {EARTH_RADIUS_KM:?} km)?"),
                "coordinates per row, a haversine distance to a fixed point, an arg-max",
            )
            .solve(
                vec![
                    step("points", format!("({name}, {lat}, {lon}) of every row with all three"), points, "list"),
                    step("distances", format!("km from {origin}"), distance_code, "dict"),
                    arg_max_step(name, "str"),
                ],
                expected,
            ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn haversine_gives_known_distances() {
        // London Heathrow to New York JFK: about 5,540 km.
        let km = haversine_km((51.47, -0.4543), (40.6413, -73.7781));
        assert!((km - 5540.0).abs() < 15.0, "{km}");
        assert_eq!(haversine_km((10.0, 20.0), (10.0, 20.0)), 0.0);
    }

    #[test]
    fn templates_need_groups_with_several_values_and_names_that_tell_rows_apart() {
        let data = json!({"rows": [
            {"country": "A", "city": "x", "code": "AAA", "lat": 0.0, "lon": 0.0},
            {"country": "A", "city": "y", "code": "BBB", "lat": 0.0, "lon": 10.0},
            {"country": "B", "city": "z", "code": "CCCC", "lat": 0.0, "lon": 50.0},
            {"country": "B", "city": "z", "code": "DDDD", "lat": 0.0, "lon": 5.0}]});
        let data = data.as_object().unwrap();
        assert_eq!(most_distinct_within(data, "rows", "country", "city").unwrap().expected, json!("A"));
        assert!(most_distinct_within(data, "rows", "city", "country").is_none(), "one country per city");
        assert_eq!(farthest_from(data, "rows", "code", "lat", "lon").unwrap().expected, json!("CCCC"));
        assert!(farthest_from(data, "rows", "country", "lat", "lon").is_none(), "countries repeat");
        assert_eq!(longest_value(data, "rows", "code").unwrap().expected, json!("CCCC"), "ties: alphabetical");
        assert!(longest_value(data, "rows", "country").is_none(), "every country is one letter");
    }
}
