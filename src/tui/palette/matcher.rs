//! The palette's fuzzy matching: a query matches an entry when its
//! characters appear in the entry's text in order (case aside); matches that
//! start words, run on without gaps or start the text rank first. Typing one
//! more character only searches what the shorter query matched, so a
//! keystroke over 10,000 questions stays cheap.

/// How many places the query's first character is tried at, per entry.
const STARTS: usize = 8;
/// Longest text of an entry matched, in characters.
const LONGEST: usize = 160;

/// The entries' texts and which of them the query matches, best first.
#[derive(Debug, Default)]
pub struct Matcher {
    /// Each entry's text, lowercase, one character per character shown.
    texts: Vec<Vec<char>>,
    /// The query, lowercase.
    query: Vec<char>,
    /// Indices of the matching entries, best first (all, in order, for an empty query).
    matches: Vec<usize>,
}

impl Matcher {
    /// A matcher over `texts`, every one matching the empty query.
    pub fn new(texts: impl Iterator<Item = String>) -> Self {
        let texts: Vec<Vec<char>> = texts.map(|text| lowercase(&text).into_iter().take(LONGEST).collect()).collect();
        let matches = (0..texts.len()).collect();
        Self { texts, query: Vec::new(), matches }
    }

    /// Match `query` from now on; a query extending the last one searches only its matches.
    pub fn set_query(&mut self, query: &str) {
        let query = lowercase(query);
        let narrowing = query.starts_with(&self.query);
        let candidates = if narrowing { std::mem::take(&mut self.matches) } else { (0..self.texts.len()).collect() };
        self.query = query;
        if self.query.is_empty() {
            self.matches = candidates;
            return;
        }
        let mut scored: Vec<(i64, usize)> = candidates
            .into_iter()
            .filter_map(|index| score(&self.query, &self.texts[index], None).map(|score| (score, index)))
            .collect();
        scored.sort_by_key(|&(score, index)| (std::cmp::Reverse(score), index));
        self.matches = scored.into_iter().map(|(_, index)| index).collect();
    }

    /// The matching entries' indices, best first.
    pub fn matches(&self) -> &[usize] {
        &self.matches
    }

    /// Where the query's characters fall in entry `index`'s text (for highlighting).
    pub fn positions(&self, index: usize) -> Vec<usize> {
        let mut positions = Vec::new();
        if let Some(text) = self.texts.get(index) {
            score(&self.query, text, Some(&mut positions));
        }
        positions
    }
}

/// `text` in lowercase, one character for each of its characters.
fn lowercase(text: &str) -> Vec<char> {
    text.chars().map(|c| c.to_lowercase().next().unwrap_or(c)).collect()
}

/// How well `query` matches `text` (none: it does not), trying the query's
/// first character at its first few places; `positions` receives the best
/// match's character indices.
pub fn score(query: &[char], text: &[char], positions: Option<&mut Vec<usize>>) -> Option<i64> {
    let first = *query.first()?;
    let starts = text.iter().enumerate().filter(|(_, c)| **c == first).map(|(at, _)| at).take(STARTS);
    let mut found = Vec::with_capacity(query.len());
    let mut best: Option<i64> = None;
    let mut best_found = Vec::new();
    let keep = positions.is_some();
    for start in starts {
        if !greedy(query, text, start, &mut found) {
            break;
        }
        let value = value_of(text, &found);
        if best.is_none_or(|b| value > b) {
            best = Some(value);
            if keep {
                best_found.clone_from(&found);
            }
        }
    }
    if let Some(positions) = positions {
        *positions = best_found;
    }
    best
}

/// Into `found`, the query's characters in order from `start`, each at its
/// first place after the one before; whether they all were.
fn greedy(query: &[char], text: &[char], start: usize, found: &mut Vec<usize>) -> bool {
    found.clear();
    let mut at = start;
    for c in query {
        let Some(offset) = text.get(at..).and_then(|rest| rest.iter().position(|t| t == c)) else { return false };
        found.push(at + offset);
        at += offset + 1;
    }
    true
}

/// A match's worth: a point a character, more for one starting a word or
/// following the one before, more again at the text's start; less for gaps.
fn value_of(text: &[char], found: &[usize]) -> i64 {
    let mut value = 0;
    for (i, &at) in found.iter().enumerate() {
        value += 1;
        if at == 0 || !text[at - 1].is_alphanumeric() {
            value += 8;
        }
        match i.checked_sub(1).map(|previous| found[previous]) {
            Some(previous) if previous + 1 == at => value += 5,
            Some(previous) => value -= ((at - previous - 1) as i64).min(3),
            None => {}
        }
    }
    if found.first() == Some(&0) {
        value += 10;
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(texts: &[&str]) -> Matcher {
        Matcher::new(texts.iter().map(|text| text.to_string()))
    }

    #[test]
    fn characters_in_order_match_and_word_starts_rank_first() {
        let mut m = matcher(&["cycle the sort order", "status filter", "critic scorecard", "q_12 how many"]);
        m.set_query("sf");
        assert_eq!(m.matches(), [1], "only `status filter` has s then f");
        m.set_query("SO");
        assert_eq!(m.matches()[0], 0, "`sort` starts a word: {:?}", m.matches());
        m.set_query("xyz");
        assert!(m.matches().is_empty());
        m.set_query("");
        assert_eq!(m.matches(), [0, 1, 2, 3]);
    }

    #[test]
    fn a_longer_query_narrows_and_a_shorter_one_widens_again() {
        let mut m = matcher(&["alpha", "beta", "alphabet"]);
        m.set_query("al");
        assert_eq!(m.matches(), [0, 2]);
        m.set_query("alb");
        assert_eq!(m.matches(), [2]);
        m.set_query("b");
        assert_eq!(m.matches(), [1, 2], "backspacing searches every entry again");
    }

    #[test]
    fn positions_mark_the_best_match() {
        let mut m = matcher(&["tests of the status filter"]);
        m.set_query("sf");
        assert_eq!(m.positions(0), [13, 20], "the word starts, not the first `s` and `f`");
    }
}
