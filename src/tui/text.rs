//! Untrusted text made safe and measured for the terminal. Questions, code,
//! outputs and replies come from a model or a dataset: tabs are expanded to
//! their stops (ratatui drops them, and code would lose its indentation),
//! control characters become visible pictures (`␛`), and characters that
//! reorder or hide text (bidirectional overrides such as U+202E, zero-width
//! spaces) become a visible `⟨U+202E⟩` instead of reaching the terminal.
//! Widths are display columns: wide characters and emoji count as two.

use std::borrow::Cow;

use ratatui::buffer::Buffer;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

/// Columns between tab stops.
pub const TAB_STOP: usize = 4;

/// What a character becomes on screen, if it must not be shown as it is.
enum Unsafe {
    /// Expand to the next tab stop.
    Tab,
    /// Show this character instead.
    Picture(char),
    /// Show the code point, e.g. `⟨U+202E⟩`.
    CodePoint,
}

fn classify(c: char) -> Option<Unsafe> {
    match c {
        '\t' => Some(Unsafe::Tab),
        // C0 controls have pictures at U+2400 + code; DEL has its own.
        '\0'..='\x1f' => char::from_u32(0x2400 + c as u32).map(Unsafe::Picture),
        '\x7f' => Some(Unsafe::Picture('␡')),
        '\u{80}'..='\u{9f}' => Some(Unsafe::CodePoint),
        // Bidirectional formatting (Trojan Source), invisible separators and marks.
        '\u{061c}' | '\u{200b}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}' => Some(Unsafe::CodePoint),
        '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}' => {
            Some(Unsafe::CodePoint)
        }
        _ => None,
    }
}

/// One line of untrusted text (no `\n`; a stray one is shown as `␊`), safe to
/// draw: tabs expanded as if the text started at column 0, every other
/// unsafe character replaced by a visible stand-in.
pub fn clean(text: &str) -> Cow<'_, str> {
    clean_from(text, 0)
}

/// [`clean`] for text that starts at display column `column` (tab stops are
/// counted from the start of the line).
pub fn clean_from(text: &str, column: usize) -> Cow<'_, str> {
    if !text.chars().any(|c| classify(c).is_some()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut col = column;
    for c in text.chars() {
        match classify(c) {
            None => {
                out.push(c);
                col += UnicodeWidthStr::width(c.encode_utf8(&mut [0; 4]) as &str);
            }
            Some(Unsafe::Tab) => {
                let spaces = TAB_STOP - col % TAB_STOP;
                out.extend(std::iter::repeat_n(' ', spaces));
                col += spaces;
            }
            Some(Unsafe::Picture(picture)) => {
                out.push(picture);
                col += 1;
            }
            Some(Unsafe::CodePoint) => {
                let shown = format!("⟨U+{:04X}⟩", c as u32);
                col += shown.chars().count();
                out.push_str(&shown);
            }
        }
    }
    Cow::Owned(out)
}

