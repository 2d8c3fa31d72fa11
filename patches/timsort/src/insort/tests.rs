use crate::{comparator, never, ord_t_comparator};

/// Test the insertion sort implementation with an empty list
#[test]
fn empty() {
    let mut list: Vec<u32> = vec![];
    sort(&mut list);
    assert!(list.is_empty());
}

/// Test the insertion sort implementation with a single-element list
#[test]
fn single() {
    let mut list = vec![42];
    sort(&mut list);
    assert!(list[0] == 42);
}

/// Test the insertion sort implementation with a short unsorted list
#[test]
fn unsorted() {
    let mut list = vec![3, 1, 0, 4];
    sort(&mut list);
    assert!(list[0] == 0);
    assert!(list[1] == 1);
    assert!(list[2] == 3);
    assert!(list[3] == 4);
}

/// Test the insertion sort implementation with a short backward list
#[test]
fn reverse() {
    let mut list = vec![21, 18, 7, 1];
    sort(&mut list);
    assert!(list[0] == 1);
    assert!(list[1] == 7);
    assert!(list[2] == 18);
    assert!(list[3] == 21);
}

/// Test the insertion sort implementation with a short unsorted list
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
    super::sort(&mut list, &comparator(|a: &Item, b| Ok(a.key1 > b.key1))).unwrap_or_else(never);
    for pair in list.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert!(a.key1 <= b.key1);
        if a.key1 == b.key1 {
            assert!(a.key2 <= b.key2);
        }
    }
}

/// With a sorted prefix, only the rest is inserted, stably.
#[test]
fn sorted_prefix() {
    let mut list = vec![
        (1, 'a'),
        (3, 'b'),
        (5, 'c'),
        (3, 'd'),
        (0, 'e'),
        (5, 'f'),
        (1, 'g'),
    ];
    super::sort_from(
        &mut list,
        3,
        &comparator(|a: &(i32, char), b| Ok(a.0 > b.0)),
    )
    .unwrap_or_else(never);
    let want = vec![
        (0, 'e'),
        (1, 'a'),
        (1, 'g'),
        (3, 'b'),
        (3, 'd'),
        (5, 'c'),
        (5, 'f'),
    ];
    assert_eq!(list, want);
}

/// Insertion sort implementation convenience used for tests.
fn sort<T: Ord>(list: &mut [T]) {
    super::sort(list, &ord_t_comparator()).unwrap_or_else(never);
}
