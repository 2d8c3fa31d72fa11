//! Every earlier trace version stays readable: a frozen fixture per version
//! reads to the same events as the current recording of the same run, and
//! continuing an older trace rewrites it in the current version first.

use crate::common;

use eval_dag::domain::{LlmRole, Provider, RoleModel};
use eval_dag::run::EngineEvent;
use eval_dag::trace::{TRACE_VERSION, Trace, TraceWriter};

/// The scripted sample run as version 1 wrote it (never regenerated).
const V1_FIXTURE: &str = "tests/fixtures/traces/v1-fraud-scripted.trace.jsonl";
/// The same run as version 2 wrote it (never regenerated).
const V2_FIXTURE: &str = "tests/fixtures/traces/v2-fraud-scripted.trace.jsonl";
/// The same run as version 3 wrote it (never regenerated).
const V3_FIXTURE: &str = "tests/fixtures/traces/v3-fraud-scripted.trace.jsonl";
/// The same run as version 4 wrote it (never regenerated).
const V4_FIXTURE: &str = "tests/fixtures/traces/v4-fraud-scripted.trace.jsonl";
/// The same run as version 5 wrote it (never regenerated).
const V5_FIXTURE: &str = "tests/fixtures/traces/v5-fraud-scripted.trace.jsonl";
/// The same run as version 6 wrote it (never regenerated).
const V6_FIXTURE: &str = "tests/fixtures/traces/v6-fraud-scripted.trace.jsonl";
/// The same run as version 7 wrote it (never regenerated).
const V7_FIXTURE: &str = "tests/fixtures/traces/v7-fraud-scripted.trace.jsonl";
/// The same run in the current version.
const SAMPLE: &str = "sample-data/traces/fraud-scripted.trace.jsonl";

fn events(trace: &Trace) -> Vec<(u64, u64, EngineEvent)> {
    trace.records.iter().map(|r| (r.seq, r.t_ms, r.event.clone())).collect()
}

/// The frozen trace of `version` at `fixture`, read: the whole sample run, with
/// the current sample's settings and every event as the current version records it.
fn frozen_reads_as_the_sample(fixture: &str, version: u32) -> Trace {
    let old = Trace::read(&common::root().join(fixture)).unwrap();
    let current = Trace::read(&common::root().join(SAMPLE)).unwrap();
    assert_eq!((old.header.version, current.header.version), (version, TRACE_VERSION));
    assert_eq!(old.header.settings, current.header.settings);
    assert_eq!(old.records.len(), 71, "the fixture is the whole sample run");
    assert_eq!(events(&old), events(&current), "every v{version} event reads as the event v{TRACE_VERSION} records");
    old
}

#[test]
fn the_frozen_version_1_trace_reads_to_the_same_events_as_the_current_sample() {
    frozen_reads_as_the_sample(V1_FIXTURE, 1);
}

#[test]
fn the_frozen_version_2_trace_reads_to_the_same_events_as_the_current_sample() {
    frozen_reads_as_the_sample(V2_FIXTURE, 2);
}

#[test]
fn the_frozen_version_3_trace_reads_to_the_same_events_as_the_current_sample_with_no_cached_tokens() {
    let v3 = frozen_reads_as_the_sample(V3_FIXTURE, 3);
    let finished = v3.records.iter().filter_map(|r| match &r.event {
        EngineEvent::LlmCallFinished { usage, .. } => Some(usage),
        _ => None,
    });
    assert!(finished.clone().count() > 0 && finished.clone().all(|u| u.cached_tokens == 0 && u.prompt_tokens > 0));
}

#[test]
fn the_frozen_version_4_trace_reads_with_every_role_played_by_its_one_model() {
    let v4 = frozen_reads_as_the_sample(V4_FIXTURE, 4);
    let roles = &v4.header.settings.roles;
    // The roles a run had before version 5: the baseline role came with version 7 and is listed only in a run with baselines.
    let mut before_v5 = LlmRole::ALL.iter().filter(|role| **role != LlmRole::Baseline);
    assert!(before_v5.all(|role| roles.contains_key(role)) && roles.len() == 5, "{roles:?}");
    let single = RoleModel { provider: "openai".into(), model: "scripted-model".into(), base_url: None };
    assert!(roles.values().all(|played| *played == single), "{roles:?}");
    let providers: Vec<&str> = v4
        .records
        .iter()
        .filter_map(|r| match &r.event {
            EngineEvent::LlmCallStarted { provider, model, .. } => {
                assert_eq!(model, "scripted-model");
                Some(provider.name())
            }
            _ => None,
        })
        .collect();
    assert!(!providers.is_empty() && providers.iter().all(|p| *p == "openai"), "{providers:?}");
}

