//! Colours by meaning ([`Ink::NodeFlagged`], [`Ink::FindingNew`], …), from
//! `themes/*.toml`: a dark and a light theme are built in;
//! `$XDG_CONFIG_HOME/eval-dag/themes/NAME.toml` adds or overrides one;
//! `NO_COLOR` turns colour off. A theme file gives every colour and nothing
//! else: an unknown or missing key, or a value that is not a colour, fails at
//! load with the file and the key.

use ratatui::style::{Color, Modifier, Style};

const BUILT_IN: [(&str, &str); 2] =
    [("dark", include_str!("../../themes/dark.toml")), ("light", include_str!("../../themes/light.toml"))];

/// Declares [`Ink`] with its theme-file keys, from one list.
macro_rules! inks {
    ($($(#[doc = $doc:literal])* $ink:ident = $key:literal,)*) => {
        /// What a colour means on screen; each is one key of a theme file.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Ink {
            $($(#[doc = $doc])* $ink,)*
        }

        impl Ink {
            /// Every ink, in declaration order (`ink as usize` is its index).
            pub const ALL: &[Ink] = &[$(Ink::$ink,)*];

            /// Its key in a theme file.
            pub fn key(self) -> &'static str {
                match self {
                    $(Ink::$ink => $key,)*
                }
            }
        }
    };
}

inks! {
    /// Body text.
    Text = "text",
    /// Secondary text: labels, hints, timings.
    Muted = "muted",
    /// Titles, keys and the focused pane.
    Accent = "accent",
    /// Pane borders.
    Border = "border",
    /// Background of the selected row.
    SelectionBg = "selection_bg",
    /// A question waiting for a slot.
    StatusQueued = "status_queued",
    /// A question at work.
    StatusWorking = "status_working",
    /// An iteration the critic approved.
    StatusApproved = "status_approved",
    /// An iteration the critic rejected.
    StatusRejected = "status_rejected",
    /// A question that passed.
    StatusPassed = "status_passed",
    /// A question that failed.
    StatusFailed = "status_failed",
    /// A question whose iterations ran out.
    StatusExhausted = "status_exhausted",
    /// A question stopped by the user.
    StatusCancelled = "status_cancelled",
    /// A node no finding blames.
    NodeFine = "node_fine",
    /// A node a finding blames.
    NodeFlagged = "node_flagged",
    /// A node whose code failed.
    NodeFailed = "node_failed",
    /// A finding of the structural checks.
    FindingStructural = "finding_structural",
    /// A finding of the trial run.
    FindingTrialRun = "finding_trial_run",
    /// A finding of the LLM review.
    FindingSemantic = "finding_semantic",
    /// A finding the later iteration resolved.
    FindingResolved = "finding_resolved",
    /// A finding still there in the later iteration.
    FindingPersisting = "finding_persisting",
    /// A finding new in the later iteration.
    FindingNew = "finding_new",
    /// An added line of a diff.
    DiffLineAdd = "diff_line_add",
    /// A removed line of a diff.
    DiffLineRemove = "diff_line_remove",
    /// A user's command in the feed.
    FeedControl = "feed_control",
}

/// A theme that failed to load.
#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    /// No file and no built-in theme of that name.
    #[error("no theme named {0:?} (built in: dark, light; or put {0}.toml in the config directory's themes/)")]
    Unknown(String),
    /// The file could not be read.
    #[error("theme {origin}: {source}")]
    Io {
        /// The file.
        origin: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not valid TOML.
    #[error("theme {origin}: {message}")]
    Toml {
        /// The file or built-in name.
        origin: String,
        /// The parser's message.
        message: String,
    },
    /// A key is wrong: unknown, missing, or not a colour.
    #[error("theme {origin}: {key}: {problem}")]
    Key {
        /// The file or built-in name.
        origin: String,
        /// The key.
        key: String,
        /// What is wrong with it.
        problem: String,
    },
}

/// A loaded theme.
#[derive(Debug, Clone)]
pub struct Theme {
    /// One colour per ink, in the order of [`Ink::ALL`].
    colors: Vec<Color>,
    /// Whether code uses the dark syntax theme.
    pub syntax_dark: bool,
    /// Colour is off (`NO_COLOR`).
    pub monochrome: bool,
}

fn parse(text: &str, origin: &str) -> Result<Theme, ThemeError> {
    let key_error = |key: &str, problem: String| ThemeError::Key { origin: origin.into(), key: key.into(), problem };
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| ThemeError::Toml { origin: origin.into(), message: e.to_string() })?;
    let mut colors: Vec<Option<Color>> = vec![None; Ink::ALL.len()];
    let mut syntax_dark = true;
    for (key, value) in &table {
        match key.as_str() {
            "name" => {}
            "syntax_dark" => {
                syntax_dark = value.as_bool().ok_or_else(|| key_error(key, "must be true or false".into()))?;
            }
            _ => {
                let Some(index) = Ink::ALL.iter().position(|ink| ink.key() == key) else {
                    let known: Vec<&str> = Ink::ALL.iter().map(|ink| ink.key()).collect();
                    let hint = crate::text::closest(key, &known, 0.7)
                        .map_or_else(String::new, |near| format!(" (did you mean {near}?)"));
                    return Err(key_error(key, format!("not a colour this eval-dag draws{hint}")));
                };
                let color = value.as_str().and_then(|text| text.parse::<Color>().ok()).ok_or_else(|| {
                    key_error(key, format!("{value} is not a colour (a name such as \"red\" or \"#aabbcc\")"))
                })?;
                colors[index] = Some(color);
            }
        }
    }
    let colors = Ink::ALL
        .iter()
        .zip(colors)
        .map(|(ink, color)| color.ok_or_else(|| key_error(ink.key(), "missing: every colour must be given".into())))
        .collect::<Result<_, _>>()?;
    Ok(Theme { colors, syntax_dark, monochrome: false })
}

impl Theme {
    /// The theme called `name`: a user file first, then the built-in ones.
    pub fn load(name: &str) -> Result<Self, ThemeError> {
        let user = directories::ProjectDirs::from("", "", "eval-dag")
            .map(|d| d.config_dir().join("themes").join(format!("{name}.toml")));
        let mut theme = match user.filter(|p| p.is_file()) {
            Some(path) => {
                let origin = path.display().to_string();
                let text = std::fs::read_to_string(&path)
                    .map_err(|source| ThemeError::Io { origin: origin.clone(), source })?;
                parse(&text, &origin)?
            }
            None => {
                let (_, text) =
                    BUILT_IN.iter().find(|(n, _)| *n == name).ok_or_else(|| ThemeError::Unknown(name.into()))?;
                parse(text, name)?
            }
        };
        theme.monochrome = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Ok(theme)
    }

    /// The built-in dark theme (colour on), for tests and fallbacks.
    #[allow(clippy::expect_used, reason = "a built-in theme; a test parses every one")]
    pub fn dark() -> Self {
        parse(BUILT_IN[0].1, "dark").expect("the built-in theme parses")
    }

    fn color(&self, ink: Ink) -> Color {
        // `Ink::ALL` lists the inks in declaration order: the discriminant indexes it.
        self.colors[ink as usize]
    }

    /// The colour of `ink` for what is drawn rather than written (a chart's
    /// dots and lines): the terminal's own without colour.
    pub fn stroke(&self, ink: Ink) -> Color {
        if self.monochrome { Color::Reset } else { self.color(ink) }
    }

    /// Foreground style of `ink`.
    pub fn fg(&self, ink: Ink) -> Style {
        if self.monochrome { Style::default() } else { Style::default().fg(self.color(ink)) }
    }

    /// The style of selected rows.
    pub fn selected(&self) -> Style {
        if self.monochrome {
            return Style::default().add_modifier(Modifier::REVERSED);
        }
        Style::default().bg(self.color(Ink::SelectionBg)).add_modifier(Modifier::BOLD)
    }

    /// The style of a question status.
    pub fn status(&self, status: crate::run::QuestionStatus) -> Style {
        use crate::run::{Outcome, QuestionStatus};
        self.fg(match status {
            QuestionStatus::Queued => Ink::StatusQueued,
            QuestionStatus::Working(_) => Ink::StatusWorking,
            QuestionStatus::Approved => Ink::StatusApproved,
            QuestionStatus::Rejected => Ink::StatusRejected,
            QuestionStatus::Done(Outcome::Passed) => Ink::StatusPassed,
            QuestionStatus::Done(Outcome::Failed) => Ink::StatusFailed,
            QuestionStatus::Done(Outcome::Exhausted) => Ink::StatusExhausted,
            // Stopped before its end, by the user or by the budget: both resumable.
            QuestionStatus::Done(Outcome::Cancelled | Outcome::Budget) => Ink::StatusCancelled,
            // The user's own work, in the colour of user actions (themes need no new key).
            QuestionStatus::Done(Outcome::FixedByHand | Outcome::Drafted) => Ink::Accent,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_themes_give_every_colour_and_nothing_else() {
        for (name, text) in BUILT_IN {
            parse(text, name).unwrap();
            let keys: Vec<&str> = text
                .lines()
                .filter_map(|l| l.split_once('=').map(|(k, _)| k.trim()))
                .filter(|k| !["name", "syntax_dark"].contains(k))
                .collect();
            let inks: Vec<&str> = Ink::ALL.iter().map(|ink| ink.key()).collect();
            assert_eq!(keys, inks, "theme {name} lists every ink once, in order");
        }
    }

    #[test]
    fn every_ink_sits_at_its_own_index() {
        for (index, ink) in Ink::ALL.iter().enumerate() {
            assert_eq!(*ink as usize, index, "{ink:?}");
        }
    }

    #[test]
    fn a_wrong_theme_fails_with_the_file_and_the_key() {
        let dark = BUILT_IN[0].1;
        let misspelt = dark.replace("status_passed =", "stauts_passed =");
        let err = parse(&misspelt, "mine.toml").unwrap_err().to_string();
        assert!(err.starts_with("theme mine.toml: stauts_passed: not a colour"), "{err}");
        assert!(err.contains("did you mean status_passed?"), "{err}");
        let missing: String =
            dark.lines().filter(|l| !l.starts_with("node_failed")).map(|l| format!("{l}\n")).collect();
        let err = parse(&missing, "mine.toml").unwrap_err().to_string();
        assert_eq!(err, "theme mine.toml: node_failed: missing: every colour must be given");
        let err = parse(&dark.replace("\"#7b8394\"", "\"notacolour\""), "mine.toml").unwrap_err().to_string();
        assert!(err.starts_with("theme mine.toml: muted: \"notacolour\" is not a colour"), "{err}");
        let err = parse("text = ", "mine.toml").unwrap_err().to_string();
        assert!(err.starts_with("theme mine.toml: "), "{err}");
    }
}
