//! Every input that comes from outside, fuzzed: a seeded test per format —
//! `questions.jsonl`, the config file (with `[keys]` and `[roles]`), a
//! dataset's `metadata.json`/`data.json`, InfiAgent's and DABstep's files, a
//! user's prompt and report templates, a response-cache file with corrupted
//! pages, a results file given to `compare` — each a few hundred mutated
//! cases (`common::mutate`), mostly in-process, a few through the binary.
//! Nothing may panic; the binary exits 0, 1 or 2, with one line on error and
//! nothing written outside `--out` and within a memory bound; every format
//! stays within a time bound.

use crate::common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::time::{Duration, Instant};

use common::mutate::{CASES, Mutator, object};
use eval_dag::benchmark::import::{dabstep, infiagent};
use eval_dag::config::Config;
use eval_dag::dataset::Dataset;
use eval_dag::prompts::Prompts;
use serde_json::{Value, json};

/// The address space the binary may take on a fuzzed input.
const MEMORY_BOUND: u64 = 4 << 30;

/// The longest a format's cases may take together, on two busy cores in a debug build.
const TIME_BOUND: Duration = Duration::from_secs(20);

/// Run `case` for each of `cases` seeds of `format`, failing on the first
/// panic with the format and case, and when the cases take too long.
fn fuzz(format: &str, cases: usize, mut case: impl FnMut(&mut Mutator, usize)) {
    let started = Instant::now();
    for n in 0..cases {
        let mut mutator = Mutator::new(n as u64);
        if catch_unwind(AssertUnwindSafe(|| case(&mut mutator, n))).is_err() {
            panic!("{format}: case {n} (seed {n}) panicked");
        }
    }
    let took = started.elapsed();
    assert!(took < TIME_BOUND, "{format}: {cases} cases took {took:?}");
}

fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// A good questions file's lines.
fn question_lines() -> Vec<Value> {
    vec![
        json!({"id": "q1", "question": "How many rows?", "difficulty": "easy", "expected_answer": 3,
               "match": {"abs_tol": 0.5}, "dataset": "shop", "scorer": "infiagent", "answer_format": "@n[n]"}),
        json!({"question": "Mean of v?", "difficulty": 7, "expected_answer": {"mean": 2.5}, "constraints": "two decimals"}),
        json!({"id": "q3", "question": "Top merchant?", "difficulty": "hard", "expected_answer": ["a", "b"]}),
    ]
}

/// How many cases of a format were refused and how many read: a fuzz test
/// that sees only one of the two is not reaching the parser's error paths.
#[derive(Default)]
struct Outcomes {
    refused: usize,
    read: usize,
}

impl Outcomes {
    fn count<T, E>(&mut self, result: &Result<T, E>) {
        match result {
            Ok(_) => self.read += 1,
            Err(_) => self.refused += 1,
        }
    }

    fn assert_both(&self, format: &str) {
        assert!(self.refused > CASES / 10 && self.read > 0, "{format}: {} refused, {} read", self.refused, self.read);
    }
}

#[test]
fn questions_files() {
    let lines = question_lines();
    let mut outcomes = Outcomes::default();
    fuzz("questions.jsonl", CASES, |m, _| {
        let text = m.jsonl(&lines);
        let parsed = eval_dag::grade::parse_questions_jsonl(&text, "questions.jsonl");
        outcomes.count(&parsed);
        if let Err(err) = parsed {
            assert!(!err.to_string().is_empty());
        }
    });
    outcomes.assert_both("questions.jsonl");
}

/// A config file with every section, `[keys]` and `[roles]` included.
const CONFIG: &str = r#"theme = "light"

[llm]
provider = "openai"
model = "gpt-4o-mini"
base_url = "http://127.0.0.1:11434/v1"
api_key_env = "MY_LLM_KEY"
timeout_secs = 120
retries = 2
structured = "json"

[roles.critic]
provider = "anthropic"
model = "claude"
max_tokens = 300

[roles.judge]
base_url = "http://127.0.0.1:9/v1"
temperature = 0

[run]
questions = 12
node_timeout_secs = 20

[cache]
path = "/tmp/cache.sqlite"

[budget]
max_cost_usd = 5

[prices."gpt-4o-mini"]
input_per_mtok = 0.2
output_per_mtok = 0.8

[keys.global]
quit = "ctrl-q"

[keys.dashboard]
open = ["enter", "o"]
"#;

