//! `[keys]`: the user's keys per context and action, as written — each name
//! and key with where it is in the file — and the session's [`Keymap`] made
//! from them, or what is wrong and where.
//!
//! ```toml
//! [keys.global]
//! quit = "ctrl-q"
//! [keys.dashboard]
//! open = ["enter", "o"]
//! ```

use std::fmt;
use std::ops::Range;

use indexmap::IndexMap;
use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};
use toml::Spanned;

use crate::tui::{Action, Context, Key, Keymap, Rebinding};

/// `[keys]` as written: context → action → keys.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(transparent)]
pub(super) struct WrittenKeys(IndexMap<Spanned<String>, Spanned<WrittenSection>>);

/// What `[keys]` holds under one name: a context's section (`[keys.global]`),
/// or a key written straight under `[keys]` (`quit = "x"`), which says where
/// keys go instead of failing on the value's type.
#[derive(Debug, Clone, PartialEq)]
enum WrittenSection {
    Context(IndexMap<Spanned<String>, Spanned<KeyList>>),
    Flat,
}

impl<'de> Deserialize<'de> for WrittenSection {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::IgnoredAny;
        struct Section;
        impl<'de> Visitor<'de> for Section {
            type Value = WrittenSection;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a [keys.<context>] section")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<WrittenSection, A::Error> {
                IndexMap::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(WrittenSection::Context)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<WrittenSection, A::Error> {
                IgnoredAny.visit_seq(seq).map(|_| WrittenSection::Flat)
            }
            fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<WrittenSection, E> {
                Ok(WrittenSection::Flat)
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<WrittenSection, E> {
                Ok(WrittenSection::Flat)
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<WrittenSection, E> {
                Ok(WrittenSection::Flat)
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<WrittenSection, E> {
                Ok(WrittenSection::Flat)
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<WrittenSection, E> {
                Ok(WrittenSection::Flat)
            }
        }
        deserializer.deserialize_any(Section)
    }
}

/// One key, or a list of keys each with where it is written.
#[derive(Debug, Clone, PartialEq)]
enum KeyList {
    One(String),
    Many(Vec<Spanned<String>>),
}

impl<'de> Deserialize<'de> for KeyList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Keys;
        impl<'de> Visitor<'de> for Keys {
            type Value = KeyList;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key such as \"ctrl-q\", or a list of keys")
            }
            fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<KeyList, E> {
                Ok(KeyList::One(key.into()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<KeyList, A::Error> {
                let mut keys = Vec::new();
                while let Some(key) = seq.next_element()? {
                    keys.push(key);
                }
                Ok(KeyList::Many(keys))
            }
        }
        deserializer.deserialize_any(Keys)
    }
}

/// What is wrong in `[keys]`, and where in the file (bytes).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct KeysError {
    /// Where: the name or key at fault.
    pub span: Range<usize>,
    /// What is wrong.
    pub message: String,
}

/// `name`'s "did you mean", else the list it should be one of.
fn hint(name: &str, known: &[&str], what: &str) -> String {
    crate::text::closest(name, known, 0.7)
        .map_or_else(|| format!("; the {what} are {}", known.join(", ")), |k| format!("; did you mean `{k}`?"))
}

impl WrittenKeys {
    /// The default keymap with these keys in place, or the first thing wrong
    /// in the file's order (a clash: at the later of the two).
    pub(super) fn keymap(&self) -> Result<Keymap, KeysError> {
        let fault = |span: Range<usize>, message: String| KeysError { span, message };
        // The file's order: a table comes back in key order.
        let mut sections: Vec<_> = self.0.iter().collect();
        sections.sort_by_key(|(section, _)| section.span().start);
        let mut written = Vec::new();
        let contexts = || Context::ALL.iter().map(|c| c.section()).collect::<Vec<_>>().join(", ");
        for (section, actions) in sections {
            let WrittenSection::Context(actions) = actions.get_ref() else {
                let message = format!(
                    "`{}` is written straight under [keys]: keys go in [keys.<context>] sections, \
                     such as [keys.global] then {} = \"…\"; the contexts are {}",
                    section.get_ref(),
                    section.get_ref(),
                    contexts()
                );
                return Err(fault(section.span(), message));
            };
            let Some(context) = Context::ALL.iter().copied().find(|c| c.section() == section.get_ref()) else {
                let known: Vec<&str> = Context::ALL.iter().map(|c| c.section()).collect();
                let message = format!(
                    "unknown screen `{}` in [keys]{}",
                    section.get_ref(),
                    hint(section.get_ref(), &known, "screens")
                );
                return Err(fault(section.span(), message));
            };
            written.extend(actions.iter().map(|(name, keys)| (context, name, keys)));
        }
        written.sort_by_key(|(_, name, _)| name.span().start);
        let mut rebindings = Vec::new();
        for &(context, name, keys) in &written {
            let Some(action) = Action::ALL.iter().copied().find(|a| a.name() == name.get_ref()) else {
                let known: Vec<&str> = context.actions().map(Action::name).collect();
                let message = format!(
                    "unknown action `{}` in [keys.{}]{}",
                    name.get_ref(),
                    context.section(),
                    hint(name.get_ref(), &known, "actions here")
                );
                return Err(fault(name.span(), message));
            };
            let each: Vec<(&str, Range<usize>)> = match keys.get_ref() {
                KeyList::One(key) => vec![(key.as_str(), keys.span())],
                KeyList::Many(list) => list.iter().map(|k| (k.get_ref().as_str(), k.span())).collect(),
            };
            let keys = each
                .into_iter()
                .map(|(key, span)| key.parse::<Key>().map_err(|err| fault(span, err.to_string())))
                .collect::<Result<Vec<_>, _>>()?;
            rebindings.push(Rebinding { context, action, keys });
        }
        Keymap::rebind(&rebindings).map_err(|err| fault(written[err.index].1.span(), err.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::{Config, ConfigError};
    use crate::tui::{Action, Key, Screen};

    const PATH: &str = "/home/u/.config/eval-dag/config.toml";

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, Path::new(PATH))
    }

    /// The one line a broken `[keys]` gives.
    fn error(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    /// What `written` (`ctrl-q`, `o`) does on `screen`.
    fn does(config: &Config, written: &str, screen: Screen) -> Option<Action> {
        config.keys.action_for(written.parse::<Key>().unwrap().event(), screen, false)
    }

    #[test]
    fn a_key_is_rebound_and_a_list_binds_several() {
        let config = parse(
            "theme = \"dark\"\n\n[keys.global]\nquit = \"ctrl-q\"\n\n[keys.dashboard]\nopen = [\"enter\", \"o\"]\n",
        )
        .unwrap();
        assert_eq!(does(&config, "ctrl-q", Screen::Question), Some(Action::Quit));
        assert_eq!(does(&config, "q", Screen::Dashboard), None, "q is free now");
        assert_eq!(does(&config, "o", Screen::Dashboard), Some(Action::Open));
        assert_eq!(does(&config, "enter", Screen::Dashboard), Some(Action::Open));
        assert_eq!(config.keys.label(Action::Open, Screen::Dashboard, false), Some("enter/o"));
        assert_eq!(parse("").unwrap().keys, crate::tui::Keymap::default(), "no [keys]: the defaults");
    }

    #[test]
    fn a_clash_names_both_bindings_and_the_line() {
        let text = "[keys.dashboard]\nsort = \"x\"\nfilter = \"x\"\n";
        assert_eq!(
            error(text),
            format!(
                "config {PATH}:3:1: `x` would be both [keys.dashboard] filter and [keys.dashboard] sort on the \
                 dashboard screen; give one of them another key"
            )
        );
    }

    #[test]
    fn a_clash_with_a_global_key_the_screen_sees_is_a_clash() {
        let text = "[keys.global]\nhelp = \"?\"\n\n[keys.question]\nzoom = [\"Z\", \"?\"]\n";
        assert_eq!(
            error(text),
            format!(
                "config {PATH}:5:1: `?` would be both [keys.global] help and [keys.question] zoom on the question \
                 screen; give one of them another key"
            )
        );
    }

    #[test]
    fn an_unknown_action_is_named_with_the_closest_one() {
        assert_eq!(
            error("[keys.dashboard]\n\nopne = \"o\"\n"),
            format!("config {PATH}:3:1: unknown action `opne` in [keys.dashboard]; did you mean `open`?")
        );
        let err = error("[keys.dashboard]\nzoom = \"o\"\n");
        assert!(
            err.starts_with(&format!(
                "config {PATH}:2:1: [keys.dashboard] has no action `zoom`; its actions are open,"
            )),
            "{err}"
        );
    }

    #[test]
    fn an_unknown_screen_is_named_with_the_closest_one() {
        assert_eq!(
            error("theme = \"dark\"\n[keys.dashbord]\nopen = \"o\"\n"),
            format!("config {PATH}:2:7: unknown screen `dashbord` in [keys]; did you mean `dashboard`?")
        );
    }

    #[test]
    fn keys_written_flat_under_keys_say_where_keys_go_and_list_the_contexts() {
        let err = error("theme = \"dark\"\n[keys]\nquit = \"x\"\n");
        assert!(
            err.starts_with(&format!(
                "config {PATH}:3:1: `quit` is written straight under [keys]: keys go in [keys.<context>] sections, \
                 such as [keys.global] then quit = \"…\"; the contexts are "
            )),
            "{err}"
        );
        // The list is the keymap's own, so a new screen's context appears in it.
        for context in crate::tui::Context::ALL {
            assert!(err.contains(context.section()), "{} missing from {err}", context.section());
        }
        assert!(!err.contains('\n'), "one line: {err}");
        for flat in ["quit = [\"x\", \"y\"]", "quit = 5", "quit = true", "quit = 1.5"] {
            let err = error(&format!("[keys]\n{flat}\n"));
            assert!(err.contains("keys go in [keys.<context>] sections"), "{flat}: {err}");
        }
    }

    #[test]
    fn a_key_that_is_no_key_is_refused_where_it_is_written() {
        let err = error("[keys.dashboard]\nopen = [\"enter\",\n  \"ctrl-foo\"]\n");
        assert!(err.starts_with(&format!("config {PATH}:3:3: `ctrl-foo` is not a key: write one character,")), "{err}");
        assert_eq!(
            error("[keys.global]\nhelp = \"ctrl-c\"\n"),
            format!("config {PATH}:2:1: ctrl-c always quits; choose another key")
        );
        let err = error("[keys.global]\nhelp = 5\n");
        assert!(
            err.starts_with(&format!("config {PATH}:2:8: invalid type: integer `5`, expected a key such as")),
            "{err}"
        );
    }

    #[test]
    fn the_guide_example_rebinds_what_it_says() {
        let guide = include_str!("../../docs/src/tui.md");
        let section = &guide[guide.find("## Your keys").expect("the guide says how to rebind keys")..];
        let start = section.find("```toml\n").expect("a toml example") + "```toml\n".len();
        let config = parse(&section[start..start + section[start..].find("```").unwrap()]).unwrap();
        assert_eq!(does(&config, "ctrl-q", Screen::Dashboard), Some(Action::Quit));
        assert_eq!(does(&config, "o", Screen::Dashboard), Some(Action::Open));
        assert_eq!(does(&config, "f", Screen::Question), Some(Action::Zoom));
        assert_eq!(does(&config, "z", Screen::Question), None, "replaced, not added to");
    }
}
