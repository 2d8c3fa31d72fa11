//! The TUI as a whole, without a terminal: events through the reducer, keys
//! through the keymap and commands to the engine, from the scripted sample
//! trace (each screen's snapshots live beside it in `src/tui/screens/`).

use crate::common;

use crossterm::event::{KeyCode, KeyEvent};
use eval_dag::domain::{CallKey, ChatMessage, LlmRole};
use eval_dag::run::{Command, EngineEvent, RunState};
use eval_dag::trace::Trace;
use eval_dag::tui::{App, Replay, Tab, Theme};

fn records() -> Vec<eval_dag::trace::TraceRecord> {
    Trace::read(&common::root().join(SAMPLE)).unwrap().records
}

use common::press;
use common::tui::{SAMPLE, live_app, replay_app, screen};
use eval_dag::domain::AttemptAt;

#[test]
fn the_question_screen_pins_findings_to_the_blamed_node_and_the_diff_marks_fates() {
    let mut app = replay_app(SAMPLE);
    press(&mut app, "j\nhh");
    let text = screen(&app, 160, 48);
    assert!(text.contains("findings on this node") && text.contains("unknown_field"), "{text}");
    press(&mut app, "l");
    let text = screen(&app, 160, 48);
    assert!(text.contains("ZeroDivisionError"), "{text}");
    press(&mut app, "d");
    let text = screen(&app, 160, 48);
    assert!(text.contains("resolved") && text.contains("new") && text.contains("~ changed rates"), "{text}");
}

#[test]
fn filters_sorting_and_replay_scrubbing() {
    let mut app = replay_app(SAMPLE);
    press(&mut app, "/grocery\x1b");
    assert_eq!(app.visible().len(), 0);
    press(&mut app, "/");
    app.handle_key(KeyEvent::from(KeyCode::Backspace));
    for _ in 0..7 {
        app.handle_key(KeyEvent::from(KeyCode::Backspace));
    }
    press(&mut app, "fraud\n");
    assert_eq!(app.visible().len(), 1, "the text filter matches the question text");
    let total = app.replay().unwrap().len();
    press(&mut app, "g");
    assert_eq!((app.replay().unwrap().position, app.state().questions.len()), (0, 0));
    press(&mut app, ".....");
    assert_eq!(app.replay().unwrap().position, 5);
    assert_eq!(app.state().questions.len(), 2, "questions appear once generated");
    press(&mut app, ",");
    assert_eq!(app.replay().unwrap().position, 4);
    assert_eq!(app.state().questions.len(), 0, "stepping back undoes the event");
    press(&mut app, "G");
    assert_eq!(app.replay().unwrap().position, total);
    assert_eq!(app.state().summary.as_ref().unwrap().passed, 2);
    press(&mut app, "+ ");
    assert!(app.replay().unwrap().playing() && app.replay().unwrap().speed == 2.0);
}

#[test]
fn live_keys_send_the_matching_commands() {
    let (mut app, mut commands) = live_app(SAMPLE);
    press(&mut app, "p");
    assert_eq!(commands.try_recv().unwrap(), Command::Pause);
    press(&mut app, "n");
    assert_eq!(commands.try_recv().unwrap(), Command::Step { question_id: None });
    press(&mut app, "jr");
    assert_eq!(commands.try_recv().unwrap(), Command::Rerun { question_id: "q_01".into(), epoch: 1, draft: 1 });
    press(&mut app, "\nhn");
    assert_eq!(commands.try_recv().unwrap(), Command::Step { question_id: Some("q_01".into()) });
    press(&mut app, "F");
    assert_eq!(commands.try_recv().unwrap(), Command::Fork { from: AttemptAt::new("q_01", 1).iteration(2) });
    assert!(app.message().unwrap_or_default().contains("forking q_01"));
    assert!(commands.try_recv().is_err(), "one command per key");
}

