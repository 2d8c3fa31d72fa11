//! Colours by meaning (`node_flagged`, `finding_new`, …), from `themes/*.toml`:
//! a dark and a light theme are built in; `$XDG_CONFIG_HOME/eval-dag/themes/NAME.toml`
//! adds or overrides one; `NO_COLOR` turns colour off.

use std::collections::HashMap;

use ratatui::style::{Color, Modifier, Style};

const BUILT_IN: [(&str, &str); 2] =
    [("dark", include_str!("../../themes/dark.toml")), ("light", include_str!("../../themes/light.toml"))];

/// A loaded theme.
#[derive(Debug, Clone)]
pub struct Theme {
    colors: HashMap<String, Color>,
    /// Whether code uses the dark syntax theme.
    pub syntax_dark: bool,
    /// Colour is off (`NO_COLOR`).
    pub monochrome: bool,
}

fn parse(text: &str, origin: &str) -> Result<Theme, String> {
    let table: toml::Table = text.parse().map_err(|e| format!("theme {origin}: {e}"))?;
    let mut colors = HashMap::new();
    for (key, value) in &table {
        if let Some(text) = value.as_str()
            && key != "name"
        {
            let color =
                text.parse::<Color>().map_err(|_| format!("theme {origin}: {key} = {text:?} is not a colour"))?;
            colors.insert(key.clone(), color);
        }
    }
    let syntax_dark = table.get("syntax_dark").and_then(toml::Value::as_bool).unwrap_or(true);
    Ok(Theme { colors, syntax_dark, monochrome: false })
}

impl Theme {
    /// The theme called `name`: a user file first, then the built-in ones.
    pub fn load(name: &str) -> Result<Self, String> {
        let user = directories::ProjectDirs::from("", "", "eval-dag")
            .map(|d| d.config_dir().join("themes").join(format!("{name}.toml")));
        let mut theme = match user.filter(|p| p.is_file()) {
            Some(path) => {
                let text = std::fs::read_to_string(&path).map_err(|e| format!("theme {}: {e}", path.display()))?;
                parse(&text, &path.display().to_string())?
            }
            None => {
                let (_, text) = BUILT_IN
                    .iter()
                    .find(|(n, _)| *n == name)
                    .ok_or_else(|| format!("no theme named {name:?} (built in: dark, light)"))?;
                parse(text, name)?
            }
        };
        theme.monochrome = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Ok(theme)
    }

    /// The built-in dark theme (colour on), for tests and fallbacks.
    pub fn dark() -> Self {
        parse(BUILT_IN[0].1, "dark").expect("the built-in theme parses")
    }

    /// Foreground style of the semantic colour `name`.
    pub fn fg(&self, name: &str) -> Style {
        if self.monochrome {
            return Style::default();
        }
        self.colors.get(name).map_or_else(Style::default, |c| Style::default().fg(*c))
    }

    /// The style of selected rows.
    pub fn selected(&self) -> Style {
        if self.monochrome {
            return Style::default().add_modifier(Modifier::REVERSED);
        }
        self.colors
            .get("selection_bg")
            .map_or(Style::default(), |c| Style::default().bg(*c))
            .add_modifier(Modifier::BOLD)
    }
}

impl Theme {
    /// The style of a question status.
    pub fn status(&self, status: crate::run::QuestionStatus) -> Style {
        use crate::run::{Outcome, QuestionStatus};
        let name = match status {
            QuestionStatus::Queued => "status_queued",
            QuestionStatus::Working(_) => "status_working",
            QuestionStatus::Approved => "status_approved",
            QuestionStatus::Rejected => "status_rejected",
            QuestionStatus::Done(Outcome::Passed) => "status_passed",
            QuestionStatus::Done(Outcome::Failed) => "status_failed",
            QuestionStatus::Done(Outcome::Exhausted) => "status_exhausted",
            QuestionStatus::Done(Outcome::Cancelled) => "status_cancelled",
        };
        self.fg(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_themes_define_every_semantic_colour() {
        let dark = parse(BUILT_IN[0].1, "dark").unwrap();
        let light = parse(BUILT_IN[1].1, "light").unwrap();
        let mut a: Vec<&String> = dark.colors.keys().collect();
        let mut b: Vec<&String> = light.colors.keys().collect();
        a.sort();
        b.sort();
        assert_eq!(a, b);
        assert!(dark.colors.contains_key("node_flagged") && dark.colors.contains_key("finding_new"));
        assert!(parse("text = \"notacolour\"", "x").unwrap_err().contains("not a colour"));
    }
}
