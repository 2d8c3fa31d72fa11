//! Hard templates: percentiles, correlations, streaks, differences between
//! groups and between periods, top-k groups, a rate in the top decile.

use std::collections::BTreeMap;

use chrono::Datelike;
use serde_json::{Map, Value, json};

use super::calc::{by_frequency, fmean, grouped, lit, number_json, parse_time, pearson, positive, quantile, rows};
use super::groups::{GROUP_MEANS, pairs_step};
use super::templates::{Candidate, step, values_step};
use crate::domain::DifficultyLevel::Hard;

/// Hard: the 95th percentile of a numeric column.
pub fn percentile_95(data: &Map<String, Value>, rows_key: &str, column: &str) -> Option<Candidate> {
    let expected = number_json(quantile(super::calc::numbers(&rows(data, rows_key), column), 95, 100)?);
    let p = |index: usize| {
        format!("def p95(values):\n    return statistics.quantiles(values, n=100, method='inclusive')[{index}]\n")
    };
    Some(
        Candidate::over_rows(Hard, "percentile_95", rows_key, &[column])
            .ask(
                format!("What is the 95th percentile of `{column}` in the `{rows_key}` sample (linear interpolation, missing values skipped)?"),
                "collect the values, skip missing ones, interpolate the 95th percentile",
            )
            .solve(vec![values_step(column), step("p95", "95th percentile", p(94), "float")], expected)
            .slip(1, p(89), "step_2 takes index 89 of the percentiles, the 90th; the 95th percentile is index 94".into()),
    )
}

/// Hard: the interquartile range of a numeric column.
pub fn interquartile_range(data: &Map<String, Value>, rows_key: &str, column: &str) -> Option<Candidate> {
    let values = super::calc::numbers(&rows(data, rows_key), column);
    let expected = number_json(quantile(values.clone(), 3, 4)? - quantile(values, 1, 4)?);
    let iqr =
        "def iqr(values):\n    q = statistics.quantiles(values, n=4, method='inclusive')\n    return q[2] - q[0]\n";
    Some(
        Candidate::over_rows(Hard, "interquartile_range", rows_key, &[column])
            .ask(
                format!("What is the interquartile range (75th minus 25th percentile, linear interpolation) of `{column}` in the `{rows_key}` sample?"),
                "collect the values, interpolate two quartiles, subtract",
            )
            .solve(vec![values_step(column), step("iqr", "75th minus 25th percentile", iqr, "float")], expected),
    )
}

/// Hard: Pearson correlation of two numeric columns.
pub fn correlation(data: &Map<String, Value>, rows_key: &str, a: &str, b: &str) -> Option<Candidate> {
    let rows = rows(data, rows_key);
    let (xs, ys): (Vec<f64>, Vec<f64>) =
        rows.iter().filter_map(|r| Some((r.get(a)?.as_f64()?, r.get(b)?.as_f64()?))).unzip();
    let expected = number_json(pearson(&xs, &ys)?);
    let paired = format!(
        "def paired(rows):\n    both = [r for r in rows if r.get({a}) is not None and r.get({b}) is not None]\n    return {{'x': [r[{a}] for r in both], 'y': [r[{b}] for r in both]}}\n",
        a = lit(a),
        b = lit(b)
    );
    let pearson = "def pearson(values):\n    xs, ys = values['x'], values['y']\n    mx, my = math.fsum(xs) / len(xs), math.fsum(ys) / len(ys)\n    sxy = math.fsum((x - mx) * (y - my) for x, y in zip(xs, ys))\n    sxx = math.fsum((x - mx) * (x - mx) for x in xs)\n    syy = math.fsum((y - my) * (y - my) for y in ys)\n    return sxy / math.sqrt(sxx * syy)\n";
    Some(
        Candidate::over_rows(Hard, "correlation", rows_key, &[a, b])
            .ask(
                format!("What is the Pearson correlation between `{a}` and `{b}` in the `{rows_key}` sample (rows missing either are skipped)?"),
                "paired values with missing data removed, then a correlation",
            )
            .solve(vec![step("paired", format!("({a}, {b}) of rows with both"), paired, "dict"), step("pearson", "Pearson correlation", pearson, "float")], expected),
    )
}