/// The spans of one line, each [`clean_from`] the column where it starts, so
/// a tab in a later span still lands on its stop.
pub fn clean_spans(spans: Vec<Span<'static>>) -> Vec<Span<'static>> {
    let mut column = 0;
    spans
        .into_iter()
        .map(|span| {
            let content = match clean_from(&span.content, column) {
                Cow::Borrowed(_) => span.content,
                Cow::Owned(cleaned) => Cow::Owned(cleaned),
            };
            column += UnicodeWidthStr::width(content.as_ref());
            Span { content, style: span.style }
        })
        .collect()
}

/// [`clean_spans`] over a whole line, keeping its style and alignment.
pub fn clean_line(line: Line<'static>) -> Line<'static> {
    Line { spans: clean_spans(line.spans), ..line }
}

/// Display columns `text` takes (after [`clean`]).
pub fn width(text: &str) -> usize {
    UnicodeWidthStr::width(clean(text).as_ref())
}

/// `text` cleaned and cut to at most `columns` display columns, with `…` at
/// the end when something was cut.
pub fn fit(text: &str, columns: usize) -> String {
    let text = clean(text);
    if text.len() <= columns && text.is_ascii() {
        return text.into_owned();
    }
    if UnicodeWidthStr::width(text.as_ref()) <= columns {
        return text.into_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = UnicodeWidthStr::width(c.encode_utf8(&mut [0; 4]) as &str);
        if used + w + 1 > columns {
            break;
        }
        out.push(c);
        used += w;
    }
    if columns > 0 {
        out.push('…');
    }
    out
}

/// A one-line preview of a JSON value (a string as itself), cleaned and cut
/// to `columns` display columns.
pub fn preview(value: &serde_json::Value, columns: usize) -> String {
    // Characters are at least a column wide but for rare zero-width marks:
    // cutting generously first bounds the work on a huge value.
    fit(&crate::text::preview(value, columns.saturating_mul(4).saturating_add(64)), columns)
}

/// The last line of defence: after a frame is drawn, any cell still holding
/// a character that must not reach the terminal (a text site that did not
/// [`clean`]) loses it.
pub fn scrub(buffer: &mut Buffer) {
    for cell in &mut buffer.content {
        let symbol = cell.symbol();
        if symbol.is_ascii() && !symbol.bytes().any(|b| b < 0x20 || b == 0x7f) {
            continue;
        }
        if symbol.chars().any(|c| classify(c).is_some()) {
            let kept: String = symbol.chars().filter(|c| classify(*c).is_none()).collect();
            cell.set_symbol(if kept.is_empty() { " " } else { &kept });
        }
    }
}

const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// Counts (findings per iteration, approvals per iteration) as a small bar chart (`·` for none).
pub fn sparkline(counts: &[u64]) -> String {
    let max = counts.iter().copied().max().unwrap_or(0);
    counts.iter().map(|&c| if c == 0 { '·' } else { BARS[((c * 7) / max.max(1)) as usize] }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparklines_scale_to_the_largest_count() {
        assert_eq!(sparkline(&[3, 1, 0]), "█▃·");
        assert_eq!(sparkline(&[]), "");
    }

    #[test]
    fn tabs_expand_to_their_stops_and_controls_become_visible() {
        assert_eq!(clean("\tx = 1"), "    x = 1");
        assert_eq!(clean("ab\tc"), "ab  c");
        assert_eq!(clean_from("\t", 3), " ");
        assert_eq!(clean("a\x1b[2Jb"), "a␛[2Jb");
        assert_eq!(clean("a\u{202e}b"), "a⟨U+202E⟩b");
        assert_eq!(clean("zero\u{200b}width"), "zero⟨U+200B⟩width");
        assert!(matches!(clean("plain text, ünïcode, 漢字"), Cow::Borrowed(_)));
        let spans = clean_spans(vec![Span::raw("漢"), Span::raw("\tx")]);
        assert_eq!(spans[1].content, "  x", "the tab stops at column 4, counted from the line's start");
    }

    #[test]
    fn widths_count_columns_and_fit_never_overflows() {
        assert_eq!(width("漢字"), 4);
        assert_eq!(width("👍"), 2);
        assert_eq!(width("\t"), TAB_STOP);
        for text in ["漢字漢字漢字", "abcdef", "👍👍👍x", "a\u{202e}bc", ""] {
            for columns in 0..12 {
                let fitted = fit(text, columns);
                assert!(width(&fitted) <= columns.max(1), "{text:?} in {columns}: {fitted:?}");
            }
        }
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("abc", 4), "abc");
    }

    #[test]
    fn scrub_removes_what_a_site_forgot() {
        let mut buffer = Buffer::empty(ratatui::layout::Rect::new(0, 0, 4, 1));
        buffer[(0, 0)].set_symbol("a\u{202e}");
        buffer[(1, 0)].set_symbol("\u{1b}");
        buffer[(2, 0)].set_symbol("é");
        scrub(&mut buffer);
        assert_eq!((buffer[(0, 0)].symbol(), buffer[(1, 0)].symbol(), buffer[(2, 0)].symbol()), ("a", " ", "é"));
    }
}
