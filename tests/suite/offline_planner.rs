//! The offline planner's question sets and first drafts, through the real
//! binary: on the sample data and on datasets prepared from CSVs of
//! different shapes, a ranked set spans easy, medium and hard with no two
//! questions of one shape and every answer right; asking for more than it
//! can write says how many it wrote; the mistakes planted in first drafts
//! are each caught by the check meant for them and fixed in the rebuild; a
//! table of thousands of columns is planned from a sample of them.

use crate::common;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use eval_dag::domain::{FindingSource, GeneratedDag, Severity};
use eval_dag::run::EngineEvent;
use eval_dag::trace::Trace;
use serde_json::Value;

fn run(dataset: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let output =
        common::eval_dag(out).arg("run").arg(dataset).arg("--headless").arg("--out").arg(out).args(extra).output();
    output.unwrap()
}

fn results(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("eval_results.json")).unwrap()).unwrap()
}

/// Prepare `csv` (named `name`) into a dataset directory under `dir`.
fn prepare(dir: &Path, name: &str, csv: &str, extra: &[&str]) -> PathBuf {
    let csv_path = dir.join(format!("{name}.csv"));
    std::fs::write(&csv_path, csv).unwrap();
    let dataset = dir.join(name);
    let prepared = std::process::Command::new(env!("CARGO_BIN_EXE_eval-dag"))
        .arg("prepare")
        .arg(&csv_path)
        .arg("--out")
        .arg(&dataset)
        .args(extra)
        .output()
        .unwrap();
    assert!(prepared.status.success(), "{}", String::from_utf8_lossy(&prepared.stderr));
    dataset
}

/// Orders with a timestamp and a refund label.
fn orders_csv() -> String {
    let mut csv = String::from("ordered_at,store,channel,amount,basket,refunded\n");
    for i in 0..600u32 {
        let when = format!("2022-{:02}-{:02} {:02}:{:02}", i % 12 + 1, (i * 5) % 28 + 1, (i * 11) % 24, (i * 7) % 60);
        let store = ["downtown", "airport", "mall", "outlet"][(i * 7 % 4) as usize];
        let channel = ["web", "phone", "counter"][(i % 3) as usize];
        let amount = if i % 23 == 0 { String::new() } else { format!("{:.2}", f64::from((i * 53) % 900) / 7.0 + 2.0) };
        let refunded = u32::from(i % 9 == 0 || (i % 13 == 0 && i % 2 == 0));
        csv.push_str(&format!("{when},{store},{channel},{amount},{},{refunded}\n", (i * 17) % 12 + 1));
    }
    csv
}

/// Plants: only categorical and numeric columns.
fn plants_csv() -> String {
    let mut csv = String::from("family,soil,colour,height_cm,leaf_width,seeds\n");
    for i in 0..300u32 {
        let family = ["rose", "lily", "fern", "palm", "moss"][(i * 3 % 5) as usize];
        let soil = ["clay", "sand", "loam"][(i % 3) as usize];
        let colour = ["red", "green", "white", "blue"][(i * 7 % 4) as usize];
        let height = format!("{:.1}", f64::from((i * 29) % 400) / 3.0 + 5.0);
        let width = format!("{:.2}", f64::from((i * 13) % 97) / 11.0 + f64::from(i % 5));
        csv.push_str(&format!("{family},{soil},{colour},{height},{width},{}\n", (i * 31) % 50));
    }
    csv
}

/// Airports: codes, names, cities, countries, kinds and coordinates — no
/// numeric measure and no date.
fn airports_csv() -> String {
    let mut csv = String::from("iata,name,city,country,kind,latitude,longitude\n");
    for i in 0..200u32 {
        let letter = |n: u32| char::from(b'A' + (n % 26) as u8);
        let iata: String = [letter(i / 676), letter(i / 26), letter(i)].into_iter().collect();
        let city = format!("Town {:02}", i % 40);
        let side = ["North", "South", "East", "West", "Central"][(i % 5) as usize];
        let name = format!("{side} {city} {}", ["Airport", "Airfield", "Field", "Airstrip"][(i % 4) as usize]);
        let country = ["NL", "DE", "FR", "ES", "IT", "PT"][(i * 7 % 6) as usize];
        let kind = ["large", "medium", "small"][(i % 3) as usize];
        let latitude = -40.0 + f64::from(i * 37 % 800) / 10.0;
        let longitude = -120.0 + f64::from(i * 53 % 2400) / 10.0;
        csv.push_str(&format!("{iata},{name},{city},{country},{kind},{latitude:.4},{longitude:.4}\n"));
    }
    csv
}

