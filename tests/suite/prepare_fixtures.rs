//! `eval-dag prepare` on the CSVs people have (`tests/fixtures/csv/`, made up
//! for these tests): every fixture's column types, formats, units and nulls
//! are as expected; the strptime written for each datetime column parses every
//! non-null value of the sample in the sandbox's Python (`eval-dag exec`); and
//! an offline run on the prepared dataset grades every answer right.

use crate::common;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// One fixture and what `prepare` must make of it.
struct Case {
    file: &'static str,
    /// `(column, type, strptime)`.
    columns: &'static [(&'static str, &'static str, Option<&'static str>)],
    /// `(column, text the note contains)`.
    notes: &'static [(&'static str, &'static str)],
    /// `(column, its metadata format)`.
    formats: &'static [(&'static str, &'static str)],
    /// `(column, value of the first sample row)`.
    first_row: fn() -> Vec<(&'static str, Value)>,
}

const CASES: &[Case] = &[
    Case {
        file: "slash_dates.csv",
        columns: &[
            ("order_date", "datetime", Some("%Y/%m/%d")),
            ("region", "categorical", None),
            ("amount", "float", None),
            ("units", "integer", None),
        ],
        notes: &[],
        formats: &[("order_date", "YYYY/MM/DD")],
        first_row: || vec![("order_date", json!("2023/01/01")), ("amount", json!(10.0))],
    },
    Case {
        file: "month_names.csv",
        columns: &[("signup", "datetime", Some("%b %d %Y")), ("paid", "boolean", None), ("fee", "float", None)],
        notes: &[],
        formats: &[("signup", "Mon DD YYYY")],
        first_row: || vec![("signup", json!("Jan 1 1995")), ("paid", json!(true))],
    },
    Case {
        file: "iso_utc.csv",
        columns: &[
            ("event_time", "datetime", Some("%Y-%m-%dT%H:%M:%SZ")),
            ("local_time", "datetime", Some("%Y-%m-%dT%H:%M:%S.%f%z")),
            ("service", "categorical", None),
        ],
        notes: &[("event_time", "UTC"), ("local_time", "offsets")],
        formats: &[("local_time", "YYYY-MM-DDTHH:MM:SS.ffffff+HH:MM")],
        first_row: || vec![("event_time", json!("2023-01-01T00:00:00Z"))],
    },
    Case {
        file: "twelve_hour.csv",
        columns: &[("pickup", "datetime", Some("%b %d %Y %I:%M %p")), ("fare", "float", None)],
        notes: &[],
        formats: &[("pickup", "Mon DD YYYY hh:MM AM/PM")],
        first_row: || vec![("pickup", json!("Jan 01 2023 12:00 AM"))],
    },
    Case {
        file: "semicolon_bom.csv",
        columns: &[
            ("datum", "datetime", Some("%d.%m.%Y")),
            ("filiale", "categorical", None),
            ("umsatz", "float", None),
            ("menge", "integer", None),
        ],
        notes: &[("umsatz", "decimal `,`")],
        formats: &[("datum", "DD.MM.YYYY")],
        first_row: || vec![("datum", json!("01.01.2023")), ("filiale", json!("Köln")), ("umsatz", json!(370.0))],
    },
    Case {
        file: "latin1.csv",
        columns: &[("city", "categorical", None), ("category", "categorical", None), ("price", "float", None)],
        notes: &[],
        formats: &[],
        first_row: || vec![("city", json!("Zürich")), ("category", json!("café"))],
    },
    Case {
        file: "money.csv",
        columns: &[
            ("account", "categorical", None),
            ("segment", "categorical", None),
            ("balance", "float", None),
            ("growth", "float", None),
            ("fees", "float", None),
        ],
        notes: &[("balance", "amounts in $"), ("growth", "percentages"), ("fees", "amounts in $")],
        formats: &[("balance", "currency ($)"), ("growth", "percent")],
        first_row: || vec![("balance", json!(410.0)), ("growth", json!(-5.0)), ("fees", Value::Null)],
    },
    Case {
        file: "tabs.tsv",
        columns: &[
            ("visit", "datetime", Some("%d/%m/%Y %H:%M")),
            ("followup", "boolean", None),
            ("cost", "float", None),
        ],
        notes: &[],
        formats: &[("visit", "DD/MM/YYYY HH:MM")],
        first_row: || vec![("visit", json!("01/01/2023 00:00")), ("followup", json!(false))],
    },
    Case {
        file: "pipes.csv",
        columns: &[
            ("shipped", "datetime", Some("%m/%d/%Y")),
            ("carrier", "categorical", None),
            ("notes", "categorical", None),
        ],
        notes: &[],
        formats: &[("shipped", "MM/DD/YYYY")],
        first_row: || vec![("notes", json!("box 0\nhandle with care"))],
    },
    Case {
        file: "epochs.csv",
        columns: &[
            ("created_ts", "datetime", Some("%Y-%m-%d %H:%M:%S")),
            ("updated_at", "datetime", Some("%Y-%m-%d %H:%M:%S.%f")),
            ("is_active", "boolean", None),
            ("score", "integer", None),
        ],
        notes: &[("created_ts", "epoch seconds"), ("updated_at", "epoch milliseconds")],
        formats: &[("created_ts", "YYYY-MM-DD HH:MM:SS")],
        first_row: || {
            vec![
                ("created_ts", json!("2023-11-14 22:13:20")),
                ("updated_at", json!("2023-11-14 22:13:20.000")),
                ("is_active", json!(1)),
                ("score", json!(0)),
            ]
        },
    },
    Case {
        file: "compact.csv",
        columns: &[("booked", "datetime", Some("%Y%m%d")), ("breakfast", "boolean", None), ("nights", "integer", None)],
        notes: &[("booked", "YYYYMMDD")],
        formats: &[("booked", "YYYYMMDD")],
        first_row: || vec![("booked", json!("20230101")), ("breakfast", json!(false))],
    },
    Case {
        file: "ambiguous_dates.csv",
        columns: &[("measured", "datetime", Some("%d-%m-%Y")), ("reading", "float", None)],
        notes: &[("measured", "both day-first and month-first; day-first assumed")],
        formats: &[("measured", "DD-MM-YYYY")],
        first_row: || vec![("measured", json!("01-01-2022"))],
    },
    Case {
        file: "utf16.txt",
        columns: &[("name", "categorical", None), ("team", "categorical", None), ("goals", "integer", None)],
        notes: &[],
        formats: &[],
        first_row: || vec![("name", json!("Zoë"))],
    },
    Case {
        file: "nulls.csv",
        columns: &[("reading_date", "datetime", Some("%Y-%m-%d")), ("temp", "float", None), ("rain", "integer", None)],
        notes: &[],
        formats: &[],
        first_row: || vec![("reading_date", Value::Null), ("temp", Value::Null), ("rain", Value::Null)],
    },
    Case {
        file: "title_row.csv",
        columns: &[
            ("Wins", "integer", None),
            ("Name", "categorical", None),
            ("Played", "datetime", Some("%Y-%m-%d")),
            ("Tip", "time", Some("%I:%M %p")),
            ("Points", "float", None),
        ],
        notes: &[("Tip", "a time of day without a date")],
        formats: &[("Tip", "hh:MM AM/PM")],
        first_row: || vec![("Wins", json!(0)), ("Tip", json!("12:00 AM"))],
    },
    Case {
        file: "times.csv",
        columns: &[
            ("Date", "datetime", Some("%Y-%m-%d")),
            ("Time", "time", Some("%H:%M:%S")),
            ("Price", "float", None),
            ("Avg Wait", "duration", None),
            ("Queue", "duration", None),
            ("Agent", "categorical", None),
        ],
        notes: &[
            ("Time", "a time of day without a date"),
            ("Avg Wait", "a duration (like `00:00:00`), not a time of day"),
            ("Queue", "a duration (like `00h-00m-00s`), not a time of day"),
        ],
        formats: &[("Time", "HH:MM:SS"), ("Avg Wait", "H:MM:SS")],
        first_row: || vec![("Time", json!("09:00:00")), ("Avg Wait", json!("00:00:00"))],
    },
];

