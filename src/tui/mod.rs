//! The terminal UI: watch critic loops live, inspect every iteration, step,
//! rerun and replay. The run's state comes from the engine's reducer; each
//! screen is a component on the app's stack with its own state (`screens`);
//! redraws happen on change, at most ~60 per second.
//!
//! Parts:
//! - `app.rs` (and `app/`): the run, the connection to its engine, the theme, the
//!   keys, the overlay shown and a stack of screens. How screens and overlays talk
//!   to the app — the `Component` and `Overlay` traits, `Ctx` and `Effect` — is in
//!   `component.rs`.
//! - `screens/`: one module per screen, a `Component` owning its state, actions and
//!   drawing: `dashboard.rs`; `question/` (state and actions in `mod.rs`, drawing in
//!   `draw.rs`); `diff.rs`; `schema.rs` with `schema_text.rs` (the schema the
//!   builder saw); `scorecard.rs`; `taxonomy.rs` (its groups narrow the dashboard
//!   through `view::QuestionSet`); `benchmark.rs` (a published benchmark's own
//!   figures and the critic's lift within the run, from `report`; its fixed and
//!   broken questions open the question screen); `inspector/` with `value_tree.rs`
//!   (a node's inputs and output as a tree); `compare.rs` and `compare_detail.rs`
//!   over `comparison.rs` (two runs); `matrix.rs` over `runs_matrix.rs` (several
//!   runs, and their accuracy–cost frontier drawn by `widgets/frontier_chart.rs`);
//!   `review.rs` over `review_queue.rs` (a reviewer's answers to judge, blind
//!   until their verdict, written to the run's `reviews/` at once); `agreement.rs`
//!   (the figures `agreement` prints); `help.rs` (the help overlay).
//! - `people.rs`: who reviews the run an app shows and what people said of it:
//!   `V` and the agreement key open their screens over the run, `L` writes a
//!   review (`app/reviews.rs`), the question screen and the scorecard show it.
//! - `screens/runs/`: the run browser over `report::scan_runs`. Its rows are fed by
//!   threads of its own and drained on the loop's tick (`Component::poll`). What the
//!   user picks leaves the app as an `Effect::Leave` for the command hosting the
//!   [`Browser`] (`browse`) to open; a replay, comparison or matrix opened from it
//!   comes back to it on esc at its first screen.
//! - `keymap/`: the one keymap — actions, contexts and default bindings; `key.rs`,
//!   keys as written and shown; `rebind.rs`, the session's `Keymap` with the user's
//!   keys in place of the defaults (a default holding a key the user gave another
//!   action gives it up), checked for clashes between the user's keys on every screen.
//! - `view.rs`: the words screens share (panes, tabs, the dashboard's filters and
//!   orders); `graph_moves.rs`: moving the selection along a DAG.
//! - `palette/`: the command palette, an overlay over its entries with fuzzy
//!   matching; `palette_entry.rs`: what it lists, which screens contribute to
//!   through `Component::palette_entries` (apart from the palette, so that
//!   the component contract and the palette do not import each other).
//! - Work by hand: `app/hand_work.rs` (edits, notes and acceptance as commands on
//!   the open question's selection; a replay turning into a derived run),
//!   `editing.rs` (the external editor), `text_box.rs` (the in-app text box).
//! - The event loop; the replay player (`replay.rs`; `loading.rs` folds the trace in
//!   chunks on a thread of its own while the UI draws and takes keys); widgets, one
//!   file each; text safety; fault containment.

mod app;
mod baselines;
mod choice;
mod comparison;
mod component;
mod containment;
mod deriver;
mod editing;
mod event_loop;
mod filter_line;
mod frame_text;
mod graph_moves;
mod highlight;
mod keymap;
mod loading;
mod pair_queue;
mod palette;
mod palette_entry;
mod people;
mod replay;
mod review_queue;
mod runs_matrix;
mod schema_text;
mod screens;
mod scroll;
mod selection;
mod terminal_input;
mod text;
mod text_box;
mod theme;
mod value_tree;
mod view;
mod widgets;

use std::time::Duration;

use crossterm::event::{Event, KeyEventKind, MouseButton, MouseEventKind};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::{Paragraph, Wrap};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

pub use app::{App, Ended};
pub use choice::Choice;
pub use comparison::Comparison;
pub use containment::{Fault, contained};
pub use deriver::{DeriveFn, Derived, Deriver};
pub use editing::{EditRequest, EditTarget, Edited};
pub use event_loop::{Feeds, Stop, run as event_loop};
pub use frame_text::{frame_text, press_keys};
pub use keymap::{
    Action, BINDINGS, Binding, Bound, Context, Key, KeyParseError, Keymap, RebindError, RebindProblem, Rebinding,
    Screen,
};
pub use loading::Loaded;
pub use pair_queue::{OtherRun, PairItem, PairQueue};
pub use people::People;
pub use replay::{DEFAULT_MAX_GAP, Loading, Replay};
pub use review_queue::ReviewQueue;
pub use runs_matrix::RunsMatrix;

