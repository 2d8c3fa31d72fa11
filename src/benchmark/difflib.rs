//! The similarity ratio of Python's `difflib.SequenceMatcher(None, a, b)` on
//! two strings, computed the same way: characters of `b` that are "popular"
//! (in a `b` of 200 or more characters, those seen more than 1% of its length
//! plus one times) never start a match, the longest match is found first and
//! the parts on either side of it matched in turn.

use std::collections::HashMap;

/// `SequenceMatcher(None, a, b).ratio()`: twice the matched characters over
/// both lengths (1.0 for two empty strings).
pub fn ratio(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    let matcher = Matcher::new(&a, &b);
    2.0 * matcher.matched() as f64 / total as f64
}

struct Matcher<'s> {
    a: &'s [char],
    b: &'s [char],
    /// Where each character of `b` stands, popular characters left out.
    positions: HashMap<char, Vec<usize>>,
}

impl<'s> Matcher<'s> {
    fn new(a: &'s [char], b: &'s [char]) -> Self {
        let mut positions: HashMap<char, Vec<usize>> = HashMap::new();
        for (j, c) in b.iter().enumerate() {
            positions.entry(*c).or_default().push(j);
        }
        if b.len() >= 200 {
            let limit = b.len() / 100 + 1;
            positions.retain(|_, at| at.len() <= limit);
        }
        Self { a, b, positions }
    }

    /// The characters in all matching blocks.
    fn matched(&self) -> usize {
        let mut queue = vec![(0, self.a.len(), 0, self.b.len())];
        let mut matched = 0;
        while let Some((alo, ahi, blo, bhi)) = queue.pop() {
            let (i, j, k) = self.longest_match(alo, ahi, blo, bhi);
            if k == 0 {
                continue;
            }
            matched += k;
            if alo < i && blo < j {
                queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                queue.push((i + k, ahi, j + k, bhi));
            }
        }
        matched
    }

    /// The longest block `a[i..i+k] == b[j..j+k]` within the bounds, earliest
    /// in `a` then in `b`, extended over equal neighbours (popular ones too).
    fn longest_match(&self, alo: usize, ahi: usize, blo: usize, bhi: usize) -> (usize, usize, usize) {
        let (mut best_i, mut best_j, mut best) = (alo, blo, 0);
        let mut lengths: HashMap<usize, usize> = HashMap::new();
        for i in alo..ahi {
            let mut next: HashMap<usize, usize> = HashMap::new();
            for &j in self.positions.get(&self.a[i]).map_or(&[][..], Vec::as_slice) {
                if j < blo {
                    continue;
                }
                if j >= bhi {
                    break;
                }
                let k = j.checked_sub(1).and_then(|p| lengths.get(&p)).copied().unwrap_or(0) + 1;
                next.insert(j, k);
                if k > best {
                    (best_i, best_j, best) = (i + 1 - k, j + 1 - k, k);
                }
            }
            lengths = next;
        }
        while best_i > alo && best_j > blo && self.a[best_i - 1] == self.b[best_j - 1] {
            (best_i, best_j, best) = (best_i - 1, best_j - 1, best + 1);
        }
        while best_i + best < ahi && best_j + best < bhi && self.a[best_i + best] == self.b[best_j + best] {
            best += 1;
        }
        (best_i, best_j, best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_of_the_documented_examples() {
        // The examples of difflib's documentation.
        assert_eq!(ratio("abcd", "bcde"), 0.75);
        assert_eq!(ratio("", ""), 1.0);
        assert_eq!(ratio("abc", ""), 0.0);
        assert_eq!(ratio(" abcd", "abcd abcd"), 10.0 / 14.0);
    }

    #[test]
    fn popular_characters_of_a_long_b_start_no_match_but_extend_one() {
        // b has 201 characters, 'x' 200 times (over 3): "xxx" is never matched
        // on its own, only the 'a'; at the start of both, an 'x' match is
        // grown from an empty one (CPython: 2/205 and 6/203).
        let b = format!("{}a", "x".repeat(200));
        assert_eq!(ratio("axxx", &b), 2.0 / 205.0);
        assert_eq!(ratio("xxx", &"x".repeat(200)), 6.0 / 203.0);
    }
}