fn fixture(name: &str) -> PathBuf {
    common::root().join("tests/fixtures/csv").join(name)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn prepare(csv: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    common::eval_dag(out).arg("prepare").arg(csv).arg("--out").arg(out).args(extra).output().unwrap()
}

/// A DAG that calls `datetime.datetime.strptime(v, fmt)` on every non-null
/// value of every datetime column and returns how many it parsed.
fn strptime_dag(columns: &[(&str, &str)]) -> Value {
    let mut code = String::from("def parsed(rows):\n    n = 0\n    for r in rows:\n");
    for (column, format) in columns {
        code.push_str(&format!(
            "        if r[{c}] is not None:\n            datetime.datetime.strptime(r[{c}], {f})\n            n += 1\n",
            c = serde_json::to_string(column).unwrap(),
            f = serde_json::to_string(format).unwrap()
        ));
    }
    code.push_str("    return n\n");
    json!({"question_id": "q_strptime", "description": "every datetime parses",
        "nodes": [{"node_id": "parsed", "operation": "parse every datetime", "function_name": "parsed",
            "inputs": {"rows": "dataset.rows"}, "expected_output_type": "int", "layer": 0, "code": code}],
        "edges": [], "final_answer_node": "parsed"})
}

fn check_strptime_in_sandbox(dataset: &Path, meta: &Value, data: &Value, home: &Path) -> usize {
    let columns: Vec<(&str, &str)> = meta["columns"]
        .as_object()
        .unwrap()
        .iter()
        .filter_map(|(name, c)| Some((name.as_str(), c.get("strptime")?.as_str()?)))
        .collect();
    if columns.is_empty() {
        return 0;
    }
    let expected: usize =
        data["rows"].as_array().unwrap().iter().map(|r| columns.iter().filter(|(c, _)| !r[*c].is_null()).count()).sum();
    let dag = home.join("strptime_dag.json");
    std::fs::write(&dag, strptime_dag(&columns).to_string()).unwrap();
    let out = common::eval_dag(home).arg("exec").arg(&dag).arg("--dataset").arg(dataset).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout} {}", String::from_utf8_lossy(&out.stderr));
    let result: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(result["final_answer"], json!(expected), "{result}");
    expected
}

