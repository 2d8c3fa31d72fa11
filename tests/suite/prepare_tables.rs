//! Datasets of several tables through the real binary: a directory of table
//! files and a database of several tables each become one dataset with a rows
//! key per table, each table's columns described under `tables.<key>` (two
//! tables' columns of one name keep their own types) and its aggregates
//! prefixed; every row by default, `--sample-size` bounding each table with a
//! warning; `TABLE.NAME` flags; clashes refused in one line; the prompts'
//! schema per table; the offline planner's join question answered right.

use crate::common;

use std::path::Path;
use std::process::Output;

use eval_dag::dataset::Dataset;
use serde_json::{Value, json};

fn prepare(input: &Path, out: &Path, extra: &[&str]) -> Output {
    common::eval_dag(input).arg("prepare").arg(input).arg("--out").arg(out).args(extra).output().unwrap()
}

fn said(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Orders (30 rows) and the customers they name (4, one per `customer_id`);
/// both have a `code`, text in one and a number in the other.
fn shop(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let mut orders = String::from("order_id,customer_id,amount,status,code\n");
    for i in 0..30u32 {
        let amount = f64::from(i % 7) * 2.5 + 1.0;
        orders.push_str(&format!("{i},{},{amount},{},A{}\n", 100 + i % 4, ["paid", "open"][(i % 2) as usize], i % 3));
    }
    std::fs::write(dir.join("orders.csv"), orders).unwrap();
    let customers = [(100, "north", 7), (101, "south", 8), (102, "north", 9), (103, "east", 10)]
        .map(|(id, region, code)| json!({"customer_id": id, "region": region, "code": code}).to_string() + "\n");
    std::fs::write(dir.join("customers.jsonl"), customers.concat()).unwrap();
    std::fs::write(dir.join("README.md"), "not a table\n").unwrap();
}

/// The region whose customers' orders have the largest total amount, by hand.
fn richest_region() -> &'static str {
    let region = |customer: u32| ["north", "south", "north", "east"][(customer - 100) as usize];
    let mut totals = std::collections::BTreeMap::<&str, f64>::new();
    for i in 0..30u32 {
        *totals.entry(region(100 + i % 4)).or_default() += f64::from(i % 7) * 2.5 + 1.0;
    }
    totals.into_iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap().0
}

