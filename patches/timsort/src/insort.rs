//! The bottom sorting algorithm (we could just have 1-element runs and do all
//! the sorting with the merge algorithm, but that would be much slower).

#[cfg(test)]
mod tests;

use crate::Comparator;

/// Sorts the list using binary insertion sort.
pub(crate) fn sort<T, C: Comparator<T>>(list: &mut [T], cmp: &C) -> Result<(), C::Error> {
    sort_from(list, 1, cmp)
}

/// Sorts the list using binary insertion sort, given that its first `sorted`
/// elements are already in order: each later element goes after the last
/// element it is not less than (so equal elements keep their order), found by
/// binary search, with O(log n) comparisons per element.
pub(crate) fn sort_from<T, C: Comparator<T>>(
    list: &mut [T],
    sorted: usize,
    cmp: &C,
) -> Result<(), C::Error> {
    for i in sorted.max(1)..list.len() {
        let i_el = &list[i];
        let (mut lo, mut hi) = (0, i);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if cmp.is_gt(&list[mid], i_el)? {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if lo != i {
            list[lo..=i].rotate_right(1);
        }
    }
    Ok(())
}
