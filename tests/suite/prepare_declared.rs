//! SQLite declared types checked against the values, through the real
//! binary: a column whose values bear its declared type out is read as that
//! type (digit strings in a TEXT column stay strings, whole numbers in a
//! DECIMAL(10,2) column are floats, epoch seconds in a DATE column are
//! dates); one whose values contradict it is read as its values say, and its
//! note says so. The same values without declared types are read as a CSV's.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

/// A table `name` of 8 rows, each column declared as `types` says (`""`: no type).
fn table(db: &rusqlite::Connection, name: &str, types: [&str; 7]) {
    let columns = ["zip", "visits", "balance", "joined", "signed_up", "score", "seen"];
    let declared: Vec<String> = columns.iter().zip(types).map(|(c, t)| format!("{c} {t}")).collect();
    db.execute_batch(&format!("CREATE TABLE {name} ({})", declared.join(", "))).unwrap();
    for i in 0..8i64 {
        let score: rusqlite::types::Value = if i == 3 { "three".to_string().into() } else { i.into() };
        let seen = if i == 5 { "yesterday".to_string() } else { format!("2024-02-0{}", i + 1) };
        db.execute(
            &format!("INSERT INTO {name} VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"),
            rusqlite::params![
                format!("{:05}", [123, 2139, 20500][i as usize % 3]),
                i * 3,
                i * 10,
                1_700_000_000 + i * 86_400,
                format!("2024-01-0{} 09:30:00", i + 1),
                score,
                seen
            ],
        )
        .unwrap();
    }
}

/// `data.json` and `metadata.json` of table `name` of the database at `path`.
fn prepared(path: &Path, name: &str) -> (Value, Value) {
    let out = path.with_file_name(format!("{name}.out"));
    let result = Command::new(env!("CARGO_BIN_EXE_eval-dag"))
        .arg("prepare")
        .arg(path)
        .arg("--out")
        .arg(&out)
        .args(["--table", name])
        .output()
        .unwrap();
    assert!(result.status.success(), "{}", String::from_utf8_lossy(&result.stderr));
    let read = |file: &str| serde_json::from_slice(&std::fs::read(out.join(file)).unwrap()).unwrap();
    (read("data.json"), read("metadata.json"))
}

#[test]
fn declared_types_are_kept_where_the_values_bear_them_out_and_noted_where_not() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("people.sqlite");
    let db = rusqlite::Connection::open(&path).unwrap();
    table(&db, "typed", ["TEXT", "INTEGER", "DECIMAL(10,2)", "DATE", "DATETIME", "INTEGER", "DATE"]);
    table(&db, "untyped", [""; 7]);
    drop(db);

    let (data, metadata) = prepared(&path, "typed");
    let column = |name: &str| metadata["columns"][name].clone();
    let kind = |name: &str| column(name)["type"].as_str().unwrap().to_string();
    let row = &data["rows"][1];
    assert_eq!((kind("zip"), &row["zip"]), ("categorical".into(), &json!("02139")), "zip codes stay strings");
    assert_eq!((kind("visits"), &row["visits"]), ("integer".into(), &json!(3)));
    assert_eq!((kind("balance"), &row["balance"]), ("float".into(), &json!(10.0)), "a decimal with a scale");
    assert_eq!((kind("joined"), &row["joined"]), ("datetime".into(), &json!("2023-11-15 22:13:20")));
    assert_eq!(column("joined")["strptime"], "%Y-%m-%d %H:%M:%S");
    let joined = column("joined")["note"].as_str().unwrap().to_string();
    assert!(joined.starts_with("declared DATE in the database and holding epoch seconds"), "{joined}");
    assert_eq!((kind("signed_up"), column("signed_up").get("note")), ("datetime".into(), None));
    assert_eq!((kind("score"), &data["rows"][3]["score"]), ("categorical".into(), &json!("three")));
    assert_eq!(
        column("score")["note"],
        "declared INTEGER in the database, but not every value is a whole number: the type is inferred from the values"
    );
    assert_eq!(kind("seen"), "categorical");
    let seen = column("seen")["note"].as_str().unwrap().to_string();
    assert!(seen.starts_with("declared DATE in the database, but not every value reads as a date"), "{seen}");

    // Without declared types the same values are read as a CSV's: numbers, epochs as numbers.
    let (data, metadata) = prepared(&path, "untyped");
    let kind = |name: &str| metadata["columns"][name]["type"].as_str().unwrap().to_string();
    assert_eq!((kind("balance"), &data["rows"][1]["balance"]), ("integer".into(), &json!(10)));
    assert_eq!((kind("joined"), &data["rows"][1]["joined"]), ("integer".into(), &json!(1_700_086_400)));
    assert_eq!((kind("zip"), &data["rows"][1]["zip"]), ("categorical".into(), &json!("02139")));
    assert!(metadata["columns"]["score"].get("note").is_none(), "no declared type, nothing contradicted");
}
