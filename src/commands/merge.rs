//! `eval-dag merge SHARD_DIR… --out DIR`: the shards of one run (`run
//! --shard K/N`) joined into one run directory — its trace streamed shard by
//! shard (`trace::MergedTrace`), then `eval_results.json` and the report
//! written from the merged run as for any run, and the whole question list
//! beside them.
//!
//! Exit 0 when every shard is there and finished; 1 when shards are missing
//! or unfinished (their questions count as unfinished, and `run --resume` of
//! the merged run finishes them); 2, with one line, when the shards are not
//! of one run, a shard is given twice, or a directory is not a shard.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use crate::cli::MergeArgs;
use crate::domain::shard::{QUESTIONS_FILE, shard_of};
use crate::domain::{MergedShard, Question, Shard, sha256_hex_of};
use crate::grade::read_questions_file;
use crate::run::{DatasetRef, EngineEvent, RunSettings, RunState};
use crate::text::plural;
use crate::trace::{MergedTrace, ShardEnd, TraceHeader, TraceScan, settings_differ};

/// One shard given to `merge`.
struct ShardRun {
    /// Its directory.
    dir: PathBuf,
    /// Its trace.
    trace: PathBuf,
    header: TraceHeader,
    shard: Shard,
}

/// Read the header of the shard in `given` (its directory, or its trace).
fn open_shard(given: &Path) -> anyhow::Result<ShardRun> {
    let (dir, trace) = match given.is_file() {
        true => (given.parent().unwrap_or(Path::new(".")).to_path_buf(), given.to_path_buf()),
        false => (given.to_path_buf(), given.join("trace.jsonl")),
    };
    let header = TraceScan::open(&trace)?.header;
    let shard = header
        .settings
        .shard
        .clone()
        .with_context(|| format!("{} is not a shard: its run was not started with --shard K/N", dir.display()))?;
    Ok(ShardRun { dir, trace, header, shard })
}

/// The shards given, in shard order, refused unless they split one run, each once.
fn open_shards(given: &[PathBuf]) -> anyhow::Result<Vec<ShardRun>> {
    let mut shards = given.iter().map(|path| open_shard(path)).collect::<anyhow::Result<Vec<_>>>()?;
    shards.sort_by_key(|shard| shard.shard.index);
    for pair in shards.windows(2) {
        if pair[0].shard.index == pair[1].shard.index {
            anyhow::bail!(
                "shard {} is given twice: {} and {}",
                pair[0].shard,
                pair[0].dir.display(),
                pair[1].dir.display()
            );
        }
    }
    let first = &shards[0];
    for other in &shards[1..] {
        if let Some(difference) = settings_differ(&first.header.settings, &other.header.settings) {
            anyhow::bail!(
                "{} and {} are not shards of one run ({difference})",
                first.dir.display(),
                other.dir.display()
            );
        }
    }
    Ok(shards)
}

/// The whole question list, from the first shard's `questions.jsonl`,
/// refused when it is not the list the shards ran.
fn whole_list(first: &ShardRun) -> anyhow::Result<Vec<Question>> {
    let path = first.dir.join(QUESTIONS_FILE);
    let file =
        File::open(&path).with_context(|| format!("cannot read the shard's question list {}", path.display()))?;
    let hash = sha256_hex_of(file).with_context(|| format!("cannot read {}", path.display()))?;
    if hash != first.shard.questions_hash {
        anyhow::bail!("{} is not the list the shard ran (its SHA-256 is not the run's questions_hash)", path.display());
    }
    Ok(read_questions_file(&path)?.into_iter().map(|spec| spec.question).collect())
}

/// The merged run's settings: the first shard's, without `shard`, budget or
/// step, over every dataset the shards name (in the order of their first
/// question) and the whole list.
fn merged_settings(shards: &[ShardRun], questions: &[Question]) -> RunSettings {
    let mut settings = shards[0].header.settings.clone();
    let named: Vec<&DatasetRef> = shards.iter().flat_map(|shard| &shard.header.settings.datasets).collect();
    let mut datasets: Vec<DatasetRef> = Vec::new();
    for name in questions.iter().filter_map(|q| q.dataset.as_ref()) {
        if !datasets.iter().any(|d| &d.name == name)
            && let Some(found) = named.iter().find(|d| &d.name == name)
        {
            datasets.push((*found).clone());
        }
    }
    if !datasets.is_empty() {
        settings.dataset_hash =
            super::datasets::combined_hash(datasets.iter().map(|d| (d.name.as_str(), d.hash.as_str())));
        settings.datasets = datasets;
    }
    RunSettings { questions: questions.len() as u32, shard: None, budget: None, step: false, ..settings }
}