#[test]
fn the_frozen_version_5_trace_reads_as_it_is_with_every_location_in_epoch_1_draft_1() {
    let v5 = frozen_reads_as_the_sample(V5_FIXTURE, 5);
    let mut keys = 0;
    for record in &v5.records {
        match &record.event {
            EngineEvent::LlmCallFinished { key, finish_reason, from_cache, estimated, .. } => {
                assert_eq!((key.epoch, key.draft, key.repair), (1, 1, 0));
                assert_eq!((finish_reason, from_cache, estimated), (&None, &false, &false));
                keys += 1;
            }
            EngineEvent::StageStarted { at, .. } => assert_eq!((at.epoch, at.draft), (1, 1)),
            _ => {}
        }
    }
    assert!(keys > 0);
}

#[test]
fn the_frozen_version_6_trace_reads_as_it_is_with_no_batch_shard_or_baseline() {
    let v6 = frozen_reads_as_the_sample(V6_FIXTURE, 6);
    let settings = &v6.header.settings;
    assert_eq!((&settings.shard, settings.baselines), (&None, false));
    assert!(!settings.roles.contains_key(&LlmRole::Baseline), "a run without baselines lists no baseline role");
    assert!(v6.header.merged_from.is_empty());
    for record in &v6.records {
        match &record.event {
            EngineEvent::LlmCallFinished { key, batch_id, .. } => assert_eq!((&key.baseline, batch_id), (&None, &None)),
            EngineEvent::BatchSubmitted { .. } | EngineEvent::BatchEnded { .. } => panic!("no batch in version 6"),
            _ => {}
        }
    }
}

/// Continue the frozen trace of `version` at `fixture`: only its header's version changes, and the original is kept.
fn continuing_rewrites_only_the_header_version(fixture: &str, version: u32) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    let original = std::fs::read_to_string(common::root().join(fixture)).unwrap();
    std::fs::write(&path, &original).unwrap();
    let before = Trace::read(&path).unwrap();
    drop(TraceWriter::append(&path, &before).unwrap());
    let after = std::fs::read_to_string(&path).unwrap();
    let (old_header, old_events) = original.split_once('\n').unwrap();
    let (new_header, new_events) = after.split_once('\n').unwrap();
    assert_eq!(new_events, old_events, "the current version writes version {version}'s events byte for byte");
    let old_version = format!("\"version\":{version}");
    assert_eq!(new_header, old_header.replacen(&old_version, &format!("\"version\":{TRACE_VERSION}"), 1));
    let kept = std::fs::read_to_string(dir.path().join(format!("trace.jsonl.v{version}"))).unwrap();
    assert_eq!(kept, original, "the v{version} file is kept as it was");
}

#[test]
fn the_frozen_version_7_trace_reads_as_it_is_with_no_run_clock() {
    let trace = frozen_reads_as_the_sample(V7_FIXTURE, 7);
    assert_eq!(trace.header.settings.now, None, "node code of a version-7 run read the machine's clock");
}

#[test]
fn continuing_a_version_7_trace_rewrites_only_its_header_version() {
    continuing_rewrites_only_the_header_version(V7_FIXTURE, 7);
}

#[test]
fn continuing_a_version_6_trace_rewrites_only_its_header_version() {
    continuing_rewrites_only_the_header_version(V6_FIXTURE, 6);
}

#[test]
fn continuing_a_version_5_trace_rewrites_only_its_header_version() {
    continuing_rewrites_only_the_header_version(V5_FIXTURE, 5);
}

