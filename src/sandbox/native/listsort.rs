//! CPython 3.11's list sort, step for step: the same runs found, the same
//! minimum run length, the same binary insertion, the same merge order
//! (powersort's run powers) and the same galloping with its adaptive
//! threshold. Every comparison is a call of `lt` ("is x less than y?"), made
//! in the order CPython makes it, so where `<` is not a total order (NaN,
//! mixed types with odd `__lt__`) the items end in CPython's order, not just
//! in some sorted order. The algorithm is described in CPython's
//! `Objects/listsort.txt`
//! (<https://github.com/python/cpython/blob/3.11/Objects/listsort.txt>).
//!
//! The sort permutes item ids (`usize`) and never looks at the items itself:
//! `lt` does. When `lt` fails, the sort stops at once and the ids are still a
//! permutation of those given (nothing lost or repeated), as in CPython.

/// Galloping starts after this many consecutive wins of one run.
const MIN_GALLOP: usize = 7;

/// A run waiting to be merged: where it starts, how long it is, and its
/// power (its node's depth in powersort's merge tree).
#[derive(Clone, Copy)]
struct Run {
    base: usize,
    len: usize,
    power: u32,
}

/// How a merge of two runs ended.
enum Ending {
    /// Every item is in place but those still in the scratch copy.
    Merged,
    /// One item of the scratch copy is left, and it goes at the far end.
    LastOne,
}

/// Sort `ids` in place by `lt` as CPython 3.11 sorts a list; the first error
/// of `lt`, if any (the ids are then some permutation of the input).
pub fn sort<E>(ids: &mut [usize], lt: impl FnMut(usize, usize) -> Result<bool, E>) -> Result<(), E> {
    let mut state = State { a: ids, tmp: Vec::new(), lt, min_gallop: MIN_GALLOP, pending: Vec::new() };
    state.sort()
}

/// The merge state: the array, scratch space, the comparison, pending runs.
struct State<'a, F> {
    a: &'a mut [usize],
    tmp: Vec<usize>,
    lt: F,
    min_gallop: usize,
    pending: Vec<Run>,
}

/// The smallest run length worth extending to: between 32 and 64, such that
/// `n / minrun` is a power of two or just under one.
fn minimum_run(mut n: usize) -> usize {
    let mut odd = 0;
    while n >= 64 {
        odd |= n & 1;
        n >>= 1;
    }
    n + odd
}

/// The power of the boundary between a run at `start` of `len1` items and
/// the run of `len2` items after it, in a list of `n`: the first bit at which
/// the two runs' midpoints, as fractions of `n`, differ.
fn power(start: usize, len1: usize, len2: usize, n: usize) -> u32 {
    // Twice the midpoints, so that they are whole numbers.
    let mut a = 2 * start + len1;
    let mut b = a + len1 + len2;
    let mut result = 0;
    loop {
        result += 1;
        if a >= n {
            a -= n;
            b -= n;
        } else if b >= n {
            return result;
        }
        a <<= 1;
        b <<= 1;
    }
}

