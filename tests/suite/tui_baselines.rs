//! The terminal UI over a run with baselines (`run --baselines`, the scripted
//! run of `run_baselines`): the dashboard's flags column (`D` answerable
//! without the data, `E` the scorer takes an empty answer), the benchmark
//! screen's baselines line beside the loop's accuracy, its flags and its list
//! of the questions answerable without the data. Set
//! `RECORD_BASELINES_TRACE=1` to refresh
//! `sample-data/traces/baselines-scripted.trace.jsonl` from this run; the
//! screens' snapshots and the size sweep are drawn from that committed trace.

use crate::common;

use common::mock_llm::MockLlm;
use common::press;
use common::tui::{replay_app, screen};
use eval_dag::tui::Screen;

use crate::suite::run_baselines::{run, script};

/// The committed trace of this run.
pub const BASELINES_TRACE: &str = "sample-data/traces/baselines-scripted.trace.jsonl";

/// The row of question `id` on `frame`.
fn row<'a>(frame: &'a str, id: &str) -> &'a str {
    frame.lines().find(|line| line.contains(id)).unwrap_or_else(|| panic!("no row of {id}: {frame}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_dashboard_and_the_benchmark_screen_show_what_the_baselines_say() {
    let mock = MockLlm::start(|request, _| script(request)).await;
    let home = tempfile::tempdir().unwrap();
    let (output, out) = run(home.path(), &mock, "run", &["--baselines", "--no-cache"]).await;
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    let trace = out.join("trace.jsonl");
    if std::env::var_os("RECORD_BASELINES_TRACE").is_some() {
        std::fs::copy(&trace, common::root().join(BASELINES_TRACE)).unwrap();
    }
    let mut app = replay_app(trace.to_str().unwrap());
    let dashboard = screen(&app, 160, 48);
    assert!(dashboard.contains("flags"), "a run with baselines has the flags column: {dashboard}");
    // q_01 is answerable without the data, q_04's scorer takes an empty answer, q_02 and q_03 neither.
    let flags = |id: &str| row(&dashboard, id).split_whitespace().any(|word| word == "D");
    assert!(flags("q_01") && !flags("q_02") && !flags("q_03") && !flags("q_04"), "{dashboard}");
    assert!(row(&dashboard, "q_04").split_whitespace().any(|word| word == "E"), "{dashboard}");

    press(&mut app, "B");
    assert_eq!(app.screen(), Screen::Benchmark, "a run with baselines opens the benchmark screen");
    let benchmark = screen(&app, 160, 48);
    assert!(benchmark.contains("baselines: each question answered without the loop"), "{benchmark}");
    // Beside the loop's 2 of 4: each baseline's accuracy, the loop's lift over no_code, and where data is needed.
    let figure = |name: &str| {
        let line = benchmark.lines().find(|line| line.trim_start_matches('│').starts_with(&format!("{name}  ")));
        line.unwrap_or_else(|| panic!("no line of {name}: {benchmark}"))
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert!(figure("the loop").ends_with("50% (2/4) │"), "{benchmark}");
    assert!(figure("  empty").ends_with("25% (1/4) │"), "{benchmark}");
    assert!(figure("  no_data").ends_with("25% (1/4) │"), "{benchmark}");
    assert!(figure("  no_code").ends_with("50% (2/4) the loop +1 −1 │"), "{benchmark}");
    assert!(figure("the loop where data is needed").ends_with("33% (1/3) │"), "{benchmark}");
    assert!(benchmark.contains("f: another list"), "{benchmark}");
    press(&mut app, "f");
    let listed = screen(&app, 160, 48);
    assert!(listed.contains("1 answerable without the data"), "{listed}");
    assert!(row(&listed, "q_01").contains("no data"), "{listed}");
    assert!(!listed.contains("q_02") && !listed.contains("q_03"), "only q_01: {listed}");
    press(&mut app, "\n");
    assert_eq!(app.current_question().map(|q| q.question.id.as_str()), Some("q_01"), "enter opens it");
}

#[test]
fn without_baselines_the_list_stays_and_the_footer_offers_no_switch() {
    let mut app = replay_app("sample-data/traces/benchmark-scripted.trace.jsonl");
    press(&mut app, "B");
    assert!(!screen(&app, 160, 48).contains("f list"), "no switch in a run without baselines");
    press(&mut app, "f");
    assert_eq!(app.message(), Some("this run has no baselines (run --baselines answers each question directly)"));
    assert!(!screen(&app, 160, 48).contains("flags"));
}
