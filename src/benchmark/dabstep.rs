//! DABstep's rules: both answers lower-cased and stripped; numbers (the first
//! one in each text) compared with a tolerance, lists item by item once
//! sorted, other text equal, a one-word answer within the other, or a
//! `difflib` similarity above 0.95.

use std::collections::BTreeSet;

use serde_json::Value;

use super::difflib::ratio;
use super::python::{float_repr, is_decimal, parse_float, round, str_of, strip};

/// The text an answer is submitted as: a string as it is, a list as its
/// items joined by `, ` (the benchmark's list format; an empty list is an
/// empty string), anything else as Python's `str()`.
pub fn answer_text(answer: &Value) -> String {
    match answer {
        Value::Array(items) => items.iter().map(str_of).collect::<Vec<_>>().join(", "),
        other => str_of(other),
    }
}

/// Whether `answer` is right against `expected` by DABstep's rules.
pub fn question_scorer(answer: &str, expected: &str) -> bool {
    let (a, b) = (strip(answer).to_lowercase(), strip(expected).to_lowercase());
    if numeric_with_commas(&a) || numeric_with_commas(&b) {
        return match (first_number(&a), first_number(&b)) {
            (Some(x), Some(y)) => compare_numbers(x, y),
            _ => false,
        };
    }
    if [&a, &b].iter().any(|s| s.contains([',', ';'])) {
        return compare_lists(&a, &b);
    }
    if let (Some(x), Some(y)) = (first_number(&a), first_number(&b)) {
        return compare_numbers(x, y);
    }
    compare_strings(&a, &b)
}

/// Whether the whole text is a number with thousands commas, or a bare
/// decimal (`^\$?(\d{1,3}(,\d{3})*(\.\d+)?|\.\d+)$` on the stripped text).
fn numeric_with_commas(text: &str) -> bool {
    let text = strip(text);
    let text = text.strip_prefix('$').unwrap_or(text);
    if let Some(fraction) = text.strip_prefix('.') {
        return all_digits(fraction);
    }
    let (whole, fraction) = text.split_once('.').map_or((text, None), |(w, f)| (w, Some(f)));
    if fraction.is_some_and(|f| !all_digits(f)) {
        return false;
    }
    let mut groups = whole.split(',');
    let head_fits = groups.next().is_some_and(|head| (1..=3).contains(&head.chars().count()) && all_digits(head));
    head_fits && groups.all(|group| group.chars().count() == 3 && all_digits(group))
}

/// Whether `text` is one or more of what `\d` matches: decimal digits of any script.
fn all_digits(text: &str) -> bool {
    !text.is_empty() && text.chars().all(is_decimal)
}

/// The first number in the text once `,` and `$` are removed
/// (`\d*\.\d+|\d+\.?\d*`, digits of any script: signs are not part of
/// it), read by Python's `float()`.
fn first_number(text: &str) -> Option<f64> {
    let text: Vec<char> = text.chars().filter(|c| !matches!(c, ',' | '$')).collect();
    let digits_from = |at: usize| text[at.min(text.len())..].iter().take_while(|c| is_decimal(**c)).count();
    for start in 0..text.len() {
        let whole = digits_from(start);
        let point = start + whole;
        let after = if text.get(point) == Some(&'.') { digits_from(point + 1) } else { 0 };
        let end = match (whole, text.get(point) == Some(&'.')) {
            (_, true) if after > 0 => point + 1 + after,
            (0, _) => continue,
            (_, true) => point + 1,
            (_, false) => point,
        };
        let number: String = text[start..end].iter().collect();
        return parse_float(&number);
    }
    None
}

/// Numbers below 1 within a relative 1e-2 or absolute 1e-4; others equal
/// once rounded to the fewer decimals Python writes either with, else within 1e-2.
fn compare_numbers(x: f64, y: f64) -> bool {
    if x == y {
        return true;
    }
    if x < 1.0 && y < 1.0 {
        return is_close(x, y, 1e-2, 1e-4);
    }
    let decimals = |v: f64| float_repr(v).rsplit_once('.').map_or(0, |(_, fraction)| fraction.chars().count());
    let places = decimals(x).min(decimals(y));
    round(x, places) == round(y, places) || is_close(x, y, 1e-2, 1e-2)
}

/// `math.isclose(x, y, rel_tol=relative, abs_tol=absolute)`.
fn is_close(x: f64, y: f64, relative: f64, absolute: f64) -> bool {
    if x == y {
        return true;
    }
    if x.is_infinite() || y.is_infinite() {
        return false;
    }
    let difference = (x - y).abs();
    difference <= relative * y.abs() || difference <= relative * x.abs() || difference <= absolute
}

