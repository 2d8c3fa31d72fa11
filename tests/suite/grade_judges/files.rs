//! Judge files: validation errors name the node and the rule.

use super::*;

#[test]
fn judge_files_that_break_a_rule_say_which_node_and_why() {
    let cases = [
        ("no_nodes.toml", "a dag judge needs [[node]] tables, found none"),
        ("missing_id.toml", "node #2 has no \"id\""),
        ("duplicate_id.toml", "node \"yes\" is declared twice"),
        ("unknown_child.toml", "node \"t\" names unknown child \"zzz\""),
        ("unknown_field.toml", "node \"j\": unknown field `criterias`"),
        ("unknown_kind.toml", "node \"j\": unknown variant `judgement`"),
        ("empty_criteria.toml", "node \"j\": \"criteria\" is empty"),
        ("duplicate_child.toml", "node \"t\" lists child \"j\" twice"),
        ("cycle.toml", "the nodes form a cycle through"),
        ("two_roots.toml", "exactly one node (the root) may have no parent, found 2: \"s\", \"t\""),
        ("verdict_root.toml", "verdict node \"stray\" has no parent"),
        ("task_without_children.toml", "task node \"u\" has no children: every path must end in a verdict"),
        ("task_verdict_child.toml", "task node \"t\" has verdict child \"yes\": verdicts belong under judgement nodes"),
        ("judgement_task_child.toml", "judgement node \"j\" has child \"u\", which is not a verdict"),
        (
            "binary_three_verdicts.toml",
            "binary judgement \"j\" needs exactly two verdict children, true and false; it has 3",
        ),
        (
            "binary_one_verdict.toml",
            "binary judgement \"j\" needs exactly two verdict children, true and false; it has 1",
        ),
        ("binary_string_verdict.toml", "verdict node \"yes\" says \"yes\" but its parent \"j\" is a binary judgement"),
        ("non_binary_bool_verdict.toml", "verdict node \"b\" says true but its parent \"n\" is a non-binary judgement"),
        ("non_binary_duplicate_verdict.toml", "non-binary judgement \"n\" has the verdict"),
        ("non_binary_one_verdict.toml", "non-binary judgement \"n\" needs at least two verdict children, it has 1"),
        ("verdict_score_and_child.toml", "verdict node \"yes\" has both a score and a child"),
        ("verdict_without_outcome.toml", "verdict node \"yes\" needs a score (0-10) or a child"),
        ("verdict_score_range.toml", "verdict node \"yes\": score must be 0-10, got 11"),
        ("verdict_child_verdict.toml", "verdict node \"yes\" leads to verdict \"no\""),
        ("verdict_two_parents.toml", "verdict node \"yes\" has 2 parents (\"j\", \"k\")"),
        ("duplicate_label.toml", "task nodes \"t\" and \"u\" share the output label \"t\""),
        ("bad_threshold.toml", "\"threshold\" must be between 0 and 1, got 1.5"),
        ("unknown_top_field.toml", "unknown field `treshold`"),
        ("rubric_one_level.toml", "a rubric needs at least two [[level]] tables, found 1"),
        ("rubric_duplicate_level.toml", "two levels have score 3"),
        ("faithfulness_zero_limit.toml", "\"truths_limit\" must be at least 1"),
    ];
    for (file, needle) in cases {
        let err = Judge::load(&fixture_path(file)).unwrap_err();
        assert!(matches!(err, GradeError::Judge { .. }), "{file}: {err:?}");
        let message = err.to_string();
        assert!(message.starts_with("judge ") && message.contains(file), "{message}");
        assert!(message.contains(needle), "{file}: {message:?} lacks {needle:?}");
    }
}

#[test]
fn valid_judge_files_load() {
    let judge = fixture("valid.toml");
    assert_eq!((judge.name.as_str(), judge.threshold, judge.strict_mode), ("fixture", 0.5, false));
    assert!(matches!(judge.kind, JudgeKind::Dag(_)));
    let rubric = fixture("rubric_valid.toml");
    assert_eq!(rubric.effective_threshold(), 1.0);
    let JudgeKind::Rubric(r) = &rubric.kind else { panic!("not a rubric") };
    let scores: Vec<i64> = r.levels.iter().map(|l| l.score).collect();
    assert_eq!(scores, [1, 3, 5]);
    assert_eq!(r.output, RubricOutput::Tagged);
    let JudgeKind::Faithfulness(f) = fixture("faithfulness.toml").kind else { panic!("not faithfulness") };
    assert!(f.penalize_unknown);
    assert_eq!(f.truths_limit, Some(10));
    let missing = Judge::load(&fixture_path("nope.toml")).unwrap_err().to_string();
    assert!(missing.contains("nope.toml"), "{missing}");
    let not_toml = Judge::parse("name = ", "broken").unwrap_err().to_string();
    assert!(not_toml.starts_with("judge broken: "), "{not_toml}");
}

#[test]
fn the_shipped_judges_load() {
    let judges = built_in_judges().unwrap();
    let names: Vec<&str> = judges.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["well_formed_value", "addresses_question"]);
    assert!(judges.iter().all(|j| matches!(j.kind, JudgeKind::Dag(_))));
}