/// TOML values of every kind, for a line's value to become.
const TOML_VALUES: [&str; 12] = [
    "\"x\"",
    "5",
    "-1",
    "true",
    "[1, \"a\"]",
    "{ a = 1 }",
    "1979-05-27T07:32:00Z",
    "\"\u{202E}gnp.exe\"",
    "99999999999999999999",
    "1e999",
    "\"a\\u0000b\"",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
];

#[test]
fn config_files() {
    let path = Path::new("/home/u/.config/eval-dag/config.toml");
    let mut outcomes = Outcomes::default();
    fuzz("config file", CASES, |m, _| {
        let text = if m.below(2) == 0 {
            m.text(CONFIG)
        } else {
            // A line's value of another kind, or a key written flat under [keys].
            let mut lines: Vec<String> = CONFIG.lines().map(String::from).collect();
            let at = m.below(lines.len());
            let value = TOML_VALUES[m.below(TOML_VALUES.len())];
            match lines[at].split_once(" = ") {
                Some((key, _)) => lines[at] = format!("{key} = {value}"),
                None => lines.insert(at + 1, format!("help = {value}")),
            }
            lines.join("\n")
        };
        let parsed = Config::parse(&text, path);
        outcomes.count(&parsed);
        match parsed {
            Ok(config) => {
                let _ = config.resolve(&cli_args(), |_| None);
            }
            Err(err) => {
                let line = err.to_string();
                assert!(!line.contains('\n') && line.starts_with("config "), "{line:?}");
            }
        }
    });
    outcomes.assert_both("config file");
}

/// `run data` as parsed, for resolving a fuzzed config file.
fn cli_args() -> eval_dag::cli::RunArgs {
    use clap::Parser;
    let cli = eval_dag::cli::Cli::try_parse_from(["eval-dag", "run", "data"]).unwrap();
    let eval_dag::cli::CliCommand::Run(args) = cli.command else { unreachable!() };
    *args
}

/// A good dataset's files.
fn dataset_files() -> (Value, Value) {
    let data = json!({"rows": [{"v": 1, "name": "a", "when": "2024-01-02"}, {"v": 2, "name": "b", "when": null}],
        "overview": {"row_count": 2}});
    let metadata = json!({"description": "d", "domain": "shop", "important_notes": ["n"],
        "columns": {"v": {"type": "int", "range": [1, 2]}, "name": {"type": "str", "values": ["a", "b"]},
                    "when": {"type": "datetime", "format": "%Y-%m-%d", "nullable": true}},
        "dataset_keys": {"rows": "one row per sale", "overview": "counts"}});
    (data, metadata)
}

#[test]
fn dataset_files_and_the_prompts_drawn_from_them() {
    let (data, metadata) = dataset_files();
    let prompts = Prompts::load(None).unwrap();
    let question = eval_dag::domain::Question::new("q", "?", 1, eval_dag::domain::DifficultyLevel::Easy);
    let dir = tempfile::tempdir().unwrap();
    let mut outcomes = Outcomes::default();
    fuzz("metadata.json/data.json", CASES, |m, n| {
        let case = dir.path().join(n.to_string());
        let (data_text, metadata_text) = match m.below(2) {
            0 => (m.json_text(&data), metadata.to_string()),
            _ => (data.to_string(), m.json_text(&metadata)),
        };
        write(&case.join("data.json"), data_text);
        write(&case.join("metadata.json"), metadata_text);
        let loaded = Dataset::load(&case);
        outcomes.count(&loaded);
        if let Ok(dataset) = loaded {
            let _ = prompts.dag_build(&dataset, &question, 1, None);
        }
    });
    outcomes.assert_both("metadata.json/data.json");
}

/// InfiAgent's three parts in `dir`, one of them mutated.
fn infiagent_case(m: &mut Mutator, dir: &Path) {
    let questions = vec![
        json!({"id": 0, "question": "q?", "concepts": ["Summary"], "constraints": "c", "format": "@n[n]",
               "file_name": "t.csv", "level": "hard"}),
        json!({"id": 1, "question": "r?", "format": "@m[m]", "file_name": "t.csv", "level": "easy"}),
    ];
    let labels = vec![json!({"id": 0, "common_answers": [["n", "3"]]}), json!({"id": 1, "common_answers": [["m", 2]]})];
    let table = "x,y,when\n1,a,2024-01-02\n2,b,2024-01-03\n3,c,\n";
    let (mut q, mut l, mut t) = (m.jsonl(&questions), m.jsonl(&labels), table.as_bytes().to_vec());
    match m.below(3) {
        0 => l = labels.iter().map(|v| format!("{v}\n")).collect(),
        1 => q = questions.iter().map(|v| format!("{v}\n")).collect(),
        _ => {
            (q, l) = (
                questions.iter().map(|v| format!("{v}\n")).collect(),
                labels.iter().map(|v| format!("{v}\n")).collect(),
            );
            t = m.bytes(table.as_bytes());
        }
    }
    write(&dir.join("da-dev-questions.jsonl"), q);
    write(&dir.join("da-dev-labels.jsonl"), l);
    write(&dir.join("da-dev-tables/t.csv"), t);
}