pub use theme::{Ink, Theme, ThemeError};
pub use view::Tab;

use crate::run::{Command, EngineEvent, RunState};
use terminal_input::TerminalInput;

/// Smallest terminal the screens are drawn in; below it one line says so.
pub const MIN_WIDTH: u16 = 20;
/// See [`MIN_WIDTH`].
pub const MIN_HEIGHT: u16 = 6;

/// The header, body and footer areas of a terminal of `area`.
fn areas(area: Rect) -> [Rect; 3] {
    Layout::vertical([Constraint::Length(3), Constraint::Min(3), Constraint::Length(1)]).areas(area)
}

/// Draw the whole app, at any size.
pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let note = if app.confirming_quit() {
            "quit? y quits, any other key stays".to_string()
        } else {
            format!("terminal too small ({}×{}): eval-dag needs {MIN_WIDTH}×{MIN_HEIGHT}", area.width, area.height)
        };
        frame.render_widget(Paragraph::new(note).wrap(Wrap { trim: true }), area);
        return;
    }
    let [header, body, footer] = areas(area);
    let ctx = app.ctx();
    // The run browser is about no one run: its table takes the header's lines too.
    let body = if ctx.screen == Screen::Runs {
        header.union(body)
    } else {
        widgets::header::draw(frame, header, &ctx);
        body
    };
    app.draw_screen(frame, body, &ctx);
    widgets::footer::draw(frame, footer, &ctx);
    app.draw_overlay(frame, body, &ctx);
    if ctx.confirm_quit {
        widgets::quit_prompt::draw(frame, body, &ctx);
    }
    text::scrub(frame.buffer_mut());
}

/// Handle one input event; `size` is the terminal's.
pub fn on_input(app: &mut App, event: Event, size: ratatui::layout::Size) {
    match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => app.handle_key(key),
        Event::Mouse(mouse) => match mouse.kind {
            MouseEventKind::ScrollDown => app.wheel(true),
            MouseEventKind::ScrollUp => app.wheel(false),
            MouseEventKind::Down(MouseButton::Left) if app.screen() == Screen::Dashboard => {
                let [_, body, _] = areas(ratatui::layout::Rect::from((ratatui::layout::Position::ORIGIN, size)));
                app.click_row(body, mouse.row);
            }
            _ => {}
        },
        _ => {}
    }
}

/// The terminal, set up for the UI, restored when dropped (also when the
/// UI returns early with an error). The `Terminal` itself is never dropped:
/// its drop prints to stderr when the cursor cannot be shown, and printing to
/// a terminal that is gone (SIGHUP) panics — which would end a run that must
/// finish its records. It is only a few buffers, once per process.
struct TerminalGuard(std::mem::ManuallyDrop<ratatui::DefaultTerminal>);

impl TerminalGuard {
    fn open() -> anyhow::Result<Self> {
        match containment::hold_terminal() {
            Ok(terminal) => Ok(Self(std::mem::ManuallyDrop::new(terminal))),
            Err(err) => {
                containment::release_terminal();
                anyhow::bail!("cannot open the terminal UI: {err}")
            }
        }
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        containment::release_terminal();
    }
}

/// The UI's loop on the real terminal, until the user quits, `stop` comes or
/// the terminal fails. When the user asks for an edit, the terminal goes to
/// their editor (the input reader stopped first, so the two never share
/// keys) and comes back to the UI redrawn whole.
async fn interact(
    terminal: &mut ratatui::DefaultTerminal,
    app: &mut App,
    feeds: &mut Feeds<TerminalInput>,
    draw: impl Fn(&mut Frame, &App),
) -> std::io::Result<()> {
    loop {
        event_loop(terminal, app, feeds, &draw).await?;
        let Some(request) = app.take_edit() else { return Ok(()) };
        drop(std::mem::replace(&mut feeds.input, TerminalInput::new()));
        containment::release_terminal();
        let edited = request.run_editor();
        containment::take_terminal_back()?;
        // Not `Terminal::clear`: it asks the terminal for the cursor position,
        // an answer the stopped input reader never reads. The screen is
        // cleared by hand and both buffers emptied, so the next frame is drawn whole.
        crossterm::execute!(std::io::stdout(), crossterm::terminal::Clear(crossterm::terminal::ClearType::All))?;
        terminal.swap_buffers();
        app.edited(&request, edited);
        app.refresh();
    }
}

