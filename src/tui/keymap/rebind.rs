//! The keymap in use: the default bindings with the user's own keys in place
//! of theirs (`[keys]` in the config file), checked for clashes on every
//! screen. Key handling, the footer and the help all read it.

use std::borrow::Cow;
use std::fmt;

use crossterm::event::{KeyCode, KeyEvent};

use super::key::Key;
use super::{Action, BINDINGS, Binding, Context, Screen, applies};

/// Ctrl-C: always quits, whatever else is bound.
const CTRL_C: Key = Key::ctrl(KeyCode::Char('c'));

/// Every binding with the keys it has in this session.
#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    bound: Vec<Bound>,
}

/// One binding as the user has it.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    /// What it does, where, and its help.
    pub binding: &'static Binding,
    /// Its keys: the defaults, or the user's in their place.
    pub keys: Cow<'static, [Key]>,
    /// Its keys as the footer and the help show them.
    pub label: Cow<'static, str>,
    /// The rebinding that set its keys (its index among those given), if one did.
    rebinding: Option<usize>,
}

/// The user's keys for one action in one context; they replace its default keys.
#[derive(Debug, Clone, PartialEq)]
pub struct Rebinding {
    /// Where: the context of the binding.
    pub context: Context,
    /// Which of that context's actions.
    pub action: Action,
    /// Its keys from now on.
    pub keys: Vec<Key>,
}

/// A rebinding that cannot be, and which one it is (its index among those given).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{problem}")]
pub struct RebindError {
    /// The index of the rebinding at fault.
    pub index: usize,
    /// What is wrong with it.
    pub problem: RebindProblem,
}

/// What is wrong with a rebinding.
#[derive(Debug, Clone, PartialEq)]
pub enum RebindProblem {
    /// The action has no binding in that context.
    NotHere(Context, Action),
    /// An empty list of keys.
    NoKeys,
    /// Ctrl-C, which always quits.
    CtrlC,
    /// One key for two bindings that apply on one screen.
    Clash {
        /// The key.
        key: Key,
        /// The two bindings, as `(context, action)`.
        bindings: [(Context, Action); 2],
        /// A screen where both apply.
        screen: Screen,
        /// Whether only in a replay.
        replay: bool,
    },
}

impl fmt::Display for RebindProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RebindProblem::NotHere(context, action) => {
                let here: Vec<&str> = context.actions().map(Action::name).collect();
                write!(
                    f,
                    "[keys.{}] has no action `{}`; its actions are {}",
                    context.section(),
                    action.name(),
                    here.join(", ")
                )
            }
            RebindProblem::NoKeys => f.write_str("no keys: give a key or a list of keys"),
            RebindProblem::CtrlC => f.write_str("ctrl-c always quits; choose another key"),
            RebindProblem::Clash { key, bindings: [(c1, a1), (c2, a2)], screen, replay } => write!(
                f,
                "`{key}` would be both [keys.{}] {} and [keys.{}] {} on the {} screen{}; give one of them another key",
                c1.section(),
                a1.name(),
                c2.section(),
                a2.name(),
                screen.name(),
                if *replay { " of a replay" } else { "" }
            ),
        }
    }
}

impl Default for Keymap {
    /// Every binding with its default keys.
    fn default() -> Self {
        let bound = BINDINGS
            .iter()
            .map(|binding| Bound {
                binding,
                keys: Cow::Borrowed(binding.keys),
                label: Cow::Borrowed(binding.label),
                rebinding: None,
            })
            .collect();
        Self { bound }
    }
}

/// `keys` as the footer shows them: `o/enter` (with spaces between when a key is `/`).
fn label(keys: &[Key]) -> String {
    let names: Vec<String> = keys.iter().map(Key::to_string).collect();
    let separator = if names.iter().any(|n| n.contains('/')) { " " } else { "/" };
    names.join(separator)
}

