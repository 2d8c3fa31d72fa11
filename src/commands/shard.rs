//! `run --shard K/N` and `run --questions-only`: a run's share of a fixed
//! question list, and that list written once for every shard to share.
//!
//! Each shard writes the whole list into its directory as `questions.jsonl`
//! (the `--questions-file` format; its SHA-256 is the shard's
//! `questions_hash`) and runs the questions [`shard_of`] gives it. The list
//! it runs is the one it wrote, read back, so `eval-dag merge` rebuilds the
//! very questions each shard asked from any shard's file.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::domain::shard::{QUESTIONS_FILE, ShardSpec, questions_jsonl, shard_of};
use crate::domain::{Question, Shard, sha256_hex};
use crate::grade::parse_questions_jsonl;

/// What a run that would generate its questions is told when asked to shard.
const NEEDS_A_LIST: &str = "--shard needs a fixed question list (a benchmark directory or --questions-file): \
generate it once with `eval-dag run DATASET --questions-only --out DIR`, then give every shard \
--questions-file DIR/questions.jsonl";

/// The whole list as a questions file and as the questions it reads back as.
fn written_list(questions: &[Question]) -> anyhow::Result<(String, Vec<Question>)> {
    let text = questions_jsonl(questions);
    let read = parse_questions_jsonl(&text, QUESTIONS_FILE).context("the question list cannot be written")?;
    Ok((text, read.into_iter().map(|spec| spec.question).collect()))
}

/// The shard `spec` names (`auto` read from the environment) and its share
/// of `questions`, the run's whole list — written into `out` as
/// `questions.jsonl` unless `dry_run`.
pub(super) fn split(
    spec: ShardSpec,
    questions: Option<Vec<Question>>,
    out: &Path,
    dry_run: bool,
) -> anyhow::Result<(Vec<Question>, Shard)> {
    let index = spec.resolve(|name| std::env::var(name).ok())?;
    let questions = questions.context(NEEDS_A_LIST)?;
    let (text, whole) = written_list(&questions)?;
    let shard = Shard { index, count: spec.count, questions_hash: sha256_hex(text.as_bytes()) };
    if !dry_run {
        write_list(out, &text)?;
    }
    let own = whole.into_iter().filter(|question| shard_of(question, spec.count) == index).collect();
    Ok((own, shard))
}

/// Write `text` as `out/questions.jsonl`, creating `out`.
fn write_list(out: &Path, text: &str) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create output directory {}", out.display()))?;
    let path = out.join(QUESTIONS_FILE);
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// `run --questions-only`: `questions` written into `out`, and where, said on stderr.
pub(super) fn questions_only(out: &Path, questions: &[Question]) -> anyhow::Result<std::process::ExitCode> {
    let (text, _) = written_list(questions)?;
    let path = write_list(out, &text)?;
    eprintln!("{}: {}", crate::text::plural(questions.len(), "question"), path.display());
    eprintln!("run them in shards: eval-dag run DATASET --questions-file {} --shard K/N", path.display());
    Ok(std::process::ExitCode::SUCCESS)
}