#[test]
fn infiagent_files() {
    let dir = tempfile::tempdir().unwrap();
    fuzz("InfiAgent's files", CASES, |m, n| {
        let case = dir.path().join(n.to_string());
        infiagent_case(m, &case);
        if let Some(layout) = infiagent::find(&case) {
            let _ = infiagent::read(&layout);
        }
    });
}

#[test]
fn dabstep_files() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = vec![
        json!({"task_id": "5", "question": "q?", "level": "hard", "answer": "30.50", "guidelines": "a number"}),
        json!({"task_id": 7, "question": "r?", "level": "easy", "answer": ""}),
    ];
    let fees = json!([{"ID": 1, "fixed_amount": 0.1, "rates": [1, 2]}]);
    let payments = "psp_reference,merchant,eur_amount\n1,Shop_A,10.5\n2,Shop_B,20\n";
    fuzz("DABstep's files", CASES, |m, n| {
        let case = dir.path().join(n.to_string());
        let plain = |lines: &[Value]| lines.iter().map(|v| format!("{v}\n")).collect::<String>();
        let (mut t, mut f, mut p, mut manual) =
            (plain(&tasks), fees.to_string(), payments.as_bytes().to_vec(), "# Manual\n".to_string());
        match m.below(4) {
            0 => t = m.jsonl(&tasks),
            1 => f = m.json_text(&fees),
            2 => p = m.bytes(payments.as_bytes()),
            _ => manual = m.text(&manual),
        }
        write(&case.join("data/tasks/dev.jsonl"), t);
        write(&case.join("data/context/fees.json"), f);
        write(&case.join("data/context/payments.csv"), p);
        write(&case.join("data/context/manual.md"), manual);
        if let Some(layout) = dabstep::find(&case) {
            let _ = dabstep::read(&layout);
        }
    });
}

#[test]
fn a_users_prompt_and_report_templates() {
    let (data, metadata) = dataset_files();
    let dir = tempfile::tempdir().unwrap();
    let dataset_dir = dir.path().join("dataset");
    write(&dataset_dir.join("data.json"), data.to_string());
    write(&dataset_dir.join("metadata.json"), metadata.to_string());
    let dataset = Dataset::load(&dataset_dir).unwrap();
    let question = eval_dag::domain::Question::new("q", "?", 1, eval_dag::domain::DifficultyLevel::Easy);
    let prompt_files = ["dag_build.j2", "question_generation.j2", "layer_review.j2", "narrative.j2", "repair.j2"];
    let report_files = ["summary.html.j2", "report.html.j2", "macros.html.j2", "question_body.html.j2"];
    let trace = eval_dag::trace::Trace::read(&common::root().join(common::tui::SAMPLE)).unwrap();
    let state = eval_dag::report::fold_trace(&trace);
    let at = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00+00:00").unwrap();
    fuzz("templates", CASES, |m, n| {
        let case = dir.path().join(format!("t{n}"));
        if m.below(2) == 0 {
            let file = prompt_files[m.below(prompt_files.len())];
            let text = std::fs::read_to_string(common::root().join("prompts").join(file)).unwrap();
            write(&case.join(file), m.text(&text));
            if let Ok(prompts) = Prompts::load(Some(&case)) {
                let _ = prompts.question_generation(&dataset, 3);
                let _ = prompts.dag_build(&dataset, &question, 1, None);
            }
        } else {
            let file = report_files[m.below(report_files.len())];
            let text = std::fs::read_to_string(common::root().join("templates").join(file)).unwrap();
            write(&case.join(file), m.text(&text));
            // Rendering the whole report is the slow part: every fourth case.
            if let (Ok(templates), 0) = (eval_dag::report::ReportTemplates::load(Some(&case)), n % 4) {
                let _ = templates.report_html(&state, &at);
            }
        }
    });
}

