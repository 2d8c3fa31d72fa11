//! One key as the keymap knows it: a key code with Ctrl and Alt, written as
//! users write it in the config file (`ctrl-q`, `shift-tab`, `f5`, `enter`,
//! `J`) and shown the same way in the footer and the help.

use std::fmt;
use std::str::FromStr;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// A key: its code, and whether Ctrl and Alt are held. Shift is in the code
/// itself (`J`, shift-tab), as terminals report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    code: KeyCode,
    modifiers: KeyModifiers,
}

/// The modifiers a key keeps; Shift is part of the code.
const HELD: KeyModifiers = KeyModifiers::CONTROL.union(KeyModifiers::ALT);

/// Named keys: what they are called when written, first the name they are shown by.
const NAMES: &[(&str, KeyCode)] = &[
    ("enter", KeyCode::Enter),
    ("return", KeyCode::Enter),
    ("esc", KeyCode::Esc),
    ("escape", KeyCode::Esc),
    ("tab", KeyCode::Tab),
    ("space", KeyCode::Char(' ')),
    ("backspace", KeyCode::Backspace),
    ("delete", KeyCode::Delete),
    ("del", KeyCode::Delete),
    ("insert", KeyCode::Insert),
    ("home", KeyCode::Home),
    ("end", KeyCode::End),
    ("pgup", KeyCode::PageUp),
    ("pageup", KeyCode::PageUp),
    ("pgdn", KeyCode::PageDown),
    ("pagedown", KeyCode::PageDown),
    ("↑", KeyCode::Up),
    ("up", KeyCode::Up),
    ("↓", KeyCode::Down),
    ("down", KeyCode::Down),
    ("←", KeyCode::Left),
    ("left", KeyCode::Left),
    ("→", KeyCode::Right),
    ("right", KeyCode::Right),
];

/// Highest function key a binding may name.
const MAX_F: u8 = 24;

impl Key {
    /// `code` with no modifier.
    pub const fn plain(code: KeyCode) -> Self {
        Self { code, modifiers: KeyModifiers::NONE }
    }

    /// `code` with Ctrl held.
    pub const fn ctrl(code: KeyCode) -> Self {
        Self { code, modifiers: KeyModifiers::CONTROL }
    }

    /// The key a terminal reported: Shift dropped (it is in the code), and a
    /// letter with Ctrl lowercase (terminals differ in how they send Ctrl-Shift).
    pub fn of(event: KeyEvent) -> Self {
        let modifiers = event.modifiers & HELD;
        let code = match event.code {
            KeyCode::Char(c) if modifiers.contains(KeyModifiers::CONTROL) => KeyCode::Char(c.to_ascii_lowercase()),
            code => code,
        };
        Self { code, modifiers }
    }

    /// The key as a terminal would report it.
    #[cfg(test)]
    pub(crate) fn event(self) -> KeyEvent {
        KeyEvent::new(self.code, self.modifiers)
    }
}

/// A key the config file names that is no key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyParseError {
    /// An empty string.
    #[error("an empty key")]
    Empty,
    /// Neither a character nor a known name.
    #[error(
        "`{0}` is not a key: write one character, `ctrl-`/`alt-` before a key, f1–f{MAX_F}, or one of \
         enter, esc, tab, shift-tab, space, backspace, delete, insert, home, end, pgup, pgdn, up, down, left, right"
    )]
    Unknown(String),
    /// Shift with something other than a letter or tab.
    #[error("`{0}`: shift- goes with a letter or tab; write the character itself (`?`, not `shift-/`)")]
    Shift(String),
}

