//! The one-line text filter a screen types into after its filter key (`/`):
//! the dashboard's and the run browser's.

use crossterm::event::KeyCode;

/// Type `code` into `filter`: enter ends typing, esc ends it too (clearing
/// the filter when `esc_clears`), backspace and characters edit. Whether
/// typing goes on.
pub fn type_into(filter: &mut String, code: KeyCode, esc_clears: bool) -> bool {
    match code {
        KeyCode::Enter => return false,
        KeyCode::Esc => {
            if esc_clears {
                filter.clear();
            }
            return false;
        }
        KeyCode::Backspace => {
            filter.pop();
        }
        KeyCode::Char(c) => filter.push(c),
        _ => {}
    }
    true
}