#[test]
fn response_cache_files_with_corrupted_pages() {
    use eval_dag::domain::ProviderKind;
    use eval_dag::llm::ResponseCache;
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.sqlite");
    {
        let cache = ResponseCache::open(&good).unwrap();
        for n in 0..50u32 {
            cache.store(
                &n.to_le_bytes(),
                ProviderKind::Openai,
                "m",
                &format!("reply {n} {}", "x".repeat(200)),
                Default::default(),
            );
        }
    }
    let bytes = std::fs::read(&good).unwrap();
    assert!(!bytes.is_empty());
    fuzz("response cache", CASES, |m, n| {
        let path = dir.path().join(format!("{n}.sqlite"));
        let mut corrupted = bytes.clone();
        match m.below(3) {
            // A page of garbage.
            0 => {
                let page = m.below(corrupted.len() / 4096 + 1) * 4096;
                for byte in corrupted.iter_mut().skip(page).take(4096) {
                    *byte = m.below(256) as u8;
                }
            }
            1 => corrupted.truncate(m.below(corrupted.len())),
            _ => corrupted = m.bytes(&corrupted),
        }
        write(&path, corrupted);
        if let Ok(cache) = ResponseCache::open(&path) {
            let _ = cache.lookup(&3u32.to_le_bytes());
            cache.store(b"new", ProviderKind::Openai, "m", "reply", Default::default());
            let _ = cache.stats();
            let _ = cache.prune(None, Some("m"));
        }
    });
}

/// A results file to compare against.
fn results_value() -> Value {
    serde_json::to_value(&common::runs::three_runs()[0]).unwrap()
}

#[test]
fn results_files_given_to_compare() {
    let good = results_value();
    let dir = tempfile::tempdir().unwrap();
    let other = common::runs::three_runs().swap_remove(1);
    let mut outcomes = Outcomes::default();
    fuzz("results file", CASES, |m, n| {
        let path = dir.path().join(format!("{n}.json"));
        write(&path, m.json_text(&good));
        let loaded = eval_dag::report::load_results(&path);
        outcomes.count(&loaded);
        if let Ok(results) = loaded {
            let _ = eval_dag::report::compare(&results, &other);
        }
    });
    outcomes.assert_both("results file");
}

/// The binary on a few fuzzed inputs: exit 0, 1 or 2, one line on error,
/// nothing written but under `--out`.
fn through_the_binary(home: &Path, args: &[&std::ffi::OsStr]) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    let mut command = common::eval_dag(home);
    command.args(args).current_dir(home);
    // A memory bound: an input that makes the binary balloon fails it.
    // SAFETY: setrlimit is async-signal-safe and touches only the child.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit { rlim_cur: MEMORY_BOUND, rlim_max: MEMORY_BOUND };
            match libc::setrlimit(libc::RLIMIT_AS, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    let output = command.output().unwrap();
    let code = output.status.code();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(matches!(code, Some(0..=2)), "{args:?}: exit {code:?}: {stderr}");
    if code == Some(2) {
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error: ")).collect();
        assert_eq!(errors.len(), 1, "{args:?}: one line on error: {stderr}");
    }
    output
}

#[test]
fn fuzzed_inputs_through_the_binary() {
    let good = results_value();
    let started = Instant::now();
    for n in 0..12u64 {
        let mut m = Mutator::new(1_000 + n);
        let home = tempfile::tempdir().unwrap();
        let a = home.path().join("a.json");
        write(&a, m.json_text(&good));
        write(&home.path().join("b.json"), good.to_string());
        let written = |home: &Path| {
            let mut names: Vec<String> =
                std::fs::read_dir(home).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
            names.sort();
            names
        };
        through_the_binary(home.path(), &["compare".as_ref(), a.as_os_str(), "b.json".as_ref(), "--json".as_ref()]);
        let downloaded = home.path().join("downloaded");
        infiagent_case(&mut m, &downloaded);
        let out = home.path().join("bench");
        through_the_binary(
            home.path(),
            &["import".as_ref(), "infiagent".as_ref(), downloaded.as_os_str(), "--out".as_ref(), out.as_os_str()],
        );
        let names = written(home.path());
        let expected = ["a.json", "b.json", "bench", "downloaded", "log.txt"];
        assert!(names.iter().all(|name| expected.contains(&name.as_str())), "case {n}: {names:?}");
        if out.exists() {
            let bench = object(&[
                ("datasets", json!(out.join("datasets").is_dir())),
                ("questions", json!(out.join("questions.jsonl").is_file())),
            ]);
            assert_eq!(bench, json!({"datasets": true, "questions": true}), "case {n}");
        }
    }
    assert!(started.elapsed() < TIME_BOUND, "took {:?}", started.elapsed());
}
