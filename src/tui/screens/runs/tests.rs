use std::path::PathBuf;

use crate::report::{RESULTS_FILE, RunRow, TRACE_FILE, list_runs};
use crate::tui::frame_text::SNAPSHOT_SIZES;
use crate::tui::{App, Choice, Ended, Screen, Theme, frame_text, press_keys};

/// The sample traces as run directories `runs/<name>`, read by the listing;
/// one of them cut short (interrupted) and one with foreign results.
fn sample_rows() -> Vec<RunRow> {
    let root = tempfile::tempdir().unwrap();
    let traces = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data/traces");
    for name in ["fraud-offline", "fraud-scripted", "benchmark-scripted", "baselines-scripted"] {
        let dir = root.path().join(name);
        std::fs::create_dir(&dir).unwrap();
        std::fs::copy(traces.join(format!("{name}.trace.jsonl")), dir.join(TRACE_FILE)).unwrap();
    }
    let cut = root.path().join("fraud-offline/trace.jsonl");
    let text = std::fs::read_to_string(&cut).unwrap();
    std::fs::write(&cut, &text[..text.len() * 2 / 3]).unwrap();
    std::fs::write(root.path().join("fraud-scripted").join(RESULTS_FILE), "[]").unwrap();
    let mut rows = list_runs(&[root.path().to_path_buf()]);
    for row in &mut rows {
        row.path = PathBuf::from("runs").join(row.path.file_name().unwrap());
    }
    rows
}

fn browser() -> App {
    App::browsing_rows(vec![PathBuf::from("runs")], sample_rows(), Theme::dark())
}

#[test]
fn the_browser_lists_every_run_with_its_figures() {
    for (width, height) in SNAPSHOT_SIZES {
        let app = browser();
        assert_eq!(app.screen(), Screen::Runs);
        insta::assert_snapshot!(format!("runs_{width}x{height}"), frame_text(&app, width, height));
    }
}

#[test]
fn filtering_sorting_and_marking() {
    let mut app = browser();
    press_keys(&mut app, "/bench\n");
    let text = frame_text(&app, 160, 48);
    assert!(text.contains("benchmark-scripted") && !text.contains("fraud-offline"), "{text}");
    assert!(text.contains("1 shown"), "{text}");
    press_keys(&mut app, "/\x1bss");
    insta::assert_snapshot!("runs_by_status_marked_160x48", {
        press_keys(&mut app, "  ");
        frame_text(&app, 160, 48)
    });
}

#[test]
fn two_marked_runs_compare_more_make_a_matrix_and_only_an_interrupted_run_resumes() {
    let mut app = browser();
    press_keys(&mut app, "c");
    assert!(app.message().is_some_and(|m| m.contains("mark two runs")), "{:?}", app.message());
    press_keys(&mut app, "  c");
    let ended = app.take_ended();
    assert!(matches!(ended, Some(Ended::Chose(Choice::Compare(_)))), "{ended:?}");
    press_keys(&mut app, " m");
    assert!(matches!(app.take_ended(), Some(Ended::Chose(Choice::Matrix(runs))) if runs.len() == 3));
    // Sorted by status, the interrupted run is below the finished ones.
    press_keys(&mut app, "ssjjjR");
    let rows = app.browser().unwrap().rows().to_vec();
    let ended = app.take_ended();
    let interrupted = rows.iter().find(|r| r.status == crate::report::RunStatus::Interrupted).unwrap();
    assert_eq!(ended, Some(Ended::Chose(Choice::Resume(interrupted.path.clone()))));
    press_keys(&mut app, "kkkR");
    assert!(app.message().is_some_and(|m| m.contains("only an interrupted run resumes")), "{:?}", app.message());
    press_keys(&mut app, "\n");
    assert!(matches!(app.take_ended(), Some(Ended::Chose(Choice::Open(_)))));
}

#[test]
fn v_reviews_the_selected_run() {
    let mut app = browser();
    let selected = app.browser().unwrap().rows()[0].path.clone();
    press_keys(&mut app, "v");
    assert_eq!(app.take_ended(), Some(Ended::Chose(Choice::Review(selected))));
}

#[test]
fn the_palette_finds_a_run_by_its_name_and_enter_opens_it() {
    let mut app = browser();
    press_keys(&mut app, ":benchmark-scr");
    let frame = frame_text(&app, 120, 30);
    assert!(frame.contains("runs/benchmark-scripted"), "the palette lists the run:\n{frame}");
    press_keys(&mut app, "\n");
    assert_eq!(app.take_ended(), Some(Ended::Chose(Choice::Open(PathBuf::from("runs/benchmark-scripted")))));
}

#[test]
fn a_run_started_after_the_first_scan_appears_on_a_rescan() {
    let root = tempfile::tempdir().unwrap();
    let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data/traces/fraud-offline.trace.jsonl");
    let add_run = |name: &str| {
        let dir = root.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(&sample, dir.join(TRACE_FILE)).unwrap();
    };
    add_run("first");
    let mut app = App::browsing(vec![root.path().to_path_buf()], Theme::dark());
    let count = |app: &App| app.browser().map_or(0, |screen| screen.rows().len());
    let wait_for = |app: &mut App, rows: usize| {
        let deadline = std::time::Instant::now() + super::RESCAN * 10;
        while count(app) < rows && std::time::Instant::now() < deadline {
            app.tick();
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    };
    wait_for(&mut app, 1);
    assert_eq!(count(&app), 1, "the first scan finds the one run");
    add_run("later/second");
    wait_for(&mut app, 2);
    assert_eq!(count(&app), 2, "the rescan finds the run started since");
    assert!(frame_text(&app, 160, 20).contains("second"), "and shows it");
}
