//! Generated transaction data and DAGs typical of analysis code over it, for
//! the full-size benchmark: sorts, top-k, quantiles, median, group-by means,
//! `Counter`, `strptime` per row, a join on two keys, running streaks,
//! comprehensions, `r.get`.
#![allow(dead_code)]

use chrono::{Duration, NaiveDate};
use eval_dag::dataset::synthetic::CATEGORIES;
use eval_dag::domain::GeneratedDag;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value, json};

const STATES: [&str; 50] = [
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY", "LA", "ME",
    "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK", "OR", "PA",
    "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY",
];
/// Distinct cards; each has a home state.
const CARDS: usize = 2_000;
/// Distinct merchants.
const MERCHANTS: usize = 700;

/// `rows` transactions of 10 fields in time order (`transactions`) and a
/// budget per (category, state) (`budgets`), the same for the same `rows`.
pub fn dataset(rows: usize) -> Value {
    let mut rng = ChaCha8Rng::seed_from_u64(rows as u64);
    let cards: Vec<(i64, &str)> = (0..CARDS)
        .map(|_| (rng.random_range(4_000_000_000_000_000..5_000_000_000_000_000), STATES[rng.random_range(0..50)]))
        .collect();
    let start = NaiveDate::from_ymd_opt(2019, 1, 1).and_then(|d| d.and_hms_opt(0, 0, 0)).unwrap_or_default();
    let mut at = start;
    let mut transactions = Vec::with_capacity(rows);
    for _ in 0..rows {
        at += Duration::seconds(rng.random_range(0..(31_536_000 / rows.max(1) as i64 * 2).max(2)));
        let (cc_num, state) = cards[rng.random_range(0..CARDS)];
        let cents: i64 = rng.random_range(100..30_000) * rng.random_range(1..4) / rng.random_range(1..4);
        let mut row = Map::new();
        row.insert("trans_date_trans_time".into(), json!(at.format("%Y-%m-%d %H:%M:%S").to_string()));
        row.insert("cc_num".into(), json!(cc_num));
        row.insert("merchant".into(), json!(format!("merchant_{}", rng.random_range(0..MERCHANTS))));
        row.insert("category".into(), json!(CATEGORIES[rng.random_range(0..CATEGORIES.len())]));
        row.insert("amt".into(), json!(cents as f64 / 100.0));
        row.insert("gender".into(), json!(if rng.random_range(0..2) == 0 { "F" } else { "M" }));
        row.insert("state".into(), json!(state));
        row.insert("city_pop".into(), json!(rng.random_range(100..3_000_000)));
        row.insert("is_fraud".into(), json!(i64::from(rng.random_range(0..100) == 0)));
        row.insert("unix_time".into(), json!(at.and_utc().timestamp()));
        transactions.push(Value::Object(row));
    }
    let budgets: Vec<Value> = CATEGORIES
        .iter()
        .flat_map(|category| STATES.iter().map(move |state| (category, state)))
        .map(|(category, state)| {
            json!({"category": category, "state": state, "budget": f64::from(rng.random_range(5_000..40_000)) / 100.0})
        })
        .collect();
    json!({"transactions": transactions, "budgets": budgets})
}