/// Run `app` in the terminal, on `runtime`, until the user quits, goes back
/// to the run browser that opened it or picks something in it, or `stop`
/// resolves; how it ended besides quitting.
fn show(runtime: &tokio::runtime::Runtime, app: &mut App, stop: Stop) -> anyhow::Result<Option<Ended>> {
    let mut terminal = TerminalGuard::open()?;
    let mut feeds = Feeds { input: TerminalInput::new(), events: None, stop: Some(stop) };
    runtime.block_on(interact(&mut terminal.0, app, &mut feeds, draw))?;
    Ok(app.take_ended())
}

/// The run browser: an app whose first screen lists the runs under some
/// directories (`screens/runs/`). It lives across what it opens: the command
/// hosting it shows it with [`browse`], opens what the user picked (a replay,
/// a comparison, a matrix, a resumed live run — each opened from the browser,
/// so back at its first screen returns here) and shows it again.
pub struct Browser {
    app: App,
}

impl Browser {
    /// The browser over `dirs`, its scan started, in `theme` with `keys`.
    pub fn new(dirs: Vec<std::path::PathBuf>, theme: Theme, keys: Keymap) -> Self {
        Self { app: App::browsing(dirs, theme).with_keys(keys) }
    }

    /// Say `text` on the status line when it shows next.
    pub fn say(&mut self, text: String) {
        self.app.say(Some(text));
    }

    /// The app showing the browser (for drawing it off a terminal: the benches and tests).
    pub fn app(&mut self) -> &mut App {
        &mut self.app
    }
}

/// Show `browser` on the terminal until the user picks something (`Some`) or
/// quits (`None`), or `stop` resolves (`None`).
pub fn browse(runtime: &tokio::runtime::Runtime, browser: &mut Browser, stop: Stop) -> anyhow::Result<Option<Choice>> {
    Ok(match show(runtime, &mut browser.app, stop)? {
        Some(Ended::Chose(choice)) => Some(choice),
        Some(Ended::Back) | None => None,
    })
}

/// What a replay opens and how it plays.
pub struct ReplayOptions<'a> {
    /// The trace.
    pub path: &'a std::path::Path,
    /// Open at the first event instead of the final state.
    pub from_start: bool,
    /// Longest wait between two played events (`None`: the recorded gaps).
    pub max_gap: Option<Duration>,
    /// Colours.
    pub theme: Theme,
    /// The keys.
    pub keys: Keymap,
    /// Whether the inspector may read a dataset outside the run's benchmark
    /// folder (`--allow-outside-datasets`).
    pub allow_outside_datasets: bool,
    /// Whether the run browser opened it (back at the dashboard returns there).
    pub from_browser: bool,
    /// Who reviews the run (`V`, `L`): reviews are kept beside its trace.
    pub people: People,
}

/// Open the UI over a trace, on `runtime`; the first action that needs an
/// engine (work by hand, a rerun) starts a derived run with `deriver`.
pub fn replay_trace(
    runtime: &tokio::runtime::Runtime,
    options: ReplayOptions,
    deriver: Deriver,
    stop: Stop,
) -> anyhow::Result<Option<Ended>> {
    let (mut replay, state) = Replay::begin(options.path, options.from_start)?;
    replay.max_gap = options.max_gap;
    let note = replay.note();
    let mut app = App::new(state, options.theme, Some(replay), None)
        .with_keys(options.keys)
        .with_deriver(deriver)
        .allowing_outside_datasets(options.allow_outside_datasets)
        .with_people(options.people);
    if options.from_browser {
        app = app.from_browser();
    }
    app.say(note);
    show(runtime, &mut app, stop)
}

/// How a comparison's UI is shown: colours, keys, whether the run browser opened it.
pub struct CompareOptions {
    /// Colours.
    pub theme: Theme,
    /// The keys.
    pub keys: Keymap,
    /// Whether the run browser opened it (back at its table returns there).
    pub from_browser: bool,
}

impl CompareOptions {
    /// `app` shown as these options say.
    fn show(self, app: App, stop: Stop) -> anyhow::Result<Option<Ended>> {
        let app = app.with_keys(self.keys);
        let mut app = if self.from_browser { app.from_browser() } else { app };
        show(&tokio::runtime::Runtime::new()?, &mut app, stop)
    }
}

/// Open the UI over `comparison` (two runs side by side).
pub fn compare(comparison: Comparison, options: CompareOptions, stop: Stop) -> anyhow::Result<Option<Ended>> {
    let app = App::comparing(comparison, options.theme.clone());
    options.show(app, stop)
}

