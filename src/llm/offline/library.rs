//! The question library over a dataset's ingredients, and the choice of a
//! ranked set from it: every level represented as far as the data allows,
//! templates taking turns within a level, no two questions of one shape.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Map, Value};

use super::ingredients::Ingredients;
use super::templates::Candidate;
use super::{advanced as hard, groups as medium, joins, pairs, templates as easy};
use crate::domain::DifficultyLevel;

/// Most values a categorical column may have to group by it: a group-by
/// over dozens of names (first names, cities) makes a question nobody asks.
const MAX_GROUPS: usize = 15;

/// Every question the library can write over `ing`, each shape once (where a
/// template words one operation several ways, `seed` picks the wording).
pub fn candidates(data: &Map<String, Value>, ing: &Ingredients, seed: u64) -> Vec<Candidate> {
    let mut all: Vec<Option<Candidate>> =
        ing.joins.iter().flat_map(|join| [joins::join_arg_max(data, join), joins::join_count(data, join)]).collect();
    for (key, fields) in &ing.stats {
        for field in fields {
            all.push(easy::stats_arg_max(data, key, field));
            all.push(easy::stats_lookup(data, key, field));
        }
    }
    if let Some(r) = ing.rows_key.as_deref() {
        let label = ing.label.as_deref();
        for (column, values) in &ing.categorical {
            all.push(easy::count_matching(data, r, column));
            all.push(easy::distinct_count(data, r, column));
            all.push(medium::top_values(data, r, column));
            if values.len() > MAX_GROUPS {
                continue;
            }
            if let Some(label) = label {
                all.push(medium::label_rate_arg_max(data, r, column, label));
            }
            for measure in &ing.numeric {
                all.push(medium::group_mean_arg_max(data, r, column, measure));
                all.push(medium::mean_where(data, r, column, measure));
                all.push(medium::group_count_above(data, r, column, measure));
                all.push(hard::group_difference(data, r, column, measure));
                all.push(hard::top_groups_by_mean(data, r, column, measure));
            }
        }
        // Data without measures or dates (a list of places): shapes over its text and coordinates.
        if ing.numeric.is_empty() && ing.datetime.is_none() {
            all.extend(pairs::without_measures(data, r, ing, MAX_GROUPS));
        }
        if let Some(label) = label {
            all.push(easy::label_count(data, r, label));
            all.push(easy::label_share(data, r, label));
        }
        for (i, column) in ing.numeric.iter().enumerate() {
            all.push(easy::max_value(data, r, column));
            all.push(easy::count_above(data, r, column));
            all.push(hard::percentile_95(data, r, column));
            all.push(hard::interquartile_range(data, r, column));
            if let Some(label) = label {
                all.push(hard::top_decile_rate(data, r, column, label));
            }
            for other in &ing.numeric[i + 1..] {
                all.push(hard::correlation(data, r, column, other));
            }
        }
        if let Some((time, format)) = &ing.datetime {
            all.push(medium::busiest_part(data, r, time, format, seed));
            all.push(medium::date_range_count(data, r, time, format));
            all.push(hard::period_change(data, r, time, format));
            if let Some(label) = label {
                all.push(hard::longest_streak(data, r, time, format, label));
                all.push(hard::rate_change(data, r, time, format, label));
            }
        }
    }
    let mut shapes = HashSet::new();
    all.into_iter().flatten().filter(|c| shapes.insert(c.shape())).collect()
}

/// The order templates take their turns in (seed 0), the ones that show the
/// most of a dataset first.
const SHOWCASE: &[&str] = &[
    "join_arg_max",
    "join_count",
    "count_matching",
    "label_share",
    "stats_arg_max",
    "max_value",
    "count_above",
    "distinct_count",
    "label_count",
    "stats_lookup",
    "group_mean_arg_max",
    "label_rate_arg_max",
    "busiest_part",
    "top_values",
    "date_range_count",
    "mean_where",
    "group_count_above",
    "percentile_95",
    "rate_change",
    "correlation",
    "group_difference",
    "longest_streak",
    "top_groups_by_mean",
    "top_decile_rate",
    "interquartile_range",
    "period_change",
    "longest_value",
    "most_distinct_within",
    "farthest_from",
];

