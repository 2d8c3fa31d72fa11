//! The top sorting algorithm; that is, the modified merge sort we keep
//! talking about.

use crate::{never, ord_t_comparator};

/// Test the sort implementation with an empty list
#[test]
fn empty() {
    let mut list: Vec<u32> = vec![];
    sort(&mut list);
    assert!(list.is_empty());
}

/// Test the sort implementation with a single-element list
#[test]
fn single() {
    let mut list = vec![42];
    sort(&mut list);
    assert!(list[0] == 42);
}

/// Test the sort implementation with a short unsorted list
#[test]
fn unsorted() {
    let mut list = vec![3, 1, 0, 4];
    sort(&mut list);
    assert!(list[0] == 0);
    assert!(list[1] == 1);
    assert!(list[2] == 3);
    assert!(list[3] == 4);
}

/// Test the sort implementation with a short backward list
#[test]
fn reverse() {
    let mut list = vec![21, 18, 7, 1];
    sort(&mut list);
    assert!(list[0] == 1);
    assert!(list[1] == 7);
    assert!(list[2] == 18);
    assert!(list[3] == 21);
}

/// Test the sort implementation with a short unsorted list
#[test]
fn sorted() {
    let mut list = vec![0, 1, 2, 3];
    sort(&mut list);
    assert!(list[0] == 0);
    assert!(list[1] == 1);
    assert!(list[2] == 2);
    assert!(list[3] == 3);
}

/// Make sure the sort is stable.
#[test]
fn stable_npow2() {
    let len = 259;
    let mut key1: usize = 0;
    let mut key2: usize = 0;
    #[derive(Debug)]
    struct Item {
        key1: usize,
        key2: usize,
    }
    let mut list: Vec<Item> = (0..len)
        .map(|_| {
            key1 += 1;
            key1 %= 5;
            key2 += 1;
            Item { key1, key2 }
        })
        .collect();
    crate::sort_by_gt(&mut list, |a, b| a.key1 > b.key1);
    for i in 0..(len - 1) {
        assert!(list[i].key1 <= list[i + 1].key1);
        if list[i].key1 == list[i + 1].key1 {
            assert!(list[i].key2 <= list[i + 1].key2);
        }
    }
}
/// Make sure the sort is stable.
#[test]
fn stable() {
    let len = 256;
    let mut key1: usize = 0;
    let mut key2: usize = 0;
    #[derive(Debug)]
    struct Item {
        key1: usize,
        key2: usize,
    }
    let mut list: Vec<Item> = (0..len)
        .map(|_| {
            key1 += 1;
            key1 %= 5;
            key2 += 1;
            Item { key1, key2 }
        })
        .collect();
    crate::sort_by_gt(&mut list, |a, b| a.key1 > b.key1);
    for i in 0..(len - 1) {
        assert!(list[i].key1 <= list[i + 1].key1);
        if list[i].key1 == list[i + 1].key1 {
            assert!(list[i].key2 <= list[i + 1].key2);
        }
    }
}

/// After every collapse the run stack keeps its invariant all the way down:
/// also when a new run is at least as long as the one below it (which 0.1.3
/// never merged, so one run grew by a short run per merge: Θ(n²) moves), and
/// in the case the original algorithm missed (run lengths 120, 80, 25, 20, 30).
#[test]
fn merge_collapse_keeps_the_invariant() {
    let cases: [&[usize]; 4] = [
        &[10, 100],
        &[120, 80, 25, 20, 30],
        &[64, 64, 64, 64, 64, 64, 64],
        &[50, 40, 30, 20, 10, 35, 5, 200],
    ];
    for lens in cases {
        let mut list: Vec<usize> = lens.iter().flat_map(|&len| 0..len).collect();
        let cmp = ord_t_comparator();
        let mut state = super::SortState::new(&mut list, &cmp);
        for &len in lens {
            state.runs.push(super::Run {
                pos: state.pos,
                len,
            });
            state.pos += len;
            state.merge_collapse().unwrap_or_else(never);
            let runs: Vec<usize> = state.runs.iter().map(|run| run.len).collect();
            for i in 1..runs.len() {
                assert!(runs[i - 1] > runs[i], "{:?} after {:?}", runs, lens);
                if i >= 2 {
                    assert!(
                        runs[i - 2] > runs[i - 1] + runs[i],
                        "{:?} after {:?}",
                        runs,
                        lens
                    );
                }
            }
        }
        state.merge_force_collapse().unwrap_or_else(never);
        assert!(list.windows(2).all(|pair| pair[0] <= pair[1]));
    }
}

/// A random list of 50,000 sorts with O(n log n) comparisons.
#[test]
fn random_list_takes_n_log_n_comparisons() {
    let len: usize = 50_000;
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut list: Vec<u64> = (0..len)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        })
        .collect();
    let comparisons = core::cell::Cell::new(0usize);
    crate::sort_by_gt(&mut list, |a, b| {
        comparisons.set(comparisons.get() + 1);
        a > b
    });
    assert!(list.windows(2).all(|pair| pair[0] <= pair[1]));
    let log2 = usize::BITS - len.leading_zeros();
    assert!(
        comparisons.get() <= len * log2 as usize,
        "{} comparisons",
        comparisons.get()
    );
}

/// Sort implementation convenience used for tests.
fn sort<T: Ord>(list: &mut [T]) {
    super::SortState::new(list, &ord_t_comparator())
        .sort()
        .unwrap_or_else(never)
}
