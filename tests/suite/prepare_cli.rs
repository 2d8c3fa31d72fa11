//! `eval-dag prepare` through the real binary: the sample data is reproduced
//! byte for byte, aggregates equal independently computed values, and bad CSVs
//! get one clear line and exit 2.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn prepare(csv: &Path, out: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eval-dag"))
        .arg("prepare")
        .arg(csv)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

fn assert_same_files(made: &Path, committed: &Path) {
    for file in ["data.json", "metadata.json"] {
        let a = std::fs::read(made.join(file)).unwrap();
        let b = std::fs::read(committed.join(file)).unwrap();
        assert!(a == b, "{file} differs from the committed {}", committed.join(file).display());
    }
}

#[test]
fn the_fraud_sample_is_reproduced_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("fraud.csv");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&csv).unwrap());
    eval_dag::dataset::synthetic::write_fraud_csv(50_000, 7, &mut file).unwrap();
    drop(file);
    let out = dir.path().join("fraud");
    let args = ["--label", "is_fraud", "--rows-key", "transactions", "--sample-size", "2000", "--seed", "7"];
    let result = prepare(&csv, &out, &args);
    assert!(result.status.success(), "{}", String::from_utf8_lossy(&result.stderr));
    assert_same_files(&out, &common::root().join("sample-data/fraud"));
}

#[test]
fn the_penguins_sample_is_reproduced_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("penguins");
    let csv = common::root().join("sample-data/penguins/penguins.csv");
    let result = prepare(&csv, &out, &["--rows-key", "penguins", "--sample-size", "400"]);
    assert!(result.status.success(), "{}", String::from_utf8_lossy(&result.stderr));
    assert_same_files(&out, &common::root().join("sample-data/penguins"));
}

/// Statistics of the penguins CSV computed by CPython's `statistics` module,
/// or `None` when python3 is missing (under CI the test fails: see `tools`).
fn python_stats() -> Option<Value> {
    if !common::tools::require(common::tools::Tool::Python3) {
        return None;
    }
    let script = r#"
import csv, json, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
out = {}
for col in ["bill_length_mm", "body_mass_g"]:
    xs = [float(r[col]) for r in rows if r[col] not in ("", "NA")]
    q = statistics.quantiles(xs, n=100, method="inclusive")
    out[col] = {"count": len(xs), "mean": statistics.fmean(xs), "std": statistics.stdev(xs), "min": min(xs),
                "max": max(xs), "median": statistics.median(xs), "p25": q[24], "p75": q[74], "p95": q[94], "p99": q[98]}
adelie = [float(r["body_mass_g"]) for r in rows if r["species"] == "Adelie" and r["body_mass_g"] not in ("", "NA")]
out["adelie"] = {"count": sum(1 for r in rows if r["species"] == "Adelie"), "body_mass_g_mean": statistics.fmean(adelie)}
print(json.dumps(out))
"#;
    let csv = common::root().join("sample-data/penguins/penguins.csv");
    let out = Command::new("python3").arg("-c").arg(script).arg(csv).output().expect("python3 is installed");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

#[test]
fn aggregates_equal_independently_computed_values() {
    let data: Value =
        serde_json::from_str(&std::fs::read_to_string(common::root().join("sample-data/penguins/data.json")).unwrap())
            .unwrap();
    let Some(expected) = python_stats() else { return };
    for col in ["bill_length_mm", "body_mass_g"] {
        let got = &data["numeric_distributions"][col];
        for (stat, want) in expected[col].as_object().unwrap() {
            assert!(common::json_close(&got[stat], want, 1e-9), "{col}.{stat}: {} vs {want}", got[stat]);
        }
    }
    assert_eq!(data["species_stats"]["Adelie"]["count"], expected["adelie"]["count"]);
    assert!(common::json_close(
        &data["species_stats"]["Adelie"]["body_mass_g_mean"],
        &expected["adelie"]["body_mass_g_mean"],
        1e-9
    ));
    assert_eq!(data["overview"]["row_count"], 344);
}

#[test]
fn bad_csvs_get_one_clear_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.csv", vec![], "empty"),
        ("header.csv", b"a,b\n".to_vec(), "no data rows"),
        ("ragged.csv", b"a,b\n1,2\n3\n".to_vec(), "line 3 has 1 fields but the header has 2"),
        (
            "bom_then_latin1.csv",
            b"\xef\xbb\xbfa,b\n1,2\n\xe9t\xe9,3\n".to_vec(),
            "line 3 is not valid UTF-8 (name the file's encoding with --encoding",
        ),
        ("nul.csv", b"a,b\n1,\x002\n".to_vec(), "name it with --encoding"),
        ("dupe.csv", b"a,a\n1,2\n".to_vec(), "twice"),
    ];
    let mut huge = b"a,b\n1,".to_vec();
    huge.extend(std::iter::repeat_n(b'x', (1 << 20) + 10));
    huge.push(b'\n');
    for (name, bytes, expected) in cases.into_iter().chain([("huge.csv", huge, "the limit is")]) {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = prepare(&path, &dir.path().join("out"), &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{name}: {stderr}");
        assert!(stderr.contains(expected), "{name}: {stderr}");
    }
    let out = prepare(
        &common::root().join("sample-data/penguins/penguins.csv"),
        &dir.path().join("o"),
        &["--label", "species"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not binary"));
}

#[test]
fn sample_size_all_keeps_every_row_in_file_order() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("fraud.csv");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&csv).unwrap());
    eval_dag::dataset::synthetic::write_fraud_csv(3_000, 7, &mut file).unwrap();
    drop(file);
    for label in [None, Some("is_fraud")] {
        let out = dir.path().join(format!("out-{label:?}"));
        let mut args = vec!["--rows-key", "transactions", "--sample-size", "all"];
        args.extend(label.map(|l| ["--label", l]).into_iter().flatten());
        let result = prepare(&csv, &out, &args);
        assert!(result.status.success(), "{}", String::from_utf8_lossy(&result.stderr));
        let data: Value = serde_json::from_slice(&std::fs::read(out.join("data.json")).unwrap()).unwrap();
        let rows = data["transactions"].as_array().unwrap();
        assert_eq!(rows.len(), 3_000, "label {label:?}");
        let lines: Vec<String> = std::fs::read_to_string(&csv).unwrap().lines().skip(1).map(str::to_string).collect();
        let first_field = |line: &str| line.split(',').next().unwrap().to_string();
        let times: Vec<&str> = rows.iter().map(|row| row["trans_date_trans_time"].as_str().unwrap()).collect();
        assert_eq!(times.first().copied(), Some(first_field(&lines[0]).as_str()));
        assert_eq!(times.last().copied(), Some(first_field(&lines[2_999]).as_str()));
        let metadata = std::fs::read_to_string(out.join("metadata.json")).unwrap();
        assert!(metadata.contains("every one of the 3000 rows"), "{metadata}");
    }
    let zero = prepare(&csv, &dir.path().join("zero"), &["--sample-size", "0"]);
    assert_eq!(zero.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&zero.stderr).contains("at least 1 (or all)"));
}
