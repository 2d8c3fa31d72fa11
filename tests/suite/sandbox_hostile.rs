//! Hostile node code: every case is refused or stopped with a clear error
//! within its deadline + 1 s, and the next DAG on the same pool runs normally.

use crate::common;

use std::time::{Duration, Instant};

use eval_dag::domain::{Engine, GeneratedDag};
use serde_json::json;

const NODE_TIMEOUT: Duration = Duration::from_secs(1);
const DAG_TIMEOUT: Duration = Duration::from_secs(3);

/// Run `code` on `engine`, expect a failure whose error contains one of
/// `expected`, then a normal DAG.
async fn assert_stopped(engine: Engine, code: &str, expected: &[&str]) {
    let pool = common::pool_on(engine, NODE_TIMEOUT, DAG_TIMEOUT);
    // Warm the worker first so the deadline check measures the hostile DAG, not start-up.
    let warm = pool.run(&common::rows_dag("def f(rows):\n    return 1\n"), 0).await;
    assert!(warm.success, "{engine}: {:?}", warm.error);
    let started = Instant::now();
    let result = pool.run(&common::rows_dag(code), 0).await;
    let elapsed = started.elapsed();
    let error = result.error.clone().unwrap_or_default();
    assert!(!result.success, "{engine}: hostile code succeeded: {code}\nanswer: {:?}", result.final_answer);
    assert!(expected.iter().any(|e| error.contains(e)), "{engine}: error {error:?} should mention one of {expected:?}");
    assert!(elapsed <= DAG_TIMEOUT + Duration::from_secs(1), "took {elapsed:?}");
    let after = pool.run(&common::rows_dag("def f(rows):\n    return len(rows)\n"), 0).await;
    assert!(after.success, "the pool did not recover: {:?}", after.error);
    assert_eq!(after.final_answer, Some(json!(2000)), "the dataset is intact after the hostile DAG");
}

macro_rules! hostile {
    ($($name:ident: $code:expr => [$($expected:expr),+];)+) => {
        $(
            async fn $name(engine: Engine) {
                assert_stopped(engine, $code, &[$($expected),+]).await;
            }
        )+
        common::on_both_engines!($($name),+);
    };
}

const POLICY: &str = "sandbox policy";
/// RustPython's allocator aborts at the memory limit; CPython raises `MemoryError`.
const MEMORY: &str = "memory limit exceeded";

