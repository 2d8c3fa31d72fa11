//! `run --shard K/N` and `eval-dag merge` through the real binary, on the
//! scripted benchmark of `benchmark_run`: the benchmark run whole and in three
//! shards merged gives the same questions, answers, statuses, grades,
//! benchmark figures and report sections; a killed shard resumes before the
//! merge; a merge with a shard missing exits 1 naming it and its questions,
//! and `--resume` of the merged run finishes them; merges of shards of
//! different runs, or of one shard twice, are refused (exit 2, one line);
//! bad `--shard` values are one line, exit 2; `--questions-only` writes the
//! list a run that generates its questions then shards; shards run with
//! `--batch` merge to what the batched whole run gives, their batches added up.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use common::mock_batch::{Behaviour, MockBatch};
use common::mock_llm::MockLlm;
use eval_dag::domain::Question;
use eval_dag::domain::shard::shard_of;
use eval_dag::grade::read_questions_file;
use eval_dag::report::fold_trace;
use eval_dag::run::{EngineEvent, RunState};
use eval_dag::trace::Trace;
use serde_json::Value;

use super::benchmark_run::{eval_dag, expected, kill_once_finished, script, write_benchmark};

/// Runs `args` with the scripted model, returning exit code and stderr.
async fn run(home: &Path, mock: &MockLlm, args: &[&str], extra: &[&Path]) -> (Option<i32>, String) {
    let output = eval_dag(home, mock, args).args(extra).output().await.unwrap();
    (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
}

/// `eval-dag merge` of `shards` into `out`: exit code and stderr.
fn merge(home: &Path, shards: &[&Path], out: &Path) -> (Option<i32>, String) {
    let output = common::eval_dag(home).arg("merge").args(shards).arg("--out").arg(out).output().unwrap();
    (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
}

/// Shard `k` of `n` of the benchmark in `bench`, into `home/shard<k>`.
async fn shard(home: &Path, mock: &MockLlm, bench: &Path, k: u32, n: u32) -> PathBuf {
    let out = home.join(format!("shard{k}"));
    let spec = format!("{k}/{n}");
    let (code, stderr) =
        run(home, mock, &["run", "--no-cache", "--shard", &spec], &[bench, Path::new("--out"), &out]).await;
    assert_eq!(code, Some(0), "shard {spec}: {stderr}");
    out
}

fn state(dir: &Path) -> RunState {
    fold_trace(&Trace::read(&dir.join("trace.jsonl")).unwrap())
}

fn results(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("eval_results.json")).unwrap()).unwrap()
}

/// Each question's id, status, answer and grades, in list order.
fn answers(state: &RunState) -> Vec<(String, String, Option<Value>, Option<bool>)> {
    let row = |q: &eval_dag::run::QuestionState| {
        let latest = q.latest();
        let answer = latest.and_then(|a| a.final_answer.clone());
        (q.question.id.to_string(), format!("{:?}", q.status), answer, q.correct())
    };
    state.questions.iter().map(row).collect()
}

/// The report's section headings, in page order.
fn sections(dir: &Path) -> Vec<String> {
    let html = std::fs::read_to_string(dir.join("eval_report.html")).unwrap();
    html.split("<h2").skip(1).map(|rest| rest.split("</h2>").next().unwrap_or_default().to_string()).collect()
}

/// The results' rows without what depends on time.
fn rows(results: &Value) -> Vec<Value> {
    let keep = ["question_id", "dataset", "status", "success", "final_answer", "expected_answer", "correct", "grades"];
    let rows = results["detailed_results"].as_array().unwrap();
    rows.iter().map(|row| keep.iter().map(|k| (k.to_string(), row[*k].clone())).collect()).collect()
}