impl FromStr for Key {
    type Err = KeyParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text.is_empty() {
            return Err(KeyParseError::Empty);
        }
        let mut modifiers = KeyModifiers::NONE;
        let mut rest = text;
        // A prefix needs something after it: `-` alone, and `ctrl--`'s last `-`, is the minus key.
        while let Some((prefix, after)) = rest.split_once('-').filter(|(_, after)| !after.is_empty()) {
            match prefix.to_ascii_lowercase().as_str() {
                "ctrl" | "control" => modifiers |= KeyModifiers::CONTROL,
                "alt" => modifiers |= KeyModifiers::ALT,
                "shift" => modifiers |= KeyModifiers::SHIFT,
                _ => break,
            }
            rest = after;
        }
        let lower = rest.to_lowercase();
        let mut chars = rest.chars();
        let function = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()).filter(|n| (1..=MAX_F).contains(n));
        let code = match (NAMES.iter().find(|(name, _)| *name == lower), chars.next(), chars.next(), function) {
            (Some((_, code)), ..) => *code,
            (None, Some(c), None, _) => KeyCode::Char(c),
            (None, .., Some(n)) => KeyCode::F(n),
            _ => return Err(KeyParseError::Unknown(text.into())),
        };
        let code = match code {
            _ if !modifiers.contains(KeyModifiers::SHIFT) => code,
            KeyCode::Tab => KeyCode::BackTab,
            KeyCode::Char(c) if c.is_alphabetic() => KeyCode::Char(c.to_uppercase().next().unwrap_or(c)),
            _ => return Err(KeyParseError::Shift(text.into())),
        };
        Ok(Self::of(KeyEvent::new(code, modifiers)))
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.modifiers.contains(KeyModifiers::CONTROL) {
            f.write_str("ctrl-")?;
        }
        if self.modifiers.contains(KeyModifiers::ALT) {
            f.write_str("alt-")?;
        }
        match self.code {
            KeyCode::BackTab => f.write_str("shift-tab"),
            KeyCode::F(n) => write!(f, "f{n}"),
            KeyCode::Char(c) if c != ' ' => write!(f, "{c}"),
            code => match NAMES.iter().find(|(_, named)| *named == code) {
                Some((name, _)) => f.write_str(name),
                None => write!(f, "{code:?}"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str) -> Key {
        text.parse().unwrap()
    }

    #[test]
    fn keys_are_written_as_users_write_them() {
        assert_eq!(key("ctrl-q"), Key::ctrl(KeyCode::Char('q')));
        assert_eq!(key("Ctrl-Q"), Key::ctrl(KeyCode::Char('q')), "ctrl with a capital is the same key");
        assert_eq!(key("shift-tab"), Key::plain(KeyCode::BackTab));
        assert_eq!(key("shift-j"), key("J"));
        assert_eq!(key("f5"), Key::plain(KeyCode::F(5)));
        assert_eq!(key("Enter"), Key::plain(KeyCode::Enter));
        assert_eq!(key("space"), Key::plain(KeyCode::Char(' ')));
        assert_eq!(key("-"), Key::plain(KeyCode::Char('-')));
        assert_eq!(key("ctrl--"), Key::ctrl(KeyCode::Char('-')));
        assert_eq!(key("alt-x").to_string(), "alt-x");
        assert_eq!(key("pagedown").to_string(), "pgdn");
    }

    #[test]
    fn what_is_no_key_is_refused() {
        assert_eq!("".parse::<Key>(), Err(KeyParseError::Empty));
        assert_eq!("ctrl-foo".parse::<Key>(), Err(KeyParseError::Unknown("ctrl-foo".into())));
        assert_eq!("f25".parse::<Key>(), Err(KeyParseError::Unknown("f25".into())));
        assert_eq!("hyper-x".parse::<Key>(), Err(KeyParseError::Unknown("hyper-x".into())));
        assert_eq!("shift-/".parse::<Key>(), Err(KeyParseError::Shift("shift-/".into())));
    }

    #[test]
    fn a_key_reads_back_as_it_is_shown() {
        for binding in super::super::BINDINGS {
            for key in binding.keys {
                assert_eq!(key.to_string().parse::<Key>().as_ref(), Ok(key), "{key}");
            }
        }
    }

    #[test]
    fn a_pressed_key_matches_however_the_terminal_adds_shift() {
        let shifted = KeyEvent::new(KeyCode::Char('Q'), KeyModifiers::SHIFT);
        assert_eq!(Key::of(shifted), key("Q"));
        let back_tab = KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT);
        assert_eq!(Key::of(back_tab), key("shift-tab"));
        let ctrl_shift = KeyEvent::new(KeyCode::Char('Q'), KeyModifiers::CONTROL | KeyModifiers::SHIFT);
        assert_eq!(Key::of(ctrl_shift), key("ctrl-q"));
    }
}