/// Hard: the longest run of consecutive rows (in time order) with the label set.
pub fn longest_streak(
    data: &Map<String, Value>,
    rows_key: &str,
    time: &str,
    strptime: &str,
    label: &str,
) -> Option<Candidate> {
    let mut timed: Vec<(chrono::NaiveDateTime, usize, bool)> = rows(data, rows_key)
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let l = r.get(label).filter(|l| !l.is_null())?;
            Some((parse_time(r.get(time)?.as_str()?, strptime)?, i, positive(l)))
        })
        .collect();
    timed.sort_by_key(|(t, i, _)| (*t, *i));
    let (mut best, mut run) = (0usize, 0usize);
    for (_, _, set) in &timed {
        run = if *set { run + 1 } else { 0 };
        best = best.max(run);
    }
    let ordered = |sort: &str| {
        format!(
            "def ordered(rows):\n    kept = [r for r in rows if r.get({t}) is not None and r.get({l}) is not None]\n{sort}    return [1 if r[{l}] in (1, True) else 0 for r in kept]\n",
            t = lit(time),
            l = lit(label)
        )
    };
    let sort = format!(
        "    kept = sorted(kept, key=lambda r: datetime.datetime.strptime(r[{}], {}))\n",
        lit(time),
        lit(strptime)
    );
    let streak = "def streak(values):\n    best = run = 0\n    for v in values:\n        run = run + 1 if v else 0\n        best = max(best, run)\n    return best\n";
    Some(
        Candidate::over_rows(Hard, "longest_streak", rows_key, &[time, label])
            .ask(
                format!("Sorting the `{rows_key}` sample by `{time}` (stable), what is the longest run of consecutive rows with `{label}` set?"),
                "datetime parsing, a stable sort, then a streak scan",
            )
            .solve(vec![step("ordered", format!("label of every row in {time} order"), ordered(&sort), "list"), step("streak", "longest run of 1s", streak, "int")], json!(best))
            .slip(0, ordered(""), format!("step_1 keeps the rows in file order; the streak must be counted in {time} order (sort by the parsed {time})")),
    )
}

/// Hard: the difference between the mean of a numeric column in the two most common groups.
pub fn group_difference(data: &Map<String, Value>, rows_key: &str, group: &str, measure: &str) -> Option<Candidate> {
    let rows = rows(data, rows_key);
    let mut values = by_frequency(&rows, group).into_iter().map(|(v, _)| v);
    let (first, second) = (values.next()?, values.next()?);
    let groups = grouped(&rows, group, measure);
    let expected = number_json(fmean(groups.get(&first)?)? - fmean(groups.get(&second)?)?);
    let diff =
        |a: &str, b: &str| format!("def difference(values):\n    return values[{}] - values[{}]\n", lit(a), lit(b));
    Some(
        Candidate::over_rows(Hard, "group_difference", rows_key, &[group, measure])
            .ask(
                format!("How much higher is the average `{measure}` of `{group}` {first:?} than of {second:?} in the `{rows_key}` sample ({first} minus {second}; negative if lower)?"),
                "a mean per group, then the difference between two groups",
            )
            .solve(
                vec![
                    pairs_step(group, measure),
                    step("group_means", format!("mean {measure} per {group}"), GROUP_MEANS, "dict"),
                    step("difference", format!("{first} minus {second}"), diff(&first, &second), "float"),
                ],
                expected,
            )
            .slip(2, diff(&second, &first), format!("step_3 subtracts the other way round ({second} minus {first}); the question asks for {first} minus {second}")),
    )
}

/// Hard: the groups (three, or one fewer than there are) with the highest mean of a numeric column.
pub fn top_groups_by_mean(data: &Map<String, Value>, rows_key: &str, group: &str, measure: &str) -> Option<Candidate> {
    let means: Vec<(String, f64)> = grouped(&rows(data, rows_key), group, measure)
        .iter()
        .filter_map(|(g, xs)| Some((g.clone(), fmean(xs)?)))
        .collect();
    let k = means.len().saturating_sub(1).min(3);
    if k < 2 {
        return None;
    }
    let mut ordered = means;
    ordered.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let expected = json!(ordered.iter().take(k).map(|(g, _)| g).collect::<Vec<_>>());
    let top = format!("def top(values):\n    return sorted(values, key=lambda g: (-values[g], g))[:{k}]\n");
    Some(
        Candidate::over_rows(Hard, "top_groups_by_mean", rows_key, &[group, measure])
            .ask(
                format!("Which {k} values of `{group}` have the highest average `{measure}` in the `{rows_key}` sample, highest first (ties by name)?"),
                "a mean per group, a sort by mean, the top k",
            )
            .solve(
                vec![
                    pairs_step(group, measure),
                    step("group_means", format!("mean {measure} per {group}"), GROUP_MEANS, "dict"),
                    step("top", format!("the {k} highest means"), top, "list"),
                ],
                expected,
            ),
    )
}

/// Hard: the label rate among rows whose numeric column is at or above its 90th percentile.
pub fn top_decile_rate(data: &Map<String, Value>, rows_key: &str, measure: &str, label: &str) -> Option<Candidate> {
    let rows = rows(data, rows_key);
    let cut = quantile(super::calc::numbers(&rows, measure), 9, 10)?;
    let top: Vec<bool> = rows
        .iter()
        .filter(|r| r.get(measure).and_then(Value::as_f64).is_some_and(|x| x >= cut))
        .filter_map(|r| r.get(label).filter(|l| !l.is_null()).map(positive))
        .collect();
    let expected =
        number_json(top.iter().filter(|&&s| s).count() as f64 / (!top.is_empty()).then_some(top.len())? as f64);
    let kept = format!(
        "def top_rows(rows):\n    values = [r[{m}] for r in rows if r.get({m}) is not None]\n    cut = statistics.quantiles(values, n=10, method='inclusive')[8]\n    return [r[{l}] for r in rows if r.get({m}) is not None and r[{m}] >= cut and r.get({l}) is not None]\n",
        m = lit(measure),
        l = lit(label)
    );
    let rate = "def rate(values):\n    return sum(1 for v in values if v in (1, True)) / len(values)\n";
    Some(
        Candidate::over_rows(Hard, "top_decile_rate", rows_key, &[measure, label])
            .ask(
                format!("Among the `{rows_key}` rows whose `{measure}` is at or above its 90th percentile (linear interpolation), what fraction have `{label}` set?"),
                "a percentile cut, a filter, then a rate against the label",
            )
            .solve(vec![step("top_rows", format!("{label} of rows in the top decile of {measure}"), kept, "list"), step("rate", "share with the label set", rate, "float")], expected),
    )
}