impl Keymap {
    /// The defaults with `rebindings` in place, checked: every rebinding names
    /// an action of its context, has keys other than Ctrl-C, and no screen
    /// ends up with one key for two bindings (a global key counts on every screen).
    pub fn rebind(rebindings: &[Rebinding]) -> Result<Self, RebindError> {
        let mut keymap = Self::default();
        for (index, rebinding) in rebindings.iter().enumerate() {
            let fault = |problem| RebindError { index, problem };
            let Some(bound) = keymap
                .bound
                .iter_mut()
                .find(|b| b.binding.context == rebinding.context && b.binding.action == rebinding.action)
            else {
                return Err(fault(RebindProblem::NotHere(rebinding.context, rebinding.action)));
            };
            if rebinding.keys.is_empty() {
                return Err(fault(RebindProblem::NoKeys));
            }
            if rebinding.keys.contains(&CTRL_C) {
                return Err(fault(RebindProblem::CtrlC));
            }
            let mut keys = rebinding.keys.clone();
            let mut seen = std::collections::HashSet::new();
            keys.retain(|key| seen.insert(*key));
            bound.label = Cow::Owned(label(&keys));
            bound.keys = Cow::Owned(keys);
            bound.rebinding = Some(index);
        }
        keymap.yield_defaults();
        // The defaults never clash (tested) and yield to rebindings, so a clash
        // is between two rebindings: the later one is blamed.
        let clash =
            keymap.clashes().find_map(|(clash, index)| index.map(|index| RebindError { index, problem: clash }));
        clash.map_or(Ok(keymap), Err)
    }

    /// A default key that a rebinding also holds on some screen is the user's:
    /// the default binding gives it up (and is left without a key when it had
    /// no other; the palette still reaches its action).
    fn yield_defaults(&mut self) {
        while let Some((index, key)) = self.clashing_default() {
            let bound = &mut self.bound[index];
            let keys: Vec<Key> = bound.keys.iter().copied().filter(|k| *k != key).collect();
            // Help and the palette still list the action: say it has no key.
            bound.label = Cow::Owned(if keys.is_empty() { "no key".into() } else { label(&keys) });
            bound.keys = Cow::Owned(keys);
        }
    }

    /// A default binding (its index) and its key that a rebinding of another
    /// action also holds on some screen.
    fn clashing_default(&self) -> Option<(usize, Key)> {
        for screen in Screen::ALL {
            for replay in [false, true] {
                let active: Vec<(usize, &Bound)> =
                    self.bound.iter().enumerate().filter(|(_, b)| applies(b.binding.context, screen, replay)).collect();
                for (_, user) in active.iter().filter(|(_, b)| b.rebinding.is_some()) {
                    let defaults = active.iter().filter(|(_, b)| b.rebinding.is_none());
                    for (index, default) in defaults.filter(|(_, b)| b.binding.action != user.binding.action) {
                        if let Some(key) = default.keys.iter().find(|k| user.keys.contains(k)) {
                            return Some((*index, *key));
                        }
                    }
                }
            }
        }
        None
    }