/// One level's candidates in the order they are taken: the templates take
/// turns, so a short set spreads over many kinds of question before any kind
/// repeats, and each turn takes the template's question over the columns used
/// least so far (`used`, shared by the levels; ties go by an order the seed
/// rotates).
fn interleave(level: Vec<Candidate>, seed: u64, used: &mut HashMap<String, usize>) -> Vec<Candidate> {
    let mut by_template: BTreeMap<usize, Vec<Candidate>> = BTreeMap::new();
    for candidate in level {
        let turn = SHOWCASE.iter().position(|t| *t == candidate.template).unwrap_or(SHOWCASE.len());
        by_template.entry(turn).or_default().push(candidate);
    }
    let mut queues: Vec<Vec<Candidate>> = by_template
        .into_values()
        .map(|mut list| {
            let turn = (seed as usize) % list.len();
            list.rotate_left(turn);
            list
        })
        .collect();
    // A join of two tables (the first template) leads whatever the seed, so a
    // dataset of several tables is asked one; the other templates rotate.
    let pinned = usize::from(
        SHOWCASE
            .first()
            .is_some_and(|join| queues.first().and_then(|q| q.first()).is_some_and(|c| c.template == *join)),
    );
    if queues.len() > pinned {
        let turn = (seed as usize) % (queues.len() - pinned);
        queues[pinned..].rotate_left(turn);
    }
    let mut ordered = Vec::new();
    while queues.iter().any(|q| !q.is_empty()) {
        for queue in queues.iter_mut().filter(|q| !q.is_empty()) {
            let wear = |c: &Candidate| c.reads.iter().map(|r| used.get(r).copied().unwrap_or(0)).sum::<usize>();
            let best = (0..queue.len()).min_by_key(|&i| wear(&queue[i])).unwrap_or(0);
            let candidate = queue.remove(best);
            for read in &candidate.reads {
                *used.entry(read.clone()).or_default() += 1;
            }
            ordered.push(candidate);
        }
    }
    ordered
}

/// Up to `count` of `all`, easiest first: as many of each level as a ranked
/// set of that size has, a level that runs short made up from the others.
pub fn choose(all: Vec<Candidate>, count: usize, seed: u64) -> Vec<Candidate> {
    let mut levels: [Vec<Candidate>; 3] = Default::default();
    for candidate in all {
        levels[candidate.level as usize].push(candidate);
    }
    let mut used = HashMap::new();
    let mut pools: Vec<std::collections::VecDeque<Candidate>> =
        levels.into_iter().map(|level| interleave(level, seed, &mut used).into()).collect();
    let n = count.min(pools.iter().map(|p| p.len()).sum());
    let mut wanted = [0usize; 3];
    for rank in 1..=n {
        wanted[DifficultyLevel::from_rank(rank, n) as usize] += 1;
    }
    let mut chosen: Vec<Candidate> = Vec::with_capacity(n);
    for (pool, &want) in pools.iter_mut().zip(&wanted) {
        for _ in 0..want {
            chosen.extend(pool.pop_front());
        }
    }
    // A level short of candidates: the others make up the number, middle first.
    for level in [1, 2, 0] {
        while chosen.len() < n {
            let Some(candidate) = pools[level].pop_front() else { break };
            chosen.push(candidate);
        }
    }
    chosen.sort_by_key(|c| c.level);
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Dataset;

    fn sample(name: &str) -> Dataset {
        Dataset::load(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data").join(name)).unwrap()
    }

    fn library(dataset: &Dataset) -> Vec<Candidate> {
        candidates(&dataset.data, &super::super::ingredients::find(dataset), 0)
    }

    #[test]
    fn ten_questions_spread_over_levels_and_templates() {
        for name in ["fraud", "penguins"] {
            let dataset = sample(name);
            let chosen = choose(library(&dataset), 10, 0);
            let levels: Vec<DifficultyLevel> = chosen.iter().map(|c| c.level).collect();
            assert_eq!(
                levels.iter().filter(|l| **l == DifficultyLevel::Easy).count(),
                3,
                "{name}: 3 easy, 4 medium, 3 hard: {levels:?}"
            );
            assert_eq!(levels.iter().filter(|l| **l == DifficultyLevel::Hard).count(), 3, "{name}: {levels:?}");
            assert!(levels.windows(2).all(|w| w[0] <= w[1]), "{name}: ranked");
            let all = library(&dataset);
            for level in DifficultyLevel::ALL {
                let offered: HashSet<&str> = all.iter().filter(|c| c.level == level).map(|c| c.template).collect();
                let picked: Vec<&str> = chosen.iter().filter(|c| c.level == level).map(|c| c.template).collect();
                let distinct: HashSet<&str> = picked.iter().copied().collect();
                assert_eq!(
                    distinct.len(),
                    picked.len().min(offered.len()),
                    "{name}: a template repeats only when none is left: {picked:?}"
                );
            }
        }
    }

    #[test]
    fn no_two_candidates_share_a_shape_and_a_large_ask_gets_them_all() {
        let dataset = sample("penguins");
        let all = library(&dataset);
        let total = all.len();
        let shapes: HashSet<_> = all.iter().map(Candidate::shape).collect();
        assert_eq!(shapes.len(), total);
        let chosen = choose(all, 1000, 3);
        assert_eq!(chosen.len(), total, "everything the library has, and no more");
        assert!(chosen.windows(2).all(|w| w[0].level <= w[1].level));
    }

    #[test]
    fn every_template_has_its_turn_in_the_showcase_order() {
        for name in ["fraud", "penguins"] {
            for candidate in library(&sample(name)) {
                assert!(SHOWCASE.contains(&candidate.template), "{}", candidate.template);
            }
        }
    }

    #[test]
    fn the_seed_changes_the_set_but_not_its_levels() {
        let dataset = sample("fraud");
        let texts = |seed| choose(library(&dataset), 10, seed).into_iter().map(|c| c.text).collect::<Vec<_>>();
        assert_eq!(texts(0), texts(0));
        assert_ne!(texts(0), texts(1));
    }
}