#[test]
fn wrong_answers_are_marked_in_the_table_and_the_outputs_tab() {
    let mut app = replay_app(SAMPLE);
    let text = screen(&app, 160, 48);
    assert!(text.contains("✗ 50000") && text.contains("✓ grocery_pos"), "{text}");
    press(&mut app, "\nt");
    let text = screen(&app, 160, 48);
    assert!(text.contains("✗ wrong (ground_truth)"), "{text}");
}

#[test]
fn replays_explain_why_they_cannot_rerun() {
    let mut app = replay_app(SAMPLE);
    press(&mut app, "r");
    assert!(app.message().unwrap().contains("need a live run"));
}

#[test]
fn the_table_scrolls_to_keep_the_selected_row_on_screen() {
    let mut app = replay_app(SAMPLE);
    let text = screen(&app, 80, 10);
    assert!(text.contains("q_02") && !text.contains("q_01"), "one row fits: {text}");
    press(&mut app, "j");
    let text = screen(&app, 80, 10);
    assert!(text.contains("q_01") && !text.contains("q_02"), "the selection scrolled into view: {text}");
}

#[test]
fn the_conversation_shows_every_call_in_order_with_verdicts_and_what_changed_in_each_prompt() {
    let mut app = replay_app(SAMPLE);
    press(&mut app, "j\ntt\t\tz");
    assert_eq!((app.question().unwrap().tab, app.question().unwrap().selection.iteration), (Tab::Conversation, 2));
    let text = screen(&app, 160, 48);
    let first = text.lines().nth(5).unwrap();
    assert!(first.starts_with("━━ attempt 1 · iteration 3"), "opens at the selected iteration: {text}");
    press(&mut app, "hh");
    let text = screen(&app, 160, 200);
    let order = [
        "━━ attempt 1 · iteration 1",
        "▸ build",
        "✗ iteration 1 rejected: 1 finding",
        "━━ attempt 1 · iteration 2",
        "changes since the last build:",
        "Your previous DAG (iteration 1) was rejected:",
        "✗ iteration 2 rejected: 1 finding",
        "━━ attempt 1 · iteration 3",
        "ZeroDivisionError",
        "▸ review layer 0",
        "▸ review layer 1",
        "✓ iteration 3 approved",
        "■ attempt 1 passed → grocery_pos",
    ];
    let mut from = 0;
    for needle in order {
        let at = text[from..].find(needle).unwrap_or_else(|| panic!("{needle:?} after byte {from}: {text}"));
        from += at + needle.len();
    }
    assert!(text.contains("tokens (") && text.contains(" ms"), "usage and latency per call: {text}");
    assert!(!text.contains("You design small, correct data-analysis programs"), "system prompts are collapsed");
    press(&mut app, "e");
    let expanded = screen(&app, 160, 200);
    assert!(expanded.contains("You design small, correct data-analysis programs"), "e shows whole prompts");
    press(&mut app, "g");
    assert_eq!(app.replay().unwrap().position, 0, "g still scrubs the replay");
}

#[test]
fn the_detail_scrolls_and_stops_at_its_last_line() {
    let mut app = replay_app(SAMPLE);
    press(&mut app, "j\ntt");
    // Keys ask; the frame that follows places the scroll (as the event loop draws after every key).
    screen(&app, 80, 24);
    let start = app.question().unwrap().detail.first();
    assert!(start >= 5, "the conversation opens where the selected iteration starts: {start}");
    press(&mut app, "J");
    assert_eq!(app.question().unwrap().detail.first(), start + 5);
    press(&mut app, "⇞⇞");
    assert_eq!(app.question().unwrap().detail.first(), start - 5);
    for _ in 0..100 {
        press(&mut app, "⇟");
    }
    let last = app.question().unwrap().detail.first();
    let text = screen(&app, 80, 24);
    assert!(text.contains(&format!("line {} of {}", last + 1, last + 1)), "{text}");
    press(&mut app, "t");
    screen(&app, 80, 24);
    assert_eq!(app.question().unwrap().detail.first(), 0, "another tab starts at its top");
}

