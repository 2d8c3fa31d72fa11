//! The questions file: JSONL lines to ranked questions with match options.

use super::*;

const QUESTIONS: &str = r#"{"id": "fraud_rate", "question": "What share of transactions is fraud?", "difficulty": "easy", "expected_answer": 0.0058}

{"text": "Fraud rate per category?", "difficulty": 6, "expected_answer": {"grocery_pos": 0.014}, "match": {"score": "divide"}}
{"question": "Top 3 states by fraud count?", "difficulty": "HARD", "match": {"ignore_order": true}, "relevant_data_keys": ["by_state"]}
"#;

#[test]
fn a_questions_file_becomes_ranked_questions_with_options() {
    let specs = parse_questions_jsonl(QUESTIONS, "q.jsonl").unwrap();
    let ids: Vec<&str> = specs.iter().map(|s| s.question.id.as_str()).collect();
    assert_eq!(ids, ["fraud_rate", "q_02", "q_03"]);
    let lines: Vec<usize> = specs.iter().map(|s| s.line).collect();
    assert_eq!(lines, [1, 3, 4]);
    let levels: Vec<DifficultyLevel> = specs.iter().map(|s| s.question.difficulty_level).collect();
    assert_eq!(levels, [DifficultyLevel::Easy, DifficultyLevel::Medium, DifficultyLevel::Hard]);
    let ranks: Vec<usize> = specs.iter().map(|s| s.question.difficulty_rank).collect();
    assert_eq!(ranks, [1, 2, 3]);
    assert_eq!(specs[1].question.question, "Fraud rate per category?");
    assert_eq!(specs[0].question.expected_answer, Some(json!(0.0058)));
    assert_eq!(specs[2].question.expected_answer, None);
    assert_eq!(specs[2].question.relevant_data_keys, ["by_state"]);
    let global = with(json!({"abs_tol": 0.001}));
    let second = specs[1].match_options(&global).unwrap();
    assert_eq!((second.score, second.abs_tol), (ScoreMode::Divide, Some(0.001)));
    assert!(!specs[0].match_options(&global).unwrap().ignore_order);
    assert!(specs[2].match_options(&global).unwrap().ignore_order);
}

#[test]
fn generated_ids_avoid_ids_the_file_uses() {
    let text = "{\"id\": \"q_02\", \"question\": \"a\", \"difficulty\": 1}\n{\"question\": \"b\", \"difficulty\": 2}";
    let specs = parse_questions_jsonl(text, "q.jsonl").unwrap();
    assert_eq!(specs[1].question.id, "q_02_2");
}

#[test]
fn questions_file_errors_name_the_line() {
    let cases = [
        ("{\"question\": \"a\", \"difficulty\": 1}\n{\"question\": \"b\",", 2, "not a valid question object"),
        ("{\"difficulty\": 1}", 1, "missing \"question\" (or \"text\")"),
        ("{\"question\": \" \", \"difficulty\": 1}", 1, "missing \"question\""),
        ("{\"question\": \"a\"}", 1, "missing \"difficulty\" must be easy, medium, hard or an integer 1-10"),
        ("{\"question\": \"a\", \"difficulty\": 11}", 1, "got 11"),
        ("{\"question\": \"a\", \"difficulty\": 0}", 1, "got 0"),
        ("{\"question\": \"a\", \"difficulty\": \"extreme\"}", 1, "got \"extreme\""),
        ("{\"question\": \"a\", \"difficulty\": [1]}", 1, "got [1]"),
        (
            "{\"id\": \"x\", \"question\": \"a\", \"difficulty\": 1}\n\n{\"id\": \"x\", \"question\": \"b\", \"difficulty\": 1}",
            3,
            "id \"x\" is already used on line 1",
        ),
        ("{\"id\": \"  \", \"question\": \"a\", \"difficulty\": 1}", 1, "\"id\" is blank"),
        ("{\"question\": \"a\", \"difficulty\": 1, \"dataset\": 3}", 1, "not a valid question object"),
        ("{\"question\": \"a\", \"difficulty\": 1, \"scorer\": \"exact\"}", 1, "unknown variant `exact`"),
        (
            "{\"question\": \"a\", \"difficulty\": 1, \"match\": {\"ignore_order\": \"yes\"}}",
            1,
            "\"match\": match options:",
        ),
        ("[1, 2]", 1, "not a valid question object"),
    ];
    for (text, line, needle) in cases {
        match parse_questions_jsonl(text, "q.jsonl") {
            Err(err @ GradeError::QuestionsFile { line: got, .. }) => {
                let message = err.to_string();
                assert_eq!(got, line, "{message}");
                assert!(message.starts_with(&format!("q.jsonl:{line}: ")), "{message}");
                assert!(message.contains(needle), "{message} lacks {needle}");
            }
            other => panic!("{text}: expected a line error, got {other:?}"),
        }
    }
    // A field this version does not know is kept with the question, not refused.
    let kept = parse_questions_jsonl("{\"question\": \"a\", \"difficulty\": 1, \"expected\": 3}", "q.jsonl").unwrap();
    assert_eq!(kept[0].question.extra.get("expected"), Some(&serde_json::json!(3)));
    assert_eq!(kept[0].question.expected_answer, None, "an unknown field is never taken for a known one");
    let empty = parse_questions_jsonl("\n \n", "q.jsonl").unwrap_err().to_string();
    assert_eq!(empty, "q.jsonl: the file holds no questions");
}

#[test]
fn a_questions_file_is_read_from_disk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("questions.jsonl");
    std::fs::write(&path, QUESTIONS).unwrap();
    assert_eq!(read_questions_file(&path).unwrap().len(), 3);
    let missing = read_questions_file(&dir.path().join("nope.jsonl")).unwrap_err();
    assert!(matches!(missing, GradeError::File { .. }), "{missing:?}");
    assert!(missing.to_string().contains("nope.jsonl"));
}
