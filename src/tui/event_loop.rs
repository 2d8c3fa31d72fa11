//! The UI's loop: terminal input, engine events, replay playback, signals and
//! redraws. Redraws are requested by changes and coalesced to at most one
//! frame per [`FRAME`]; playback wakes at the next event's due time, which
//! other wake-ups never push back. Drawing, keys and events run contained
//! (see [`super::containment`]): a fault shows an error screen and is logged
//! while the run goes on.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::time::{Duration, Instant};

use crossterm::event::Event;
use futures::{Stream, StreamExt};
use ratatui::backend::Backend;
use ratatui::{Frame, Terminal};
use tokio::sync::mpsc::UnboundedReceiver;

use super::app::App;
use super::containment::contained;
use super::widgets::fault;
use crate::run::EngineEvent;

/// Shortest time between two frames.
pub const FRAME: Duration = Duration::from_millis(16);
/// Most events folded before a redraw.
const DRAIN_BATCH: usize = 2000;
/// How often spinners and playback countdowns move.
const TICK: Duration = Duration::from_millis(120);

/// A future that resolves with a signal's name when the process is told to stop.
pub type Stop = Pin<Box<dyn Future<Output = &'static str> + Send>>;

/// What the loop listens to besides the clock.
pub struct Feeds<K> {
    /// Terminal input (keys, mouse, resizes).
    pub input: K,
    /// A live run's events; `None` for replays and comparisons, and once the engine is done.
    pub events: Option<UnboundedReceiver<(u64, EngineEvent)>>,
    /// Resolves when the process is told to stop (SIGINT, SIGTERM, SIGHUP).
    pub stop: Option<Stop>,
}

/// The next message of `receiver`, `None` without one (the `select!` arm that
/// awaits it is off then).
async fn recv_some<T>(receiver: Option<&mut UnboundedReceiver<T>>) -> Option<T> {
    match receiver {
        Some(receiver) => receiver.recv().await,
        None => None,
    }
}

/// What `future` resolves with, `None` without one (the `select!` arm that
/// awaits it is off then).
async fn resolve<F: Future + Unpin>(future: Option<&mut F>) -> Option<F::Output> {
    match future {
        Some(future) => Some(future.await),
        None => None,
    }
}

fn backend_error(err: impl std::error::Error) -> io::Error {
    io::Error::other(err.to_string())
}

/// Draw a frame with `draw`; if it panics, the fault screen instead.
fn draw_contained<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    draw: &impl Fn(&mut Frame, &App),
) -> io::Result<()> {
    match contained(|| terminal.draw(|frame| draw(frame, app)).map(|_| ())) {
        Ok(result) => {
            app.set_fault(None);
            result.map_err(backend_error)
        }
        Err(message) => {
            app.set_fault(Some(format!("the screen could not be drawn: {message}")));
            terminal.draw(|frame| fault::draw(frame, &app.ctx())).map(|_| ()).map_err(backend_error)
        }
    }
}

/// Fold `first` and whatever else is waiting on `events` into the app.
fn fold(app: &mut App, first: (u64, EngineEvent), events: &mut UnboundedReceiver<(u64, EngineEvent)>) {
    let (t_ms, event) = first;
    let folded = contained(|| {
        app.apply(t_ms, event);
        for _ in 0..DRAIN_BATCH {
            match events.try_recv() {
                Ok((t_ms, event)) => app.apply(t_ms, event),
                Err(_) => break,
            }
        }
        app.refresh();
    });
    if let Err(fault) = folded {
        app.say(Some(format!("an event could not be shown: {fault} (logged; the run goes on)")));
    }
}

/// Run the UI until the user quits, the process is told to stop, or the
/// terminal fails (an `Err`). `draw` draws a frame (the app's
/// [`super::draw`]; tests pass others).
pub async fn run<B, K>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    feeds: &mut Feeds<K>,
    draw: impl Fn(&mut Frame, &App),
) -> io::Result<()>
where
    B: Backend,
    K: Stream<Item = io::Result<Event>> + Unpin,
{
    let mut dirty = true;
    let mut last_draw: Option<Instant> = None;
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut input_open = true;
    // An edit asked for ends the loop: the caller gives the terminal to the
    // editor and comes back.
    while app.running() {
        if let Some(events) = app.take_new_events() {
            feeds.events = Some(events);
        }
        let now = clock();
        app.set_now(now);
        if app.play_due(now) {
            dirty = true;
        }
        if dirty && last_draw.is_none_or(|at| now >= at + FRAME) {
            draw_contained(terminal, app, &draw)?;
            dirty = false;
            last_draw = Some(now);
        }
        let playback = app.playback_deadline();
        let next_frame = last_draw.map_or(now, |at| at + FRAME);
        // A replay still reading its trace: its chunks come in between keys.
        let mut loading = app.take_loading();
        tokio::select! {
            event = feeds.input.next(), if input_open => match event {
                Some(Ok(event)) => {
                    // A key starts playback from the moment it is pressed, not from the last wake-up.
                    app.set_now(clock());
                    let size = terminal.size().map_err(backend_error)?;
                    if let Err(fault) = contained(|| super::on_input(app, event, size)) {
                        app.say(Some(format!("that key failed: {fault} (logged)")));
                    }
                    dirty = true;
                }
                Some(Err(err)) => return Err(err),
                None => input_open = false,
            },
            received = recv_some(feeds.events.as_mut()), if feeds.events.is_some() => {
                // The run's clock follows the wall clock from the moment its events arrive.
                app.set_now(clock());
                match (received, feeds.events.as_mut()) {
                    (Some(first), Some(events)) => fold(app, first, events),
                    _ => feeds.events = None,
                }
                dirty = true;
            }
            loaded = recv_some(loading.as_mut().map(|loading| &mut loading.chunks)), if loading.is_some() => {
                match (loaded, loading.take()) {
                    (Some(loaded), Some(still)) => app.receive(loaded, still),
                    // The loader ends with its last chunk: gone before it, it failed.
                    (None, _) => app.say(Some("the trace stopped loading (a fault, logged)".into())),
                    _ => {}
                }
                loading = None;
                dirty = true;
            }
            Some(signal) = resolve(feeds.stop.as_mut()), if feeds.stop.is_some() => {
                tracing::info!("{signal}: leaving the terminal UI");
                feeds.stop = None;
                app.stop();
            }
            () = sleep_until(playback), if playback.is_some() => {}
            _ = tick.tick() => {
                if app.tick() {
                    dirty = true;
                }
            }
            () = sleep_until(Some(next_frame)), if dirty => {}
        }
        if let Some(loading) = loading {
            app.keep_loading(loading);
        }
    }
    Ok(())
}

/// Now, on tokio's clock (which tests can pause and move).
fn clock() -> Instant {
    tokio::time::Instant::now().into_std()
}

async fn sleep_until(at: Option<Instant>) {
    if let Some(at) = at {
        tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await;
    }
}