#[test]
fn streamed_text_appears_in_the_conversation_while_the_call_runs() {
    let mut state = RunState::default();
    let records = records();
    // Up to q_01's second build call, which has started but not finished.
    let cut = records.iter().position(|r| matches!(&r.event, EngineEvent::LlmCallStarted { call_id: 4, .. })).unwrap();
    for record in &records[..=cut] {
        state.apply(record.t_ms, &record.event);
    }
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let mut app = App::new(state, Theme::dark(), None, Some(tx));
    app.apply(
        200,
        EngineEvent::LlmTextDelta { call_id: 4, text: "Here is the fixed DAG:\n```json\n{\"nodes\"".into() },
    );
    press(&mut app, "j\ntt\t\tz");
    let text = screen(&app, 120, 40);
    assert!(text.contains("▸ build · scripted-model · streaming…") && text.contains("response so far:"), "{text}");
    assert!(text.contains("Here is the fixed DAG:") && text.contains("… no verdict yet (build)"), "{text}");
    let key = CallKey::run_wide(LlmRole::QuestionGeneration);
    app.apply(
        201,
        EngineEvent::LlmCallStarted {
            call_id: 99,
            key,
            provider: "openai".into(),
            model: "m".into(),
            messages: vec![ChatMessage::user("again")],
        },
    );
    app.refresh();
    assert!(screen(&app, 120, 40).contains("▸ build · scripted-model · streaming…"), "the view stays on the iteration");
}