/// Per calendar month (year, month) of `time`: the label values (or unit values) of its rows.
fn by_month(
    data: &Map<String, Value>,
    rows_key: &str,
    time: &str,
    strptime: &str,
    label: Option<&str>,
) -> BTreeMap<(i32, u32), Vec<bool>> {
    let mut months: BTreeMap<(i32, u32), Vec<bool>> = BTreeMap::new();
    for r in rows(data, rows_key) {
        let Some(t) = r.get(time).and_then(Value::as_str).and_then(|s| parse_time(s, strptime)) else { continue };
        let value = match label {
            Some(label) => match r.get(label).filter(|l| !l.is_null()) {
                Some(l) => positive(l),
                None => continue,
            },
            None => true,
        };
        months.entry((t.year(), t.month())).or_default().push(value);
    }
    months
}

/// Hard: how the row count changed between the earliest and the latest month.
pub fn period_change(data: &Map<String, Value>, rows_key: &str, time: &str, strptime: &str) -> Option<Candidate> {
    let months = by_month(data, rows_key, time, strptime, None);
    if months.len() < 2 {
        return None;
    }
    let (first, last) = (months.values().next()?.len() as i64, months.values().next_back()?.len() as i64);
    let tally = format!(
        "def tally(rows):\n    months = [datetime.datetime.strptime(r[{t}], {f}) for r in rows if r.get({t}) is not None]\n    return dict(collections.Counter(f'{{m.year:04d}}-{{m.month:02d}}' for m in months))\n",
        t = lit(time),
        f = lit(strptime)
    );
    let change = |a: &str, b: &str| {
        format!(
            "def change(values):\n    months = sorted(values)\n    return values[months[{a}]] - values[months[{b}]]\n"
        )
    };
    let (code, wrong) = (change("-1", "0"), change("0", "-1"));
    Some(
        Candidate::over_rows(Hard, "period_change", rows_key, &[time])
            .ask(
                format!("How many more rows of `{rows_key}` fall in the latest calendar month of `{time}` than in the earliest (latest minus earliest; negative if fewer)?"),
                "datetime parsing, a count per month, the difference between two periods",
            )
            .solve(vec![step("tally", format!("rows per month of {time}"), tally, "dict"), step("change", "latest month minus earliest", code, "int")], json!(last - first))
            .slip(1, wrong, "step_2 subtracts the latest month from the earliest; the question asks for latest minus earliest".into()),
    )
}

/// Hard: how the label rate changed between the earliest and the latest month.
pub fn rate_change(
    data: &Map<String, Value>,
    rows_key: &str,
    time: &str,
    strptime: &str,
    label: &str,
) -> Option<Candidate> {
    let months = by_month(data, rows_key, time, strptime, Some(label));
    if months.len() < 2 {
        return None;
    }
    let rate = |xs: &Vec<bool>| xs.iter().filter(|&&s| s).count() as f64 / xs.len() as f64;
    let expected = number_json(rate(months.values().next_back()?) - rate(months.values().next()?));
    let tally = format!(
        "def tally(rows):\n    t = {{}}\n    for r in rows:\n        if r.get({t}) is None or r.get({l}) is None:\n            continue\n        m = datetime.datetime.strptime(r[{t}], {f})\n        key = f'{{m.year:04d}}-{{m.month:02d}}'\n        pos, n = t.get(key, (0, 0))\n        t[key] = (pos + (1 if r[{l}] in (1, True) else 0), n + 1)\n    return t\n",
        t = lit(time),
        l = lit(label),
        f = lit(strptime)
    );
    let change = "def change(values):\n    months = sorted(values)\n    (p1, n1), (p0, n0) = values[months[-1]], values[months[0]]\n    return p1 / n1 - p0 / n0\n";
    let wrong = change.replace("p1 / n1 - p0 / n0", "100 * (p1 / n1 - p0 / n0)");
    Some(
        Candidate::over_rows(Hard, "rate_change", rows_key, &[time, label])
            .ask(
                format!("By how much did the `{label}` rate (a fraction) change from the earliest to the latest calendar month of `{time}` in the `{rows_key}` sample (latest minus earliest)?"),
                "datetime parsing, a rate against the label per month, the difference between two periods",
            )
            .solve(vec![step("tally", format!("positives and rows per month of {time}"), tally, "dict"), step("change", "latest rate minus earliest", change, "float")], expected)
            .slip(1, wrong, "step_2 gives the change in percentage points (×100); the question asks for the change of a fraction".into()),
    )
}
