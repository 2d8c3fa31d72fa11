//! The HTML report of the scripted sample through the binary: its charts, its
//! timestamp for people, and code diffs without `\ No newline` lines (the TUI's
//! diff screen too).

use crate::common::{eval_dag, root, sample_without_final_newlines, tui::SAMPLE};
use eval_dag::tui::{App, Replay, Theme};

fn report_of(trace: &std::path::Path, dir: &std::path::Path) -> String {
    let html = dir.join("report.html");
    let output = eval_dag(dir).arg("report").arg(trace).arg("--out").arg(&html).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    std::fs::read_to_string(html).unwrap()
}

/// The `<svg class="chart {class}">` element of `html`.
fn chart<'a>(html: &'a str, class: &str) -> &'a str {
    let start = html.find(&format!("<svg class=\"chart {class}\"")).unwrap_or_else(|| panic!("a {class} chart"));
    &html[start..start + html[start..].find("</svg>").unwrap()]
}

#[test]
fn the_report_charts_difficulties_and_questions_and_stamps_local_time() {
    let dir = tempfile::tempdir().unwrap();
    let html = report_of(&root().join(SAMPLE), dir.path());
    // The sample: q_02 easy (passed, graded wrong), q_01 medium (passed, graded right), no hard question.
    let difficulty = chart(&html, "difficulty");
    assert_eq!(difficulty.matches("<rect").count(), 4, "easy and medium, pass rate and accuracy: {difficulty}");
    assert_eq!(difficulty.matches("<rect class=\"accuracy\"").count(), 2, "{difficulty}");
    assert!(difficulty.contains("easy · accuracy</text><rect class=\"accuracy\" x=\"150\" y=\"24\" width=\"0\""));
    assert!(
        difficulty.contains("0% (0&#x2f;1)</text>") && difficulty.contains("— (no questions)</text>"),
        "{difficulty}"
    );
    for class in ["tokens", "time"] {
        let per_question = chart(&html, class);
        assert_eq!(per_question.matches("<rect class=\"good\"").count(), 2, "both passed: {per_question}");
        let (first, second) = (per_question.find("q_02 · easy").unwrap(), per_question.find("q_01 · medium").unwrap());
        assert!(first < second, "rank order: {per_question}");
    }
    assert!(chart(&html, "tokens").contains(">1,284</text>"), "tokens with separators");
    let stamp = &html[html.find("<p>Generated ").unwrap()..];
    let stamp = &stamp[..stamp.find("</p>").unwrap()];
    let shown = &stamp[stamp.find("\">").unwrap() + 2..stamp.find("</time>").unwrap()];
    assert!(
        chrono::NaiveDateTime::parse_from_str(&shown[..19], "%Y-%m-%d %H:%M:%S").is_ok()
            && (shown[19..].starts_with(" UTC+") || shown[19..].starts_with(" UTC-")),
        "local time with its zone: {stamp}"
    );
    assert_eq!(shown.len(), 29, "to the second, no nanoseconds: {shown}");
    assert!(stamp.ends_with(" · the run took 0.6s"), "the run's duration: {stamp}");
}

#[test]
fn code_diffs_without_final_newlines_have_no_hint_lines() {
    let dir = tempfile::tempdir().unwrap();
    let trace = sample_without_final_newlines(dir.path());
    let html = report_of(&trace, dir.path());
    assert!(html.contains("<pre class=\"udiff\">"), "the report shows the code diffs");
    assert!(!html.contains("No newline at end of file"));
}

#[test]
fn the_tui_diff_screen_has_no_hint_lines_for_code_without_final_newlines() {
    let dir = tempfile::tempdir().unwrap();
    let trace = sample_without_final_newlines(dir.path());
    // q_01's third iteration against its second, as in the diff screen's snapshot.
    let (replay, state) = Replay::open(&trace, false).unwrap();
    let mut app = App::new(state, Theme::dark(), Some(replay), None);
    crate::common::press(&mut app, "j\nd");
    let text = crate::common::tui::screen(&app, 160, 48);
    assert!(text.contains("~ changed rates") && text.contains("@@"), "{text}");
    assert!(!text.contains("No newline"), "{text}");
}