/// A wide table: a group, a flag and `sensors` float columns, 40 rows.
fn wide_csv(sensors: usize) -> String {
    let names: Vec<String> = (0..sensors).map(|s| format!("sensor_{s:05}")).collect();
    let mut csv = format!("group,flag,{}\n", names.join(","));
    for row in 0..40usize {
        let values: Vec<String> =
            (0..sensors).map(|s| format!("{:.1}", ((row * 31 + s * 17) % 1000) as f64 / 10.0)).collect();
        csv.push_str(&format!(
            "{},{},{}\n",
            ["north", "south", "east"][row % 3],
            u8::from(row % 4 == 0),
            values.join(",")
        ));
    }
    csv
}

/// Every field name of the dataset: row keys and the fields of stats dicts.
fn field_names(dataset: &Path) -> HashSet<String> {
    let data: Value = serde_json::from_str(&std::fs::read_to_string(dataset.join("data.json")).unwrap()).unwrap();
    let mut names = HashSet::new();
    for value in data.as_object().unwrap().values() {
        let inner: Vec<&Value> = match value {
            Value::Array(rows) => rows.iter().collect(),
            Value::Object(entries) => entries.values().collect(),
            _ => Vec::new(),
        };
        for item in inner {
            names.extend(item.as_object().into_iter().flat_map(|o| o.keys().cloned()));
        }
    }
    names
}

/// A DAG's shape as seen from outside: its chain of functions, the dataset
/// key it reads and the dataset fields its code names.
fn shape(dag: &GeneratedDag, fields: &HashSet<String>) -> (Vec<String>, String, BTreeSet<String>) {
    let functions = dag.nodes.iter().map(|n| n.function_name.clone()).collect();
    let key = dag.nodes[0].inputs.values().next().cloned().unwrap_or_default();
    let named = dag
        .nodes
        .iter()
        .flat_map(|n| n.code.split('"').skip(1).step_by(2).map(str::to_string).collect::<Vec<_>>())
        .filter(|literal| fields.contains(literal))
        .collect();
    (functions, key, named)
}

/// The approved DAG of every question of a finished run.
fn approved_dags(trace: &Trace) -> BTreeMap<String, GeneratedDag> {
    let mut last_built = BTreeMap::new();
    let mut approved = BTreeMap::new();
    for record in &trace.records {
        match &record.event {
            EngineEvent::DagBuilt { at, dag } => {
                last_built.insert((at.question_id.clone(), at.attempt, at.iteration), dag.clone());
            }
            EngineEvent::CriticVerdict { at, feedback } if feedback.is_approved => {
                let dag = last_built[&(at.question_id.clone(), at.attempt, at.iteration)].clone();
                approved.insert(at.question_id.to_string(), dag);
            }
            _ => {}
        }
    }
    approved
}

/// A finished run's questions are ranked easy → medium → hard with every
/// level present, have no two of one shape, and are all answered right.
pub(super) fn assert_good_set(dataset: &Path, out: &Path, asked: usize) {
    let results = results(out);
    let detailed = results["detailed_results"].as_array().unwrap();
    assert_eq!(detailed.len(), asked, "{}", dataset.display());
    let levels: Vec<&str> = detailed.iter().map(|r| r["difficulty_level"].as_str().unwrap()).collect();
    let order = |level: &str| ["easy", "medium", "hard"].iter().position(|l| *l == level).unwrap();
    assert!(levels.windows(2).all(|w| order(w[0]) <= order(w[1])), "ranks ascend easy → hard: {levels:?}");
    assert_eq!(levels.iter().collect::<BTreeSet<_>>().len(), 3, "all three levels: {levels:?}");
    for r in detailed {
        assert_eq!(r["status"], "passed", "{r}");
        assert!(
            common::json_close(&r["final_answer"], &r["expected_answer"], 1e-9),
            "{}: {} vs {}",
            r["question_id"],
            r["final_answer"],
            r["expected_answer"]
        );
    }
    let trace = Trace::read(&out.join("trace.jsonl")).unwrap();
    let fields = field_names(dataset);
    let dags = approved_dags(&trace);
    assert_eq!(dags.len(), asked);
    let mut seen = HashSet::new();
    for (id, dag) in &dags {
        assert!(seen.insert(shape(dag, &fields)), "{id} repeats the shape {:?}", shape(dag, &fields));
    }
    let texts: HashSet<&str> = detailed.iter().map(|r| r["question"].as_str().unwrap_or_default()).collect();
    assert_eq!(texts.len(), asked, "no question is asked twice");
}

