//! Python syntax highlighting with syntect, loaded once per process.

use std::sync::OnceLock;

use syntect::easy::HighlightLines;
use syntect::highlighting::{Style, Theme, ThemeSet};
use syntect::html::{ClassStyle, ClassedHTMLGenerator, css_for_theme_with_class_style};
use syntect::parsing::{SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

/// The syntax definitions (built in, loaded on first use).
pub fn syntax_set() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

fn themes() -> &'static ThemeSet {
    static THEMES: OnceLock<ThemeSet> = OnceLock::new();
    THEMES.get_or_init(ThemeSet::load_defaults)
}

fn python() -> &'static SyntaxReference {
    let set = syntax_set();
    set.find_syntax_by_extension("py").unwrap_or_else(|| set.find_syntax_plain_text())
}

fn theme(dark: bool) -> &'static Theme {
    let name = if dark { "base16-ocean.dark" } else { "InspiredGitHub" };
    let themes = themes();
    themes.themes.get(name).unwrap_or_else(|| themes.themes.values().next().expect("syntect ships themes"))
}

/// `code` as lines of styled segments (for terminal rendering).
pub fn highlight_lines(code: &str, dark: bool) -> Vec<Vec<(Style, String)>> {
    let mut highlighter = HighlightLines::new(python(), theme(dark));
    LinesWithEndings::from(code)
        .map(|line| match highlighter.highlight_line(line, syntax_set()) {
            Ok(segments) => {
                segments.into_iter().map(|(style, text)| (style, text.trim_end_matches('\n').to_string())).collect()
            }
            Err(_) => vec![(Style::default(), line.trim_end_matches('\n').to_string())],
        })
        .collect()
}

/// `code` as HTML spans with `hl-` classes (style them with [`highlight_css`]).
pub fn highlight_html(code: &str) -> String {
    let mut generator = ClassedHTMLGenerator::new_with_class_style(
        python(),
        syntax_set(),
        ClassStyle::SpacedPrefixed { prefix: "hl-" },
    );
    for line in LinesWithEndings::from(code) {
        if generator.parse_html_for_line_which_includes_newline(line).is_err() {
            return html_escape(code);
        }
    }
    generator.finalize()
}

/// CSS for [`highlight_html`]'s classes.
pub fn highlight_css(dark: bool) -> String {
    css_for_theme_with_class_style(theme(dark), ClassStyle::SpacedPrefixed { prefix: "hl-" }).unwrap_or_default()
}

/// Escape text for HTML.
pub fn html_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_is_highlighted_and_escaped() {
        let html = highlight_html("def f(x):\n    return x < 1\n");
        assert!(html.contains("hl-"), "{html}");
        assert!(html.contains("&lt;") && !html.contains("x < 1"), "{html}");
        let lines = highlight_lines("def f():\n    return 1\n", true);
        assert_eq!(lines.len(), 2);
        assert!(lines[0].len() > 1, "keywords and names get their own segments");
        assert!(highlight_css(true).contains(".hl-"));
    }
}
