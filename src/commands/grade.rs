//! `eval-dag grade RESULTS_OR_TRACE`: grade every answer of a finished run
//! against its expected answer again (default matching rules), without
//! re-running anything. Exit 1 when an answer is wrong.

use std::process::ExitCode;

use crate::cli::GradeArgs;
use crate::engine::preview;
use crate::grade::{MatchOptions, grade_ground_truth};
use crate::model::DifficultyLevel;
use crate::report::fold_trace;
use crate::trace::Trace;

/// Run the `grade` subcommand.
pub fn run(args: GradeArgs) -> anyhow::Result<ExitCode> {
    let trace = Trace::read(&super::report::trace_path(&args.input)?)?;
    let state = fold_trace(&trace);
    let options = MatchOptions::default();
    let mut tally: Vec<(DifficultyLevel, bool)> = Vec::new();
    for q in &state.questions {
        let Some(expected) = &q.question.expected_answer else { continue };
        let answer = q.latest().and_then(|a| a.final_answer.as_ref());
        let grade = grade_ground_truth(expected, answer, &options);
        tally.push((q.question.difficulty_level, grade.passed));
        println!(
            "{:<8} {:<6} {} expected {:<20} got {:<20} {}",
            q.question.id,
            q.question.difficulty_level.as_str(),
            if grade.passed { "✓" } else { "✗" },
            preview(expected, 20),
            answer.map(|a| preview(a, 20)).unwrap_or_else(|| "nothing".into()),
            grade.reason
        );
    }
    if tally.is_empty() {
        println!("no question of this run has an expected answer to grade against");
        return Ok(ExitCode::SUCCESS);
    }
    let rate = |of: &[&(DifficultyLevel, bool)]| {
        let right = of.iter().filter(|(_, ok)| *ok).count();
        format!("{right}/{} ({:.0}%)", of.len(), 100.0 * right as f64 / of.len().max(1) as f64)
    };
    let all: Vec<&(DifficultyLevel, bool)> = tally.iter().collect();
    let mut line = format!("accuracy {}", rate(&all));
    for level in DifficultyLevel::ALL {
        let of: Vec<&(DifficultyLevel, bool)> = tally.iter().filter(|(l, _)| *l == level).collect();
        if !of.is_empty() {
            line.push_str(&format!(" · {} {}", level.as_str(), rate(&of)));
        }
    }
    println!("{line}");
    Ok(if tally.iter().all(|(_, ok)| *ok) { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
