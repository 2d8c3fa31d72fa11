//! People's reviews and agreement through the binary: reviews imported from
//! CSV and JSON Lines into a real offline run, `agreement` in JSON and text,
//! a stale review after the answer changed, bad rows and reviewer names
//! refused in one line with nothing written; κ against scikit-learn's
//! (frozen) and α against the `krippendorff` package on generated reviews;
//! the review screens in a real terminal (one answer, and two runs side by
//! side), then `agreement`; the report's section on reviews, hostile text escaped.

use std::io::Write;
use std::path::Path;
use std::process::Output;

use eval_dag::report::{AgreementTable, krippendorff_alpha};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

use crate::common;
use crate::common::tools::{Tool, python3_with_packages, require};

/// An offline run of six questions on the fraud sample, in `dir/run`.
fn offline_run(dir: &Path) -> std::path::PathBuf {
    let out = dir.join("run");
    let run = common::eval_dag(dir)
        .arg("run")
        .arg(common::root().join("sample-data/fraud"))
        .args(["--headless", "--questions", "6", "--seed", "3", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    out
}

fn eval_dag(dir: &Path, args: &[&str]) -> Output {
    common::eval_dag(dir).args(args).output().unwrap()
}

fn question_ids(run: &Path) -> Vec<String> {
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("eval_results.json")).unwrap()).unwrap();
    results["detailed_results"].as_array().unwrap().iter().map(|r| r["question_id"].as_str().unwrap().into()).collect()
}