hostile! {
    dunder_class_chain: "def f(rows):\n    return ().__class__.__bases__[0].__subclasses__()\n" => [POLICY];
    dunder_on_argument: "def f(rows):\n    return rows.__class__\n" => [POLICY];
    function_globals: "def f(rows):\n    return f.__globals__\n" => [POLICY];
    builtins_name: "def f(rows):\n    return __builtins__\n" => [POLICY];
    getattr_computed_dunder: "def f(rows):\n    return getattr(rows, '_' + '_class__')\n" => ["not allowed"];
    hasattr_computed_dunder: "def f(rows):\n    return hasattr(rows, '_' + '_len__')\n" => ["not allowed"];
    getattr_frame_attribute: "def f(rows):\n    g = (r for r in rows)\n    return getattr(g, 'gi' + '_frame')\n" => ["not allowed"];
    getattr_code_attribute: "def f(rows):\n    return getattr(len, 'co' + '_code')\n" => ["not allowed"];
    format_attribute_field: "def f(rows):\n    return '{0.__class__}'.format(rows)\n" => [POLICY];
    format_index_field: "def f(rows):\n    return '{0[0]}'.format(rows)\n" => [POLICY];
    format_on_computed_string: "def f(rows):\n    s = '{0.' + 'x}'\n    return s.format(rows)\n" => [POLICY];
    format_map_on_computed_string: "def f(rows):\n    s = '{a}'\n    return s.format_map({'a': 1})\n" => [POLICY];
    json_submodule: "def f(rows):\n    return json.decoder\n" => ["AttributeError"];
    statistics_reaches_sys: "def f(rows):\n    return statistics.sys\n" => ["AttributeError"];
    string_formatter_removed: "def f(rows):\n    return string.Formatter()\n" => ["AttributeError"];
    operator_attrgetter_removed: "def f(rows):\n    return operator.attrgetter('real')(1)\n" => ["AttributeError"];
    collections_abc_removed: "def f(rows):\n    return collections.abc\n" => ["AttributeError"];
    generator_frame: "def f(rows):\n    g = (r for r in rows)\n    return g.gi_frame\n" => [POLICY];
    traceback_frames: "def f(rows):\n    try:\n        1 / 0\n    except Exception as e:\n        return e.__traceback__.tb_frame\n" => [POLICY];
    computed_traceback: "def f(rows):\n    try:\n        1 / 0\n    except Exception as e:\n        return getattr(e, '_' + '_traceback__')\n" => ["not allowed"];
    match_class_keyword: "def f(rows):\n    match rows:\n        case list(__class__=c):\n            return c\n" => [POLICY];
    import_statement: "def f(rows):\n    import os\n    return os.getcwd()\n" => [POLICY];
    import_from: "def f(rows):\n    from os import path\n    return path\n" => [POLICY];
    import_call: "def f(rows):\n    return __import__('os')\n" => [POLICY];
    class_statement: "class A:\n    pass\ndef f(rows):\n    return 1\n" => [POLICY];
    three_argument_type: "def f(rows):\n    return type('A', (), {})\n" => ["TypeError"];
    module_mutation: "def f(rows):\n    math.pi = 3\n    return math.pi\n" => [POLICY];
    module_mutation_setattr: "def f(rows):\n    setattr(math, 'pi', 3)\n" => [POLICY];
    attribute_delete: "def f(rows):\n    del math.pi\n" => [POLICY];
    eval_call: "def f(rows):\n    return eval('1 + 1')\n" => [POLICY];
    exec_call: "def f(rows):\n    exec('x = 1')\n" => [POLICY];
    open_call: "def f(rows):\n    return open('/etc/passwd').read()\n" => [POLICY];
    compile_call: "def f(rows):\n    return compile('1', 'x', 'eval')\n" => [POLICY];
    globals_call: "def f(rows):\n    return globals()\n" => [POLICY];
    vars_call: "def f(rows):\n    return vars(math)\n" => [POLICY];
    global_statement: "def f(rows):\n    global math\n    return 1\n" => [POLICY];
    bare_except: "def f(rows):\n    try:\n        return 1\n    except:\n        return 2\n" => [POLICY];
    infinite_loop: "def f(rows):\n    while True:\n        pass\n" => ["timed out after 1 s on its inputs rows (2000 items)"];
    loop_swallowing_interrupts: "def f(rows):\n    while True:\n        try:\n            while True:\n                pass\n        except Exception:\n            pass\n" => ["timed out after 1 s"];
    native_infinite_iterator: "def f(rows):\n    return sum(itertools.repeat(1))\n" => ["timed out", "memory limit exceeded"];
    native_infinite_any: "def f(rows):\n    return any(itertools.repeat(0))\n" => ["timed out"];
    catastrophic_regex: "def f(rows):\n    return re.match('(a+)+$', 'a' * 40 + 'b')\n" => ["timed out"];
    list_memory_bomb: "def f(rows):\n    return [0] * 10 ** 10\n" => [MEMORY, "MemoryError"];
    str_memory_bomb: "def f(rows):\n    return 'a' * 10 ** 10\n" => [MEMORY, "MemoryError"];
    big_int_bomb: "def f(rows):\n    return 10 ** 10 ** 10\n" => [MEMORY, "MemoryError", "timed out"];
    huge_int_to_str: "def f(rows):\n    return len(str(10 ** (10 ** 7)))\n" => ["timed out", "memory limit exceeded", "ValueError"];
    deep_json: "def f(rows):\n    return json.loads('[' * 200000 + ']' * 200000)\n" => ["RecursionError", "worker crashed", "nested more than", "timed out"];
    self_referential_list: "def f(rows):\n    x = []\n    x.append(x)\n    return x\n" => ["cycle"];
    self_referential_dict: "def f(rows):\n    d = {}\n    d['me'] = d\n    return d\n" => ["cycle"];
    deeply_nested_result: "def f(rows):\n    x = []\n    for i in range(1000):\n        x = [x]\n    return x\n" => ["nested more than"];
    deep_recursion: "def f(rows):\n    def down(n):\n        return down(n + 1)\n    return down(0)\n" => ["RecursionError"];
    strptime_wrapper_function: "def f(rows):\n    return getattr(datetime.datetime.strptime, '_' + '_func__')\n" => ["not allowed"];
    native_strptime_by_name: "def f(rows):\n    return _native_strptime\n" => [POLICY];
    native_ordering_by_name: "def f(rows):\n    return _native_ordering(len, 'x')\n" => [POLICY];
    native_decimal_by_name: "def f(rows):\n    return _native_decimal_add\n" => [POLICY];
    decimal_constructor_function: "def f(rows):\n    return getattr(decimal.Decimal, '_' + '_new__')\n" => ["not allowed"];
    native_float_sums_by_name: "def f(rows):\n    return _native_float_sums([1.0])\n" => [POLICY];
    native_count_elements_by_name: "def f(rows):\n    return _native_count_elements(len)\n" => [POLICY];
    count_elements_by_attribute: "def f(rows):\n    return collections._count_elements\n" => [POLICY];
    statistics_wrapped_original: "def f(rows):\n    return getattr(statistics.mean, '_' + '_wrapped__')\n" => ["not allowed"];
    datetime_method_descriptor: "def f(rows):\n    return getattr(datetime.datetime, '_' + '_lt__')\n" => ["not allowed"];
    dataset_mutation_is_contained: "def f(rows):\n    rows.clear()\n    return 1 / 0\n" => ["ZeroDivisionError"];
}