#[test]
fn offline_sets_span_every_level_with_no_repeated_shape_on_four_kinds_of_data() {
    let dir = tempfile::tempdir().unwrap();
    let orders = prepare(dir.path(), "orders", &orders_csv(), &["--label", "refunded"]);
    let plants = prepare(dir.path(), "plants", &plants_csv(), &[]);
    let sample = |name: &str| common::root().join("sample-data").join(name);
    for (dataset, asked) in [(sample("fraud"), 12), (sample("penguins"), 10), (orders, 15), (plants, 12)] {
        let out = dir.path().join(format!("run-{}", dataset.file_name().unwrap().to_string_lossy()));
        let output = run(&dataset, &out, &["--questions", &asked.to_string()]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{}: {stderr}", dataset.display());
        assert_good_set(&dataset, &out, asked);
    }
}

#[test]
fn data_without_measures_or_dates_gets_hard_questions_too() {
    let dir = tempfile::tempdir().unwrap();
    let airports = prepare(dir.path(), "airports", &airports_csv(), &[]);
    let out = dir.path().join("run");
    let output = run(&airports, &out, &["--questions", "10"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert_good_set(&airports, &out, 10);
    let hard: Vec<String> = results(&out)["detailed_results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["difficulty_level"] == "hard")
        .map(|r| r["question"].as_str().unwrap().to_string())
        .collect();
    assert!(hard.iter().any(|q| q.contains("great-circle")), "distances from coordinates: {hard:?}");
    assert!(hard.iter().any(|q| q.contains("most distinct")), "a group-by over two columns: {hard:?}");
}

#[test]
fn asking_for_more_questions_than_the_data_offers_writes_what_it_can_and_says_how_many() {
    let dir = tempfile::tempdir().unwrap();
    let plants = prepare(dir.path(), "plants", &plants_csv(), &[]);
    let out = dir.path().join("run");
    let output = run(&plants, &out, &["--questions", "1000", "--clean-drafts"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let written = results(&out)["detailed_results"].as_array().unwrap().len();
    assert!((20..1000).contains(&written), "{written} questions");
    let notice = format!("{written} questions generated of the 1000 asked for");
    assert_eq!(stderr.matches(&notice).count(), 1, "one line says so: {stderr}");
    assert_good_set(&plants, &out, written);
}

/// Per question whose first draft was rejected: the (source, rule) of each error found in it.
fn first_draft_rejections(trace: &Trace) -> BTreeMap<String, Vec<(FindingSource, String)>> {
    let mut rejected = BTreeMap::new();
    for record in &trace.records {
        if let EngineEvent::CriticVerdict { at, feedback } = &record.event
            && (at.attempt, at.iteration) == (1, 1)
            && !feedback.is_approved
        {
            let errors = feedback.findings.iter().filter(|f| f.severity == Severity::Error);
            rejected.insert(at.question_id.to_string(), errors.map(|f| (f.source, f.rule.to_string())).collect());
        }
    }
    rejected
}

#[test]
fn planted_first_draft_mistakes_are_caught_by_their_check_and_fixed_in_the_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let dataset = common::root().join("sample-data/fraud");
    let out = dir.path().join("run");
    let output = run(&dataset, &out, &["--questions", "12"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let trace = Trace::read(&out.join("trace.jsonl")).unwrap();
    let rejected = first_draft_rejections(&trace);
    assert_eq!(rejected.len(), 4, "a third of 12 first drafts carry a mistake: {rejected:?}");
    let expected: BTreeSet<(FindingSource, String)> = [
        (FindingSource::Structural, "unknown_field"),
        (FindingSource::Structural, "import"),
        (FindingSource::TrialRun, "runtime_error"),
        (FindingSource::Semantic, "semantic_issue"),
    ]
    .into_iter()
    .map(|(source, rule)| (source, rule.to_string()))
    .collect();
    for (id, errors) in &rejected {
        assert_eq!(errors.len(), 1, "{id}: one planted mistake, one error: {errors:?}");
        assert!(expected.contains(&errors[0]), "{id}: {errors:?}");
    }
    let caught: BTreeSet<(FindingSource, String)> = rejected.values().flatten().cloned().collect();
    assert_eq!(caught, expected, "each kind of mistake is planted once and caught by its own check");
    let results = results(&out);
    for r in results["detailed_results"].as_array().unwrap() {
        let id = r["question_id"].as_str().unwrap();
        let iterations = if rejected.contains_key(id) { 2 } else { 1 };
        assert_eq!(r["iterations"], iterations, "{id}: fixed in the rebuild");
        assert_eq!(r["status"], "passed", "{r}");
        assert_eq!(r["correct"], true, "{id}: graded right: {r}");
    }

    // The same seed plants the same mistakes; --clean-drafts plants none.
    let again = dir.path().join("again");
    assert_eq!(run(&dataset, &again, &["--questions", "12"]).status.code(), Some(0));
    assert_eq!(first_draft_rejections(&Trace::read(&again.join("trace.jsonl")).unwrap()), rejected);
    let clean = dir.path().join("clean");
    assert_eq!(run(&dataset, &clean, &["--questions", "12", "--clean-drafts"]).status.code(), Some(0));
    assert!(first_draft_rejections(&Trace::read(&clean.join("trace.jsonl")).unwrap()).is_empty());
}

#[test]
fn a_table_of_thousands_of_columns_is_planned_and_its_questions_file_planned_again_under_another_seed() {
    let dir = tempfile::tempdir().unwrap();
    let wide = prepare(dir.path(), "wide", &wide_csv(3_000), &["--label", "flag"]);
    let out = dir.path().join("run");
    let output = run(&wide, &out, &["--questions", "4"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let said = stderr.lines().next().unwrap_or_default();
    assert_eq!(said, "planning 4 questions over a sample of the 3,002 columns of `rows` (offline)…", "first: {stderr}");
    assert_good_set(&wide, &out, 4);

    // Another seed draws other columns, yet plans every question of the file.
    let list = dir.path().join("list");
    let output = run(&wide, &list, &["--questions-only", "--questions", "6", "--seed", "1"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let again = dir.path().join("again");
    let file = list.join("questions.jsonl");
    let output = run(&wide, &again, &["--questions-file", file.to_str().unwrap(), "--seed", "2", "--clean-drafts"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let detailed = results(&again)["detailed_results"].as_array().unwrap().clone();
    assert_eq!(detailed.len(), 6);
    assert!(detailed.iter().all(|r| r["status"] == "passed" && r["correct"] == true), "{detailed:?}");
}

/// A column a shortened schema shows by name only is still a column to the
/// structural field check, and a misspelt one still gets its "did you mean".
#[test]
fn the_field_check_knows_every_column_of_a_wide_table() {
    let dir = tempfile::tempdir().unwrap();
    let wide = prepare(dir.path(), "wide", &wide_csv(2_000), &["--label", "flag"]);
    let dataset = eval_dag::dataset::Dataset::load(&wide).unwrap();
    let key = dataset.data.iter().find(|(_, v)| v.is_array()).map(|(k, _)| k.clone()).unwrap();
    let params = [("rows".to_string(), key)].into_iter().collect();
    let code = |field: &str| format!("def f(rows):\n    return [r[{field:?}] for r in rows]\n");
    assert!(eval_dag::dag::unknown_fields(&code("sensor_01777"), &params, &dataset.catalogue).is_empty());
    let typo = eval_dag::dag::unknown_fields(&code("sensor_0177x"), &params, &dataset.catalogue);
    assert_eq!(typo.len(), 1, "{typo:?}");
    assert!(typo[0].suggestion.as_deref().is_some_and(|s| s.starts_with("sensor_")), "did you mean: {typo:?}");
}