    /// Every key two bindings share on one screen, with the index of the later rebinding involved.
    fn clashes(&self) -> impl Iterator<Item = (RebindProblem, Option<usize>)> + '_ {
        Screen::ALL.into_iter().flat_map(move |screen| {
            [false, true].into_iter().flat_map(move |replay| {
                let active: Vec<&Bound> = self.active(screen, replay).collect();
                let mut found = Vec::new();
                for (i, first) in active.iter().enumerate() {
                    // Two bindings of one action on one key do the same thing: no clash.
                    for second in active[i + 1..].iter().filter(|b| b.binding.action != first.binding.action) {
                        if let Some(key) = first.keys.iter().find(|k| second.keys.contains(k)) {
                            let bindings = [first, second].map(|b| (b.binding.context, b.binding.action));
                            let clash = RebindProblem::Clash { key: *key, bindings, screen, replay };
                            found.push((clash, first.rebinding.max(second.rebinding)));
                        }
                    }
                }
                found
            })
        })
    }

    /// The action of `key` on `screen` (of a replay when `replay`), if any; Ctrl-C always quits.
    pub fn action_for(&self, key: KeyEvent, screen: Screen, replay: bool) -> Option<Action> {
        let key = Key::of(key);
        if key == CTRL_C {
            return Some(Action::Quit);
        }
        self.active(screen, replay).find(|b| b.keys.contains(&key)).map(|b| b.binding.action)
    }

    /// The action of `key` in the quit question (`quit now?`), if any.
    pub fn quit_prompt_action(&self, key: KeyEvent) -> Option<Action> {
        let key = Key::of(key);
        self.quit_prompt().find(|b| b.keys.contains(&key)).map(|b| b.binding.action)
    }

    /// The keys of `action` in the quit question, as it shows them.
    pub fn quit_prompt_label(&self, action: Action) -> &str {
        self.quit_prompt().find(|b| b.binding.action == action).map_or("", |b| b.label.as_ref())
    }

    fn quit_prompt(&self) -> impl Iterator<Item = &Bound> {
        self.bound.iter().filter(|b| b.binding.context == Context::QuitPrompt)
    }

    /// The bindings that apply on `screen`, in help order.
    pub fn active(&self, screen: Screen, replay: bool) -> impl Iterator<Item = &Bound> {
        self.bound.iter().filter(move |b| applies(b.binding.context, screen, replay))
    }

    /// The keys of `action` on `screen` as the footer shows them, if it has any there.
    pub fn label(&self, action: Action, screen: Screen, replay: bool) -> Option<&str> {
        let bound = self.active(screen, replay).find(|b| b.binding.action == action && !b.keys.is_empty());
        bound.map(|b| b.label.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &[&str]) -> Vec<Key> {
        text.iter().map(|k| k.parse().unwrap()).collect()
    }

    fn press(text: &str) -> KeyEvent {
        text.parse::<Key>().unwrap().event()
    }

    #[test]
    fn a_users_key_wins_over_a_default_that_holds_it_and_two_users_keys_still_clash() {
        let quit_on_x = Rebinding { context: Context::Global, action: Action::Quit, keys: keys(&["x"]) };
        let keymap = Keymap::rebind(std::slice::from_ref(&quit_on_x)).unwrap();
        assert_eq!(keymap.action_for(press("x"), Screen::Matrix, false), Some(Action::Quit));
        assert_eq!(keymap.label(Action::FrontierAxis, Screen::Matrix, false), None, "the default gave its only key up");
        assert_eq!(keymap.label(Action::Quit, Screen::Matrix, false), Some("x"));
        let axis_on_x = Rebinding { context: Context::Matrix, action: Action::FrontierAxis, keys: keys(&["x"]) };
        let err = Keymap::rebind(&[quit_on_x, axis_on_x]).expect_err("two rebindings on one key");
        assert_eq!(err.index, 1, "the later rebinding is blamed");
    }

    #[test]
    fn no_key_is_bound_twice_on_one_screen_by_default() {
        let keymap = Keymap::default();
        for screen in Screen::ALL {
            for replay in [false, true] {
                let mut seen = std::collections::HashSet::new();
                for key in keymap.active(screen, replay).flat_map(|b| b.keys.iter()) {
                    assert!(seen.insert(*key), "{key} is bound twice on {screen:?} (replay {replay})");
                }
            }
        }
        assert_eq!(keymap.clashes().count(), 0);
    }

    #[test]
    fn each_context_binds_an_action_once() {
        for (i, a) in BINDINGS.iter().enumerate() {
            for b in &BINDINGS[i + 1..] {
                assert!(
                    (a.context, a.action) != (b.context, b.action),
                    "[keys.{}] {} is bound twice: a rebinding could not say which",
                    a.context.section(),
                    a.action.name()
                );
            }
        }
    }

    #[test]
    fn a_rebinding_replaces_the_default_keys() {
        let rebinding =
            Rebinding { context: Context::Dashboard, action: Action::Open, keys: keys(&["o", "ctrl-o", "o"]) };
        let keymap = Keymap::rebind(&[rebinding]).unwrap();
        assert_eq!(keymap.action_for(press("o"), Screen::Dashboard, false), Some(Action::Open));
        assert_eq!(keymap.action_for(press("ctrl-o"), Screen::Dashboard, false), Some(Action::Open));
        assert_eq!(keymap.action_for(press("enter"), Screen::Dashboard, false), None, "enter no longer opens");
        assert_eq!(keymap.label(Action::Open, Screen::Dashboard, false), Some("o/ctrl-o"), "the repeat is dropped");
        assert_eq!(
            keymap.action_for(press("enter"), Screen::Compare, false),
            Some(Action::Open),
            "other contexts keep theirs"
        );
        assert_eq!(keymap.action_for(press("ctrl-c"), Screen::Dashboard, false), Some(Action::Quit));
    }

    #[test]
    fn a_rebinding_that_cannot_be_says_which_and_why() {
        let rebind = |context, action, k: &[&str]| Keymap::rebind(&[Rebinding { context, action, keys: keys(k) }]);
        let error = rebind(Context::Dashboard, Action::Zoom, &["x"]).unwrap_err();
        assert_eq!(error.index, 0);
        assert!(error.to_string().starts_with("[keys.dashboard] has no action `zoom`; its actions are open, filter,"));
        assert_eq!(rebind(Context::Global, Action::Quit, &[]).unwrap_err().problem, RebindProblem::NoKeys);
        assert_eq!(rebind(Context::Global, Action::Help, &["ctrl-c"]).unwrap_err().problem, RebindProblem::CtrlC);
        let open_on_q = rebind(Context::Dashboard, Action::Open, &["q"]).unwrap();
        assert_eq!(
            open_on_q.action_for(press("q"), Screen::Dashboard, false),
            Some(Action::Open),
            "the user's key wins"
        );
        assert_eq!(open_on_q.label(Action::Quit, Screen::Dashboard, false), None, "quit keeps Ctrl-C only");
        let both = [
            Rebinding { context: Context::Global, action: Action::Quit, keys: keys(&["x"]) },
            Rebinding { context: Context::Dashboard, action: Action::Open, keys: keys(&["x"]) },
        ];
        assert_eq!(
            Keymap::rebind(&both).unwrap_err().to_string(),
            "`x` would be both [keys.global] quit and [keys.dashboard] open on the dashboard screen; \
             give one of them another key"
        );
    }

    #[test]
    fn one_key_for_one_action_from_two_contexts_is_no_clash() {
        let rebinding = Rebinding { context: Context::Iterations, action: Action::PrevIteration, keys: keys(&["←"]) };
        let alone = Keymap::rebind(std::slice::from_ref(&rebinding)).unwrap();
        assert_eq!(alone.label(Action::PaneLeft, Screen::Question, false), None, "the graph's default ← yields");
        let in_the_graph = Rebinding { context: Context::Question, action: Action::PaneLeft, keys: keys(&["H"]) };
        let keymap = Keymap::rebind(&[rebinding, in_the_graph]).unwrap();
        assert_eq!(keymap.action_for(press("←"), Screen::Diff, false), Some(Action::PrevIteration));
        assert_eq!(keymap.action_for(press("←"), Screen::Question, false), Some(Action::PrevIteration));
    }

    #[test]
    fn of_two_clashing_rebindings_the_later_is_blamed() {
        let rebindings = [
            Rebinding { context: Context::Dashboard, action: Action::Sort, keys: keys(&["x"]) },
            Rebinding { context: Context::Dashboard, action: Action::Open, keys: keys(&["enter"]) },
            Rebinding { context: Context::Dashboard, action: Action::Filter, keys: keys(&["x"]) },
        ];
        assert_eq!(Keymap::rebind(&rebindings).unwrap_err().index, 2);
    }
}
