//! Key functions that only read fields (`lambda r: r["f"]`, `r.get("f")`,
//! tuples of fields, `-r["x"]`, `operator.itemgetter`), which the sandbox
//! evaluates without calling them, against CPython: `sorted`, `list.sort`,
//! `min`, `max` and top-k over seeded generated rows with missing fields,
//! None, mixed ints and floats, ties and dict subclasses, with and without
//! `reverse`, and NaN in `min` and `max` (sorting keys among which NaN is
//! unordered gives another order than CPython's with any key, called or
//! not: see BENCHMARKS.md, "The interpreter's own cost"); keys it must still
//! call (a call, a closure, a default argument) beside them. Each case
//! answers the order of the rows' ids (so stability shows) or the
//! exception's repr, which must be CPython's.

use super::sandbox_differential::cpython_answers;
use super::sandbox_sort::differences;
use crate::common;

use std::time::Duration;

use eval_dag::domain::Engine;
use serde_json::{Value, json};

common::on_both_engines!(field_keys_match_cpython);

/// The node code: `cases(seed, size)` answers every case over rows built
/// from integer arithmetic alone, so both interpreters see the same rows.
const CASES: &str = r#"
def outcome(action):
    try:
        return action()
    except (TypeError, ValueError, KeyError, AttributeError) as error:
        return 'raised ' + repr(error)


def ids(rows):
    return [r['id'] for r in rows]


def make_rows(seed, size):
    below = generator(seed)
    rows = []
    for i in range(size):
        kind = below(8)
        amt = [below(40) - 20, (below(80) - 40) / 4, float(below(10)), below(3) == 1, -0.0, 0][kind % 6]
        rows.append({'id': i, 'cat': 'abcde'[below(5)], 'n': below(6), 'amt': amt,
                     'name': 'xyzé'[below(4)] * below(3), 'opt': None if below(4) == 0 else below(9)})
    return rows


def variants(rows):
    missing = [dict(r) for r in rows]
    for r in missing[::7]:
        del r['amt']
    nan = [dict(r, amt=float('nan')) if r['id'] % 5 == 0 else r for r in rows]
    mixed = [dict(r, cat=r['n']) if r['id'] % 9 == 4 else r for r in rows]
    subclassed = [collections.defaultdict(int, r) if r['id'] % 7 == 0 else r for r in missing]
    counters = [collections.Counter(r) for r in missing]
    return missing, nan, mixed, subclassed, counters


