//! Python syntax highlighting with syntect, loaded once per process.

use std::sync::{LazyLock, OnceLock};

use minijinja::HtmlEscape;
use std::fmt::Write;
use syntect::easy::HighlightLines;

use syntect::highlighting::{FontStyle, Style, Theme, ThemeSet};
use syntect::parsing::{SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

use crate::text::show_hidden;

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
    static PLAIN: LazyLock<Theme> = LazyLock::new(Theme::default);
    let name = if dark { "base16-ocean.dark" } else { "InspiredGitHub" };
    let themes = themes();
    themes.themes.get(name).or_else(|| themes.themes.values().next()).unwrap_or(&PLAIN)
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

/// The report's highlighting theme (light).
const HTML_DARK: bool = false;

/// Class of a colour: `c` and its hex digits.
fn colour_class(colour: syntect::highlighting::Color) -> String {
    format!("c{:02x}{:02x}{:02x}", colour.r, colour.g, colour.b)
}

/// `code` as compact HTML: one span per run of equally styled text, with a
/// class per colour (`c` + hex) and `b`/`i` for bold and italic (style them
/// with [`highlight_css`]); text in the default style is left bare. The
/// text is HTML-escaped and characters that reorder or hide text are shown
/// as their code points, so the result goes into a page as it is.
pub fn highlight_html(code: &str) -> String {
    let plain = theme(HTML_DARK).settings.foreground;
    let mut out = String::with_capacity(code.len() * 3);
    let lines = highlight_lines(code, HTML_DARK);
    let last = lines.len().saturating_sub(1);
    for (index, line) in lines.into_iter().enumerate() {
        let mut runs: Vec<(Style, String)> = Vec::new();
        for (style, text) in line {
            match runs.last_mut() {
                Some((previous, joined)) if *previous == style || text.trim().is_empty() => joined.push_str(&text),
                _ => runs.push((style, text)),
            }
        }
        for (style, text) in runs {
            let mut classes = Vec::new();
            if Some(style.foreground) != plain {
                classes.push(colour_class(style.foreground));
            }
            if style.font_style.contains(FontStyle::BOLD) {
                classes.push("b".into());
            }
            if style.font_style.contains(FontStyle::ITALIC) {
                classes.push("i".into());
            }
            if classes.is_empty() || text.trim().is_empty() {
                let _ = write!(out, "{}", HtmlEscape(&show_hidden(&text)));
            } else {
                let _ = write!(out, "<span class=\"{}\">{}</span>", classes.join(" "), HtmlEscape(&show_hidden(&text)));
            }
        }
        if index < last || code.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// CSS for [`highlight_html`]'s classes: one rule per colour of the theme.
pub fn highlight_css() -> String {
    let theme = theme(HTML_DARK);
    let mut colours: Vec<syntect::highlighting::Color> =
        theme.scopes.iter().filter_map(|item| item.style.foreground).collect();
    colours.sort_by_key(|c| (c.r, c.g, c.b, c.a));
    colours.dedup();
    let mut css = String::from("pre.code .b{font-weight:bold}pre.code .i{font-style:italic}");
    if let Some(fg) = theme.settings.foreground {
        let _ = write!(css, "pre.code{{color:#{:02x}{:02x}{:02x}}}", fg.r, fg.g, fg.b);
    }
    for colour in colours {
        let _ = write!(
            css,
            "pre.code .{}{{color:#{:02x}{:02x}{:02x}}}",
            colour_class(colour),
            colour.r,
            colour.g,
            colour.b
        );
    }
    css
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_is_highlighted_compactly_and_escaped() {
        let code = "def f(x):\n    return x < 1\n";
        let html = highlight_html(code);
        assert!(html.contains("&lt;") && !html.contains("x < 1"), "{html}");
        let keyword = html.split("<span class=\"").nth(1).expect("a styled span");
        let class = keyword.split('"').next().unwrap();
        assert!(keyword.contains(">def"), "the keyword is styled: {html}");
        let css = highlight_css();
        assert!(css.contains(&format!(".{}{{color:#", class.split(' ').next().unwrap())), "{class} has a rule: {css}");
        let text: String = html.split('<').map(|part| part.split_once('>').map_or(part, |(_, t)| t)).collect();
        assert_eq!(text.replace("&lt;", "<"), code, "only markup is added");
        let lines = highlight_lines("def f():\n    return 1\n", true);
        assert_eq!(lines.len(), 2);
        assert!(lines[0].len() > 1, "keywords and names get their own segments");
    }
}
