//! `eval-dag merge` at size: a synthetic run of 10,000 questions (the
//! generated trace of `support/synthetic_trace.rs`, light calls) split by
//! question into 100 shard traces as `run --shard K/100` writes them, then
//! merged. Measured: the streamed merge of the traces alone (the library's
//! `MergedTrace`, in a child process so its peak RSS is its own) against `cat`
//! of the same files into one, and the whole `eval-dag merge` command (the
//! trace, then `eval_results.json` and the report from the folded run).
//! Run: `cargo bench --profile dev --bench merge` (`MERGE_BENCH_QUESTIONS`,
//! `MERGE_BENCH_SHARDS` change the size).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a benchmark stops at its first failure")]

#[path = "support/synthetic_trace.rs"]
mod synthetic_trace;

#[path = "support/measure.rs"]
mod measure;

use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use eval_dag::domain::shard::{questions_jsonl, shard_of};
use eval_dag::domain::{Shard, sha256_hex};
use eval_dag::run::{EngineEvent, RunSettings};
use eval_dag::trace::{MergedTrace, Trace, TraceHeader, TraceRecord};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Split the synthetic run in `whole` into `count` shard directories under `dir`.
fn split(whole: &Path, dir: &Path, count: u32) -> Vec<PathBuf> {
    let trace = Trace::read(whole).unwrap();
    let questions = trace
        .records
        .iter()
        .find_map(|r| match &r.event {
            EngineEvent::QuestionsGenerated { questions } => Some(questions.clone()),
            _ => None,
        })
        .unwrap();
    let list = questions_jsonl(&questions);
    let hash = sha256_hex(list.as_bytes());
    let shard_by_id: HashMap<String, u32> = questions.iter().map(|q| (q.id.to_string(), shard_of(q, count))).collect();
    let mut writers = Vec::new();
    let mut dirs = Vec::new();
    for index in 1..=count {
        let shard_dir = dir.join(format!("shard{index}"));
        std::fs::create_dir_all(&shard_dir).unwrap();
        std::fs::write(shard_dir.join("questions.jsonl"), &list).unwrap();
        let shard = Shard { index, count, questions_hash: hash.clone() };
        let settings = RunSettings { shard: Some(shard), ..trace.header.settings.clone() };
        let file = std::fs::File::create(shard_dir.join("trace.jsonl")).unwrap();
        let mut writer = BufWriter::new(file);
        writeln!(writer, "{}", serde_json::to_string(&TraceHeader::new(settings.clone())).unwrap()).unwrap();
        let own: Vec<_> = questions.iter().filter(|q| shard_of(q, count) == index).cloned().collect();
        let start = [EngineEvent::RunStarted { settings }, EngineEvent::QuestionsGenerated { questions: own }];
        writers.push((writer, 0u64, start));
        dirs.push(shard_dir);
    }
    for (writer, seq, start) in &mut writers {
        for event in start.iter() {
            writeln!(
                writer,
                "{}",
                serde_json::to_string(&TraceRecord { seq: *seq, t_ms: 0, event: event.clone() }).unwrap()
            )
            .unwrap();
            *seq += 1;
        }
    }
    for record in trace.records {
        let Some(id) = record.event.question_id() else { continue };
        let (writer, seq, _) = &mut writers[shard_by_id[id.as_str()] as usize - 1];
        writeln!(writer, "{}", serde_json::to_string(&TraceRecord { seq: *seq, ..record }).unwrap()).unwrap();
        *seq += 1;
    }
    dirs
}

/// The streamed merge alone, in the child: `seconds peak_rss_mb events`.
fn child(dir: &str) {
    let dir = Path::new(dir);
    let mut shards: Vec<PathBuf> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    shards.sort();
    let started = Instant::now();
    let header = TraceHeader::new(RunSettings::default());
    let mut merged = MergedTrace::create(&dir.join("streamed.jsonl"), &header).unwrap();
    let mut events = 0u64;
    for shard in &shards {
        events += merged.append_shard(&shard.join("trace.jsonl"), |_| {}).unwrap().events;
    }
    merged.finish().unwrap();
    println!("{:.3} {:.1} {events}", started.elapsed().as_secs_f64(), measure::peak_rss_mb());
}

fn main() {
    if let Ok(dir) = std::env::var("MERGE_BENCH_CHILD") {
        return child(&dir);
    }
    let (questions, count) = (env("MERGE_BENCH_QUESTIONS", 10_000), env("MERGE_BENCH_SHARDS", 100) as u32);
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.jsonl");
    synthetic_trace::write_trace_with(&whole, questions, 1..=2, &synthetic_trace::LIGHT);
    let shards_dir = dir.path().join("shards");
    let shards = split(&whole, &shards_dir, count);
    let bytes: u64 = shards.iter().map(|s| std::fs::metadata(s.join("trace.jsonl")).unwrap().len()).sum();
    println!("{questions} questions in {count} shards: {:.1} MB of shard traces", bytes as f64 / 1e6);

    let started = Instant::now();
    let traces: Vec<PathBuf> = shards.iter().map(|s| s.join("trace.jsonl")).collect();
    let catted = std::fs::File::create(dir.path().join("cat.jsonl")).unwrap();
    assert!(Command::new("cat").args(&traces).stdout(catted).status().unwrap().success());
    println!("cat of the shard traces:         {:.3} s", started.elapsed().as_secs_f64());

    let me = std::env::current_exe().unwrap();
    let out = Command::new(me).env("MERGE_BENCH_CHILD", &shards_dir).output().unwrap();
    let line = String::from_utf8_lossy(&out.stdout);
    let figures: Vec<&str> = line.split_whitespace().collect();
    println!("streamed merge of the traces:    {} s, peak RSS {} MB, {} events", figures[0], figures[1], figures[2]);

    let binary = env!("CARGO_BIN_EXE_eval-dag");
    let started = Instant::now();
    let merged = dir.path().join("merged");
    let status = Command::new(binary).arg("merge").args(&shards).arg("--out").arg(&merged).output().unwrap();
    assert!(status.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&status.stderr));
    println!("eval-dag merge (trace, results, report): {:.3} s", started.elapsed().as_secs_f64());
}
