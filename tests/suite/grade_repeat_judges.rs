//! `grade --repeat-judges R`: every answer judged R times with its own call
//! keys, the majority verdict counted, and each judge's noise floor — how
//! often it disagrees with itself — through the real binary and a judge
//! model that changes its mind on every third call.

use crate::common;
use crate::suite::replay_cli::sample_trace;
use common::mock_llm::{MockLlm, Reply};

const RUBRIC: &str = r#"
name = "plausible"
kind = "rubric"
criteria = "Is the number plausible for the dataset?"
level = [{ score = 0, description = "implausible" }, { score = 4, description = "plausible" }]
"#;

#[tokio::test(flavor = "multi_thread")]
async fn each_answer_is_judged_r_times_and_the_judge_meets_itself() {
    // Answers are judged one after another, R calls each: the third of every three says 0.
    let mock = MockLlm::start(|request, index| {
        assert!(request.prompt().contains("Is the number plausible"), "{}", request.prompt());
        Reply::Text(if index % 3 == 2 { "0" } else { "4" }.into())
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let rubric = dir.path().join("plausible.toml");
    std::fs::write(&rubric, RUBRIC).unwrap();
    let output = tokio::process::Command::from(common::eval_dag(dir.path()))
        .arg("grade")
        .arg(sample_trace())
        .arg("--judge")
        .arg(&rubric)
        .args(["--repeat-judges", "3", "--base-url", &mock.base_url()])
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "q_02 is wrong against its expected answer: {stdout}");
    assert_eq!(mock.requests().len(), 6, "two answers, three judgements each: {stdout}");
    let judged: Vec<&str> = stdout.lines().filter(|l| l.contains(" plausible ")).collect();
    assert_eq!(judged.len(), 2, "{stdout}");
    assert!(judged.iter().all(|l| l.contains("✓") && l.ends_with("(2/3 judgements passed)")), "{stdout}");
    assert!(stdout.contains("plausible: 2/2 (100%)"), "the majority verdict counts: {stdout}");
    assert!(
        stdout.contains(
            "noise over 3 judgements: plausible: disagreed with itself on 2 of 2 answers (100%); \
             4 of 6 pairs of judgements differ (67%)"
        ),
        "{stdout}"
    );
    let out =
        common::eval_dag(dir.path()).arg("grade").arg(sample_trace()).args(["--repeat-judges", "0"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.lines().next().unwrap_or_default().contains("--repeat-judges"), "{stderr}");
}
