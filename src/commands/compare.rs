//! `eval-dag compare A B`: per question status, answer, iterations and tokens
//! side by side, regressions and improvements first — in the terminal UI when
//! stdout is a terminal, as a table (or JSON) otherwise or with `--headless`.
//! Exit 1 when B regresses.

use std::io::IsTerminal;
use std::process::ExitCode;

use crate::cli::CompareArgs;
use crate::report::{Change, Row, Side, compare, load_results};
use crate::text::preview;

fn cell(side: Option<&Side>) -> String {
    match side {
        None => "—".to_string(),
        Some(s) => {
            format!("{:<13} {:<22} it {:>2} {:>7} tok", s.status, preview(&s.answer, 22), s.iterations, s.tokens)
        }
    }
}

/// A change's name in the table; regressions shout.
fn label(change: Change) -> &'static str {
    match change {
        Change::Regression => "REGRESSION",
        other => other.label(),
    }
}

fn table(rows: &[Row]) -> String {
    let mut out = format!("{:<8} {:<15} {:<54} | {}\n", "question", "change", "A", "B");
    for row in rows {
        out.push_str(&format!(
            "{:<8} {:<15} {:<54} | {}\n",
            row.question_id,
            label(row.change),
            cell(row.a.as_ref()),
            cell(row.b.as_ref())
        ));
    }
    let count = |c| rows.iter().filter(|r| r.change == c).count();
    out.push_str(&format!(
        "{} regressions, {} improvements, {} changed answers, {} fixed by hand, {} unchanged\n",
        count(Change::Regression),
        count(Change::Improvement),
        count(Change::AnswerChanged),
        count(Change::FixedByHand),
        count(Change::Unchanged)
    ));
    out
}

/// Run the `compare` subcommand.
pub fn run(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let a = load_results(&args.a)?;
    let b = load_results(&args.b)?;
    let rows = compare(&a, &b);
    let regressed = rows.iter().any(|r| r.change == Change::Regression);
    if !args.json && !args.headless && std::io::stdout().is_terminal() {
        let names = [args.a.display().to_string(), args.b.display().to_string()];
        let comparison = crate::tui::Comparison::new(names, rows, &a, &b);
        let theme = crate::tui::Theme::load(&crate::config::theme_name())?;
        crate::tui::compare(comparison, theme, Box::pin(super::signals::interrupted()))?;
    } else if args.json {
        say!("{}", serde_json::to_string_pretty(&rows).expect("rows serialise"));
    } else {
        say!("{}", table(&rows).trim_end_matches('\n'));
    }
    Ok(if regressed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