#[test]
fn a_directory_of_tables_is_one_dataset_with_each_tables_columns_and_aggregates() {
    let dir = tempfile::tempdir().unwrap();
    shop(&dir.path().join("shop"));
    let out = dir.path().join("dataset");
    let output = prepare(&dir.path().join("shop"), &out, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", said(&output));
    let line = format!("prepared 2 tables into {}: customers (4 rows), orders (30 rows)", out.display());
    assert_eq!(said(&output).trim(), line, "every row by default, no warning");

    let dataset = Dataset::load(&out).unwrap();
    assert_eq!(dataset.data["orders"].as_array().unwrap().len(), 30);
    assert_eq!(dataset.data["customers"][3], json!({"customer_id": 103, "region": "east", "code": 10}));
    assert_eq!(dataset.data["orders_overview"]["row_count"], 30, "each table's aggregates under its own prefix");
    assert_eq!(dataset.data["customers_overview"]["row_count"], 4);
    assert!(dataset.data.contains_key("orders_numeric_distributions") && !dataset.data.contains_key("overview"));
    assert!(dataset.metadata.columns.is_empty(), "no flat columns with several tables");
    let kind = |table: &str, name: &str| dataset.metadata.columns_of(table)[name].column_type.clone().unwrap();
    assert_eq!((kind("orders", "code"), kind("customers", "code")), ("categorical".into(), "integer".into()));
    let key = dataset.catalogue.entry("customers").unwrap();
    let eval_dag::dataset::Shape::Rows { fields, .. } = &key.shape else { panic!("{key:?}") };
    let code = fields.iter().find(|f| f.name == "code").unwrap();
    assert_eq!(code.column.as_ref().unwrap().column_type.as_deref(), Some("integer"), "the catalogue reads per table");

    let schema = eval_dag::prompts::describe_schema(&dataset);
    let orders = schema.split("dataset.orders:").nth(1).unwrap();
    assert!(orders.contains("\"code\": str — categorical"), "{schema}");
    let customers = schema.split("dataset.customers:").nth(1).unwrap().split("dataset.").next().unwrap();
    assert!(customers.contains("\"code\": int — integer"), "{schema}");
}

#[test]
fn sampling_labels_and_keys_name_their_table_and_clashes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let shop_dir = dir.path().join("shop");
    shop(&shop_dir);
    let out = dir.path().join("sampled");
    let output = prepare(&shop_dir, &out, &["--sample-size", "10", "--rows-key", "orders.sales"]);
    assert_eq!(output.status.code(), Some(0), "{}", said(&output));
    assert!(said(&output).starts_with("--sample-size bounds each table on its own"), "{}", said(&output));
    assert!(said(&output).contains("joins may break"), "{}", said(&output));
    let dataset = Dataset::load(&out).unwrap();
    assert_eq!(dataset.data["sales"].as_array().unwrap().len(), 10, "orders renamed and bounded");
    assert_eq!(dataset.data["customers"].as_array().unwrap().len(), 4);
    assert!(dataset.metadata.important_notes.iter().any(|n| n.contains("joins may break")));

    let bare = prepare(&shop_dir, &dir.path().join("bare"), &["--label", "status"]);
    assert_eq!(bare.status.code(), Some(2));
    assert!(said(&bare).ends_with("with several tables, --label takes TABLE.NAME (tables: customers, orders)\n"));
    assert_eq!(said(&bare).lines().count(), 1);

    let chosen = prepare(&shop_dir, &dir.path().join("chosen"), &["--table", "orders"]);
    assert_eq!(chosen.status.code(), Some(2));
    assert!(said(&chosen).trim().ends_with("--table chooses a sheet or table of one file, not of a directory"));
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("notes.md"), "no table\n").unwrap();
    let none = prepare(&empty, &dir.path().join("none"), &[]);
    assert_eq!((none.status.code(), said(&none).lines().count()), (Some(2), 1), "{}", said(&none));
    assert!(said(&none).contains("the directory holds no table (files ending .csv, .tsv, .parquet"), "{}", said(&none));

    std::fs::write(shop_dir.join("orders.json"), "[{\"x\": 1}]").unwrap();
    let clash = prepare(&shop_dir, &dir.path().join("clash"), &[]);
    assert_eq!(clash.status.code(), Some(2), "{}", said(&clash));
    assert!(said(&clash).trim().ends_with("orders.csv and orders.json would both be the table `orders`: rename one"));
    assert_eq!(said(&clash).lines().count(), 1);
    assert!(!dir.path().join("clash").exists(), "nothing written");
}

#[test]
fn a_database_of_two_tables_is_two_tables() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shop.sqlite");
    let db = rusqlite::Connection::open(&path).unwrap();
    db.execute_batch(
        "CREATE TABLE stores (store_id INTEGER, city TEXT);
         INSERT INTO stores VALUES (1, 'Lyon'), (2, 'Oslo'), (3, 'Lyon');
         CREATE TABLE 'sales 2024' (store_id INTEGER, total REAL);
         INSERT INTO 'sales 2024' VALUES (1, 2.5), (2, 4.0), (3, 1.0), (1, 1.0);",
    )
    .unwrap();
    drop(db);
    let out = dir.path().join("dataset");
    let output = prepare(&path, &out, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", said(&output));
    let dataset = Dataset::load(&out).unwrap();
    let keys: Vec<&String> = dataset.metadata.tables.keys().collect();
    assert_eq!(keys, ["sales_2024", "stores"], "named after the tables, cleaned");
    assert_eq!(dataset.data["sales_2024"].as_array().unwrap().len(), 4);
    let one = prepare(&path, &dir.path().join("one"), &["--table", "stores"]);
    assert_eq!(one.status.code(), Some(0), "{}", said(&one));
    let one = Dataset::load(dir.path().join("one")).unwrap();
    assert!(one.metadata.tables.is_empty() && one.metadata.columns.contains_key("city"), "--table: one table, flat");
}

