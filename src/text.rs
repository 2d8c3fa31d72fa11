//! Small text helpers for people reading a run: counts with their nouns,
//! one-line previews of JSON values, short durations, and the closest name for "did you mean". Used by prompts, the TUI, the report and
//! the command-line output alike.
//!
//! Helpers: `plural`; `preview`, a JSON value on one line; `show_hidden`, which
//! shows characters that reorder or hide text (such as U+202E) as their code
//! points.

/// `count` and `noun`, with an `s` unless there is exactly one.
pub fn plural(count: usize, noun: &str) -> String {
    if count == 1 { format!("1 {noun}") } else { format!("{count} {noun}s") }
}

/// How many people reviewed something: `reviewed by 1 person`, `reviewed by 3 people`.
pub fn reviewed_by(people: usize) -> String {
    if people == 1 { "reviewed by 1 person".into() } else { format!("reviewed by {people} people") }
}

/// A share (0–1) as a whole percentage, or a dash when there is none.
pub fn percent(share: Option<f64>) -> String {
    share.map_or("—".into(), |v| format!("{:.0}%", v * 100.0))
}

/// An amount of US dollars to four places, or a dash when there is none.
pub fn dollars(amount: Option<f64>) -> String {
    amount.map_or("—".into(), |v| format!("${v:.4}"))
}

/// A span of milliseconds, short: `4.2s`, `3m05s`, `1h02m`.
pub fn duration(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..60 => format!("{:.1}s", ms as f64 / 1000.0),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s / 60 % 60),
    }
}

/// The candidate most like `word` (Jaro-Winkler), if any is more alike than
/// `min_similarity` (0..1): the "did you mean" of error messages.
pub fn closest<'a>(word: &str, candidates: &[&'a str], min_similarity: f64) -> Option<&'a str> {
    candidates
        .iter()
        .map(|candidate| (strsim::jaro_winkler(word, candidate), *candidate))
        .filter(|(score, _)| *score > min_similarity)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

/// `text` with every character that [`reorders_or_hides`] shown as its code
/// point (`⟨U+202E⟩`), for untrusted text in a page.
pub fn show_hidden(text: &str) -> std::borrow::Cow<'_, str> {
    // Every such character is outside ASCII: most text is checked at once.
    if text.is_ascii() || !text.chars().any(reorders_or_hides) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match reorders_or_hides(c) {
            true => shown.push_str(&format!("⟨U+{:04X}⟩", c as u32)),
            false => shown.push(c),
        }
    }
    std::borrow::Cow::Owned(shown)
}

/// Whether `c` reorders or hides the text around it (bidirectional
/// formatting such as U+202E, as in "Trojan Source", invisible separators
/// and marks): untrusted text shows such a character as its code point.
pub fn reorders_or_hides(c: char) -> bool {
    matches!(
        c,
        '\u{061c}'
            | '\u{200b}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{feff}'
    )
}

/// A one-line preview of a JSON value, at most `max` characters.
pub fn preview(value: &serde_json::Value, max: usize) -> String {
    let text = match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let text = text.replace('\n', " ");
    if text.chars().count() <= max {
        return text;
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// One line of at most `max` characters.
pub fn one_line(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    preview(&serde_json::Value::String(flat), max)
}

/// `n` with thousands separators: 3,600,000.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_and_previews() {
        assert_eq!(
            (plural(1, "finding"), plural(0, "finding"), plural(3, "call")),
            ("1 finding".into(), "0 findings".into(), "3 calls".into())
        );
        assert_eq!(preview(&serde_json::json!("a\nb"), 10), "a b");
        assert_eq!(preview(&serde_json::json!([1, 2, 3]), 5), "[1,2…");
        assert_eq!(preview(&serde_json::json!("abc"), 0), "…");
        assert_eq!(
            (duration(4_250), duration(185_000), duration(3_720_000)),
            ("4.2s".into(), "3m05s".into(), "1h02m".into())
        );
    }

    #[test]
    fn characters_that_reorder_or_hide_text_are_shown_as_code_points() {
        assert_eq!(show_hidden("a\u{202e}b\u{200b}c\u{2066}"), "a⟨U+202E⟩b⟨U+200B⟩c⟨U+2066⟩");
        assert!(matches!(show_hidden("plain 漢字 👍"), std::borrow::Cow::Borrowed("plain 漢字 👍")), "left as it is");
    }
}