/// The merged trace in `out`, streamed, and the run folded from it with how each shard ended.
fn write_merged(
    shards: &[ShardRun],
    questions: Vec<Question>,
    out: &Path,
) -> anyhow::Result<(RunState, Vec<ShardEnd>)> {
    let settings = merged_settings(shards, &questions);
    let mut header = TraceHeader::new(settings.clone());
    for shard in shards {
        let file = File::open(&shard.trace).with_context(|| format!("cannot read {}", shard.trace.display()))?;
        let sha256 = sha256_hex_of(file).with_context(|| format!("cannot read {}", shard.trace.display()))?;
        let path = shard.trace.display().to_string();
        header.merged_from.push(MergedShard { path, sha256, shard: shard.shard.index });
    }
    let mut trace = MergedTrace::create(&out.join("trace.jsonl"), &header)?;
    let mut state = RunState::default();
    let mut fold = |record: crate::trace::TraceRecord| state.apply_owned(record.t_ms, record.event);
    fold(trace.record(0, EngineEvent::RunStarted { settings })?);
    fold(trace.record(0, EngineEvent::QuestionsGenerated { questions })?);
    let ends = shards.iter().map(|shard| trace.append_shard(&shard.trace, &mut fold)).collect::<Result<Vec<_>, _>>()?;
    let end_ms = trace.end_ms;
    let summary = state.summary(end_ms);
    let finished = trace.record(end_ms, EngineEvent::RunFinished { summary })?;
    state.apply_owned(finished.t_ms, finished.event);
    trace.finish()?;
    Ok((state, ends))
}

/// What is missing or unfinished, in one line; `None` when the run is whole.
fn incomplete(shards: &[ShardRun], ends: &[ShardEnd], state: &RunState) -> Option<String> {
    let count = shards[0].shard.count;
    let given: Vec<u32> = shards.iter().map(|shard| shard.shard.index).collect();
    let missing: Vec<String> = (1..=count).filter(|k| !given.contains(k)).map(|k| format!("{k}/{count}")).collect();
    let unfinished_questions: Vec<&crate::run::QuestionState> =
        state.questions.iter().filter(|q| q.status.is_unfinished()).collect();
    let unfinished: Vec<String> = shards
        .iter()
        .zip(ends)
        .filter(|(shard, end)| {
            !end.finished || unfinished_questions.iter().any(|q| shard_of(&q.question, count) == shard.shard.index)
        })
        .map(|(shard, _)| shard.shard.to_string())
        .collect();
    if missing.is_empty() && unfinished.is_empty() {
        return None;
    }
    let whole = shards.len() - unfinished.len();
    let mut line = format!("{whole} of {count} shards whole");
    if !missing.is_empty() {
        line.push_str(&format!("; missing: {}", missing.join(", ")));
    }
    if !unfinished.is_empty() {
        line.push_str(&format!("; unfinished: {}", unfinished.join(", ")));
    }
    let ids: Vec<&str> = unfinished_questions.iter().take(10).map(|q| q.question.id.as_str()).collect();
    let more = if unfinished_questions.len() > ids.len() { ", …" } else { "" };
    let questions = plural(unfinished_questions.len(), "question");
    line.push_str(&format!(" — {questions} unfinished: {}{more}", ids.join(", ")));
    Some(line)
}

/// Run the `merge` subcommand.
pub fn run(args: &MergeArgs) -> anyhow::Result<ExitCode> {
    let shards = open_shards(&args.shards)?;
    let questions = whole_list(&shards[0])?;
    let out = &args.out;
    if out.join("trace.jsonl").exists() {
        anyhow::bail!("{} already holds a run (trace.jsonl); merge into a new directory", out.display());
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create output directory {}", out.display()))?;
    std::fs::copy(shards[0].dir.join(QUESTIONS_FILE), out.join(QUESTIONS_FILE))
        .with_context(|| format!("cannot write {}", out.join(QUESTIONS_FILE).display()))?;
    let (state, ends) = write_merged(&shards, questions, out)?;
    let results = super::results_file::write_results(out, &state)?;
    let report = out.join("eval_report.html");
    let templates = super::report::templates()?;
    super::report::write_report(&report, &templates, &state, out, &chrono::Local::now().fixed_offset())?;
    let mut stderr = std::io::stderr();
    let _ = writeln!(stderr, "merged {}", plural(shards.len(), "shard"));
    let _ = writeln!(stderr, "{}", super::run::summary_line(&state));
    let _ = writeln!(stderr, "results: {}", results.display());
    let _ = writeln!(stderr, "report:  {}", report.display());
    let _ = writeln!(stderr, "trace:   {}", out.join("trace.jsonl").display());
    match incomplete(&shards, &ends, &state) {
        None => Ok(ExitCode::SUCCESS),
        Some(line) => {
            let _ = writeln!(stderr, "{line}");
            let _ = writeln!(stderr, "resume:  eval-dag run --resume {}", out.display());
            Ok(ExitCode::from(1))
        }
    }
}