#[test]
fn two_reviewers_imported_then_their_agreement_in_json_and_text() {
    let dir = tempfile::tempdir().unwrap();
    let run = offline_run(dir.path());
    let ids = question_ids(&run);
    assert_eq!(ids.len(), 6);
    // ana: right, right, wrong, right, wrong, unsure. bo: right, wrong, wrong, right, wrong, right.
    let csv = dir.path().join("ana.csv");
    let ana = ["right", "right", "wrong", "right", "wrong", "unsure"];
    let mut text = String::from("question_id,verdict,reason,correct_answer\n");
    for (id, verdict) in ids.iter().zip(ana) {
        text.push_str(&format!("{id},{verdict},\"looked at <b>it</b>\nagain\",\n"));
    }
    std::fs::write(&csv, text).unwrap();
    let jsonl = dir.path().join("bo.jsonl");
    let bo = ["right", "wrong", "wrong", "right", "wrong", "right"];
    let lines: Vec<String> = ids
        .iter()
        .zip(bo)
        .map(|(id, verdict)| {
            serde_json::json!({"question_id": id, "verdict": verdict, "correct_answer": {"n": 1}}).to_string()
        })
        .collect();
    std::fs::write(&jsonl, lines.join("\n")).unwrap();
    let run_arg = run.to_str().unwrap();
    for (name, file) in [("ana", &csv), ("bo", &jsonl)] {
        let out = eval_dag(dir.path(), &["review", run_arg, "--reviewer", name, "--import", file.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stderr).contains("6 reviews recorded"));
    }
    let ana_file = std::fs::read_to_string(run.join("reviews/ana.jsonl")).unwrap();
    assert_eq!(ana_file.lines().count(), 6);
    assert!(ana_file.contains("looked at <b>it</b> again"), "a reason is one line");

    let out = eval_dag(dir.path(), &["agreement", run_arg, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let run_report = &report[0];
    assert_eq!(run_report["reviewers"], serde_json::json!(["ana", "bo"]));
    assert_eq!(run_report["items_reviewed"], 6);
    let pair = &run_report["pairs"][0];
    // Both rated five: yes/yes 2, yes/no 1, no/no 2 → po 0.8, pe 0.48, κ = 0.32 / 0.52.
    assert_eq!(pair["unsure"], 1);
    assert_eq!(pair["figure"]["table"], serde_json::json!({"yes_yes": 2, "yes_no": 1, "no_yes": 0, "no_no": 2}));
    assert!((pair["figure"]["kappa"].as_f64().unwrap() - 0.32 / 0.52).abs() < 1e-12);
    assert_eq!(run_report["disputed"].as_array().unwrap().len(), 1, "the second question: right against wrong");
    let critic = run_report["machines"].as_array().unwrap().iter().find(|m| m["machine"] == "critic").unwrap();
    assert!(critic["figure"]["n"].as_u64().unwrap() >= 4);

    let out = eval_dag(dir.path(), &["agreement", run_arg]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("2 reviewers (ana, bo), 6 items reviewed, 0 stale reviews"), "{text}");
    assert!(text.contains("ana vs bo: κ 0.62 [") && text.contains("1 unsure left out"), "{text}");
    assert!(text.contains("disputed (right against wrong): 1: "), "{text}");
}

#[test]
fn a_review_of_an_answer_that_changed_is_stale_and_bad_input_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let run = offline_run(dir.path());
    let ids = question_ids(&run);
    let run_arg = run.to_str().unwrap();
    let file = dir.path().join("one.jsonl");
    std::fs::write(&file, format!("{{\"question_id\": \"{}\", \"verdict\": \"right\"}}\n", ids[0])).unwrap();
    let out = eval_dag(dir.path(), &["review", run_arg, "--reviewer", "cy", "--import", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    // The review as if made of another answer: its hash no longer matches what the run shows.
    let path = run.join("reviews/cy.jsonl");
    let line: Value = serde_json::from_str(std::fs::read_to_string(&path).unwrap().trim()).unwrap();
    let mut changed = line.clone();
    changed["shown_sha256"] = Value::String("0".repeat(64));
    std::fs::write(&path, format!("{changed}\n")).unwrap();
    let out = eval_dag(dir.path(), &["agreement", run_arg, "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((report[0]["stale"].as_u64(), report[0]["items_reviewed"].as_u64()), (Some(1), Some(0)));
    // The later line wins: the review made again of what the run shows counts.
    std::fs::write(&path, format!("{changed}\n{line}\n")).unwrap();
    let report: Value =
        serde_json::from_slice(&eval_dag(dir.path(), &["agreement", run_arg, "--json"]).stdout).unwrap();
    assert_eq!((report[0]["stale"].as_u64(), report[0]["items_reviewed"].as_u64()), (Some(0), Some(1)));

    let before = std::fs::read_to_string(&path).unwrap();
    for (rows, says) in [
        (
            format!(
                "{{\"question_id\": \"{}\", \"verdict\": \"right\"}}\n{{\"question_id\": \"nope\", \"verdict\": \"right\"}}\n",
                ids[0]
            ),
            "one.jsonl:2: the run has no such answer",
        ),
        (
            format!("{{\"question_id\": \"{}\", \"verdict\": \"maybe\"}}\n", ids[0]),
            "one.jsonl:1: verdict \"maybe\" is not right, wrong or unsure",
        ),
    ] {
        std::fs::write(&file, rows).unwrap();
        let out = eval_dag(dir.path(), &["review", run_arg, "--reviewer", "cy", "--import", file.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!((out.status.code(), stderr.trim().lines().count()), (Some(2), 1), "{stderr}");
        assert!(stderr.contains(says), "{stderr}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), before, "nothing written");
    }
    for name in ["../x", "a/b", ".."] {
        let out = eval_dag(dir.path(), &["review", run_arg, "--reviewer", name, "--import", file.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("is not 1 to 64 letters"), "{stderr}");
    }
    assert!(!dir.path().join("x.jsonl").exists() && !run.join("x.jsonl").exists());
}

#[test]
fn kappa_equals_scikit_learns_on_generated_pairs() {
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(common::root().join("tests/fixtures/agreement/kappa_sklearn.json")).unwrap(),
    )
    .unwrap();
    for case in fixture["cases"].as_array().unwrap() {
        let side = |key: &str| case[key].as_array().unwrap().iter().map(|v| v.as_bool().unwrap()).collect::<Vec<_>>();
        let table = AgreementTable::of(side("first").into_iter().zip(side("second")));
        match case["kappa"].as_f64() {
            Some(expected) => assert!((table.kappa().unwrap() - expected).abs() < 1e-12, "{case}"),
            None => assert_eq!(table.kappa(), None, "{case}"),
        }
    }
}

#[test]
fn alpha_equals_the_krippendorff_package_on_generated_reviews_with_gaps() {
    if !require(Tool::PythonPackages) {
        return;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(65);
    // 40 sets of raters × units, each value missing one time in three.
    let sets: Vec<Vec<Vec<Option<u8>>>> = (0..40)
        .map(|_| {
            let (raters, units) = (rng.random_range(2..6), rng.random_range(3..30));
            (0..raters)
                .map(|_| (0..units).map(|_| (rng.random_range(0..3) > 0).then(|| rng.random_range(0..2u8))).collect())
                .collect()
        })
        .collect();
    let script = "import json, sys, numpy, krippendorff\n\
        out = []\n\
        for data in json.load(sys.stdin):\n\
        \x20   d = numpy.array([[numpy.nan if v is None else v for v in r] for r in data], dtype=float)\n\
        \x20   try:\n\
        \x20       out.append(float(krippendorff.alpha(reliability_data=d, level_of_measurement='nominal')))\n\
        \x20   except (ValueError, ZeroDivisionError):\n\
        \x20       out.append(None)\n\
        print(json.dumps([None if a != a else a for a in out]))\n";
    let mut child = python3_with_packages()
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(serde_json::to_string(&sets).unwrap().as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    let expected: Vec<Option<f64>> = serde_json::from_slice(&output.stdout).unwrap();
    for (set, want) in sets.iter().zip(expected) {
        let units: Vec<Vec<u8>> =
            (0..set[0].len()).map(|u| set.iter().filter_map(|rater| rater[u]).collect()).collect();
        let got = krippendorff_alpha(&units).alpha;
        match (got, want) {
            (Some(got), Some(want)) => assert!((got - want).abs() < 1e-9, "{got} {want} {set:?}"),
            (None, None) => {}
            (got, want) => panic!("ours {got:?}, the package's {want:?}: {set:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn where_nothing_surer_grades_a_question_compare_counts_what_people_said() {
    let mock = super::harness_cache::mock(2).await;
    let home = tempfile::tempdir().unwrap();
    let run = home.path().join("run");
    let ran =
        super::harness_cache::finish(super::harness_cache::command(&mock, home.path(), "run", 2, &[]), &run).await;
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let results = &ran.results["detailed_results"];
    assert!(results.as_array().unwrap().iter().all(|r| r["expected_answer"].is_null()), "no expected answers");
    let run_arg = run.to_str().unwrap();
    let compare = |home: &Path| -> Value {
        let out = eval_dag(home, &["compare", run_arg, run_arg, "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    assert_eq!(compare(home.path())["frontier"]["basis"], "pass_rate", "nothing graded yet");
    let ids = question_ids(&run);
    let file = home.path().join("people.jsonl");
    let rows = format!(
        "{{\"question_id\": \"{}\", \"verdict\": \"right\"}}\n{{\"question_id\": \"{}\", \"verdict\": \"wrong\"}}\n",
        ids[0], ids[1]
    );
    std::fs::write(&file, rows).unwrap();
    for name in ["ana", "bo"] {
        let out = eval_dag(home.path(), &["review", run_arg, "--reviewer", name, "--import", file.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let compared = compare(home.path());
    let frontier = &compared["frontier"];
    assert_eq!((frontier["basis"].as_str(), frontier["points"][0]["accuracy"].as_f64()), (Some("graded"), Some(0.5)));
    let out = eval_dag(home.path(), &["compare", run_arg, run_arg, run_arg, "--json"]);
    let matrix: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(matrix["runs"][0]["accuracy"].as_f64(), Some(0.5), "the run's accuracy is the people's");
    let second = matrix["questions"].as_array().unwrap().iter().find(|q| q["question_id"] == ids[1].as_str()).unwrap();
    assert_eq!(second["runs"][0]["correct"], Value::Bool(false), "{second}");
}

#[test]
fn two_reviewers_on_the_review_screen_in_a_real_terminal_then_their_agreement() {
    let Some(session) = common::tmux::session("review") else { return };
    let dir = tempfile::tempdir().unwrap();
    let run = offline_run(dir.path());
    for (name, keys) in [("ana", ["r", "r", "w", "r", "w", "u"]), ("bo", ["r", "w", "w", "r", "w", "r"])] {
        common::tmux::tmux(&["send-keys", "-t", &session, "clear", "Enter"]);
        common::tmux::run(&session, &format!("review {} --reviewer {name}", run.display()));
        let screen = common::tmux::wait_for_all(&session, &["answer 1 of 6", "0 / 6"]);
        assert!(!screen.contains("passed") && screen.contains("stay hidden"), "blind: {screen}");
        for key in keys {
            common::tmux::tmux(&["send-keys", "-t", &session, key]);
        }
        common::tmux::wait_for(&session, "6 / 6");
        common::tmux::tmux(&["send-keys", "-t", &session, "q"]);
        common::tmux::wait_for(&session, "EXITED-0");
    }
    let out = eval_dag(dir.path(), &["agreement", run.to_str().unwrap(), "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pair = &report[0]["pairs"][0];
    assert_eq!(
        pair["figure"]["table"],
        serde_json::json!({"yes_yes": 2, "yes_no": 1, "no_yes": 0, "no_no": 2}),
        "{report}"
    );
    assert_eq!(pair["unsure"], 1);
}

#[test]
fn pairwise_reviews_on_the_side_by_side_screen_in_a_real_terminal_then_their_tally() {
    let Some(session) = common::tmux::session("pairwise") else { return };
    let dir = tempfile::tempdir().unwrap();
    let run = offline_run(dir.path());
    let other = dir.path().join("other");
    let copied = std::process::Command::new("cp").arg("-r").arg(&run).arg(&other).status().unwrap();
    assert!(copied.success());
    common::tmux::run(&session, &format!("review {} {} --reviewer ann", run.display(), other.display()));
    let screen = common::tmux::wait_for_all(&session, &["side by side · reviewer ann", "0 / 6"]);
    assert!(!screen.contains(&other.display().to_string()), "the runs' names are hidden: {screen}");
    // Left better, right better, a tie, both wrong, left better, a tie.
    for key in ["1", "2", "t", "x", "1", "t"] {
        common::tmux::tmux(&["send-keys", "-t", &session, key]);
    }
    common::tmux::wait_for(&session, "6 / 6");
    common::tmux::tmux(&["send-keys", "-t", &session, "q"]);
    common::tmux::wait_for(&session, "EXITED-0");
    let written = std::fs::read_to_string(run.join("reviews/ann.jsonl")).unwrap();
    assert_eq!(written.lines().count(), 6, "one line per verdict, under the first run: {written}");
    assert!(!other.join("reviews").exists(), "nothing written under the other run");
    let out = eval_dag(dir.path(), &["agreement", run.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let tally = &report[0]["pairwise"][0];
    assert_eq!(tally["other_run"], Value::String(other.display().to_string()), "{report}");
    assert_eq!(tally["reviews"], 6, "{report}");
    assert_eq!(tally["wins"].as_u64().unwrap() + tally["losses"].as_u64().unwrap(), 3, "{report}");
    assert_eq!((tally["ties"].as_u64(), tally["both_wrong"].as_u64()), (Some(2), Some(1)), "{report}");
    assert!(tally["sign_test_p"].as_f64().unwrap() > 0.0, "{report}");
}

#[test]
fn the_report_has_a_section_on_peoples_reviews_with_hostile_text_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let run = offline_run(dir.path());
    let hostile = "<script>alert(1)</script> & \u{202e}evil";
    for (name, verdicts) in [("ana", ["right", "right", "wrong"]), ("bo", ["right", "wrong", "wrong"])] {
        let lines: Vec<String> = question_ids(&run)
            .iter()
            .zip(verdicts)
            .map(|(id, verdict)| {
                serde_json::json!({"question_id": id, "verdict": verdict, "reason": hostile}).to_string()
            })
            .collect();
        let file = dir.path().join(format!("{name}.jsonl"));
        std::fs::write(&file, lines.join("\n")).unwrap();
        let args = ["review", run.to_str().unwrap(), "--reviewer", name, "--import", file.to_str().unwrap()];
        assert_eq!(eval_dag(dir.path(), &args).status.code(), Some(0));
    }
    let page = dir.path().join("page.html");
    let out = eval_dag(dir.path(), &["report", run.to_str().unwrap(), "--out", page.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    let section = &html[html.find("<section class=\"reviews\"").expect("the section is drawn")..];
    let section = &section[..section.find("</section>").unwrap()];
    assert!(section.contains("2 reviewers (ana, bo) reviewed 3 items"), "{section}");
    assert!(section.contains("<td>ana vs bo</td><td>3</td><td>67%</td>"), "κ per pair with n and agreement: {section}");
    assert!(section.contains("α (nominal)"), "{section}");
    assert!(section.contains("<td>critic vs people</td>"), "each machine against people: {section}");
    assert!(section.contains("To adjudicate"), "the disputed item is listed: {section}");
    assert!(section.contains("ana: right — &lt;script&gt;alert(1)&lt;&#x2f;script&gt; &amp;"), "{section}");
    assert!(!section.contains("<script>"), "hostile text is escaped: {section}");
    // Without reviews the section is not drawn.
    let bare = dir.path().join("bare");
    std::fs::create_dir(&bare).unwrap();
    std::fs::copy(run.join("trace.jsonl"), bare.join("trace.jsonl")).unwrap();
    let out = eval_dag(dir.path(), &["report", bare.to_str().unwrap(), "--out", page.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!std::fs::read_to_string(&page).unwrap().contains("class=\"reviews\""));
}

/// Import `verdicts` (one per question of `run`) as `name`'s reviews.
fn import_verdicts(dir: &Path, run: &Path, name: &str, verdicts: &[&str]) {
    let file = dir.join(format!("{name}.csv"));
    let rows: String =
        question_ids(run).iter().zip(verdicts).map(|(id, verdict)| format!("{id},{verdict}\n")).collect();
    std::fs::write(&file, format!("question_id,verdict\n{rows}")).unwrap();
    let args = ["review", run.to_str().unwrap(), "--reviewer", name, "--import", file.to_str().unwrap()];
    assert_eq!(eval_dag(dir, &args).status.code(), Some(0));
}

#[test]
fn grade_takes_what_people_said_where_no_expected_answer_grades_and_names_a_contradiction() {
    let dir = tempfile::tempdir().unwrap();
    let planned = offline_run(dir.path());
    let grade = |run: &Path| eval_dag(dir.path(), &["grade", run.to_str().unwrap()]);
    // The offline planner knows its answers: people calling one wrong contradict its expected answer.
    import_verdicts(dir.path(), &planned, "ana", &["right", "right", "wrong", "right", "right", "right"]);
    let graded = grade(&planned);
    let stdout = String::from_utf8_lossy(&graded.stdout);
    let third = &question_ids(&planned)[2];
    let line = format!("{third}: people say wrong, its expected answer says right — a label or scorer problem");
    assert!(stdout.contains(&line) && !stdout.contains("reviewed by"), "{stdout}");
    assert_eq!(graded.status.code(), Some(0), "the expected answers decide: {stdout}");

    // The same questions asked without their answers: people grade them.
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(planned.join("eval_results.json")).unwrap()).unwrap();
    let questions: String = results["detailed_results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{}\n", serde_json::json!({"id": r["question_id"], "question": r["question"], "difficulty": r["difficulty_level"]})))
        .collect();
    let file = dir.path().join("questions.jsonl");
    std::fs::write(&file, questions).unwrap();
    let run = dir.path().join("asked");
    let args = [
        "run",
        "sample-data/fraud",
        "--headless",
        "--questions-file",
        file.to_str().unwrap(),
        "--out",
        run.to_str().unwrap(),
    ];
    let output = common::eval_dag(dir.path()).current_dir(common::root()).args(args).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&grade(&run).stdout).contains("nothing to grade"));
    import_verdicts(dir.path(), &run, "ana", &["right", "right", "wrong", "right", "right", "right"]);
    let graded = grade(&run);
    let stdout = String::from_utf8_lossy(&graded.stdout);
    assert_eq!(graded.status.code(), Some(1), "one answer people call wrong: {stdout}");
    assert_eq!(stdout.matches("reviewed by 1 person").count(), 6, "{stdout}");
    assert!(stdout.contains("reviews: 6 answers by 1 reviewer (0 stale, not counted)"), "{stdout}");
    // A second reviewer calls it right: split, nobody's verdict grades it, and the rest are right.
    import_verdicts(dir.path(), &run, "bo", &["right"; 6]);
    let split = grade(&run);
    let stdout = String::from_utf8_lossy(&split.stdout);
    assert_eq!(split.status.code(), Some(0), "{stdout}");
    assert_eq!(stdout.matches("reviewed by 2 people").count(), 5, "{stdout}");
}

#[test]
fn a_recriticised_run_reads_its_sources_reviews_of_the_answers_it_still_shows() {
    let dir = tempfile::tempdir().unwrap();
    let run = offline_run(dir.path());
    import_verdicts(dir.path(), &run, "ana", &["right", "wrong", "right"]);
    let derived = dir.path().join("recritic");
    let args = ["recritic", run.to_str().unwrap(), "--llm", "offline", "--out", derived.to_str().unwrap()];
    let output = eval_dag(dir.path(), &args);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let agreement = eval_dag(dir.path(), &["agreement", derived.to_str().unwrap(), "--json"]);
    let figures: Value = serde_json::from_slice(&agreement.stdout).unwrap();
    assert_eq!(figures[0]["reviewers"], serde_json::json!(["ana"]), "{figures}");
    assert_eq!((figures[0]["items_reviewed"].as_u64(), figures[0]["stale"].as_u64()), (Some(3), Some(0)));
    assert!(!derived.join("reviews").exists(), "a run never writes another run's reviews");
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(derived.join("eval_results.json")).unwrap()).unwrap();
    let reviews = &results["summary"]["reviews"];
    assert_eq!(
        (&reviews["reviewers"], reviews["items_reviewed"].as_u64()),
        (&serde_json::json!(["ana"]), Some(3)),
        "{reviews}"
    );
    assert!(reviews["machines"].as_array().is_some_and(|m| !m.is_empty()), "the machines against people: {reviews}");
    let plain: Value = serde_json::from_str(&std::fs::read_to_string(run.join("eval_results.json")).unwrap()).unwrap();
    assert!(plain["summary"].get("reviews").is_none(), "written before anyone reviewed: no reviews");
}