/// Where `key` goes in the sorted `a`, left of any item equal to it: the `k`
/// with `a[k-1] < key <= a[k]`, searched from `hint` outwards.
fn gallop_left<E, F: FnMut(usize, usize) -> Result<bool, E>>(
    lt: &mut F,
    key: usize,
    a: &[usize],
    hint: usize,
) -> Result<usize, E> {
    let n = a.len();
    let (mut last, mut ofs) = (0, 1);
    let (mut low, mut high);
    if lt(a[hint], key)? {
        // a[hint] < key: gallop right until a[hint + last] < key <= a[hint + ofs].
        let max = n - hint;
        while ofs < max && lt(a[hint + ofs], key)? {
            last = ofs;
            ofs = 2 * ofs + 1;
        }
        ofs = ofs.min(max);
        (low, high) = (hint + last + 1, hint + ofs);
    } else {
        // key <= a[hint]: gallop left until a[hint - ofs] < key <= a[hint - last].
        let max = hint + 1;
        while ofs < max && !lt(a[hint - ofs], key)? {
            last = ofs;
            ofs = 2 * ofs + 1;
        }
        ofs = ofs.min(max);
        // hint - ofs may be -1: low is one past it.
        (low, high) = (hint + 1 - ofs, hint - last);
    }
    while low < high {
        let middle = low + ((high - low) >> 1);
        if lt(a[middle], key)? {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    Ok(high)
}

/// Where `key` goes in the sorted `a`, right of any item equal to it: the
/// `k` with `a[k-1] <= key < a[k]`, searched from `hint` outwards.
fn gallop_right<E, F: FnMut(usize, usize) -> Result<bool, E>>(
    lt: &mut F,
    key: usize,
    a: &[usize],
    hint: usize,
) -> Result<usize, E> {
    let n = a.len();
    let (mut last, mut ofs) = (0, 1);
    let (mut low, mut high);
    if lt(key, a[hint])? {
        // key < a[hint]: gallop left until a[hint - ofs] <= key < a[hint - last].
        let max = hint + 1;
        while ofs < max && lt(key, a[hint - ofs])? {
            last = ofs;
            ofs = 2 * ofs + 1;
        }
        ofs = ofs.min(max);
        (low, high) = (hint + 1 - ofs, hint - last);
    } else {
        // a[hint] <= key: gallop right until a[hint + last] <= key < a[hint + ofs].
        let max = n - hint;
        while ofs < max && !lt(key, a[hint + ofs])? {
            last = ofs;
            ofs = 2 * ofs + 1;
        }
        ofs = ofs.min(max);
        (low, high) = (hint + last + 1, hint + ofs);
    }
    while low < high {
        let middle = low + ((high - low) >> 1);
        if lt(key, a[middle])? {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    Ok(high)
}

/// Positions of a merge in progress: `dest` is where the next item goes,
/// `ia` and `ib` the next items of the two runs (one of them in `tmp`), `na`
/// and `nb` how many of each are left.
struct Cursor {
    dest: usize,
    ia: usize,
    ib: usize,
    na: usize,
    nb: usize,
}

impl<E, F: FnMut(usize, usize) -> Result<bool, E>> State<'_, F> {
    fn lt(&mut self, x: usize, y: usize) -> Result<bool, E> {
        (self.lt)(x, y)
    }

    fn sort(&mut self) -> Result<(), E> {
        let n = self.a.len();
        if n < 2 {
            return Ok(());
        }
        let minrun = minimum_run(n);
        let mut low = 0;
        while low < n {
            let remaining = n - low;
            let mut len = self.count_run(low, remaining)?;
            if len < minrun {
                let force = remaining.min(minrun);
                self.binary_sort(low, low + force, low + len)?;
                len = force;
            }
            self.found_new_run(len)?;
            self.pending.push(Run { base: low, len, power: 0 });
            low += len;
        }
        while self.pending.len() > 1 {
            let mut i = self.pending.len() - 2;
            if i > 0 && self.pending[i - 1].len < self.pending[i + 1].len {
                i -= 1;
            }
            self.merge_at(i)?;
        }
        Ok(())
    }

    /// The length of the run starting at `low` (at most `remaining` items),
    /// made ascending: a strictly descending run is reversed in place.
    fn count_run(&mut self, low: usize, remaining: usize) -> Result<usize, E> {
        if remaining == 1 {
            return Ok(1);
        }
        let mut len = 2;
        let descending = self.lt(self.a[low + 1], self.a[low])?;
        while len < remaining && self.lt(self.a[low + len], self.a[low + len - 1])? == descending {
            len += 1;
        }
        if descending {
            self.a[low..low + len].reverse();
        }
        Ok(len)
    }

    /// Binary insertion sort of `a[low..high]`, whose `a[low..start]` is sorted.
    fn binary_sort(&mut self, low: usize, high: usize, start: usize) -> Result<(), E> {
        for next in start.max(low + 1)..high {
            let pivot = self.a[next];
            let (mut left, mut right) = (low, next);
            while left < right {
                let middle = left + ((right - left) >> 1);
                if self.lt(pivot, self.a[middle])? {
                    right = middle;
                } else {
                    left = middle + 1;
                }
            }
            self.a.copy_within(left..next, left + 1);
            self.a[left] = pivot;
        }
        Ok(())
    }

    /// A run of `len` items follows the last pending one: merge the pending
    /// runs whose power is above the new boundary's, then record its power.
    fn found_new_run(&mut self, len: usize) -> Result<(), E> {
        let Some(last) = self.pending.last().copied() else { return Ok(()) };
        let power = power(last.base, last.len, len, self.a.len());
        while self.pending.len() > 1 && self.pending[self.pending.len() - 2].power > power {
            self.merge_at(self.pending.len() - 2)?;
        }
        if let Some(last) = self.pending.last_mut() {
            last.power = power;
        }
        Ok(())
    }

    /// Merge pending runs `i` and `i + 1` into one.
    fn merge_at(&mut self, i: usize) -> Result<(), E> {
        let (first, second) = (self.pending[i], self.pending[i + 1]);
        self.pending[i].len = first.len + second.len;
        self.pending.remove(i + 1);
        let (mut base_a, mut na, base_b) = (first.base, first.len, second.base);
        // Items of the first run that go before the second's first are in place.
        let skip = gallop_right(&mut self.lt, self.a[base_b], &self.a[base_a..base_a + na], 0)?;
        base_a += skip;
        na -= skip;
        if na == 0 {
            return Ok(());
        }
        // Items of the second run that go after the first's last are in place.
        let nb =
            gallop_left(&mut self.lt, self.a[base_a + na - 1], &self.a[base_b..base_b + second.len], second.len - 1)?;
        if nb == 0 {
            return Ok(());
        }
        if na <= nb { self.merge_low(base_a, na, nb) } else { self.merge_high(base_a, na, nb) }
    }

    /// Merge the `na` items at `base` with the `nb` right after them, the
    /// first run (the shorter) copied aside.
    fn merge_low(&mut self, base: usize, na: usize, nb: usize) -> Result<(), E> {
        self.tmp.clear();
        self.tmp.extend_from_slice(&self.a[base..base + na]);
        let mut at = Cursor { dest: base, ia: 0, ib: base + na, na, nb };
        let outcome = self.merge_low_steps(&mut at);
        let Cursor { dest, ia, ib, na, nb } = at;
        match outcome {
            Ok(Ending::LastOne) => {
                self.a.copy_within(ib..ib + nb, dest);
                self.a[dest + nb] = self.tmp[ia];
            }
            Ok(Ending::Merged) | Err(_) => self.a[dest..dest + na].copy_from_slice(&self.tmp[ia..ia + na]),
        }
        outcome.map(drop)
    }

    fn merge_low_steps(&mut self, at: &mut Cursor) -> Result<Ending, E> {
        self.a[at.dest] = self.a[at.ib];
        (at.dest, at.ib, at.nb) = (at.dest + 1, at.ib + 1, at.nb - 1);
        if at.nb == 0 {
            return Ok(Ending::Merged);
        }
        if at.na == 1 {
            return Ok(Ending::LastOne);
        }
        let mut min_gallop = self.min_gallop;
        loop {
            let (mut a_wins, mut b_wins) = (0, 0);
            // One at a time, until one run wins `min_gallop` times in a row.
            loop {
                if self.lt(self.a[at.ib], self.tmp[at.ia])? {
                    self.a[at.dest] = self.a[at.ib];
                    (at.dest, at.ib, at.nb) = (at.dest + 1, at.ib + 1, at.nb - 1);
                    (a_wins, b_wins) = (0, b_wins + 1);
                    if at.nb == 0 {
                        return Ok(Ending::Merged);
                    }
                    if b_wins >= min_gallop {
                        break;
                    }
                } else {
                    self.a[at.dest] = self.tmp[at.ia];
                    (at.dest, at.ia, at.na) = (at.dest + 1, at.ia + 1, at.na - 1);
                    (a_wins, b_wins) = (a_wins + 1, 0);
                    if at.na == 1 {
                        return Ok(Ending::LastOne);
                    }
                    if a_wins >= min_gallop {
                        break;
                    }
                }
            }
            // Gallop while either run keeps winning by MIN_GALLOP or more.
            min_gallop += 1;
            loop {
                min_gallop -= usize::from(min_gallop > 1);
                self.min_gallop = min_gallop;
                a_wins = gallop_right(&mut self.lt, self.a[at.ib], &self.tmp[at.ia..at.ia + at.na], 0)?;
                if a_wins > 0 {
                    self.a[at.dest..at.dest + a_wins].copy_from_slice(&self.tmp[at.ia..at.ia + a_wins]);
                    (at.dest, at.ia, at.na) = (at.dest + a_wins, at.ia + a_wins, at.na - a_wins);
                    if at.na == 1 {
                        return Ok(Ending::LastOne);
                    }
                    // Only an inconsistent `lt` empties the first run here.
                    if at.na == 0 {
                        return Ok(Ending::Merged);
                    }
                }
                self.a[at.dest] = self.a[at.ib];
                (at.dest, at.ib, at.nb) = (at.dest + 1, at.ib + 1, at.nb - 1);
                if at.nb == 0 {
                    return Ok(Ending::Merged);
                }
                b_wins = gallop_left(&mut self.lt, self.tmp[at.ia], &self.a[at.ib..at.ib + at.nb], 0)?;
                if b_wins > 0 {
                    self.a.copy_within(at.ib..at.ib + b_wins, at.dest);
                    (at.dest, at.ib, at.nb) = (at.dest + b_wins, at.ib + b_wins, at.nb - b_wins);
                    if at.nb == 0 {
                        return Ok(Ending::Merged);
                    }
                }
                self.a[at.dest] = self.tmp[at.ia];
                (at.dest, at.ia, at.na) = (at.dest + 1, at.ia + 1, at.na - 1);
                if at.na == 1 {
                    return Ok(Ending::LastOne);
                }
                if a_wins < MIN_GALLOP && b_wins < MIN_GALLOP {
                    break;
                }
            }
            // Leaving galloping costs: it starts later next time.
            min_gallop += 1;
            self.min_gallop = min_gallop;
        }
    }

    /// Merge the `na` items at `base` with the `nb` right after them, from
    /// the far end, the second run (the shorter) copied aside. Here the
    /// cursor counts from one past each position, so that it never goes
    /// below zero: `dest`, `ia` and `ib` are one past the next place and items.
    fn merge_high(&mut self, base: usize, na: usize, nb: usize) -> Result<(), E> {
        let base_b = base + na;
        self.tmp.clear();
        self.tmp.extend_from_slice(&self.a[base_b..base_b + nb]);
        let mut at = Cursor { dest: base_b + nb, ia: base_b, ib: nb, na, nb };
        let outcome = self.merge_high_steps(base, &mut at);
        let Cursor { dest, ia, ib, na, nb } = at;
        match outcome {
            Ok(Ending::LastOne) => {
                self.a.copy_within(ia - na..ia, dest - na);
                self.a[dest - na - 1] = self.tmp[ib - 1];
            }
            Ok(Ending::Merged) | Err(_) => self.a[dest - nb..dest].copy_from_slice(&self.tmp[..nb]),
        }
        outcome.map(drop)
    }

    fn merge_high_steps(&mut self, base: usize, at: &mut Cursor) -> Result<Ending, E> {
        self.a[at.dest - 1] = self.a[at.ia - 1];
        (at.dest, at.ia, at.na) = (at.dest - 1, at.ia - 1, at.na - 1);
        if at.na == 0 {
            return Ok(Ending::Merged);
        }
        if at.nb == 1 {
            return Ok(Ending::LastOne);
        }
        let mut min_gallop = self.min_gallop;
        loop {
            let (mut a_wins, mut b_wins) = (0, 0);
            loop {
                if self.lt(self.tmp[at.ib - 1], self.a[at.ia - 1])? {
                    self.a[at.dest - 1] = self.a[at.ia - 1];
                    (at.dest, at.ia, at.na) = (at.dest - 1, at.ia - 1, at.na - 1);
                    (a_wins, b_wins) = (a_wins + 1, 0);
                    if at.na == 0 {
                        return Ok(Ending::Merged);
                    }
                    if a_wins >= min_gallop {
                        break;
                    }
                } else {
                    self.a[at.dest - 1] = self.tmp[at.ib - 1];
                    (at.dest, at.ib, at.nb) = (at.dest - 1, at.ib - 1, at.nb - 1);
                    (a_wins, b_wins) = (0, b_wins + 1);
                    if at.nb == 1 {
                        return Ok(Ending::LastOne);
                    }
                    if b_wins >= min_gallop {
                        break;
                    }
                }
            }
            min_gallop += 1;
            loop {
                min_gallop -= usize::from(min_gallop > 1);
                self.min_gallop = min_gallop;
                let key = self.tmp[at.ib - 1];
                a_wins = at.na - gallop_right(&mut self.lt, key, &self.a[base..base + at.na], at.na - 1)?;
                if a_wins > 0 {
                    self.a.copy_within(at.ia - a_wins..at.ia, at.dest - a_wins);
                    (at.dest, at.ia, at.na) = (at.dest - a_wins, at.ia - a_wins, at.na - a_wins);
                    if at.na == 0 {
                        return Ok(Ending::Merged);
                    }
                }
                self.a[at.dest - 1] = self.tmp[at.ib - 1];
                (at.dest, at.ib, at.nb) = (at.dest - 1, at.ib - 1, at.nb - 1);
                if at.nb == 1 {
                    return Ok(Ending::LastOne);
                }
                let key = self.a[at.ia - 1];
                b_wins = at.nb - gallop_left(&mut self.lt, key, &self.tmp[..at.nb], at.nb - 1)?;
                if b_wins > 0 {
                    self.a[at.dest - b_wins..at.dest].copy_from_slice(&self.tmp[at.ib - b_wins..at.ib]);
                    (at.dest, at.ib, at.nb) = (at.dest - b_wins, at.ib - b_wins, at.nb - b_wins);
                    if at.nb == 1 {
                        return Ok(Ending::LastOne);
                    }
                    // Only an inconsistent `lt` empties the second run here.
                    if at.nb == 0 {
                        return Ok(Ending::Merged);
                    }
                }
                self.a[at.dest - 1] = self.a[at.ia - 1];
                (at.dest, at.ia, at.na) = (at.dest - 1, at.ia - 1, at.na - 1);
                if at.na == 0 {
                    return Ok(Ending::Merged);
                }
                if a_wins < MIN_GALLOP && b_wins < MIN_GALLOP {
                    break;
                }
            }
            min_gallop += 1;
            self.min_gallop = min_gallop;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted_by(values: &[f64]) -> Vec<usize> {
        let mut ids: Vec<usize> = (0..values.len()).collect();
        sort(&mut ids, |x, y| Ok::<_, ()>(values[x] < values[y])).unwrap();
        ids
    }

    #[test]
    fn a_total_order_sorts_stably() {
        let values: Vec<f64> = (0..2_000).map(|i| f64::from((i * 7_919) % 101)).collect();
        let ids = sorted_by(&values);
        let mut expected: Vec<usize> = (0..values.len()).collect();
        expected.sort_by(|&x, &y| values[x].total_cmp(&values[y]));
        assert_eq!(ids, expected);
    }

    #[test]
    fn the_minimum_run_is_cpythons() {
        assert_eq!(minimum_run(63), 63);
        assert_eq!(minimum_run(64), 32);
        assert_eq!(minimum_run(65), 33);
        assert_eq!(minimum_run(2_112), 33);
    }

    #[test]
    fn an_error_stops_the_sort_and_keeps_a_permutation() {
        let mut ids: Vec<usize> = (0..300).rev().collect();
        let mut calls = 0;
        let outcome = sort(&mut ids, |x, y| {
            calls += 1;
            if calls == 500 { Err("boom") } else { Ok(x % 17 < y % 17) }
        });
        assert_eq!(outcome, Err("boom"));
        let mut seen = ids.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..300).collect::<Vec<_>>());
    }
}