common::on_both_engines!(
    a_dag_over_the_time_budget_is_stopped_by_the_dag_deadline,
    mutations_of_the_dataset_never_reach_the_next_dag,
    mutated_inputs_never_reach_the_next_dag,
    each_failure_comes_back_with_its_kind,
);

async fn a_dag_over_the_time_budget_is_stopped_by_the_dag_deadline(engine: Engine) {
    let pool = common::pool_on(engine, Duration::from_secs(2), Duration::from_secs(3));
    let nodes: Vec<_> = (0..3)
        .map(|i| {
            json!({"node_id": format!("n{i}"), "function_name": "f", "layer": i, "inputs": {},
                   "code": "def f():\n    t = 0\n    for i in range(10 ** 9):\n        t += i\n    return t\n"})
        })
        .collect();
    let dag: GeneratedDag =
        serde_json::from_value(json!({"question_id": "slow", "final_answer_node": "n2", "nodes": nodes})).unwrap();
    // The deadline is the DAG's, not the worker's start-up (slow on a loaded machine).
    pool.warm().await;
    let started = Instant::now();
    let result = pool.run(&dag, 0).await;
    assert!(!result.success);
    assert!(result.error.as_deref().unwrap_or_default().contains("timed out after 2 s"), "{:?}", result.error);
    assert_eq!(result.error_node.as_deref(), Some("n0"));
    assert!(started.elapsed() < Duration::from_secs(4));
}

/// The dataset is converted once per worker and each DAG gets its own copy:
/// whatever a DAG does to its inputs, the next DAG on the same worker sees the
/// pristine data — and within one DAG, later nodes see earlier nodes' changes,
/// as in one Python program.
async fn mutations_of_the_dataset_never_reach_the_next_dag(engine: Engine) {
    let fingerprint: GeneratedDag = serde_json::from_value(json!({
        "question_id": "look", "final_answer_node": "a",
        "nodes": [{"node_id": "a", "function_name": "f", "layer": 0,
                   "inputs": {"rows": "dataset.transactions", "stats": "dataset.category_stats"},
                   "code": "def f(rows, stats):\n    first = sorted(stats)[0]\n    return [len(rows), rows[0], rows[-1], round(sum(r['amt'] for r in rows), 6),\n            sum(len(r) for r in rows), len(stats), first, stats[first]]\n"}]
    }))
    .unwrap();
    let mutate: GeneratedDag = serde_json::from_value(json!({
        "question_id": "mutate", "final_answer_node": "c",
        "nodes": [
            {"node_id": "a", "function_name": "f", "layer": 0,
             "inputs": {"rows": "dataset.transactions", "stats": "dataset.category_stats"},
             "code": "def f(rows, stats):\n    rows.sort(key=lambda r: r['amt'])\n    rows[0]['amt'] = -1\n    del rows[1]['category']\n    rows[2]['new'] = [1, 2]\n    rows.append({'amt': 10 ** 6})\n    rows.pop(5)\n    rows.reverse()\n    first = sorted(stats)[0]\n    stats[first]['count'] = -7\n    stats.pop(sorted(stats)[-1])\n    stats['invented'] = {}\n    return len(rows)\n"},
            {"node_id": "b", "function_name": "g", "layer": 1,
             "inputs": {"rows": "dataset.transactions", "n": "prev_node.a.output"},
             "code": "def g(rows, n):\n    assert len(rows) == n, 'later nodes share the DAG copy'\n    rows[:] = rows[:3]\n    return len(rows)\n"},
            {"node_id": "c", "function_name": "h", "layer": 2,
             "inputs": {"rows": "dataset.transactions", "n": "prev_node.b.output"},
             "code": "def h(rows, n):\n    rows.clear()\n    return n\n"}],
        "edges": [{"source": "a", "target": "b"}, {"source": "b", "target": "c"}]
    }))
    .unwrap();
    let pool = common::pool_on(engine, NODE_TIMEOUT, DAG_TIMEOUT);
    let before = pool.run(&fingerprint, 0).await;
    assert!(before.success, "{:?}", before.error);
    let mutated = pool.run(&mutate, 0).await;
    assert_eq!((mutated.success, mutated.final_answer.clone()), (true, Some(json!(3))), "{:?}", mutated.error);
    let after = pool.run(&fingerprint, 0).await;
    assert_eq!(after.final_answer, before.final_answer, "the next DAG sees the pristine dataset");
    let again = pool.run(&mutate, 0).await;
    assert_eq!(again.node_outputs, mutated.node_outputs, "the same mutations find the same data each time");
}

