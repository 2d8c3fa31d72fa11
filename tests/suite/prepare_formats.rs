//! `eval-dag prepare` on Parquet, workbooks, JSON, JSON Lines and SQLite,
//! through the real binary: one table written by each format's own writer
//! (`tests/python/write_tables.py`; `.xlsb`, which no library here writes, by
//! `tests/python/xlsb.py`) gives the `data.json` and column types of its CSV; what only a schema holds is kept; hostile and broken files get
//! one line and exit 2; a large table is read in bounded memory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::root;
use crate::common::tools::{Tool, python3_with_packages, require};

fn prepare(file: &Path, out: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eval-dag"))
        .arg("prepare")
        .arg(file)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

/// The tables of `tests/python/write_tables.py`, written into a new
/// directory, or `None` when the pinned packages are missing (under CI the
/// test fails: see `tools`).
fn tables() -> Option<tempfile::TempDir> {
    if !require(Tool::PythonPackages) {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let out =
        python3_with_packages().arg(root().join("tests/python/write_tables.py")).arg(dir.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    Some(dir)
}

/// `data.json` and `metadata.json` of `file` prepared with every row.
fn prepared(file: &Path, extra: &[&str]) -> (Value, Value) {
    let out = file.with_extension(format!("{}.out", file.extension().unwrap().to_string_lossy()));
    let result = prepare(file, &out, &[&["--sample-size", "all"], extra].concat());
    assert!(result.status.success(), "{}: {}", file.display(), String::from_utf8_lossy(&result.stderr));
    let read = |name: &str| serde_json::from_slice(&std::fs::read(out.join(name)).unwrap()).unwrap();
    (read("data.json"), read("metadata.json"))
}

fn types(metadata: &Value) -> Vec<(String, Value)> {
    metadata["columns"].as_object().unwrap().iter().map(|(name, c)| (name.clone(), c["type"].clone())).collect()
}

/// Every file gives the data and the column types of `csv`; its data and metadata.
fn assert_same_as_csv(csv: &Path, others: &[PathBuf]) -> (Value, Value) {
    let (data, metadata) = prepared(csv, &[]);
    for file in others {
        let (other_data, other_metadata) = prepared(file, &[]);
        assert_eq!(types(&other_metadata), types(&metadata), "{}", file.display());
        assert_eq!(other_data, data, "{}", file.display());
    }
    (data, metadata)
}

#[test]
fn every_format_gives_the_rows_and_types_of_the_csv() {
    let Some(dir) = tables() else { return };
    let others: Vec<PathBuf> = ["parquet", "xlsx", "xlsb", "json", "jsonl", "sqlite"]
        .iter()
        .map(|e| dir.path().join(format!("items.{e}")))
        .collect();
    let (data, metadata) = assert_same_as_csv(&dir.path().join("items.csv"), &others);
    let kinds: Vec<String> = types(&metadata).into_iter().map(|(_, t)| t.as_str().unwrap().to_string()).collect();
    assert_eq!(kinds, ["integer", "categorical", "float", "integer", "boolean", "datetime", "datetime", "categorical"]);
    let seventh = &data["rows"][6];
    assert_eq!(seventh["qty"], Value::Null, "{seventh}");
    assert_eq!(seventh["day"], "2024-01-08");
    assert_eq!(seventh["at"], "2024-01-01 16:45:00");
    assert_eq!((&seventh["is_active"], &seventh["price"]), (&Value::Bool(false), &serde_json::json!(8.85)));
}

#[test]
fn committed_xls_and_ods_sheets_give_the_rows_and_types_of_their_csv() {
    let fixtures = root().join("tests/fixtures/sheets");
    let dir = tempfile::tempdir().unwrap();
    for name in ["items.csv", "items.xls", "items.ods"] {
        std::fs::copy(fixtures.join(name), dir.path().join(name)).unwrap();
    }
    let others = [dir.path().join("items.xls"), dir.path().join("items.ods")];
    let (data, _) = assert_same_as_csv(&dir.path().join("items.csv"), &others);
    assert_eq!(data["overview"]["row_count"], 12);
    assert_eq!(data["rows"][1]["day"], "2024-01-02");
    assert_eq!(data["rows"][4]["qty"], Value::Null);
    let result = prepare(&dir.path().join("items.xls"), &dir.path().join("again"), &[]);
    let said = String::from_utf8_lossy(&result.stderr);
    assert!(said.contains("header: row 2 of the sheet \"items\""), "the title row is found: {said}");
}

#[test]
fn what_only_a_parquet_schema_holds_is_kept() {
    let Some(dir) = tables() else { return };
    for name in ["typed.parquet", "typed-gzip.parquet"] {
        let (data, metadata) = prepared(&dir.path().join(name), &[]);
        let rows = data["rows"].as_array().unwrap();
        let column = |name: &str| &metadata["columns"][name];
        assert_eq!(rows[0]["code"], "007", "a string of digits stays a string");
        assert_eq!(column("code")["type"], "categorical");
        assert_eq!((&column("amount")["type"], &rows[1]["amount"]), (&Value::from("float"), &serde_json::json!(1.15)));
        assert!(column("amount")["note"].as_str().unwrap().contains("decimal(9, 2)"), "{}", column("amount"));
        assert_eq!(rows[0]["tags"], "[0,1]");
        assert_eq!(rows[5]["tags"], Value::Null);
        assert!(column("tags")["note"].as_str().unwrap().starts_with("lists in the Parquet file"));
        assert_eq!(rows[0]["seen"], "2024-03-01 12:00:00Z", "instants are written in UTC");
        assert_eq!(column("seen")["strptime"], "%Y-%m-%d %H:%M:%SZ");
        let seen = column("seen")["note"].as_str().unwrap().to_string();
        assert!(seen.contains("gives them the time zone Europe/Paris: the times here are UTC"), "{seen}");
        assert_eq!(rows[0]["precise"], "2024-03-01 12:00:00.123456");
        assert_eq!(column("precise")["strptime"], "%Y-%m-%d %H:%M:%S.%f");
        let ratios: Vec<&Value> = rows.iter().map(|r| &r["ratio"]).collect();
        assert_eq!(
            ratios,
            [
                &serde_json::json!(0.5),
                &Value::Null,
                &serde_json::json!(1.0),
                &serde_json::json!(2.0),
                &Value::Null,
                &serde_json::json!(3.5)
            ]
        );
        assert_eq!(column("ratio")["type"], "float");
    }
}

#[test]
fn a_hostile_workbook_is_read_as_data() {
    let Some(dir) = tables() else { return };
    let workbook = dir.path().join("hostile.xlsx");
    let out = dir.path().join("out");
    // Without --table each sheet is a table: "notes" holds a header and no rows, "blank" nothing; both are left out.
    let several = prepare(&workbook, &out, &[]);
    let said = String::from_utf8_lossy(&several.stderr);
    assert_eq!(several.status.code(), Some(0), "{said}");
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines.len(), 3, "{said}");
    assert!(lines[0].ends_with("hostile.xlsx: the sheet \"notes\" has a header but no data rows; left out"), "{said}");
    assert!(lines[1].ends_with("hostile.xlsx: the sheet \"blank\" is empty (no header row); left out"), "{said}");
    assert_eq!(lines[2], format!("prepared 1 table into {}: ___x (5 rows)", out.display()));
    let chosen = prepare(&workbook, &dir.path().join("notes"), &["--table", "notes"]);
    let said = String::from_utf8_lossy(&chosen.stderr);
    assert_eq!((chosen.status.code(), said.trim().lines().count()), (Some(2), 1), "{said}");
    assert!(said.contains("hostile.xlsx: the sheet \"notes\" has a header but no data rows"), "{said}");
    let (data, metadata) = prepared(&workbook, &["--table", "../x"]);
    assert_eq!(data["overview"]["row_count"], 5, "the title row above the header is not data");
    let rows = data["rows"].as_array().unwrap();
    assert_eq!((&rows[0]["region"], &rows[0]["sales"]), (&Value::from("north"), &Value::from(30)));
    assert!(rows.iter().all(|r| r["double"].is_null()), "formulas without saved results are null: {rows:?}");
    assert_eq!((&rows[4]["region"], &rows[4]["sales"]), (&Value::from("total"), &Value::Null), "a merged row");
    assert_eq!(metadata["columns"]["sales"]["type"], "integer");
    assert!(!dir.path().join("x").exists() && !dir.path().parent().unwrap().join("x").exists());
}

#[test]
fn a_workbooks_sheets_are_the_tables_of_one_dataset() {
    let Some(dir) = tables() else { return };
    let out = dir.path().join("shop");
    let result = prepare(&dir.path().join("shop.xlsx"), &out, &[]);
    let said = String::from_utf8_lossy(&result.stderr);
    assert_eq!(said.trim(), format!("prepared 2 tables into {}: Orders_2024 (6 rows), shops (2 rows)", out.display()));
    let read = |name: &str| -> Value { serde_json::from_slice(&std::fs::read(out.join(name)).unwrap()).unwrap() };
    let (data, metadata) = (read("data.json"), read("metadata.json"));
    assert_eq!(data["shops"][1], serde_json::json!({"shop": "Oslo", "opened": "2021-09-15"}));
    assert_eq!(data["Orders_2024"].as_array().unwrap().len(), 6, "every row of each sheet");
    assert_eq!(metadata["tables"]["shops"]["columns"]["opened"]["type"], "datetime");
    assert_eq!(metadata["tables"]["Orders_2024"]["columns"]["amount"]["type"], "float");
    assert!(metadata.get("columns").is_none());
}

#[test]
fn broken_files_get_one_line_naming_them_and_exit_2() {
    let Some(dir) = tables() else { return };
    let path = |name: &str| dir.path().join(name);
    let parquet = std::fs::read(path("items.parquet")).unwrap();
    std::fs::write(path("truncated.parquet"), &parquet[..parquet.len() / 2]).unwrap();
    std::fs::write(path("text.parquet"), "a,b\n1,2\n").unwrap();
    std::fs::copy(path("items.parquet"), path("binary.csv")).unwrap();
    let sqlite = std::fs::read(path("items.sqlite")).unwrap();
    std::fs::write(path("torn.sqlite"), &sqlite[..200]).unwrap();
    std::fs::write(path("scalars.jsonl"), "{\"a\": 1}\n[1, 2]\n").unwrap();
    std::fs::write(path("broken.json"), "[{\"a\": 1}, {\"a\": ").unwrap();
    std::fs::write(path("empty.jsonl"), "\n").unwrap();
    let cases: [(&str, &[&str], &str); 9] = [
        ("truncated.parquet", &[], "cannot read the Parquet file"),
        ("text.parquet", &[], "is not a Parquet file"),
        ("binary.csv", &[], "the file is a Parquet file, not text"),
        ("torn.sqlite", &[], "database"),
        ("items.sqlite", &["--table", "orders"], "the database has no table \"orders\" (it has \"items\")"),
        ("items.csv", &["--table", "items"], "--table chooses a sheet of a workbook or a table of a SQLite database"),
        ("scalars.jsonl", &[], "line 2 is not a JSON object"),
        ("broken.json", &[], "record 2:"),
        ("empty.jsonl", &[], "the JSON Lines file has no columns"),
    ];
    for (name, extra, expected) in cases {
        let result = prepare(&path(name), &path("out"), extra);
        let said = String::from_utf8_lossy(&result.stderr);
        assert_eq!(result.status.code(), Some(2), "{name}: {said}");
        assert_eq!(said.trim().lines().count(), 1, "{name}: {said}");
        assert!(said.contains(name) && said.contains(expected), "{name}: {said}");
    }
}

/// Prepare 200 copies of `file` with a few bytes changed at random (seeded):
/// each is prepared or refused in one line naming it, never a panic; the copies refused.
fn prepare_damaged(file: &Path, dir: &Path) -> usize {
    let original = std::fs::read(file).unwrap();
    let damaged = dir.join(format!("damaged.{}", file.extension().unwrap().to_string_lossy()));
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below as u64) as usize
    };
    let mut refused = 0;
    for case in 0..200 {
        let mut bytes = original.clone();
        for _ in 0..=next(8) {
            let at = 8 + next(bytes.len() - 16);
            bytes[at] = next(256) as u8;
        }
        std::fs::write(&damaged, &bytes).unwrap();
        let result = prepare(&damaged, &dir.join("damaged"), &[]);
        let said = String::from_utf8_lossy(&result.stderr);
        match result.status.code() {
            Some(0) => {}
            Some(2) if said.trim().lines().count() == 1 && said.contains("damaged.") => refused += 1,
            code => panic!("{} case {case}: exit {code:?}: {said}", file.display()),
        }
    }
    refused
}