def cases(seed, size):
    rows = make_rows(seed, size)
    missing, nan, mixed, subclassed, counters = variants(rows)
    by_cat = lambda r: r['cat']
    field = 'amt'
    in_place = list(rows)
    in_place.sort(key=lambda r: (r['cat'], -r['n']), reverse=True)
    out = {
        'sorted field': outcome(lambda: ids(sorted(rows, key=lambda r: r['amt']))),
        'sorted field reverse': outcome(lambda: ids(sorted(rows, key=lambda r: r['amt'], reverse=True))),
        'sorted str field (ties)': outcome(lambda: ids(sorted(rows, key=by_cat))),
        'sorted str field reverse (ties)': outcome(lambda: ids(sorted(rows, key=by_cat, reverse=True))),
        'sorted tuple': outcome(lambda: ids(sorted(rows, key=lambda r: (r['cat'], r['amt'])))),
        'sorted tuple, negated': outcome(lambda: ids(sorted(rows, key=lambda r: (r['n'], -r['amt'])))),
        'list.sort tuple reverse': ids(in_place),
        'sorted get': outcome(lambda: ids(sorted(rows, key=lambda r: r.get('n')))),
        'sorted get default': outcome(lambda: ids(sorted(missing, key=lambda r: r.get('amt', 0)))),
        'sorted get None (unorderable)': outcome(lambda: ids(sorted(rows, key=lambda r: r.get('opt')))),
        'sorted get missing (None)': outcome(lambda: ids(sorted(missing, key=lambda r: r.get('amt')))),
        'sorted missing field': outcome(lambda: ids(sorted(missing, key=lambda r: r['amt']))),
        'sorted str and int': outcome(lambda: ids(sorted(mixed, key=lambda r: r['cat']))),
        'sorted str and int in tuples': outcome(lambda: ids(sorted(mixed, key=lambda r: (r['n'], r['cat'])))),
        'sorted negated str': outcome(lambda: ids(sorted(rows, key=lambda r: -r['cat']))),
        'sorted attribute of dict': outcome(lambda: ids(sorted(rows, key=lambda r: r.amt))),
        'sorted defaultdict rows': outcome(lambda: ids(sorted(subclassed, key=lambda r: r['amt']))),
        'sorted Counter rows get': outcome(lambda: ids(sorted(counters, key=lambda r: r.get('amt', -1)))),
        'sorted nested': outcome(lambda: ids(sorted(({'id': r['id'], 'in': r} for r in rows),
                                                    key=lambda r: (r['in']['cat'], r['id'])))),
        'sorted itemgetter': outcome(lambda: ids(sorted(rows, key=operator.itemgetter('amt')))),
        'sorted itemgetter pair': outcome(lambda: ids(sorted(rows, key=operator.itemgetter('cat', 'n')))),
        'sorted itemgetter missing': outcome(lambda: ids(sorted(missing, key=operator.itemgetter('amt')))),
        'sorted tuples by index': outcome(lambda: sorted([(r['n'], r['id']) for r in rows], key=lambda t: t[0])),
        'top 5': outcome(lambda: ids(sorted(rows, key=lambda r: r['amt'], reverse=True)[:5])),
        'max field (first of ties)': outcome(lambda: max(rows, key=lambda r: r['n'])['id'] if rows else None),
        'min field (first of ties)': outcome(lambda: min(rows, key=lambda r: r['n'])['id'] if rows else None),
        'max tuple': outcome(lambda: max(rows, key=lambda r: (r['cat'], r['amt']))['id'] if rows else None),
        'min get default': outcome(lambda: min(missing, key=lambda r: r.get('amt', 99))['id'] if rows else None),
        'max missing field': outcome(lambda: max(missing, key=lambda r: r['amt'])['id'] if rows else None),
        'max get None (unorderable)': outcome(lambda: max(rows, key=lambda r: r.get('opt'))['id'] if rows else None),
        'max NaN': outcome(lambda: max(nan, key=lambda r: r['amt'])['id'] if rows else None),
        'min NaN': outcome(lambda: min(nan, key=lambda r: r['amt'])['id'] if rows else None),
        'max str and int': outcome(lambda: max(mixed, key=lambda r: r['cat'])['id'] if rows else None),
        'max itemgetter': outcome(lambda: max(rows, key=operator.itemgetter('amt'))['id'] if rows else None),
        'max default on empty': outcome(lambda: max([], key=lambda r: r['amt'], default='none')),
        'min default unused': outcome(lambda: min(rows, key=lambda r: r['amt'], default=None)),
        'max generator': outcome(lambda: max((r for r in rows if r['n']), key=lambda r: r['amt'], default=0)),
        # Keys that are called as before.
        'sorted closure': outcome(lambda: ids(sorted(rows, key=lambda r: r[field]))),
        'sorted default argument': outcome(lambda: ids(sorted(rows, key=lambda r, f='n': r[f]))),
        'sorted call': outcome(lambda: ids(sorted(rows, key=lambda r: abs(r['amt'])))),
        'max call': outcome(lambda: max(rows, key=lambda r: str(r['amt']))['id'] if rows else None),
        'max several arguments': outcome(lambda: max(rows[:1] * 2, rows[:1], key=lambda x: len(x))),
    }
    return out
"#;

/// (seed, rows) of each run: empty, one row, a few, enough for ties and merges.
const RUNS: [(u64, usize); 5] = [(1, 0), (2, 1), (3, 9), (4, 70), (5, 700)];

fn dag(seed: u64, size: usize) -> Value {
    json!({
        "question_id": format!("seed {seed}, {size} rows"),
        "final_answer_node": "keys",
        "nodes": [{"node_id": "keys", "function_name": "run", "layer": 0, "inputs": {},
                   "code": format!("{}\n\n{CASES}\n\ndef run():\n    return cases({seed}, {size})\n", common::seeded_generator())}],
    })
}

async fn field_keys_match_cpython(engine: Engine) {
    let dags: Vec<Value> = RUNS.iter().map(|(seed, size)| dag(*seed, *size)).collect();
    let Some(expected) = cpython_answers(&Value::Array(dags.clone()).to_string()) else { return };
    let pool = common::pool_on(engine, Duration::from_secs(30), Duration::from_secs(60));
    let mismatches = differences(&pool, &dags, &expected).await;
    assert!(mismatches.is_empty(), "{mismatches:#?}");
}

/// The cases raise what CPython raises, so the comparison above covers the
/// exceptions: this pins CPython's messages for the ones a field key meets.
#[test]
fn the_cases_raise_cpython_messages() {
    let Some(answers) = cpython_answers(&Value::Array(vec![dag(4, 70)]).to_string()) else { return };
    let answer = &answers[0]["answer"];
    for (case, message) in [
        ("sorted missing field", "raised KeyError('amt')"),
        ("max missing field", "raised KeyError('amt')"),
        (
            "sorted get None (unorderable)",
            r#"raised TypeError("'<' not supported between instances of 'NoneType' and 'int'")"#,
        ),
        ("max str and int", r#"raised TypeError("'>' not supported between instances of 'int' and 'str'")"#),
        ("sorted negated str", r#"raised TypeError("bad operand type for unary -: 'str'")"#),
        ("sorted attribute of dict", r#"raised AttributeError("'dict' object has no attribute 'amt'")"#),
    ] {
        assert_eq!(answer[case], message, "{case}");
    }
}