/// A DAG over `rows`, `stats` and `matrix` of a small dataset with nested containers.
fn mutation_dag(code: &str) -> GeneratedDag {
    serde_json::from_value(json!({
        "question_id": "mutation", "final_answer_node": "a",
        "nodes": [{"node_id": "a", "function_name": "f", "layer": 0, "code": code,
                   "inputs": {"rows": "dataset.rows", "stats": "dataset.stats", "matrix": "dataset.matrix"}}]
    }))
    .unwrap()
}

async fn mutated_inputs_never_reach_the_next_dag(engine: Engine) {
    let dir = tempfile::tempdir().unwrap();
    let data = json!({
        "rows": [{"id": 1, "amt": 2.5, "tags": ["a", "b"], "meta": {"k": [1, 2]}, "note": null},
                 {"id": 2, "amt": 1.0, "tags": [], "meta": {"k": []}, "note": "x"},
                 {"id": 3, "amt": 7.25, "tags": ["c"], "meta": {"k": [3]}, "note": true}],
        "stats": {"food": {"count": 2, "by_hour": [0, 1, 1]}, "gas": {"count": 1, "by_hour": [1, 0, 0]}},
        "matrix": [[1, 2], [3, 4]],
    });
    std::fs::write(dir.path().join("data.json"), data.to_string()).unwrap();
    let config = eval_dag::sandbox::SandboxConfig {
        workers: 1,
        node_timeout: NODE_TIMEOUT,
        dag_timeout: DAG_TIMEOUT,
        executable: Some(std::path::PathBuf::from(env!("CARGO_BIN_EXE_eval-dag"))),
        interpreter: common::interpreter(engine),
        ..Default::default()
    };
    let pool = eval_dag::sandbox::SandboxPool::new(dir.path(), config).unwrap();
    let look = mutation_dag("def f(rows, stats, matrix):\n    return repr([rows, stats, matrix])\n");
    let pristine = pool.run(&look, 0).await.final_answer.expect("the data can be read");
    let mutations = [
        "rows.sort(key=lambda r: -r['amt'])",
        "rows.reverse()",
        "rows.append({'id': 4})",
        "rows.pop()",
        "rows.pop(0)",
        "del rows[1]",
        "rows[0] = rows[1]",
        "rows[:] = rows[:1]",
        "rows.clear()",
        "rows.insert(0, rows[2])",
        "rows.extend(rows)",
        "rows += [1]",
        "rows *= 2",
        "rows.remove(rows[0])",
        "del rows[0]['amt']",
        "rows[0]['amt'] = 0",
        "rows[0]['amt'] += 1",
        "rows[0]['new'] = 1",
        "rows[0].pop('amt')",
        "rows[0].popitem()",
        "rows[0].clear()",
        "rows[0].update(amt=3)",
        "rows[0].setdefault('zz', 1)",
        "amt = rows[0].pop('amt')\n    rows[0]['amt'] = amt",
        "rows[0]['tags'].append('z')",
        "rows[0]['tags'].sort(reverse=True)",
        "rows[0]['meta']['k'][0] = 9",
        "rows[2]['meta']['k'].clear()",
        "rows[1]['meta'].clear()",
        "stats['food']['count'] += 1",
        "stats['gas']['by_hour'][0] = 5",
        "del stats['gas']",
        "stats['new'] = {}",
        "stats.clear()",
        "matrix[0].append(3)",
        "matrix[1][1] = 0",
        "matrix.sort(reverse=True)",
        "for r in rows:\n        r['amt'] = round(r['amt'])",
        "rows.clear()\n    return 1 / 0",
    ];
    for mutation in mutations {
        let code = format!("def f(rows, stats, matrix):\n    {mutation}\n    return 1\n");
        let mutated = pool.run(&mutation_dag(&code), 0).await;
        assert_eq!(mutated.success, !mutation.ends_with("1 / 0"), "`{mutation}`: {:?}", mutated.error);
        let seen = pool.run(&look, 0).await.final_answer;
        assert_eq!(seen.as_ref(), Some(&pristine), "after `{mutation}` the next DAG saw changed data");
    }
    assert_a_stash_is_gone_with_its_worker(engine, &pool).await;
    assert_eq!(pool.run(&look, 0).await.final_answer, Some(pristine.clone()), "a stashed reference changed the data");
    // Within one DAG the nodes share the dataset's objects, as in CPython: a
    // later node sees what an earlier one changed.
    let change_then_look: GeneratedDag = serde_json::from_value(json!({
        "question_id": "change then look", "final_answer_node": "b",
        "nodes": [{"node_id": "a", "function_name": "f", "layer": 0, "inputs": {"matrix": "dataset.matrix"},
                   "code": "def f(matrix):\n    matrix.clear()\n    return 1\n"},
                  {"node_id": "b", "function_name": "g", "layer": 1,
                   "inputs": {"matrix": "dataset.matrix", "done": "prev_node.a.output"},
                   "code": "def g(matrix, done):\n    return repr(matrix)\n"}]
    }))
    .unwrap();
    let seen = pool.run(&change_then_look, 0).await;
    assert_eq!(seen.final_answer, Some(json!("[]")), "{:?}", seen.error);
    assert_eq!(pool.run(&look, 0).await.final_answer, Some(pristine), "the next DAG starts from the pristine data");
}