fn the_questions(bench: &Path) -> Vec<Question> {
    read_questions_file(&bench.join("questions.jsonl")).unwrap().into_iter().map(|s| s.question).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_benchmark_run_whole_and_in_three_shards_merged_agree() {
    let mock = MockLlm::start(script(None)).await;
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let bench = home.join("bench");
    write_benchmark(&bench);
    // Every question scored by DABstep's rules, for the benchmark's own figures.
    let list = std::fs::read_to_string(bench.join("questions.jsonl")).unwrap();
    let scored: String = list
        .lines()
        .map(|line| {
            let mut line: Value = serde_json::from_str(line).unwrap();
            line["scorer"] = Value::from("dabstep");
            format!("{line}\n")
        })
        .collect();
    std::fs::write(bench.join("questions.jsonl"), scored).unwrap();
    let whole = home.join("whole");
    let (code, stderr) = run(home, &mock, &["run", "--no-cache"], &[&bench, Path::new("--out"), &whole]).await;
    assert_eq!(code, Some(0), "{stderr}");
    let mut shards = Vec::new();
    for k in 1..=3 {
        shards.push(shard(home, &mock, &bench, k, 3).await);
    }
    // Every shard wrote the whole list, the same bytes, whose hash its header holds.
    let list = std::fs::read(shards[0].join("questions.jsonl")).unwrap();
    for (k, dir) in shards.iter().enumerate() {
        assert_eq!(std::fs::read(dir.join("questions.jsonl")).unwrap(), list);
        let shard = Trace::read(&dir.join("trace.jsonl")).unwrap().header.settings.shard.unwrap();
        assert_eq!((shard.index, shard.count), (k as u32 + 1, 3));
        assert_eq!(shard.questions_hash, eval_dag::domain::sha256_hex(&list));
        let own: BTreeSet<String> = state(dir).questions.iter().map(|q| q.question.id.to_string()).collect();
        let expected: BTreeSet<String> =
            the_questions(&bench).iter().filter(|q| shard_of(q, 3) == k as u32 + 1).map(|q| q.id.to_string()).collect();
        assert_eq!(own, expected, "shard {} runs its own questions", k + 1);
    }

    let merged = home.join("merged");
    let given: Vec<&Path> = [2, 0, 1].iter().map(|i| shards[*i].as_path()).collect();
    let (code, stderr) = merge(home, &given, &merged);
    assert_eq!(code, Some(0), "{stderr}");

    let trace = Trace::read(&merged.join("trace.jsonl")).unwrap();
    assert_eq!(trace.header.settings.shard, None);
    let from: Vec<u32> = trace.header.merged_from.iter().map(|m| m.shard).collect();
    assert_eq!(from, [1, 2, 3], "in shard order");
    let whole_trace = Trace::read(&whole.join("trace.jsonl")).unwrap();
    assert_eq!(trace.header.settings.datasets, whole_trace.header.settings.datasets);
    assert_eq!(trace.header.settings.dataset_hash, whole_trace.header.settings.dataset_hash);
    let kinds = |kind: fn(&EngineEvent) -> bool| trace.records.iter().filter(|r| kind(&r.event)).count();
    assert_eq!(kinds(|e| matches!(e, EngineEvent::RunStarted { .. })), 1);
    assert_eq!(kinds(|e| matches!(e, EngineEvent::QuestionsGenerated { .. })), 1);
    assert!(matches!(trace.records.last().map(|r| &r.event), Some(EngineEvent::RunFinished { .. })));
    assert!(trace.records.iter().enumerate().all(|(i, r)| r.seq == i as u64), "seq numbered anew");
    let calls: Vec<u64> = trace
        .records
        .iter()
        .filter_map(|r| match r.event {
            EngineEvent::LlmCallStarted { call_id, .. } => Some(call_id),
            _ => None,
        })
        .collect();
    assert_eq!(calls.iter().collect::<BTreeSet<_>>().len(), calls.len(), "call ids stay unique: {calls:?}");

    let (whole_state, merged_state) = (state(&whole), state(&merged));
    assert_eq!(answers(&merged_state), answers(&whole_state));
    assert!(
        answers(&merged_state)
            .iter()
            .all(|(id, _, answer, correct)| { *answer == Some(Value::from(expected(id))) && *correct == Some(true) })
    );
    let (whole_results, merged_results) = (results(&whole), results(&merged));
    assert_eq!(rows(&merged_results), rows(&whole_results));
    assert_eq!(merged_results["summary"]["benchmark"], whole_results["summary"]["benchmark"]);
    assert_eq!(merged_results["summary"]["benchmark"]["accuracy_by_question"], 1.0, "{}", merged_results["summary"]);
    assert_eq!(merged_results["dataset_breakdown"], whole_results["dataset_breakdown"]);
    assert_eq!(sections(&merged), sections(&whole));

    // Every reader takes the merged run as any other.
    let verify = common::eval_dag(home).args(["replay", "--verify"]).arg(merged.join("trace.jsonl")).output().unwrap();
    let stdout = String::from_utf8_lossy(&verify.stdout);
    assert_eq!(verify.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("verified 6 executed DAGs: no drift"), "{stdout}");
    let compare = common::eval_dag(home).args(["compare", "--headless"]).arg(&whole).arg(&merged).output().unwrap();
    assert_eq!(compare.status.code(), Some(0), "{}", String::from_utf8_lossy(&compare.stdout));
    let grade = common::eval_dag(home).arg("grade").arg(merged.join("trace.jsonl")).output().unwrap();
    assert_eq!(grade.status.code(), Some(0), "{}", String::from_utf8_lossy(&grade.stderr));
    let otlp = home.join("merged.otlp.json");
    let mut export = common::eval_dag(home);
    export.arg("export").arg(&merged).args(["--format", "otlp-json", "--out"]).arg(&otlp);
    assert_eq!(export.output().unwrap().status.code(), Some(0));
    assert!(std::fs::read_to_string(&otlp).unwrap().contains("weather_count"));
    let app = eval_dag::tui::App::new(merged_state, eval_dag::tui::Theme::dark(), None, None);
    let dashboard = common::tui::screen(&app, 160, 40);
    assert!(dashboard.contains("zoo_sum") && dashboard.contains("weather_count"), "{dashboard}");

    // Refused: the same shard twice, shards of other settings or another list, a run that is no shard.
    let twice = home.join("twice");
    std::fs::create_dir_all(&twice).unwrap();
    for file in ["trace.jsonl", "questions.jsonl"] {
        std::fs::copy(shards[0].join(file), twice.join(file)).unwrap();
    }
    let other = home.join("other-settings");
    let spec = ["run", "--no-cache", "--shard", "3/3", "--max-iterations", "5"];
    assert_eq!(run(home, &mock, &spec, &[&bench, Path::new("--out"), &other]).await.0, Some(0));
    let fewer = home.join("other-list");
    let spec = ["run", "--no-cache", "--shard", "3/3", "--dataset", "zoo"];
    assert_eq!(run(home, &mock, &spec, &[&bench, Path::new("--out"), &fewer]).await.0, Some(0));
    let refusals: [(&[&Path], &str); 4] = [
        (&[&shards[0], &twice, &shards[1]], "shard 1/3 is given twice"),
        (&[&shards[0], &shards[1], &other], "max_iterations: 3 and 5"),
        (&[&shards[0], &shards[1], &fewer], "questions_hash"),
        (&[&shards[0], &whole], "is not a shard"),
    ];
    for (given, said) in refusals {
        let out = home.join("refused");
        let (code, stderr) = merge(home, given, &out);
        assert_eq!(code, Some(2), "{said}: {stderr}");
        assert!(stderr.contains(said), "{said}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
        assert!(!out.join("trace.jsonl").exists(), "nothing merged");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_killed_shard_resumes_and_a_missing_one_is_named_then_finished_by_resume() {
    let questions = {
        let dir = tempfile::tempdir().unwrap();
        write_benchmark(dir.path());
        the_questions(dir.path())
    };
    // The shard of two with more questions is killed while its last one waits.
    let share = |k: u32| questions.iter().filter(|q| shard_of(q, 2) == k).map(|q| q.id.to_string()).collect::<Vec<_>>();
    let killed = if share(1).len() >= share(2).len() { 1 } else { 2 };
    let slow: &'static str = Box::leak(share(killed).last().unwrap().clone().into_boxed_str());
    let slowed = Arc::new(AtomicBool::new(true));
    let mock = MockLlm::start(script(Some((slow, slowed.clone())))).await;
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let bench = home.join("bench");
    write_benchmark(&bench);
    let out = home.join(format!("shard{killed}"));
    let child = eval_dag(home, &mock, &["run", "--no-cache", "--shard", &format!("{killed}/2")])
        .arg(&bench)
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    kill_once_finished(child, &out.join("trace.jsonl"), share(killed).len() - 1).await;
    let other = 3 - killed;
    let other_dir = shard(home, &mock, &bench, other, 2).await;

    // Merged now: the killed shard is unfinished, its waiting question named.
    let early = home.join("early");
    let (code, stderr) = merge(home, &[&out, &other_dir], &early);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains(&format!("1 of 2 shards whole; unfinished: {killed}/2")), "{stderr}");
    assert!(stderr.contains(&format!("1 question unfinished: {slow}")), "{stderr}");

    slowed.store(false, Ordering::SeqCst);
    let (code, stderr) = run(home, &mock, &["run", "--no-cache", "--resume", out.to_str().unwrap()], &[]).await;
    assert_eq!(code, Some(0), "the killed shard resumes: {stderr}");
    let merged = home.join("merged");
    let (code, stderr) = merge(home, &[&out, &other_dir], &merged);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(answers(&state(&merged)).iter().all(|(id, _, answer, _)| *answer == Some(Value::from(expected(id)))));

    // A shard missing: exit 1, named with its questions; the merged run's --resume finishes them.
    let partial = home.join("partial");
    let (code, stderr) = merge(home, &[&other_dir], &partial);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains(&format!("1 of 2 shards whole; missing: {killed}/2")), "{stderr}");
    for id in share(killed) {
        assert!(stderr.contains(&id), "{id} named: {stderr}");
    }
    let (code, stderr) = run(home, &mock, &["run", "--no-cache", "--resume", partial.to_str().unwrap()], &[]).await;
    assert_eq!(code, Some(0), "the merged run's resume finishes the missing shard's questions: {stderr}");
    assert_eq!(answers(&state(&partial)), answers(&state(&merged)));
}

#[test]
fn bad_shards_are_one_line_and_a_generated_list_is_written_once_then_sharded() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let dataset = common::root().join("sample-data/fraud");
    let offline = |args: &[&str]| {
        let output = common::eval_dag(home)
            .arg("run")
            .arg(&dataset)
            .args(["--headless", "--llm", "offline"])
            .args(args)
            .output()
            .unwrap();
        (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
    };
    for (spec, said) in [("0/3", "K counts from 1"), ("4/3", "K counts from 1"), ("x/y", "expected K/N")] {
        let (code, stderr) = offline(&["--shard", spec]);
        assert_eq!(code, Some(2), "{spec}: {stderr}");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error: ")).collect();
        assert_eq!(errors.len(), 1, "{spec}: {stderr}");
        assert!(errors[0].contains(said), "{spec}: {stderr}");
    }
    let resumed = common::eval_dag(home).args(["run", "--shard", "1/2", "--resume", "x"]).output().unwrap();
    assert_eq!(resumed.status.code(), Some(2));
    let (code, stderr) = offline(&["--shard", "1/2"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--questions-only"), "the hint: {stderr}");

    let list = home.join("list");
    let (code, stderr) = offline(&["--questions-only", "--questions", "6", "--out", list.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!list.join("trace.jsonl").exists(), "no trace");
    let file = list.join("questions.jsonl");
    assert_eq!(read_questions_file(&file).unwrap().len(), 6);
    let mut shards = Vec::new();
    for index in ["0", "1"] {
        let out = home.join(format!("auto{index}"));
        let output = common::eval_dag(home)
            .arg("run")
            .arg(&dataset)
            .args(["--headless", "--llm", "offline", "--shard", "auto/2", "--questions-file"])
            .arg(&file)
            .arg("--out")
            .arg(&out)
            .env("JOB_COMPLETION_INDEX", index)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(matches!(output.status.code(), Some(0 | 1)), "{stderr}");
        let shard = Trace::read(&out.join("trace.jsonl")).unwrap().header.settings.shard.unwrap();
        assert_eq!(shard.index, index.parse::<u32>().unwrap() + 1);
        // The shard's list is the generated one, byte for byte.
        assert_eq!(std::fs::read(out.join("questions.jsonl")).unwrap(), std::fs::read(&file).unwrap());
        shards.push(out);
    }
    let merged = home.join("merged");
    let (code, stderr) = merge(home, &[&shards[0], &shards[1]], &merged);
    assert_eq!(code, Some(0), "whole: {stderr}");
    let ids: Vec<String> = state(&merged).questions.iter().map(|q| q.question.id.to_string()).collect();
    let listed: Vec<String> =
        read_questions_file(&file).unwrap().into_iter().map(|s| s.question.id.to_string()).collect();
    assert_eq!(ids, listed, "the whole list, in list order");
}

/// `eval-dag run BENCH --batch EXTRA --out OUT` against `batches`' OpenAI batch API.
async fn run_batched(home: &Path, batches: &MockBatch, bench: &Path, extra: &[&str], out: &Path) {
    let output = tokio::process::Command::from(common::eval_dag(home))
        .current_dir(common::root())
        .arg("run")
        .arg(bench)
        .args(["--headless", "--llm", "openai", "--model", "gpt-4o-mini", "--no-cache", "--batch"])
        .args(["--base-url", &batches.base_url()])
        .args(extra)
        .arg("--out")
        .arg(out)
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{extra:?}: {}", String::from_utf8_lossy(&output.stderr));
}

#[tokio::test(flavor = "multi_thread")]
async fn batched_shards_merge_to_what_the_batched_whole_run_gives() {
    let batches = MockBatch::openai(Behaviour { polls: 1, ..Behaviour::default() }, script(None)).await;
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let bench = home.join("bench");
    write_benchmark(&bench);
    let whole = home.join("whole");
    run_batched(home, &batches, &bench, &[], &whole).await;
    let shards = [home.join("shard1"), home.join("shard2")];
    for (k, out) in shards.iter().enumerate() {
        run_batched(home, &batches, &bench, &["--shard", &format!("{}/2", k + 1)], out).await;
        let state = state(out);
        let ended = state.batches.values().filter(|b| b.ended.is_some()).count();
        assert!(ended > 0 && ended == state.batches.len(), "shard {}: its batches, each ended", k + 1);
        assert!(state.calls.values().all(|call| call.batch_id.is_some()), "shard {}: every call batched", k + 1);
    }
    assert_eq!(batches.live_calls(), 0, "no call went out live");
    let merged = home.join("merged");
    let (code, stderr) = merge(home, &[shards[0].as_path(), shards[1].as_path()], &merged);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(answers(&state(&merged)), answers(&state(&whole)), "the same statuses and answers");
    assert_eq!(rows(&results(&merged)), rows(&results(&whole)));
    let merged_state = state(&merged);
    let in_shards: usize = shards.iter().map(|out| state(out).batches.len()).sum();
    assert_eq!(merged_state.batches.len(), in_shards, "every shard's batches, each under its own id");
    let summary = |dir: &Path| results(dir)["summary"]["batches"].clone();
    for field in ["batches", "batched_calls", "live_calls"] {
        let added: u64 = shards.iter().map(|out| summary(out)[field].as_u64().unwrap()).sum();
        assert_eq!(summary(&merged)[field].as_u64(), Some(added), "summary.batches.{field}");
    }
    let cost: f64 = shards.iter().map(|out| summary(out)["batched_cost_usd"].as_f64().unwrap()).sum();
    let merged_cost = summary(&merged)["batched_cost_usd"].as_f64().unwrap();
    assert!((merged_cost - cost).abs() < 1e-9 && cost > 0.0, "{merged_cost} is the shards' {cost}");
}
