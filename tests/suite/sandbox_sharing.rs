//! The dataset shared for real (RustPython): a template's dataset objects
//! are immortal and its lists' and dicts' locks frozen, so a clone that reads
//! every row copies next to none of the template's pages; and a DAG that
//! changes the dataset changes its own clone's copy, as Python would, and no
//! other DAG's.
//!
//! (CPython's workers share the template's pages until they read them: the
//! CPython here counts references in the objects, so this holds on
//! RustPython only.)

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use eval_dag::domain::Engine;
use eval_dag::sandbox::{SandboxConfig, SandboxPool};
use serde_json::{Value, json};

/// Rows of the test's dataset: enough that reading them all would copy
/// megabytes of the template's pages.
const ROWS: usize = 40_000;

/// A dataset of [`ROWS`] rows shaped as the sandbox fixture's, in a directory
/// of its own (so this test's processes are told from other tests' by it).
fn big_dataset() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let dataset = dir.path().join("shared-dataset");
    std::fs::create_dir(&dataset).unwrap();
    std::fs::copy(common::sandbox_dataset().join("metadata.json"), dataset.join("metadata.json")).unwrap();
    let categories = ["grocery_pos", "gas_transport", "shopping_net", "misc_net", "travel"];
    let rows: Vec<Value> = (0..ROWS)
        .map(|i| {
            json!({
                "trans_date_trans_time": format!("{:02}-01-2020 18:23", i % 28 + 1),
                "category": categories[i % categories.len()],
                "amt": (i as f64) * 0.37 + 1.0,
                "gender": if i % 2 == 0 { "F" } else { "M" },
                "city_pop": 1000 + i,
                "is_fraud": i % 97 == 0,
                "merch_zipcode": format!("{:05}", i % 99_999),
            })
        })
        .collect();
    std::fs::write(dataset.join("data.json"), json!({ "transactions": rows }).to_string()).unwrap();
    (dir, dataset)
}

fn cloning_pool(dataset: &Path) -> SandboxPool {
    let config = SandboxConfig {
        workers: 1,
        clone_workers: true,
        ..common::sandbox_config_on(Engine::RustPython, Duration::from_secs(60), Duration::from_secs(120))
    };
    SandboxPool::new(dataset, config).unwrap()
}

/// A `kB` field of `/proc/<pid>/smaps_rollup`, in bytes.
fn rollup_bytes(pid: u32, name: &str) -> Option<u64> {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    let line = rollup.lines().find(|line| line.strip_prefix(name).is_some_and(|rest| rest.starts_with(':')))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

/// CPU seconds `pid` has used.
fn cpu_seconds(pid: u32) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return 0.0 };
    let Some((_, rest)) = stat.rsplit_once(')') else { return 0.0 };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    // SAFETY: a plain libc query.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    (ticks(11) + ticks(12)) / per_second.max(1.0)
}

/// This process's children serving `dataset` that are not the template
/// (whose stdin is the pool's socket).
fn clones(dataset: &Path) -> Vec<u32> {
    let needle = dataset.to_string_lossy().into_owned();
    let me = std::process::id().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(command) = std::fs::read(format!("/proc/{pid}/cmdline")) else { continue };
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { continue };
        let parent = status.lines().find_map(|l| l.strip_prefix("PPid:")).map(str::trim);
        let template = std::fs::read_link(format!("/proc/{pid}/fd/0"))
            .is_ok_and(|target| target.to_string_lossy().starts_with("socket:"));
        if String::from_utf8_lossy(&command).contains(&needle) && parent == Some(me.as_str()) && !template {
            found.push(pid);
        }
    }
    found
}

/// The private dirty bytes of the clone running `code` (a node `f(rows)`
/// that ends in a spin), taken once it has spun for `settle` CPU seconds.
async fn dirty_while_spinning(dataset: &Path, code: &str, settle: f64) -> u64 {
    let pool = cloning_pool(dataset);
    pool.warm().await;
    let before = clones(dataset);
    let dag = common::rows_dag(code);
    let running = {
        let pool = pool.clone();
        tokio::spawn(async move { pool.run(&dag, 0).await })
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    let dirty = loop {
        assert!(Instant::now() < deadline, "no clone spun for {settle} CPU seconds");
        // The clone running the DAG: the one that was ready before it was sent.
        let busy = before.iter().copied().find(|pid| cpu_seconds(*pid) > settle);
        if let Some(dirty) = busy.and_then(|pid| rollup_bytes(pid, "Private_Dirty")) {
            break dirty;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    running.abort();
    dirty
}

#[tokio::test(flavor = "multi_thread")]
async fn a_clone_that_reads_every_row_copies_next_to_none_of_the_templates_pages() {
    let (_dir, dataset) = big_dataset();
    let spin = "    while n >= 0:\n        n += 1\n";
    let idle = dirty_while_spinning(&dataset, &format!("def f(rows):\n    n = 0\n{spin}"), 1.0).await;
    let scan = format!(
        "def f(rows):\n    n = 0\n    for _ in range(3):\n        for r in rows:\n            for k, v in r.items():\n                \
         n += len(k) + hash(v) % 2\n            n += len(r['category']) + int(r['amt'])\n{spin}"
    );
    let scanned = dirty_while_spinning(&dataset, &scan, 3.0).await;
    let data_bytes = std::fs::metadata(dataset.join("data.json")).unwrap().len();
    // Reading 40,000 rows used to copy every page of them (about 8 times the
    // data file's size: 128 MB a clone at 100,000 rows); now what the scan
    // adds is the interpreter's own (about 0.35 MB here).
    let added = scanned.saturating_sub(idle);
    assert!(
        added < data_bytes / 4,
        "a full scan added {added} private dirty bytes (idle clone {idle}, data.json {data_bytes} bytes)"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dag_that_changes_the_shared_dataset_changes_only_its_own_copy() {
    let (_dir, dataset) = big_dataset();
    let pool = cloning_pool(&dataset);
    let change = "def f(rows):\n    first = rows[0]\n    rows.append({'amt': -1.0})\n    first['amt'] = 123.5\n    \
                  del first['gender']\n    rows.sort(key=lambda r: -r['amt'])\n    label = first['category']\n    \
                  label += '!'\n    rows[1].clear()\n    \
                  return [len(rows), rows[0]['amt'], rows[-1]['amt'], label, first['category'], 'gender' in first, rows[1]]\n";
    let changed = pool.run(&common::rows_dag(change), 0).await;
    assert!(changed.success, "{:?}", changed.error);
    let top = (ROWS - 1) as f64 * 0.37 + 1.0;
    assert_eq!(
        changed.final_answer,
        Some(json!([ROWS + 1, top, -1.0, "grocery_pos!", "grocery_pos", false, {}])),
        "the changes as Python makes them"
    );
    let read =
        "def f(rows):\n    return [len(rows), rows[0]['amt'], rows[0]['gender'], rows[0]['category'], len(rows[1])]\n";
    let after = pool.run(&common::rows_dag(read), 0).await;
    assert_eq!(after.final_answer, Some(json!([ROWS, 1.0, "F", "grocery_pos", 7])), "the next DAG sees pristine data");
}