#[test]
fn continuing_a_version_1_trace_rewrites_it_in_the_current_version_and_keeps_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    let original = std::fs::read(common::root().join(V1_FIXTURE)).unwrap();
    std::fs::write(&path, &original).unwrap();
    let before = Trace::read(&path).unwrap();
    let mut writer = TraceWriter::append(&path, &before).unwrap();
    writer.record(999_999, &EngineEvent::RunFailed { error: "appended after the upgrade".into() }).unwrap();
    drop(writer);
    assert_eq!(std::fs::read(dir.path().join("trace.jsonl.v1")).unwrap(), original, "the v1 file is kept as it was");
    let after = Trace::read(&path).unwrap();
    assert_eq!(after.header.version, TRACE_VERSION, "one file, one version");
    assert_eq!(after.header.created_at, before.header.created_at);
    let (old, new) = after.records.split_at(before.records.len());
    assert_eq!(events(&before), events(&Trace { records: old.to_vec(), ..after.clone() }));
    assert_eq!(new.len(), 1);
    assert_eq!((new[0].seq, new[0].t_ms), (before.records.len() as u64, 999_999));
    assert!(!dir.path().join("trace.upgrading").exists(), "no partial file left behind");
    if let Some(target) = std::env::var_os("UPGRADE_SAMPLE_TRACE_TO") {
        // Regenerates the sample in the current version from the frozen v1 run.
        let mut upgraded = std::fs::read_to_string(&path).unwrap();
        upgraded.truncate(upgraded.trim_end().rfind('\n').unwrap() + 1);
        std::fs::write(target, upgraded).unwrap();
    }
}

#[test]
fn a_newer_trace_is_read_with_its_unknown_kinds_skipped_said_once_and_never_appended_to() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    let sample = std::fs::read_to_string(common::root().join(SAMPLE)).unwrap();
    let mut lines = sample.lines();
    let mut header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    header["version"] = (TRACE_VERSION + 1).into();
    let mut text = format!("{header}\n");
    for (i, line) in lines.enumerate() {
        text.push_str(line);
        text.push('\n');
        if i % 30 == 0 {
            // A kind from the future, and a known kind with a field added.
            text.push_str(r#"{"seq":0,"t_ms":0,"event":{"type":"critic_recheck","verdict":"right"}}"#);
            text.push('\n');
        }
    }
    std::fs::write(&path, text).unwrap();
    let trace = Trace::read(&path).unwrap();
    let current = Trace::read(&common::root().join(SAMPLE)).unwrap();
    assert_eq!(events(&trace), events(&current), "every known event is read");
    assert_eq!(trace.skipped.get("critic_recheck"), Some(&3));
    let note = trace.newer_version_note().unwrap();
    assert!(note.contains("skipped critic_recheck ×3"), "{note}");
    assert!(TraceWriter::append(&path, &trace).unwrap_err().to_string().contains("is newer than this eval-dag"));

    let home = tempfile::tempdir().unwrap();
    let out = common::eval_dag(home.path()).args(["replay", "--headless"]).arg(&path).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "exits like the run (one answer graded wrong): {stderr}");
    assert_eq!(stderr.matches("is newer than this eval-dag").count(), 1, "said once: {stderr}");
}

#[test]
fn a_trace_naming_a_provider_this_version_does_not_know_loads_and_is_written_back_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    let sample = std::fs::read_to_string(common::root().join(SAMPLE)).unwrap();
    let text = sample.replace("\"provider\":\"openai\"", "\"provider\":\"mistral-local\"");
    assert_eq!(text.matches("mistral-local").count(), sample.matches("\"provider\"").count(), "every provider renamed");
    std::fs::write(&path, &text).unwrap();
    let trace = Trace::read(&path).unwrap();
    let unknown = Provider::Other("mistral-local".into());
    let settings = &trace.header.settings;
    assert_eq!((&settings.provider, settings.provider.kind()), (&unknown, None));
    assert!(LlmRole::ALL.iter().all(|role| settings.role(*role).provider == unknown));
    let calls = trace.records.iter().filter_map(|r| match &r.event {
        EngineEvent::LlmCallStarted { provider, .. } => Some(provider.name()),
        _ => None,
    });
    assert!(calls.clone().count() > 0 && calls.clone().all(|name| name == "mistral-local"));

    let copy = dir.path().join("copy.jsonl");
    let mut writer = TraceWriter::create(&copy, &trace.header).unwrap();
    trace.records.iter().for_each(|r| writer.record(r.t_ms, &r.event).unwrap());
    drop(writer);
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), text, "written back as it was read");

    let home = tempfile::tempdir().unwrap();
    let out = common::eval_dag(home.path()).args(["replay", "--headless"]).arg(&path).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "replays like the run (one answer graded wrong): {stdout}");
    assert!(stdout.contains("via mistral-local"), "the run's provider as recorded: {stdout}");
}
