//! A fault in the UI never takes a run down. Drawing, key handling and
//! folding events run under [`contained`]: a panic there is caught, logged
//! (not printed over the screen, and without restoring the terminal under
//! the UI), and reported as a message, while the engine carries on in the
//! background. Any other panic restores the terminal first, so its message
//! is readable — and restoring never fails loudly: a terminal that is gone
//! (closed window, SIGHUP) must not turn a panic or an exit into an abort.

use std::any::Any;
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

thread_local! {
    /// Set while contained code runs on this thread.
    static CONTAINING: Cell<bool> = const { Cell::new(false) };
}

/// Whether the UI holds the terminal (raw mode, alternate screen).
static TERMINAL_HELD: AtomicBool = AtomicBool::new(false);

/// Put the terminal in the UI's mode: raw, alternate screen, mouse capture.
pub fn hold_terminal() -> std::io::Result<ratatui::DefaultTerminal> {
    install_hook();
    take_terminal_back()?;
    ratatui::Terminal::new(ratatui::backend::CrosstermBackend::new(std::io::stdout()))
}

/// Put the terminal back in the UI's mode after [`release_terminal`] (an
/// editor had it meanwhile).
pub fn take_terminal_back() -> std::io::Result<()> {
    crossterm::terminal::enable_raw_mode()?;
    TERMINAL_HELD.store(true, Ordering::SeqCst);
    crossterm::execute!(
        std::io::stdout(),
        crossterm::terminal::EnterAlternateScreen,
        crossterm::event::EnableMouseCapture
    )
}

/// Give the terminal back (idempotent); failures are logged, never printed
/// or raised: the terminal may be gone.
pub fn release_terminal() {
    if !TERMINAL_HELD.swap(false, Ordering::SeqCst) {
        return;
    }
    let left = crossterm::execute!(
        std::io::stdout(),
        crossterm::event::DisableMouseCapture,
        crossterm::terminal::LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    if let Err(err) = left.and_then(|()| crossterm::terminal::disable_raw_mode()) {
        tracing::warn!("could not restore the terminal: {err}");
    }
}

/// Wrap the process's panic hook (once): a panic inside [`contained`] is only
/// logged; any other panic gives the terminal back, then goes to the hook as
/// before.
pub fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if CONTAINING.with(Cell::get) {
                tracing::error!("terminal UI fault (contained): {info}");
            } else {
                release_terminal();
                previous(info);
            }
        }));
    });
}

/// A panic caught by [`contained`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Fault {
    /// The panic said why: its message is free text from wherever it was raised.
    #[error("{message}")]
    Panicked {
        /// The panic's message.
        message: String,
    },
    /// The panic's payload is not text.
    #[error("a panic without a message")]
    Unexplained,
}

impl Fault {
    /// The fault a panic's payload describes.
    fn from_payload(payload: &(dyn Any + Send)) -> Self {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .map_or(Self::Unexplained, |message| Self::Panicked { message })
    }
}

/// Run `work`; a panic inside it comes back as a [`Fault`].
pub fn contained<T>(work: impl FnOnce() -> T) -> Result<T, Fault> {
    install_hook();
    let outer = CONTAINING.with(|c| c.replace(true));
    let result = catch_unwind(AssertUnwindSafe(work));
    CONTAINING.with(|c| c.set(outer));
    result.map_err(|payload| Fault::from_payload(payload.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_contained_panic_is_returned_and_leaves_the_hook_in_charge_of_others() {
        assert_eq!(contained(|| 7), Ok(7));
        assert_eq!(
            contained(|| -> u8 { panic!("drawing went wrong") }),
            Err(Fault::Panicked { message: "drawing went wrong".to_string() })
        );
        let index = 9;
        let caught = contained(|| [1, 2, 3][index]).unwrap_err().to_string();
        assert!(caught.contains("index out of bounds"), "{caught}");
        let silent = contained(|| -> u8 { std::panic::panic_any(7) }).unwrap_err();
        assert_eq!((silent.clone(), silent.to_string()), (Fault::Unexplained, "a panic without a message".into()));
        assert!(!CONTAINING.with(Cell::get), "the flag is cleared after a panic");
    }
}