fn check_case(case: &Case) {
    let dir = tempfile::tempdir().unwrap();
    let dataset = dir.path().join("dataset");
    let out = prepare(&fixture(case.file), &dataset, &[]);
    assert!(out.status.success(), "{}: {}", case.file, String::from_utf8_lossy(&out.stderr));
    let meta = read_json(&dataset.join("metadata.json"));
    let data = read_json(&dataset.join("data.json"));
    assert_eq!(data["overview"]["row_count"], 48, "{}", case.file);
    for (column, kind, strptime) in case.columns {
        let c = &meta["columns"][*column];
        assert_eq!(c["type"], *kind, "{}: {column}: {c}", case.file);
        assert_eq!(c["strptime"].as_str(), *strptime, "{}: {column}: {c}", case.file);
    }
    for (column, format) in case.formats {
        assert_eq!(meta["columns"][*column]["format"], *format, "{}: {column}", case.file);
    }
    for (column, _, _) in case.columns.iter().filter(|(_, kind, _)| *kind == "duration") {
        assert_eq!(meta["columns"][*column]["unit"], "seconds", "{}: {column}", case.file);
    }
    for (column, note) in case.notes {
        let c = &meta["columns"][*column];
        assert!(c["note"].as_str().is_some_and(|n| n.contains(note)), "{}: {column}: {c}", case.file);
    }
    // Plain columns and dates whose order the data settled carry no note.
    for (column, _, _) in case.columns.iter().filter(|(c, _, _)| !case.notes.iter().any(|(n, _)| n == c)) {
        assert!(meta["columns"][*column].get("note").is_none(), "{}: {column}", case.file);
    }
    let first = &data["rows"][0];
    for (column, value) in (case.first_row)() {
        assert_eq!(first[column], value, "{}: {column}", case.file);
    }
    let dates = check_strptime_in_sandbox(&dataset, &meta, &data, dir.path());
    let has_dates = case.columns.iter().any(|(_, _, f)| f.is_some());
    assert_eq!(dates > 0, has_dates, "{}", case.file);

    let run = dir.path().join("run");
    let output = common::eval_dag(dir.path())
        .arg("run")
        .arg(&dataset)
        .args(["--llm", "offline", "--headless", "--questions", "6", "--out"])
        .arg(&run)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}: {}", case.file, String::from_utf8_lossy(&output.stderr));
    // Six questions, ranked easy → hard over all three levels, no two of one
    // shape, every answer right.
    super::offline_planner::assert_good_set(&dataset, &run, 6);
}

