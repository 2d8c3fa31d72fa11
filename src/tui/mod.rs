//! The terminal UI: watch critic loops live, inspect every iteration, step,
//! rerun and replay. State comes from the engine's reducer; screens are pure
//! functions of it; redraws happen on change, at most ~60 per second.

mod app;
mod comparison;
mod highlight;
mod keymap;
mod replay;
mod screens;
mod theme;
mod widgets;

use std::time::{Duration, Instant};

use crossterm::event::{Event, EventStream, KeyEventKind, MouseButton, MouseEventKind};
use futures::StreamExt;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

pub use app::{App, Screen, Tab};
pub use comparison::Comparison;
pub use keymap::{Action, BINDINGS, action_for};
pub use replay::Replay;
pub use theme::Theme;

use crate::engine::{Command, EngineEvent, RunState};

/// Shortest time between two frames.
const FRAME: Duration = Duration::from_millis(16);
/// Most events folded before a redraw.
const DRAIN_BATCH: usize = 2000;

/// The header, body and footer areas of a terminal of `area`.
fn areas(area: ratatui::layout::Rect) -> [ratatui::layout::Rect; 3] {
    Layout::vertical([Constraint::Length(3), Constraint::Min(3), Constraint::Length(1)]).areas(area)
}

/// Draw the whole app.
pub fn draw(frame: &mut Frame, app: &App) {
    let [header, body, footer] = areas(frame.area());
    widgets::header::draw(frame, header, app);
    match app.screen {
        Screen::Dashboard => screens::dashboard::draw(frame, body, app),
        Screen::Question => screens::question::draw(frame, body, app),
        Screen::Diff => screens::diff::draw(frame, body, app),
        Screen::Compare => screens::compare::draw(frame, body, app),
        Screen::CompareDetail => screens::compare_detail::draw(frame, body, app),
    }
    widgets::footer::draw(frame, footer, app);
    if app.help {
        screens::help::draw(frame, body, app);
    }
}

fn theme() -> Theme {
    let name = crate::config::theme_name();
    Theme::load(&name).unwrap_or_else(|err| {
        tracing::warn!("{err}; using the dark theme");
        Theme::dark()
    })
}

/// Handle one input event; `size` is the terminal's.
pub fn on_input(app: &mut App, event: Event, size: ratatui::layout::Size) {
    match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => app.handle_key(key),
        Event::Mouse(mouse) => match mouse.kind {
            MouseEventKind::ScrollDown => app.handle_key(crossterm::event::KeyCode::Down.into()),
            MouseEventKind::ScrollUp => app.handle_key(crossterm::event::KeyCode::Up.into()),
            MouseEventKind::Down(MouseButton::Left) if app.screen == Screen::Dashboard => {
                let [_, body, _] = areas(ratatui::layout::Rect::from((ratatui::layout::Position::ORIGIN, size)));
                if let Some(row) = screens::dashboard::row_at(app, body, mouse.row) {
                    app.row = row;
                    app.refresh();
                }
            }
            _ => {}
        },
        _ => {}
    }
}

/// Run the UI until the user quits. `events` feeds a live run (closed when the
/// engine is done); a replay drives itself.
pub async fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    app: &mut App,
    mut events: Option<UnboundedReceiver<(u64, EngineEvent)>>,
) -> std::io::Result<()> {
    let mut input = EventStream::new();
    let mut dirty = true;
    let mut last_draw = Instant::now() - FRAME;
    let mut tick = tokio::time::interval(Duration::from_millis(120));
    while !app.quit {
        if dirty && last_draw.elapsed() >= FRAME {
            terminal.draw(|frame| draw(frame, app))?;
            dirty = false;
            last_draw = Instant::now();
        }
        let replay_wait = app.replay.as_ref().filter(|r| r.playing).and_then(Replay::next_delay);
        let draw_wait = FRAME.saturating_sub(last_draw.elapsed());
        tokio::select! {
            Some(Ok(event)) = input.next() => {
                on_input(app, event, terminal.size()?);
                dirty = true;
            }
            received = async { events.as_mut().expect("guarded").recv().await }, if events.is_some() => {
                match received {
                    Some((t_ms, event)) => {
                        app.apply(t_ms, &event);
                        let receiver = events.as_mut().expect("guarded");
                        for _ in 0..DRAIN_BATCH {
                            match receiver.try_recv() {
                                Ok((t_ms, event)) => app.apply(t_ms, &event),
                                Err(_) => break,
                            }
                        }
                        app.refresh();
                    }
                    None => events = None,
                }
                dirty = true;
            }
            _ = tokio::time::sleep(replay_wait.unwrap_or_default()), if replay_wait.is_some() => {
                if let Some(replay) = app.replay.as_mut() {
                    replay.forward(&mut app.state);
                }
                app.refresh();
                dirty = true;
            }
            _ = tick.tick() => {
                if app.state.questions.iter().any(|q| q.status.is_active()) {
                    app.spinner += 1;
                    dirty = true;
                }
            }
            _ = tokio::time::sleep(draw_wait), if dirty => {}
        }
    }
    Ok(())
}

fn with_terminal<T>(body: impl FnOnce(&mut ratatui::DefaultTerminal) -> T) -> anyhow::Result<T> {
    let mut terminal = ratatui::try_init().map_err(|e| anyhow::anyhow!("cannot open the terminal UI: {e}"))?;
    let _ = crossterm::execute!(std::io::stdout(), crossterm::event::EnableMouseCapture);
    let result = body(&mut terminal);
    let _ = crossterm::execute!(std::io::stdout(), crossterm::event::DisableMouseCapture);
    ratatui::restore();
    Ok(result)
}

/// Open the UI over the trace at `path`: the final state, or the start.
pub fn replay_trace(path: &std::path::Path, from_start: bool) -> anyhow::Result<()> {
    let (replay, state) = Replay::open(path, from_start)?;
    let mut app = App::new(state, theme(), Some(replay), None);
    let runtime = tokio::runtime::Runtime::new()?;
    with_terminal(|terminal| runtime.block_on(event_loop(terminal, &mut app, None)))??;
    Ok(())
}

/// Open the UI over `comparison` (two runs side by side).
pub fn compare(comparison: Comparison) -> anyhow::Result<()> {
    let mut app = App::comparing(comparison, theme());
    let runtime = tokio::runtime::Runtime::new()?;
    with_terminal(|terminal| runtime.block_on(event_loop(terminal, &mut app, None)))??;
    Ok(())
}

/// Show a live run: events from the engine, commands back to it. Returns the
/// state when the user quits (the run is cancelled if still going).
pub async fn watch_live(
    initial: RunState,
    events: UnboundedReceiver<(u64, EngineEvent)>,
    commands: UnboundedSender<Command>,
) -> anyhow::Result<RunState> {
    let mut app = App::new(initial, theme(), None, Some(commands.clone()));
    let mut terminal = ratatui::try_init().map_err(|e| anyhow::anyhow!("cannot open the terminal UI: {e}"))?;
    let _ = crossterm::execute!(std::io::stdout(), crossterm::event::EnableMouseCapture);
    let result = event_loop(&mut terminal, &mut app, Some(events)).await;
    let _ = crossterm::execute!(std::io::stdout(), crossterm::event::DisableMouseCapture);
    ratatui::restore();
    result?;
    let _ = commands.send(Command::CancelRun);
    Ok(app.state)
}
