//! Node labels that fit a box and still tell siblings apart: long ids are cut
//! from the middle (the start and the end usually name the step), and ids
//! that would still look the same show the part where they differ.

/// A label of at most `max` characters for every id in `ids`, in order.
pub fn short_labels(ids: &[&str], max: usize) -> Vec<String> {
    let mut labels: Vec<String> = ids.iter().map(|id| cut_middle(id, max)).collect();
    for (i, id) in ids.iter().enumerate() {
        let clashing: Vec<usize> =
            (0..ids.len()).filter(|&j| labels[j] == labels[i] && ids[j] != *id).chain([i]).collect();
        if clashing.len() < 2 {
            continue;
        }
        let differs_at = first_difference(clashing.iter().map(|&j| ids[j]));
        for j in clashing {
            labels[j] = window(ids[j], differs_at, max);
        }
    }
    labels
}

/// `id` cut to `max` characters by replacing its middle with `…`.
fn cut_middle(id: &str, max: usize) -> String {
    let chars: Vec<char> = id.chars().collect();
    if chars.len() <= max {
        return id.to_string();
    }
    if max < 2 {
        return "…".chars().take(max).collect();
    }
    let head = (max - 1).div_ceil(2);
    let tail = max - 1 - head;
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(&chars[chars.len() - tail..]);
    out
}

/// The first character position at which not all `ids` agree.
fn first_difference<'a>(ids: impl Iterator<Item = &'a str>) -> usize {
    let ids: Vec<Vec<char>> = ids.map(|id| id.chars().collect()).collect();
    let shortest = ids.iter().map(Vec::len).min().unwrap_or(0);
    (0..shortest).find(|&i| ids.iter().any(|id| id[i] != ids[0][i])).unwrap_or(shortest)
}

/// `max` characters of `id` around position `at`: `…` marks what is cut on either side.
fn window(id: &str, at: usize, max: usize) -> String {
    let chars: Vec<char> = id.chars().collect();
    if chars.len() <= max {
        return id.to_string();
    }
    let start = at.saturating_sub(1).min(chars.len().saturating_sub(max - 1));
    let (lead, room) = if start == 0 { ("", max) } else { ("…", max - 1) };
    let end = (start + room).min(chars.len());
    let mut out = format!("{lead}{}", chars[start..end].iter().collect::<String>());
    if end < chars.len() {
        out.pop();
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_ids_stay_and_long_ones_keep_their_start_and_end() {
        assert_eq!(short_labels(&["load", "rate"], 14), ["load", "rate"]);
        let ids = ["step_1a_with_a_rather_long_common_prefix", "step_1b_with_a_rather_long_common_prefix"];
        assert_eq!(short_labels(&ids, 14), ["step_1a…prefix", "step_1b…prefix"]);
    }

    #[test]
    fn ids_that_still_look_the_same_show_where_they_differ() {
        let ids = ["compute_segment_2_3_weighted_rate", "compute_segment_2_4_weighted_rate", "load"];
        let labels = short_labels(&ids, 14);
        assert_eq!(labels, ["…_3_weighted_…", "…_4_weighted_…", "load"]);
        assert!(labels.iter().all(|l| l.chars().count() <= 14));
    }

    #[test]
    fn every_label_fits_and_distinct_ids_get_distinct_labels_when_they_differ_in_a_window() {
        let ids: Vec<String> =
            (0..30).map(|i| format!("a_very_long_shared_prefix_{i:02}_and_a_long_shared_suffix")).collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        for max in [3, 8, 14, 20] {
            let labels = short_labels(&ids, max);
            assert!(labels.iter().all(|l| l.chars().count() <= max), "{max}: {labels:?}");
            if max >= 8 {
                let distinct: std::collections::BTreeSet<&String> = labels.iter().collect();
                assert_eq!(distinct.len(), ids.len(), "{max}: {labels:?}");
            }
        }
    }
}