#[test]
fn a_click_selects_the_row_under_the_mouse_when_the_table_is_scrolled() {
    use crossterm::event::{Event, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
    let mut app = replay_app(SAMPLE);
    press(&mut app, "j");
    let text = screen(&app, 80, 10);
    assert!(text.lines().nth(5).unwrap().starts_with("q_01"), "one row fits and shows q_01: {text}");
    let click =
        MouseEvent { kind: MouseEventKind::Down(MouseButton::Left), column: 3, row: 5, modifiers: KeyModifiers::NONE };
    eval_dag::tui::on_input(&mut app, Event::Mouse(click), ratatui::layout::Size::new(80, 10));
    assert_eq!(app.current_question().unwrap().question.id, "q_01", "the row drawn there, not the first row");
    let below = MouseEvent { row: 7, ..click };
    eval_dag::tui::on_input(&mut app, Event::Mouse(below), ratatui::layout::Size::new(80, 10));
    assert_eq!(app.dashboard().unwrap().row, 1, "a click below the rows changes nothing");
}

#[test]
fn grades_show_only_under_the_iteration_that_produced_the_answer() {
    let mut app = replay_app(SAMPLE);
    press(&mut app, "j\nt");
    let approved = screen(&app, 160, 48);
    assert!(
        approved.contains("final answer: grocery_pos") && approved.contains("✓ right (ground_truth)"),
        "{approved}"
    );
    press(&mut app, "h");
    let rejected = screen(&app, 160, 48);
    assert!(rejected.contains("trial run failed") && !rejected.contains("✓ right"), "{rejected}");
}

#[test]
fn narrow_terminals_get_whole_columns_and_whole_footer_hints() {
    let mut app = replay_app(SAMPLE);
    let text = screen(&app, 80, 24);
    assert!(
        text.contains("findings") && text.contains("✓ grocery_pos") && text.contains("How many transactions"),
        "{text}"
    );
    let hints: Vec<String> = eval_dag::tui::BINDINGS
        .iter()
        .filter(|b| !b.hint.is_empty())
        .map(|b| format!("{} {}", b.label, b.hint))
        .collect();
    for keys in ["", "j\n", "j\nd"] {
        press(&mut app, keys);
        let text = screen(&app, 80, 24);
        let footer = text.lines().last().unwrap();
        for item in footer.split("  ").map(str::trim).filter(|i| !i.is_empty()) {
            assert!(hints.iter().any(|h| h == item), "{item:?} is a whole hint: {footer}");
        }
    }
}

#[test]
fn the_findings_pane_is_tall_enough_for_its_wrapped_message_and_the_feedback_tab_lists_every_finding() {
    let mut app = replay_app(SAMPLE);
    press(&mut app, "j\nhh");
    let text = screen(&app, 160, 48);
    assert!(text.lines().any(|l| l.contains("││'is_fraud_rate'?")), "the message's last wrapped row shows: {text}");
    assert!(text.contains("[structural] rates unknown_field: node rates: line 2"), "{text}");
}

#[test]
fn tab_indented_code_keeps_its_indentation_and_hidden_characters_are_shown_not_obeyed() {
    let text = std::fs::read_to_string(common::root().join(SAMPLE)).unwrap();
    // The rejected first DAG's node code, tab-indented, with a right-to-left override in a comment.
    let text = text
        .replace("def rates(stats):\\n    return", "def rates(stats):  # \\u202eevil\\n\\treturn")
        .replace("\"Which category has the highest fraud rate?\"", "\"Which category\\u001b[2J has the top rate?\"");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tabs.trace.jsonl");
    std::fs::write(&path, text).unwrap();
    let (replay, state) = Replay::open(&path, false).unwrap();
    let mut app = App::new(state, Theme::dark(), Some(replay), None);
    let table = screen(&app, 160, 48);
    assert!(table.contains("Which category␛[2J has the top rate?"), "the escape shows as a picture: {table}");
    press(&mut app, "j\nhh");
    let text = screen(&app, 160, 48);
    assert!(text.contains("  2     return {name: s['fraud_rate']"), "the tab indents to column 4: {text}");
    assert!(text.contains("# ⟨U+202E⟩evil") && !text.contains('\u{202e}'), "the override is shown, not obeyed: {text}");
}

#[test]
fn ctrl_c_quits_from_the_filter_and_asks_first_while_questions_work() {
    use crossterm::event::KeyModifiers;
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    let mut app = replay_app(SAMPLE);
    press(&mut app, "/gro");
    app.handle_key(ctrl_c);
    assert!(
        app.quitting() && app.dashboard().unwrap().filter == "gro",
        "a replay quits at once, and c was not typed into the filter"
    );
    let (mut app, _commands) = live_app(SAMPLE);
    app.apply(1, EngineEvent::QuestionStarted { at: AttemptAt::new("q_01", 2), forked_from: None, by_hand: false });
    app.handle_key(ctrl_c);
    assert!(app.confirming_quit() && !app.quitting(), "a live run with a question at work asks first");
    press(&mut app, "n");
    assert!(!app.confirming_quit() && !app.quitting(), "any other key keeps watching");
    press(&mut app, "qy");
    assert!(app.quitting(), "y confirms");
}

#[test]
fn the_header_says_the_questions_are_being_generated_until_they_arrive() {
    let records = records();
    let mut state = RunState::default();
    let started = records
        .iter()
        .position(
            |r| matches!(&r.event, EngineEvent::LlmCallStarted { key, .. } if key.role == LlmRole::QuestionGeneration),
        )
        .unwrap();
    for record in &records[..started] {
        state.apply(record.t_ms, &record.event);
    }
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let mut app = App::new(state, Theme::dark(), None, Some(tx));
    let header = |app: &App| screen(app, 100, 24).lines().take(3).collect::<Vec<_>>().join("\n");
    assert!(header(&app).contains("starting: the questions come first…"), "{}", header(&app));
    let record = &records[started];
    app.apply(record.t_ms, record.event.clone());
    let EngineEvent::LlmCallStarted { call_id, model, .. } = &record.event else { unreachable!() };
    assert!(header(&app).contains(&format!("generating questions with {model}…")), "{}", header(&app));
    app.apply(record.t_ms + 1, EngineEvent::LlmTextDelta { call_id: *call_id, text: "é".repeat(1_234) });
    assert!(header(&app).contains("1,234 characters so far"), "counted in characters: {}", header(&app));
    for record in &records[started + 1..] {
        app.apply(record.t_ms, record.event.clone());
        if !app.state().questions.is_empty() {
            break;
        }
    }
    let text = header(&app);
    assert!(!text.contains("generating") && text.contains(" 2 questions"), "{text}");
}
