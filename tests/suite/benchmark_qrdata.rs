//! QRData end to end on made-up files in its published layout: the scorer
//! against QRData's rules run by CPython over generated answers; `import
//! qrdata` (datasets shared by questions naming the same files, several files
//! as several tables, each question's own data description, hostile paths
//! skipped); `run` with a scripted model answering in prose around fenced
//! JSON, scored by QRData's rules.

use crate::common;
use crate::common::mock_llm::{MockLlm, Reply};
use crate::common::tools::{Tool, require};
use crate::suite::benchmark_import::import;
use crate::suite::benchmark_run::{eval_dag, is_build, question_id};

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use eval_dag::benchmark::score;
use eval_dag::dataset::Dataset;
use eval_dag::domain::Scorer;
use serde_json::{Value, json};

/// QRData's rules, as its `eval.py` applies them to one answer, in CPython.
const RULES: &str = r#"
import sys, json, re
def first_number(text):
    found = re.search(r'-?\d+\.?\d*%?', text)
    return found.group() if found else None
def number(text):
    return float(text[:-1]) / 100 if text[-1] == '%' else float(text)
def right(answer, gold, kind):
    answer = (answer if isinstance(answer, str) else str(answer)).lower()
    gold = gold.lower()
    if kind != 'numerical':
        return gold == answer[:len(gold)]
    value = number(gold)
    try:
        given = number(first_number(answer))
    except Exception:
        return False
    low, high = value * (1 - 0.03), value * (1 + 0.03)
    return min(low, high) < given and max(low, high) > given
cases = json.loads(sys.stdin.buffer.read())
print(json.dumps([right(answer, gold, kind) for answer, gold, kind in cases]))
"#;

/// A 64-bit LCG, so the cases are the same every run.
struct Seeded(u64);