/// Open the UI over `matrix` (several runs, questions × runs).
pub fn compare_runs(matrix: RunsMatrix, options: CompareOptions, stop: Stop) -> anyhow::Result<Option<Ended>> {
    let app = App::comparing_runs(matrix, options.theme.clone());
    options.show(app, stop)
}

/// Open the review screen over `queue`.
pub fn review(queue: ReviewQueue, options: CompareOptions, stop: Stop) -> anyhow::Result<Option<Ended>> {
    let app = App::reviewing(queue, options.theme.clone());
    options.show(app, stop)
}

/// The pairwise review screen over `queue` until the reviewer quits.
pub fn pair_review(queue: PairQueue, options: CompareOptions, stop: Stop) -> anyhow::Result<Option<Ended>> {
    let app = App::pair_reviewing(queue, options.theme.clone());
    options.show(app, stop)
}

/// A live run as the UI sees it.
pub struct Live {
    /// The engine's events.
    pub events: UnboundedReceiver<(u64, EngineEvent)>,
    /// Commands to the engine.
    pub commands: UnboundedSender<Command>,
    /// The command that continues the run later (shown when quitting early).
    pub resume: String,
    /// Whether the inspector may read a dataset outside the run's benchmark
    /// folder (`--allow-outside-datasets`).
    pub allow_outside_datasets: bool,
    /// Who reviews the run (`V`, `L`): reviews are kept in its directory.
    pub people: People,
}

/// How watching a live run ended.
pub enum LiveEnd {
    /// The user quit (or a signal came): the run was told to cancel what is
    /// still working. The state as last shown.
    Quit(RunState),
    /// The terminal failed; the run goes on and its events are handed back.
    Failed {
        /// What went wrong.
        error: String,
        /// The state as last shown.
        state: RunState,
        /// The rest of the run's events.
        events: UnboundedReceiver<(u64, EngineEvent)>,
        /// Commands to the engine.
        commands: UnboundedSender<Command>,
        /// The stop signal, if it has not come yet (it may be on its way: a
        /// closing terminal sends SIGHUP as its reads fail).
        stop: Option<Stop>,
    },
}

/// `draw`, failing from the Nth frame on when a debug build runs with
/// `EVAL_DAG_INJECT_DRAW_PANIC=N`: how the tests prove that a fault in the UI
/// never loses a live run. Release builds ignore the variable.
fn injected_fault(draw: fn(&mut Frame, &App)) -> impl Fn(&mut Frame, &App) {
    let from: Option<u64> =
        cfg!(debug_assertions).then(|| std::env::var("EVAL_DAG_INJECT_DRAW_PANIC").ok()?.parse().ok()).flatten();
    let frames = std::cell::Cell::new(0u64);
    move |frame: &mut Frame, app: &App| {
        frames.set(frames.get() + 1);
        if from.is_some_and(|n| frames.get() >= n) {
            panic!("injected drawing fault (EVAL_DAG_INJECT_DRAW_PANIC)");
        }
        draw(frame, app);
    }
}

/// Show a live run in `theme` with `keys`: events from the engine,
/// commands back to it, until the user quits or `stop` (a signal) resolves;
/// then the run is cancelled.
pub async fn watch_live(initial: RunState, live: Live, theme: Theme, keys: Keymap, stop: Stop) -> LiveEnd {
    let Live { events, commands, resume, allow_outside_datasets, people } = live;
    let mut app = App::new(initial, theme, None, Some(commands.clone()))
        .with_keys(keys)
        .with_resume(resume)
        .allowing_outside_datasets(allow_outside_datasets)
        .with_people(people);
    let mut feeds = Feeds { input: TerminalInput::new(), events: Some(events), stop: Some(stop) };
    let draw = injected_fault(draw);
    let result = match TerminalGuard::open() {
        Ok(mut terminal) => interact(&mut terminal.0, &mut app, &mut feeds, draw).await.map_err(|e| e.to_string()),
        Err(err) => Err(err.to_string()),
    };
    match (result, feeds.events) {
        (Err(error), Some(events)) => {
            LiveEnd::Failed { error, state: app.into_state(), events, commands, stop: feeds.stop }
        }
        _ => {
            if app.cancelling_batches() {
                let batches = app.state().batches_in_flight();
                let line =
                    format!("cancelling the batches in flight at the provider ({batches}); what they finished is kept");
                let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("{line}\n").as_bytes());
                let _ = commands.send(Command::CancelBatches);
            }
            let _ = commands.send(Command::CancelRun);
            LiveEnd::Quit(app.into_state())
        }
    }
}