/// (name, nodes: (inputs, body of the node's function)) of each DAG; a node
/// reads `rows` (the transactions), `budgets`, or the previous node's `prev`.
const DAGS: [(&str, &[(&str, &str)]); 16] = [
    (
        "sorted by amount",
        &[(
            "rows",
            "s = sorted(rows, key=lambda r: r['amt'])\n    return [s[0]['amt'], s[len(s) // 2]['amt'], s[-1]['amt']]",
        )],
    ),
    (
        "top 10 by amount",
        &[(
            "rows",
            "top = sorted(rows, key=lambda r: r['amt'], reverse=True)[:10]\n    return [[r['cc_num'], r['amt']] for r in top]",
        )],
    ),
    ("max with key", &[("rows", "return max(rows, key=lambda r: r['amt'])['cc_num']")]),
    (
        "quantiles (2 nodes)",
        &[("rows", "return [r['amt'] for r in rows]"), ("prev", "return statistics.quantiles(prev, n=10)")],
    ),
    ("median", &[("rows", "return statistics.median(r['amt'] for r in rows)")]),
    (
        "group-by mean (dict.get)",
        &[(
            "rows",
            "sums, counts = {}, {}\n    for r in rows:\n        c = r['category']\n        sums[c] = sums.get(c, 0.0) + r['amt']\n        counts[c] = counts.get(c, 0) + 1\n    return {c: round(sums[c] / counts[c], 2) for c in sorted(sums)}",
        )],
    ),
    (
        "group-by mean (defaultdict, fmean)",
        &[(
            "rows",
            "g = collections.defaultdict(list)\n    for r in rows:\n        g[r['state']].append(r['amt'])\n    means = [(s, round(statistics.fmean(v), 2)) for s, v in g.items()]\n    return sorted(means, key=lambda t: (-t[1], t[0]))[:5]",
        )],
    ),
    ("Counter most_common", &[("rows", "return collections.Counter(r['merchant'] for r in rows).most_common(5)")]),
    (
        "fraud rate by category (r.get)",
        &[(
            "rows",
            "n, f = collections.Counter(), collections.Counter()\n    for r in rows:\n        n[r['category']] += 1\n        f[r['category']] += r.get('is_fraud', 0)\n    return {c: round(f[c] / n[c], 4) for c in sorted(n)}",
        )],
    ),
    (
        "strptime per row (by hour)",
        &[(
            "rows",
            "by_hour = collections.Counter()\n    for r in rows:\n        t = datetime.datetime.strptime(r['trans_date_trans_time'], '%Y-%m-%d %H:%M:%S')\n        by_hour[t.hour] += 1\n    return sorted(by_hour.items())",
        )],
    ),
    (
        "join on (category, state)",
        &[(
            "rows, budgets",
            "limit = {(b['category'], b['state']): b['budget'] for b in budgets}\n    over = 0\n    for r in rows:\n        if r['amt'] > limit[(r['category'], r['state'])]:\n            over += 1\n    return over",
        )],
    ),
    (
        "longest fraud streak per card",
        &[(
            "rows",
            "run, best = {}, {}\n    for r in rows:\n        c = r['cc_num']\n        if r['is_fraud']:\n            run[c] = run.get(c, 0) + 1\n            if run[c] > best.get(c, 0):\n                best[c] = run[c]\n        else:\n            run[c] = 0\n    return max(best.values()) if best else 0",
        )],
    ),
    (
        "longest same-category run",
        &[(
            "rows",
            "best, cur, prev = 0, 0, None\n    for r in rows:\n        cur = cur + 1 if r['category'] == prev else 1\n        prev = r['category']\n        if cur > best:\n            best = cur\n    return best",
        )],
    ),
    (
        "filter comprehension",
        &[(
            "rows",
            "big = [r for r in rows if r['amt'] > 500 and r['state'] in ('CA', 'NY', 'TX')]\n    return [len(big), round(sum(r['amt'] for r in big), 2)]",
        )],
    ),
    (
        "monthly totals (str slice)",
        &[(
            "rows",
            "m = collections.defaultdict(float)\n    for r in rows:\n        m[r['trans_date_trans_time'][:7]] += r['amt']\n    return {k: round(v, 2) for k, v in sorted(m.items())}",
        )],
    ),
    ("distinct cards (set comprehension)", &[("rows", "return len({r['cc_num'] for r in rows})")]),
];

/// DAGs that are not typical analysis code but measure what the sandbox
/// adds: the per-DAG floor (a fresh worker each time), the rows read after
/// another node ran, and `Counter` counting by the pure-Python loop RustPython
/// ran before its native one.
const REFERENCE_DAGS: [(&str, &[(&str, &str)]); 4] = [
    ("floor: len(rows)", &[("rows", "return len(rows)")]),
    ("len(rows) after another node", &[("", "return 1"), ("rows, prev", "return len(rows) + prev")]),
    (
        "Counter most_common (native count)",
        &[("rows", "return collections.Counter(r['merchant'] for r in rows).most_common(5)")],
    ),
    (
        "Counter most_common (Python loop, as before)",
        &[(
            "rows",
            "c = collections.Counter()\n    get = c.get\n    for m in (r['merchant'] for r in rows):\n        c[m] = get(m, 0) + 1\n    return c.most_common(5)",
        )],
    ),
];

/// The typical DAGs, each node's function `f` taking its inputs by the names above.
pub fn dags() -> serde_json::Result<Vec<GeneratedDag>> {
    build(&DAGS)
}

/// The reference DAGs (see `REFERENCE_DAGS`).
pub fn reference_dags() -> serde_json::Result<Vec<GeneratedDag>> {
    build(&REFERENCE_DAGS)
}

fn build(dags: &[(&str, &[(&str, &str)])]) -> serde_json::Result<Vec<GeneratedDag>> {
    dags.iter()
        .map(|(name, nodes)| {
            let specs: Vec<Value> = nodes
                .iter()
                .enumerate()
                .map(|(layer, (params, body))| {
                    let inputs: Map<String, Value> = params
                        .split(", ")
                        .filter(|param| !param.is_empty())
                        .map(|param| {
                            let source = match param {
                                "rows" => "dataset.transactions".to_string(),
                                "budgets" => "dataset.budgets".to_string(),
                                _ => format!("prev_node.n{}.output", layer.saturating_sub(1)),
                            };
                            (param.to_string(), Value::String(source))
                        })
                        .collect();
                    json!({"node_id": format!("n{layer}"), "function_name": "f", "layer": layer, "inputs": inputs,
                           "code": format!("def f({params}):\n    {body}\n")})
                })
                .collect();
            let edges: Vec<Value> =
                (1..nodes.len()).map(|n| json!({"source": format!("n{}", n - 1), "target": format!("n{n}")})).collect();
            serde_json::from_value(json!({"question_id": name, "final_answer_node": format!("n{}", nodes.len() - 1),
                                          "nodes": specs, "edges": edges}))
        })
        .collect()
}

/// Whether two answers agree: the same shape, floats within 1e-9 relative.
pub fn agree(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap_or(f64::NAN), y.as_f64().unwrap_or(f64::NAN));
            (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0)
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| agree(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| agree(v, w)))
        }
        _ => a == b,
    }
}