/// The words of a text: its runs of letters, digits and `_`.
fn words(text: &str) -> BTreeSet<&str> {
    text.split(|c: char| !is_word(c)).filter(|w| !w.is_empty()).collect()
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Equal once everything but letters, digits and `_` is removed; a one-word
/// text within the other's words; or a similarity above 0.95.
fn compare_strings(a: &str, b: &str) -> bool {
    let clean = |s: &str| s.chars().filter(|c| is_word(*c)).collect::<String>();
    if clean(a) == clean(b) {
        return true;
    }
    let (wa, wb) = (words(a), words(b));
    let one_word = |text: &str| text.split(|c: char| !is_word(c)).filter(|w| !w.is_empty()).count() == 1;
    if (one_word(a) || one_word(b)) && !wa.is_empty() && !wb.is_empty() {
        return wa.is_subset(&wb) || wb.is_subset(&wa);
    }
    ratio(a, b) > 0.95
}

/// Lists split on `,` and `;` (one pair of outer brackets dropped, empty
/// items skipped), sorted, equal, or right item by item.
fn compare_lists(a: &str, b: &str) -> bool {
    let items = |text: &str| {
        let text = strip(text);
        let text = text.strip_prefix('[').unwrap_or(text);
        let text = text.strip_suffix(']').unwrap_or(text);
        let mut items: Vec<String> =
            text.split([',', ';']).map(|item| strip(item).to_string()).filter(|item| !item.is_empty()).collect();
        items.sort();
        items
    };
    let (ia, ib) = (items(a), items(b));
    if ia == ib {
        return true;
    }
    ia.len() == ib.len() && ia.iter().zip(&ib).all(|(x, y)| question_scorer(x, y))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn numbers_below_one_are_close_by_a_hundredth_relative_or_a_ten_thousandth() {
        assert!(question_scorer("0.5", "0.504"), "relative 1e-2");
        assert!(!question_scorer("0.5", "0.51"));
        assert!(question_scorer("0.00005", "0.0001"), "absolute 1e-4");
        assert!(!question_scorer("0.0001", "0.0003"));
    }

    #[test]
    fn larger_numbers_are_equal_at_the_fewer_decimals_or_within_a_hundredth() {
        assert!(question_scorer("12.3", "12.34"), "rounded to one decimal both are 12.3");
        assert!(question_scorer("12.35", "12.3"), "12.35 rounds to 12.3 (binary just below the half)");
        assert!(!question_scorer("13", "13.4"), "13 reads as 13.0: one decimal, and 0.4 apart is over 1e-2 relative");
        assert!(question_scorer("100", "100.9"), "within 1e-2 relative");
        assert!(!question_scorer("100", "101.5"));
        assert!(question_scorer("1,234.5", "1234.50"), "thousands commas");
        assert!(question_scorer("$1,000", "1000"));
        assert!(question_scorer("-5", "5"), "signs are not read");
        assert!(question_scorer("the answer is 42 euros", "42"));
        assert!(!question_scorer("1,000", "none"), "a number against no number");
    }

    #[test]
    fn digits_of_any_script_are_numbers_as_python_reads_them() {
        // `\d` matches them and `float()` reads them: an answer written in another script is a number.
        assert!(question_scorer("٠.٣١٤١٥٩", "0.314159"), "Arabic-Indic");
        assert!(question_scorer("０.３１４１５９", "0.314159"), "full-width");
        assert!(question_scorer("-٠.٢٧١٨٢٨", "-0.27182800000031"), "a negative delta, its sign not read");
        assert!(question_scorer("١,٢٣٤", "1234"), "thousands commas between three-digit groups of characters");
        assert!(!question_scorer("٠.٣٢", "0.314159"));
        assert!(!question_scorer("²", "2"), "a superscript is no decimal digit");
    }

    #[test]
    fn lists_are_compared_sorted_item_by_item() {
        assert!(question_scorer("B, A, C", "a, b, c"));
        assert!(question_scorer("[a; b]", "b, a"));
        assert!(question_scorer("1.001, 2", "2, 1"), "items compared as numbers");
        assert!(!question_scorer("a, b", "a, b, c"));
        assert!(question_scorer("a, , b", "a, b"), "empty items skipped");
        assert!(question_scorer("", ""));
    }

    #[test]
    fn strings_equal_contained_as_one_word_or_near_equal() {
        assert!(question_scorer("  Nexpay ", "nexpay"));
        assert!(question_scorer("the-answer!", "theanswer"), "punctuation ignored");
        assert!(question_scorer("GlobalCard", "the card is globalcard"), "one word within the other");
        assert!(!question_scorer("global card", "the card is visa"));
        let long = "merchant category code for restaurants";
        assert!(question_scorer(long, "merchant category code for restaurant"), "ratio above 0.95");
        assert!(!question_scorer("not applicable", "applicable not sure"));
        assert!(question_scorer("None", "none"));
        assert!(question_scorer("NaN", "nan"));
        assert!(!question_scorer("nan", "0"));
    }

    #[test]
    fn answers_are_submitted_as_text() {
        assert_eq!(answer_text(&json!(["A", "B"])), "A, B");
        assert_eq!(answer_text(&json!([])), "");
        assert_eq!(answer_text(&json!([1.0, 2])), "1.0, 2");
        assert_eq!(answer_text(&json!(0.00001)), "1e-05");
        assert_eq!(answer_text(&json!(true)), "True");
        assert_eq!(answer_text(&json!(null)), "None");
        assert_eq!(answer_text(&json!({"a": 1})), "{'a': 1}");
    }
}