#[test]
fn the_offline_planner_asks_a_join_and_its_dag_answers_it_right() {
    let dir = tempfile::tempdir().unwrap();
    shop(&dir.path().join("shop"));
    let dataset = dir.path().join("dataset");
    assert!(prepare(&dir.path().join("shop"), &dataset, &[]).status.success());
    for seed in ["1", "2", "5"] {
        let out = dir.path().join(format!("run-{seed}"));
        let output = common::eval_dag(dir.path())
            .args(["run", "--llm", "offline", "--headless", "--questions", "3", "--seed", seed, "--out"])
            .arg(&out)
            .arg(&dataset)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", said(&output));
        let results: Value = serde_json::from_slice(&std::fs::read(out.join("eval_results.json")).unwrap()).unwrap();
        let texts: Vec<&str> = results["detailed_results"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r["question_text"].as_str())
            .collect();
        assert!(texts.iter().any(|t| t.starts_with("Joining ")), "seed {seed} asks a join too: {texts:?}");
    }
    let out = dir.path().join("run");
    let details = offline_run(dir.path(), &dataset, &out, 4);
    let join = details
        .iter()
        .find(|r| r["question_text"].as_str().unwrap().starts_with("Joining `orders` to `customers` on `customer_id`"))
        .unwrap_or_else(|| panic!("no join question: {details:#?}"));
    assert_eq!(
        join["question_text"],
        "Joining `orders` to `customers` on `customer_id`, which `region` has the largest total `amount`?"
    );
    assert_eq!((&join["success"], &join["final_answer"]), (&json!(true), &json!(richest_region())));
    let trace = std::fs::read_to_string(out.join("trace.jsonl")).unwrap();
    assert!(trace.contains(r#""other":"dataset.customers""#), "the DAG reads both tables");
}

/// The detailed results of an offline run of `questions` questions over
/// `dataset` into `out`, which must succeed (`home` as the run's home).
fn offline_run(home: &Path, dataset: &Path, out: &Path, questions: usize) -> Vec<Value> {
    let output = common::eval_dag(home)
        .args(["run", "--llm", "offline", "--headless", "--questions", &questions.to_string(), "--out"])
        .arg(out)
        .arg(dataset)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", said(&output));
    let results: Value = serde_json::from_slice(&std::fs::read(out.join("eval_results.json")).unwrap()).unwrap();
    results["detailed_results"].as_array().unwrap().clone()
}

#[test]
fn tables_without_a_lookup_side_are_still_joined_by_the_offline_planner() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("visits");
    std::fs::create_dir_all(&input).unwrap();
    // Neither table names each of its rows by `site` once: no category lookup, a semi-join.
    std::fs::write(input.join("spring.csv"), "site,visitors\na,3\nb,5\na,2\nc,4\nd,1\n").unwrap();
    std::fs::write(input.join("summer.csv"), "site,visitors\na,7\na,1\nc,2\ne,9\n").unwrap();
    let dataset = dir.path().join("dataset");
    assert!(prepare(&input, &dataset, &[]).status.success());
    let details = offline_run(dir.path(), &dataset, &dir.path().join("run"), 6);
    let joins = [
        "How many rows of `spring` have a `site` that some row of `summer` has too?",
        "How many rows of `summer` have a `site` that some row of `spring` has too?",
    ];
    let join = details.iter().find(|r| joins.contains(&r["question_text"].as_str().unwrap_or_default()));
    let join = join.unwrap_or_else(|| panic!("no join question on `site` (the counts are no keys): {details:#?}"));
    assert_eq!((&join["success"], &join["final_answer"]), (&json!(true), &json!(3)), "a, a and c either way");
}

/// A SQLite database at `path` made by `sql`.
fn database(path: &Path, sql: &str) {
    rusqlite::Connection::open(path).unwrap().execute_batch(sql).unwrap();
}

#[test]
fn empty_tables_are_left_out_each_in_one_line_unless_every_one_is() {
    let dir = tempfile::tempdir().unwrap();
    let shop_dir = dir.path().join("shop");
    shop(&shop_dir);
    std::fs::write(shop_dir.join("returns.csv"), "order_id,reason\n").unwrap();
    std::fs::write(shop_dir.join("blank.csv"), "").unwrap();
    let out = dir.path().join("dataset");
    let output = prepare(&shop_dir, &out, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", said(&output));
    let lines = [
        format!("{}: the CSV is empty (no header row); left out", shop_dir.join("blank.csv").display()),
        format!("{}: the CSV has a header but no data rows; left out", shop_dir.join("returns.csv").display()),
        format!("prepared 2 tables into {}: customers (4 rows), orders (30 rows)", out.display()),
    ];
    assert_eq!(said(&output).lines().collect::<Vec<_>>(), lines);
    let dataset = Dataset::load(&out).unwrap();
    assert_eq!(dataset.metadata.tables.keys().collect::<Vec<_>>(), ["customers", "orders"]);
    assert!(!dataset.data.contains_key("returns") && !dataset.data.contains_key("returns_overview"));
    let note = "returns.csv was left out: the CSV has a header but no data rows";
    assert!(dataset.metadata.important_notes.iter().any(|n| n == note), "{:?}", dataset.metadata.important_notes);

    // Every table empty: one line, nothing written.
    let bare = dir.path().join("bare");
    std::fs::create_dir_all(&bare).unwrap();
    std::fs::copy(shop_dir.join("returns.csv"), bare.join("returns.csv")).unwrap();
    std::fs::write(bare.join("items.jsonl"), "").unwrap();
    let none = prepare(&bare, &dir.path().join("none"), &[]);
    assert_eq!((none.status.code(), said(&none).lines().count()), (Some(2), 1), "{}", said(&none));
    assert!(
        said(&none).trim().ends_with("every table is empty, so there is nothing to prepare: items.jsonl, returns.csv"),
        "{}",
        said(&none)
    );
    assert!(!dir.path().join("none").exists());
    // One empty file alone is an error, as it always was.
    let one = prepare(&bare.join("returns.csv"), &dir.path().join("one"), &[]);
    assert_eq!((one.status.code(), said(&one).lines().count()), (Some(2), 1), "{}", said(&one));
    assert!(said(&one).trim().ends_with("returns.csv: the CSV has a header but no data rows"), "{}", said(&one));
}

#[test]
fn an_empty_table_of_a_database_is_left_out_and_refused_when_chosen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shop.sqlite");
    database(
        &path,
        "CREATE TABLE stores (store_id INTEGER, city TEXT);
         INSERT INTO stores VALUES (1, 'Lyon'), (2, 'Oslo');
         CREATE TABLE returns (store_id INTEGER, reason TEXT);
         CREATE TABLE sales (store_id INTEGER, total REAL);
         INSERT INTO sales VALUES (1, 2.5), (2, 4.0), (1, 1.0);",
    );
    let out = dir.path().join("dataset");
    let output = prepare(&path, &out, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", said(&output));
    let lines = [
        format!("{}: the SQLite table \"returns\" has no rows; left out", path.display()),
        format!("prepared 2 tables into {}: sales (3 rows), stores (2 rows)", out.display()),
    ];
    assert_eq!(said(&output).lines().collect::<Vec<_>>(), lines);
    let dataset = Dataset::load(&out).unwrap();
    assert_eq!(dataset.metadata.tables.keys().collect::<Vec<_>>(), ["sales", "stores"]);

    let chosen = prepare(&path, &dir.path().join("chosen"), &["--table", "returns"]);
    assert_eq!((chosen.status.code(), said(&chosen).lines().count()), (Some(2), 1), "{}", said(&chosen));
    assert!(said(&chosen).trim().ends_with("the SQLite table \"returns\" has no rows"), "{}", said(&chosen));

    let empty = dir.path().join("empty.sqlite");
    database(&empty, "CREATE TABLE a (x INTEGER); CREATE TABLE b (y TEXT);");
    let none = prepare(&empty, &dir.path().join("none"), &[]);
    assert_eq!((none.status.code(), said(&none).lines().count()), (Some(2), 1), "{}", said(&none));
    let all = "every table is empty, so there is nothing to prepare: empty.sqlite (\"a\"), empty.sqlite (\"b\")";
    assert!(said(&none).trim().ends_with(all), "{}", said(&none));
}
