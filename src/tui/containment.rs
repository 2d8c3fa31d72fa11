//! A fault in the UI never takes a run down. Drawing, key handling and
//! folding events run under [`contained`]: a panic there is caught, logged
//! (not printed over the screen, and without the terminal-restoring panic
//! hook tearing the UI down), and reported as a message, while the engine
//! carries on in the background.

use std::any::Any;
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

thread_local! {
    /// Set while contained code runs on this thread.
    static CONTAINING: Cell<bool> = const { Cell::new(false) };
}

/// Wrap the process's panic hook (once): a panic inside [`contained`] is only
/// logged; any other panic goes to the hook as before (which restores the
/// terminal and prints).
pub fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if CONTAINING.with(Cell::get) {
                tracing::error!("terminal UI fault (contained): {info}");
            } else {
                previous(info);
            }
        }));
    });
}

/// The text of a panic's payload.
fn message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Run `work`; a panic inside it comes back as its message.
pub fn contained<T>(work: impl FnOnce() -> T) -> Result<T, String> {
    install_hook();
    let outer = CONTAINING.with(|c| c.replace(true));
    let result = catch_unwind(AssertUnwindSafe(work));
    CONTAINING.with(|c| c.set(outer));
    result.map_err(|payload| message(payload.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_contained_panic_is_returned_and_leaves_the_hook_in_charge_of_others() {
        assert_eq!(contained(|| 7), Ok(7));
        assert_eq!(contained(|| -> u8 { panic!("drawing went wrong") }), Err("drawing went wrong".to_string()));
        let index = 9;
        let caught = contained(|| [1, 2, 3][index]).unwrap_err();
        assert!(caught.contains("index out of bounds"), "{caught}");
        assert!(!CONTAINING.with(Cell::get), "the flag is cleared after a panic");
    }
}
