//! Every DAG starts clean: a DAG's answer never depends on which DAGs ran
//! before it on the same pool. Each DAG below changes some state node code
//! can reach (the decimal context, its `traps` and `flags`, the default
//! context new contexts copy, the dataset's rows and a row, the random
//! generator's state) and reads the same state back; run on a one-worker pool
//! in every ordered pair and in seeded permutations, each answers what it
//! answers alone, in a pool of its own.

use crate::common;

use std::time::Duration;

use eval_dag::domain::Engine;
use eval_dag::domain::GeneratedDag;
use eval_dag::sandbox::SandboxPool;
use serde_json::Value;

common::on_both_engines!(
    answers_do_not_depend_on_the_dags_run_before,
    hash_is_keyed_by_the_runs_seed_not_by_the_worker
);

/// Node code `f(rows)` that reads, then changes, some state.
const SPOILERS: &[(&str, &str)] = &[
    (
        "context",
        "def f(rows):\n    before = str(decimal.Decimal(len(rows)) / decimal.Decimal(3))\n    \
         decimal.setcontext(decimal.Context(prec=2, rounding=decimal.ROUND_DOWN))\n    return before\n",
    ),
    (
        "traps",
        "def f(rows):\n    try:\n        before = str(decimal.Decimal(1) / decimal.Decimal(0))\n    \
         except decimal.DivisionByZero:\n        before = 'trapped'\n    \
         decimal.getcontext().traps[decimal.DivisionByZero] = False\n    return before\n",
    ),
    (
        "flags",
        "def f(rows):\n    before = sorted(str(k) for k, v in decimal.getcontext().flags.items() if v)\n    \
         decimal.Decimal(1) / decimal.Decimal(3)\n    return before\n",
    ),
    (
        "default traps",
        "def f(rows):\n    before = decimal.Context().traps[decimal.Inexact]\n    \
         decimal.DefaultContext.traps[decimal.Inexact] = True\n    return before\n",
    ),
    (
        "rows",
        "def f(rows):\n    before = [len(rows), rows[0]]\n    rows.sort(key=lambda r: -r['amt'])\n    rows.pop()\n    return before\n",
    ),
    (
        "a row",
        "def f(rows):\n    before = dict(rows[1])\n    rows[1]['amt'] = -1\n    rows[1].clear()\n    return before\n",
    ),
    (
        "random state",
        "def f(rows):\n    before = random.random()\n    random.seed(12345)\n    random.getrandbits(64)\n    return before\n",
    ),
];

fn dag(index: usize) -> GeneratedDag {
    let (name, code) = SPOILERS[index];
    let mut dag = common::rows_dag(code);
    dag.question_id = name.into();
    dag
}

fn one_worker(engine: Engine) -> SandboxPool {
    common::pool_on(engine, Duration::from_secs(10), Duration::from_secs(30))
}

/// `index`'s answer (or error) on `pool`.
async fn answer(pool: &SandboxPool, index: usize) -> Value {
    let result = pool.run(&dag(index), 7).await;
    result.final_answer.unwrap_or_else(|| Value::String(format!("failed: {:?}", result.error)))
}

/// A seeded permutation of `0..n` (Fisher-Yates over a linear congruential generator).
fn permutation(n: usize, seed: u64) -> Vec<usize> {
    let mut state = seed;
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        order.swap(i, (state >> 33) as usize % (i + 1));
    }
    order
}

async fn answers_do_not_depend_on_the_dags_run_before(engine: Engine) {
    let mut alone = Vec::new();
    for index in 0..SPOILERS.len() {
        alone.push(answer(&one_worker(engine), index).await);
    }
    for (index, value) in alone.iter().enumerate() {
        assert!(!value.to_string().contains("failed"), "{}: {value}", SPOILERS[index].0);
    }
    let pool = one_worker(engine);
    let mut differences = Vec::new();
    for (first, (first_name, _)) in SPOILERS.iter().enumerate() {
        for (second, (second_name, _)) in SPOILERS.iter().enumerate() {
            answer(&pool, first).await;
            let after = answer(&pool, second).await;
            if after != alone[second] {
                differences.push(format!("{second_name} after {first_name}: {after} (alone: {})", alone[second]));
            }
        }
    }
    for seed in 1..=3 {
        for index in permutation(SPOILERS.len(), seed) {
            let got = answer(&pool, index).await;
            if got != alone[index] {
                differences
                    .push(format!("{} in permutation {seed}: {got} (alone: {})", SPOILERS[index].0, alone[index]));
            }
        }
    }
    assert!(differences.is_empty(), "{differences:#?}");
}

/// `hash()` of strs, and so the order of a set of them, is the run's: the
/// same in every worker of every pool started for the run's seed (a replay's,
/// a rerun's), another for another seed.
async fn hash_is_keyed_by_the_runs_seed_not_by_the_worker(engine: Engine) {
    let code = "def f(rows):\n    names = sorted(set(str(r['category']) for r in rows))\n    \
                return [hash('eval-dag'), list(set(names)), hash((1, 'a'))]\n";
    let dag = common::rows_dag(code);
    let for_seed = |seed: u64| {
        let config =
            common::sandbox_config_on(engine, Duration::from_secs(10), Duration::from_secs(30)).for_run(seed, None);
        SandboxPool::new(&common::sandbox_dataset(), config).unwrap()
    };
    let mut answers = Vec::new();
    for seed in [41, 41, 42] {
        let pool = for_seed(seed);
        let first = pool.run(&dag, seed).await;
        let second = pool.run(&dag, seed).await;
        assert!(first.success, "{:?}", first.error);
        assert_eq!(first.final_answer, second.final_answer, "two workers of one pool");
        answers.push(first.final_answer.unwrap());
    }
    assert_eq!(answers[0], answers[1], "two pools of one run's seed");
    assert_ne!(answers[0][0], answers[2][0], "another seed keys hash() another way");
}