/// A reference stashed in module state is gone with its worker: a later DAG,
/// which starts clean, finds no stash at all. (CPython's decimal context
/// holds only signals, and node code reaches no other mutable module state
/// there: the stash is a trap switched on.)
async fn assert_a_stash_is_gone_with_its_worker(engine: Engine, pool: &eval_dag::sandbox::SandboxPool) {
    let (stash, found) = match engine {
        Engine::RustPython => (
            "def f(rows, stats, matrix):\n    decimal.getcontext().flags['stash'] = [rows, stats, matrix]\n    return 1\n",
            "def f():\n    return 'stash' in decimal.getcontext().flags\n",
        ),
        Engine::CPython => (
            "def f(rows, stats, matrix):\n    decimal.getcontext().traps[decimal.Inexact] = len(rows) > 0\n    return 1\n",
            "def f():\n    return decimal.getcontext().traps[decimal.Inexact]\n",
        ),
    };
    let stashed = pool.run(&mutation_dag(stash), 0).await;
    assert!(stashed.success, "{engine}: {:?}", stashed.error);
    let later: GeneratedDag = serde_json::from_value(json!({
        "question_id": "later", "final_answer_node": "a",
        "nodes": [{"node_id": "a", "function_name": "f", "layer": 0, "inputs": {},
                   "code": found}]
    }))
    .unwrap();
    let later = pool.run(&later, 0).await;
    assert_eq!(later.final_answer, Some(json!(false)), "a later DAG found the stash: {:?}", later.error);
}

/// The worker says what kind of failure ended a DAG: the language policy
/// (before the DAG runs, or a guard at run time), or an error in node code;
/// the pool adds its own (deadlines, the memory limit, a forbidden call).
async fn each_failure_comes_back_with_its_kind(engine: Engine) {
    use eval_dag::domain::FailureKind;
    let pool = common::pool_on(engine, NODE_TIMEOUT, DAG_TIMEOUT);
    for (code, kind) in [
        ("def f(rows):\n    import os\n    return 1\n", FailureKind::Policy),
        ("def f(rows):\n    return getattr(rows, '__class' + '__')\n", FailureKind::Policy),
        ("def f(rows):\n    return 1 / 0\n", FailureKind::Error),
        ("def f(rows):\n    while True:\n        pass\n", FailureKind::TimeOut),
    ] {
        let result = pool.run(&common::rows_dag(code), 0).await;
        assert!(!result.success, "{code} succeeded");
        assert_eq!(result.failure, Some(kind), "{code}: {:?}", result.error);
    }
    let fine = pool.run(&common::rows_dag("def f(rows):\n    return len(rows)\n"), 0).await;
    assert_eq!((fine.success, fine.failure), (true, None), "{:?}", fine.error);
}