#[test]
fn damaged_parquet_and_xls_files_are_one_line_and_never_a_panic() {
    let Some(dir) = tables() else { return };
    let refused = prepare_damaged(&dir.path().join("items.parquet"), dir.path());
    assert!(refused > 100, "most damaged Parquet files are refused ({refused} of 200)");
    let refused = prepare_damaged(&root().join("tests/fixtures/sheets/items.xls"), dir.path());
    assert!(refused > 50, "many damaged .xls files are refused ({refused} of 200)");
}

/// The peak resident memory of `command` in KiB (its `VmHWM`, read until it ends), and its output.
fn peak_memory(mut command: Command) -> (u64, Output) {
    let child = command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let status = PathBuf::from(format!("/proc/{}/status", child.id()));
    let mut peak = 0;
    let watcher = std::thread::spawn(move || child.wait_with_output().unwrap());
    while !watcher.is_finished() {
        let text = std::fs::read_to_string(&status).unwrap_or_default();
        if let Some(line) = text.lines().find(|l| l.starts_with("VmHWM:")) {
            peak = peak.max(line.split_whitespace().nth(1).and_then(|kib| kib.parse().ok()).unwrap_or(0));
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    (peak, watcher.join().unwrap())
}

/// The peak memory in bytes of `prepare FILE` with a sample of 100 rows, and its `data.json`.
fn prepare_peak(file: &Path, out: &Path) -> (u64, Value) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_eval-dag"));
    command.arg("prepare").arg(file).arg("--out").arg(out).args(["--sample-size", "100"]);
    let (peak_kib, result) = peak_memory(command);
    assert!(result.status.success(), "{}", String::from_utf8_lossy(&result.stderr));
    assert!(peak_kib > 0, "the peak was read");
    (peak_kib * 1024, serde_json::from_slice(&std::fs::read(out.join("data.json")).unwrap()).unwrap())
}

#[test]
fn a_table_of_100_000_rows_is_read_in_bounded_memory() {
    let Some(dir) = tables() else { return };
    let (small_peak, _) = prepare_peak(&dir.path().join("items.sqlite"), &dir.path().join("small"));
    let database = dir.path().join("big.sqlite");
    let table_bytes = std::fs::metadata(&database).unwrap().len();
    let (big_peak, data) = prepare_peak(&database, &dir.path().join("big"));
    assert_eq!(data["overview"]["row_count"], 100_000);
    assert!(
        big_peak < small_peak + table_bytes / 4,
        "{big_peak} bytes at the peak for a table of {table_bytes} bytes, {small_peak} for 40 rows: rows were held"
    );
}
