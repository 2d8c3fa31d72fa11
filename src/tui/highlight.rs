//! Highlighted node code for the terminal, computed once per source when it
//! first comes into view and cached (bounded), never on the render path.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::render::highlight_lines;

/// Sources kept before the cache starts over.
const CAPACITY: usize = 512;

/// Highlighted lines by source.
#[derive(Debug, Default)]
pub struct HighlightCache {
    lines: HashMap<(u64, bool), Vec<Line<'static>>>,
}

fn key(source: &str, dark: bool) -> (u64, bool) {
    let mut hasher = DefaultHasher::new();
    source.hash(&mut hasher);
    (hasher.finish(), dark)
}

fn convert(style: syntect::highlighting::Style) -> Style {
    let c = style.foreground;
    let mut out = Style::default().fg(Color::Rgb(c.r, c.g, c.b));
    if style.font_style.contains(syntect::highlighting::FontStyle::BOLD) {
        out = out.add_modifier(Modifier::BOLD);
    }
    if style.font_style.contains(syntect::highlighting::FontStyle::ITALIC) {
        out = out.add_modifier(Modifier::ITALIC);
    }
    out
}

impl HighlightCache {
    /// Highlight `source` unless it is cached already.
    pub fn prepare(&mut self, source: &str, dark: bool) {
        let key = key(source, dark);
        if self.lines.contains_key(&key) {
            return;
        }
        if self.lines.len() >= CAPACITY {
            self.lines.clear();
        }
        let lines = highlight_lines(source, dark)
            .into_iter()
            .map(|segments| {
                Line::from(
                    segments.into_iter().map(|(style, text)| Span::styled(text, convert(style))).collect::<Vec<_>>(),
                )
            })
            .collect();
        self.lines.insert(key, lines);
    }

    /// The highlighted lines of `source`, if prepared.
    pub fn get(&self, source: &str, dark: bool) -> Option<&[Line<'static>]> {
        self.lines.get(&key(source, dark)).map(Vec::as_slice)
    }
}