impl Seeded {
    fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `text` with its ASCII digits written in Arabic-Indic digits.
fn arabic(text: &str) -> String {
    text.chars().map(|c| c.to_digit(10).map_or(c, |d| char::from_u32(0x660 + d).unwrap())).collect()
}

/// Answers around each numerical gold (inside, on and outside the 3 % bounds,
/// in prose, as percents, with exponents, in other digits, as JSON numbers)
/// and around each choice, with odd values of every JSON kind.
fn cases() -> Vec<(Value, String, &'static str)> {
    let mut rng = Seeded(67);
    let mut cases = Vec::new();
    let golds = ["0.20", "20%", "-1.5", "0", "1691", "0.035", "-0.5%", "3.0", "1e3", " 7 "];
    for gold in golds {
        let value: f64 = match gold.trim().strip_suffix('%') {
            Some(percent) => percent.parse::<f64>().unwrap() / 100.0,
            None => gold.trim().parse().unwrap(),
        };
        let mut factors = vec![0.9, 0.969, 0.97, 0.9701, 1.0, 1.0299, 1.03, 1.0301, 1.1, -1.0];
        factors.extend((0..12).map(|_| 0.94 + rng.unit() * 0.12));
        for factor in factors {
            let x = value * factor;
            for text in [
                format!("{x}"),
                format!("{x:e}"),
                format!("The answer is {x:.4} units."),
                format!("{:.3}%", x * 100.0),
                format!("about {x}, or {} in all", x * 2.0),
                arabic(&format!("{x}")),
            ] {
                cases.push((json!(text), gold.to_string(), "numerical"));
            }
            cases.push((json!(x), gold.to_string(), "numerical"));
        }
        let odd = [json!(true), json!(null), json!([value]), json!({"a": value}), json!(""), json!("-"), json!("--5")];
        cases.extend(odd.into_iter().map(|answer| (answer, gold.to_string(), "numerical")));
        for text in ["5.", ".5", "1,234.5", "-%", "50 %", "1_000", "x-0.2y"] {
            cases.push((json!(text), gold.to_string(), "numerical"));
        }
    }
    for gold in ["treatment group", "C", "True", "", "Ünïcode Ψ", "1", "ΟΔΟΣ"] {
        let upper = gold.to_uppercase();
        let cut: String = gold.chars().take(gold.chars().count().saturating_sub(1)).collect();
        for answer in [
            json!(gold),
            json!(format!("{upper} because it is larger")),
            json!(format!("the {gold}")),
            json!(cut),
            json!(true),
            json!(1),
            json!([gold]),
            json!(null),
        ] {
            cases.push((answer, gold.to_string(), "multiple_choice"));
        }
    }
    cases
}

#[test]
fn the_scorer_follows_qrdatas_rules_as_cpython_runs_them() {
    if !require(Tool::Python3) {
        return;
    }
    let cases = cases();
    let mut child = Command::new("python3")
        .args(["-c", RULES])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(json!(cases).to_string().as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let python: Vec<bool> = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(python.len(), cases.len());
    let (mut right, mut wrong) = (0, 0);
    for ((answer, gold, kind), expected) in cases.iter().zip(python) {
        let gold_answer = json!({"answer": gold, "question_type": kind});
        let scored = score(Scorer::Qrdata, &gold_answer, answer).unwrap().unwrap();
        assert_eq!(scored.correct, expected, "answer {answer} against {gold:?} ({kind})");
        if expected { right += 1 } else { wrong += 1 }
    }
    assert!(right > 150 && wrong > 150, "both verdicts are well covered: {right} right, {wrong} wrong");
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// QRData's layout under `benchmark/`: a trial table (two questions with their
/// own descriptions), two tables that join, a question whose gold is zero, and
/// five that cannot be imported (a path out, a symlink out, a missing file, an
/// unknown type, no answer).
fn qrdata_files(dir: &Path) {
    let data = dir.join("benchmark/data");
    write(
        &data.join("trial.csv"),
        "group,stroke\ntreatment,1\ntreatment,1\ntreatment,0\ncontrol,0\ncontrol,0\ncontrol,0\n",
    );
    write(&data.join("sales.csv"), "shop_id,revenue\n1,10.5\n2,20\n3,5\n2,10.5\n");
    write(&data.join("shops.csv"), "shop_id,city\n1,Lyon\n2,Oslo\n3,Lyon\n");
    write(&dir.join("../outside.csv"), "secret\n1\n");
    std::os::unix::fs::symlink(dir.join("../outside.csv"), data.join("link.csv")).unwrap();
    let question = |description: &str, text: &str, answer: &str, files: &[&str], kind: &str| {
        let mut meta = json!({"question_type": kind, "keywords": ["Statistics"], "reference": "made up"});
        if kind == "multiple_choice" {
            meta["multiple_choices"] = json!(["treatment", "control"]);
        }
        json!({"data_description": description, "question": text, "answer": answer, "data_files": files, "meta_data": meta})
    };
    let questions = json!([
        question(
            "trial.csv: a made-up trial of a treatment.",
            "What share of treatment patients had a stroke? Round to 2 decimals.",
            "0.67",
            &["trial.csv"],
            "numerical"
        ),
        question(
            "trial.csv: strokes by group.",
            "Which group had more strokes? Please answer with \"treatment\" or \"control\".",
            "treatment",
            &["trial.csv"],
            "multiple_choice"
        ),
        question(
            "sales.csv and shops.csv: sales of shops in two cities.",
            "What is the total revenue of the shops in Oslo?",
            "30.5",
            &["sales.csv", "shops.csv"],
            "numerical"
        ),
        question(
            "trial.csv: a made-up trial of a treatment.",
            "How many control patients had a stroke?",
            "0",
            &["trial.csv"],
            "numerical"
        ),
        question("x", "a path out", "1", &["../../../outside.csv"], "numerical"),
        question("x", "a symlink out", "1", &["link.csv"], "numerical"),
        question("x", "missing", "1", &["nope.csv"], "numerical"),
        question("x", "odd type", "1", &["trial.csv"], "open"),
        question("x", "no answer", "", &["trial.csv"], "numerical"),
    ]);
    write(&dir.join("benchmark/QRData.json"), &serde_json::to_string_pretty(&questions).unwrap());
}

#[test]
fn qrdata_files_become_datasets_shared_by_their_questions_with_hostile_paths_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let published = dir.path().join("published");
    qrdata_files(&published);
    let bench = dir.path().join("bench");
    let output = import("qrdata", &published, &bench);
    let err = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(0), "{err}");
    let said: Vec<&str> = err.lines().collect();
    assert!(
        said[0].starts_with("skipped 4: its data file \"../../../outside.csv\": ")
            && said[0].contains("outside the benchmark folder"),
        "{err}"
    );
    assert!(
        said[1].starts_with("skipped 5: its data file \"link.csv\": ")
            && said[1].contains("outside the benchmark folder"),
        "{err}"
    );
    assert!(said[2].starts_with("skipped 6: its data file nope.csv is not in "), "{err}");
    assert_eq!(said[3], "skipped 7: its meta_data.question_type is neither numerical nor multiple_choice");
    assert_eq!(said[4], "skipped 8: its answer is not text");
    assert_eq!(said[5], format!("imported 4 questions over 2 datasets into {} (5 skipped)", bench.display()));

    let text = std::fs::read_to_string(bench.join("questions.jsonl")).unwrap();
    let specs = eval_dag::grade::parse_questions_jsonl(&text, "questions.jsonl").unwrap();
    let summary: Vec<(&str, Option<&str>, Option<&str>)> = specs
        .iter()
        .map(|s| (s.question.id.as_str(), s.question.dataset.as_deref(), s.question.data_description.as_deref()))
        .collect();
    assert_eq!(
        summary,
        [
            ("qr_0", Some("trial"), Some("trial.csv: a made-up trial of a treatment.")),
            ("qr_1", Some("trial"), Some("trial.csv: strokes by group.")),
            ("qr_2", Some("sales__shops"), Some("sales.csv and shops.csv: sales of shops in two cities.")),
            ("qr_3", Some("trial"), Some("trial.csv: a made-up trial of a treatment.")),
        ]
    );
    assert!(specs.iter().all(|s| s.question.scorer == Some(Scorer::Qrdata)));
    assert_eq!(
        specs[1].question.expected_answer,
        Some(json!({"answer": "treatment", "question_type": "multiple_choice"}))
    );
    assert_eq!(specs[1].question.answer_format.as_deref(), Some("one of \"treatment\", \"control\", written as given"));
    assert_eq!(specs[0].question.extra.get("reference"), Some(&json!("made up")));

    let trial = Dataset::load(bench.join("datasets/trial")).unwrap();
    assert_eq!(trial.metadata.description, "trial.csv: a made-up trial of a treatment.", "the first question's");
    assert_eq!(trial.data["rows"].as_array().unwrap().len(), 6);
    let joined = Dataset::load(bench.join("datasets/sales__shops")).unwrap();
    assert_eq!(joined.metadata.tables.keys().collect::<Vec<_>>(), ["sales", "shops"]);
    assert_eq!(joined.data["shops"][1], json!({"shop_id": 2, "city": "Oslo"}));
    let everything = std::fs::read_to_string(bench.join("datasets/trial/data.json")).unwrap()
        + &std::fs::read_to_string(bench.join("datasets/sales__shops/data.json")).unwrap();
    assert!(!everything.contains("secret"), "nothing outside the folder is read");

    for (text, said) in [("{\"x\": 1}", "not a JSON list of questions"), ("[1, ", "not JSON (")] {
        write(&published.join("benchmark/QRData.json"), text);
        let bad = import("qrdata", &published, &dir.path().join("bad"));
        let err = String::from_utf8_lossy(&bad.stderr).into_owned();
        assert_eq!((bad.status.code(), err.lines().count()), (Some(2), 1), "{err}");
        assert!(err.contains("QRData.json: ") && err.contains(said), "{err}");
    }
    let elsewhere = import("qrdata", dir.path(), &dir.path().join("bad"));
    assert!(String::from_utf8_lossy(&elsewhere.stderr).contains("not QRData's files"));
    assert!(!dir.path().join("bad").exists());
}

/// A DAG answering question `id` of `qrdata_files`, as a model writes it.
fn dag(id: &str) -> Value {
    let one = |code: &str, inputs: Value| {
        json!({"question_id": id, "description": "answer", "final_answer_node": "answer", "edges": [],
            "nodes": [{"node_id": "answer", "operation": "answer", "function_name": "answer",
                "inputs": inputs, "expected_output_type": "str", "layer": 0, "code": code}]})
    };
    let rows = json!({"rows": "dataset.rows"});
    match id {
        "qr_0" => one(
            "def answer(rows):\n    t = [r['stroke'] for r in rows if r['group'] == 'treatment']\n    return f'{100 * sum(t) / len(t):.1f}%'\n",
            rows,
        ),
        "qr_1" => one("def answer(rows):\n    return 'Treatment, with more strokes'\n", rows),
        "qr_2" => one(
            "def answer(sales, shops):\n    oslo = {s['shop_id'] for s in shops if s['city'] == 'Oslo'}\n    return sum(r['revenue'] for r in sales if r['shop_id'] in oslo)\n",
            json!({"sales": "dataset.sales", "shops": "dataset.shops"}),
        ),
        _ => one("def answer(rows):\n    return sum(r['stroke'] for r in rows if r['group'] == 'control')\n", rows),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_imported_qrdata_benchmark_runs_and_is_scored_by_its_own_rules() {
    let dir = tempfile::tempdir().unwrap();
    let published = dir.path().join("published");
    qrdata_files(&published);
    let bench = dir.path().join("bench");
    assert_eq!(import("qrdata", &published, &bench).status.code(), Some(0));

    let mock = MockLlm::start(|request, _| {
        let prompt = request.prompt();
        if prompt.contains("review one layer") {
            let review = json!({"is_valid": true, "issues": [], "reasoning": "reads the right fields"});
            return Reply::Text(format!("Looks right.\n```json\n{review}\n```"));
        }
        let dag = serde_json::to_string_pretty(&dag(&question_id(&prompt))).unwrap();
        Reply::Text(format!("Here is the plan as a DAG:\n\n```json\n{dag}\n```\n\nIt returns the answer as asked."))
    })
    .await;
    let out = dir.path().join("run");
    let output = eval_dag(dir.path(), &mock, &["run"]).arg(&bench).arg("--out").arg(&out).output().await.unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "qr_3's gold is zero, which nothing lies strictly around: {said}");
    assert!(said.contains("qr_3 graded wrong by ground_truth: qrdata rules: 0 of 1 parts right"), "{said}");

    let builds: Vec<String> = mock.requests().iter().map(|r| r.prompt()).filter(|p| is_build(p)).collect();
    let build = |id: &str| builds.iter().find(|p| question_id(p) == id).unwrap().clone();
    assert!(build("qr_0").contains("About the data: trial.csv: a made-up trial of a treatment."));
    assert!(build("qr_1").contains("About the data: trial.csv: strokes by group."), "each question its own words");
    let joined = build("qr_2");
    assert!(joined.contains("dataset.sales:") && joined.contains("dataset.shops:"), "{joined}");

    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("eval_results.json")).unwrap()).unwrap();
    let verdict = |id: &str| {
        let detail = results["detailed_results"].as_array().unwrap().iter().find(|d| d["question_id"] == id).unwrap();
        (detail["final_answer"].clone(), detail["benchmark"]["correct"].as_bool())
    };
    assert_eq!(verdict("qr_0"), (json!("66.7%"), Some(true)), "0.667 lies within 3 % of 0.67");
    assert_eq!(verdict("qr_1"), (json!("Treatment, with more strokes"), Some(true)));
    assert_eq!(verdict("qr_2"), (json!(30.5), Some(true)), "a join of two tables");
    assert_eq!(verdict("qr_3"), (json!(0), Some(false)));
    assert!(common::schema_errors(&results).is_empty(), "{:#?}", common::schema_errors(&results));
    let benchmark = &results["summary"]["benchmark"];
    assert_eq!((benchmark["name"].as_str(), benchmark["accuracy_by_question"].as_f64()), (Some("qrdata"), Some(0.75)));
}