#[test]
fn every_fixture_is_typed_parsed_in_python_and_answered_offline() {
    for case in CASES {
        check_case(case);
    }
}

#[test]
fn money_values_are_normalised_and_nulls_counted() {
    let dir = tempfile::tempdir().unwrap();
    let out = prepare(&fixture("money.csv"), dir.path(), &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let meta = read_json(&dir.path().join("metadata.json"));
    let data = read_json(&dir.path().join("data.json"));
    assert_eq!(meta["columns"]["balance"]["format"], "currency ($)");
    assert_eq!(meta["columns"]["growth"]["format"], "percent");
    // Rows 3, 13, 23, 33, 43 have `-` for a balance; fees are N/A or `-` in 8 of the 12 rows divisible by 4.
    assert_eq!(data["overview"]["non_null_counts"]["balance"], 43);
    assert_eq!(data["overview"]["non_null_counts"]["fees"], 40);
    let balances: Vec<f64> = data["rows"].as_array().unwrap().iter().filter_map(|r| r["balance"].as_f64()).collect();
    assert!(balances.iter().any(|&b| b > 1000.0), "thousands separators are read: {balances:?}");
    assert_eq!(data["numeric_distributions"]["balance"]["count"], 43);
    let nulls = read_json(&{
        let d = dir.path().join("nulls");
        assert!(prepare(&fixture("nulls.csv"), &d, &[]).status.success());
        d.join("data.json")
    });
    // Every third date, every fourth temperature and every fifth rain value is one of eight null spellings.
    assert_eq!(
        nulls["overview"]["non_null_counts"],
        json!({"reading_date": 32, "station": 48, "temp": 36, "rain": 38})
    );
}

#[test]
fn encodings_are_detected_named_or_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let latin1 = fixture("latin1.csv");
    let named = dir.path().join("named");
    let out = prepare(&latin1, &named, &["--encoding", "latin1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let detected = dir.path().join("detected");
    assert!(prepare(&latin1, &detected, &[]).status.success());
    assert_eq!(std::fs::read(named.join("data.json")).unwrap(), std::fs::read(detected.join("data.json")).unwrap());
    let notes = read_json(&detected.join("metadata.json"))["important_notes"].to_string();
    assert!(notes.contains("windows-1252"), "{notes}");

    // UTF-16 without a byte-order mark: NUL bytes everywhere, no encoding reads it cleanly.
    let utf16: Vec<u8> = "a,b\n1,2\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
    let bare = dir.path().join("bare16.csv");
    std::fs::write(&bare, utf16).unwrap();
    for (extra, expected) in [(&[][..], "--encoding"), (&["--encoding", "klingon"][..], "unknown encoding")] {
        let out = prepare(&bare, &dir.path().join("o"), extra);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
    }
    let out = prepare(&bare, &dir.path().join("o16"), &["--encoding", "utf-16le"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_title_row_above_the_header_is_found_or_named() {
    let dir = tempfile::tempdir().unwrap();
    let csv = fixture("title_row.csv");
    let found = dir.path().join("found");
    let out = prepare(&csv, &found, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("header: row 2 of the CSV"), "it says which row: {stderr}");
    let notes = read_json(&found.join("metadata.json"))["important_notes"].to_string();
    assert!(notes.contains("header is its row 2"), "{notes}");
    let named = dir.path().join("named");
    assert!(prepare(&csv, &named, &["--header-row", "2"]).status.success());
    assert_eq!(std::fs::read(found.join("data.json")).unwrap(), std::fs::read(named.join("data.json")).unwrap());

    let plain = dir.path().join("plain");
    let out = prepare(&fixture("times.csv"), &plain, &[]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("header:"), "a header on row 1 goes unsaid");
    for (row, expected) in [
        ("1", "names column \"\" twice"),
        ("0", "counts from 1"),
        ("99", "the CSV has 50 rows, so none is the header row 99"),
    ] {
        let out = prepare(&csv, &dir.path().join("o"), &["--header-row", row]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!((out.status.code(), stderr.trim().lines().count()), (Some(2), 1), "{row}: {stderr}");
        assert!(stderr.contains(expected), "{row}: {stderr}");
    }
}

#[test]
fn a_title_above_a_header_with_unnamed_columns_is_found_and_they_are_named_as_pandas_names_them() {
    // A published table's shape: a title, then a header with two empty
    // names, over columns that are never full (so no row is every field filled).
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("logan.csv");
    std::fs::write(&csv, "\u{feff}JAMES LOGAN,,,,,\nWins,Name,,,Team,Rounds\n5,Ann,,,X,5\n4,Bea,,,Y,\n3,Cal,,,Z,4\n")
        .unwrap();
    let out = dir.path().join("out");
    let result = prepare(&csv, &out, &["--sample-size", "all"]);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success() && stderr.contains("header: row 2 of the CSV"), "{stderr}");
    let rows = &read_json(&out.join("data.json"))["rows"];
    let first: Vec<&str> = rows[0].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(first, ["Wins", "Name", "Unnamed: 2", "Unnamed: 3", "Team", "Rounds"]);
    assert_eq!(rows.as_array().unwrap().len(), 3);
}

/// The Python of a duration column's note (after "in seconds: "), run on
/// every value: statements on the way, the last expression collected.
fn seconds_dag(notes: &[(&str, String)]) -> Value {
    let mut code = String::from("def seconds(rows):\n    out = []\n    for r in rows:\n");
    for (column, note) in notes {
        let snippet = note.split("in seconds: `").nth(1).and_then(|s| s.split('`').next()).unwrap();
        let mut statements: Vec<&str> = snippet.split("; ").collect();
        let last = statements.pop().unwrap();
        code.push_str(&format!("        v = r[{}]\n", serde_json::to_string(column).unwrap()));
        for statement in statements {
            code.push_str(&format!("        {statement}\n"));
        }
        code.push_str(&format!("        out.append({last})\n"));
    }
    code.push_str("    return out\n");
    json!({"question_id": "q_seconds", "description": "every duration in seconds",
        "nodes": [{"node_id": "seconds", "operation": "durations in seconds", "function_name": "seconds",
            "inputs": {"rows": "dataset.rows"}, "expected_output_type": "list", "layer": 0, "code": code}],
        "edges": [], "final_answer_node": "seconds"})
}

#[test]
fn the_notes_of_durations_turn_them_into_seconds_in_a_node() {
    let dir = tempfile::tempdir().unwrap();
    let dataset = dir.path().join("dataset");
    assert!(prepare(&fixture("times.csv"), &dataset, &[]).status.success());
    let meta = read_json(&dataset.join("metadata.json"));
    let notes: Vec<(&str, String)> = ["Avg Wait", "Queue"]
        .into_iter()
        .map(|c| (c, meta["columns"][c]["note"].as_str().unwrap().to_string()))
        .collect();
    let dag = dir.path().join("seconds.json");
    std::fs::write(&dag, seconds_dag(&notes).to_string()).unwrap();
    let out = common::eval_dag(dir.path()).arg("exec").arg(&dag).arg("--dataset").arg(&dataset).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout} {}", String::from_utf8_lossy(&out.stderr));
    let result: Value = serde_json::from_str(&stdout).unwrap();
    // Row i (make.py): a wait of i % 3 minutes and (7·i) % 60 seconds; a queue of
    // i % 2 hours, (11·i) % 60 minutes and (17·i) % 60 seconds — rows in file order.
    let expected: Vec<u64> =
        (0..48u64).flat_map(|i| [i % 3 * 60 + i * 7 % 60, i % 2 * 3600 + i * 11 % 60 * 60 + i * 17 % 60]).collect();
    assert_eq!(result["final_answer"], json!(expected), "{result}");
}
