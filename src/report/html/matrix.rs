//! `compare --html`: several runs question by question as one self-contained
//! page (the report's inline CSS, no script, no external assets): each run's
//! totals, what could not be lined up, then the matrix of questions × runs,
//! each cell coloured by status and grade.

use std::fmt::Write;

use super::{STYLE, thousands};
use crate::render::html_escape;
use crate::report::{Agreement, Change, Entry, Matrix, MatrixRow};
use crate::text::{percent, preview};

const MATRIX_STYLE: &str = r#"
table.matrix td{vertical-align:top}td.cell{min-width:120px}td.cell.passed{background:#eefaf1}td.cell.failed,td.cell.exhausted,td.cell.execution-failed{background:#fdf0f0}
td.cell.fixed-by-hand{background:#f5effb}td.cell.missing{color:#8d94a8;background:#f4f5f8}td.cell.regression{outline:2px solid #c62828}
.grade.right{color:#1a7f37}.grade.wrong{color:#b42318}.agreement.regression{color:#9b1c1c;font-weight:600}.agreement.disagree{color:#8a5300}
.meta{font-size:12px;color:#5b6275}
"#;

fn summary_table(matrix: &Matrix) -> String {
    let mut out = String::from(
        "<table class=\"runs\"><tr><th>run</th><th>path</th><th>questions</th><th>pass rate</th><th>accuracy (graded)</th><th>critic wrong rejections</th><th>mean iterations</th><th>tokens</th><th>estimated cost</th><th>regressions</th></tr>",
    );
    for (index, run) in matrix.runs.iter().enumerate() {
        let regressions = if index == 0 { "baseline".to_string() } else { run.regressions.to_string() };
        let _ = write!(
            out,
            "<tr><td><b>{}</b></td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}</td><td>{}</td><td>${:.4}</td><td>{regressions}</td></tr>",
            html_escape(&run.label),
            html_escape(&run.name),
            run.questions,
            percent(Some(run.pass_rate)),
            percent(run.accuracy),
            percent(run.critic_wrong_rejection_rate),
            run.mean_iterations,
            thousands(run.tokens),
            run.cost_usd
        );
    }
    out.push_str("</table>");
    let notes: Vec<String> = matrix.runs.iter().filter_map(|r| r.misalignment()).collect();
    if !notes.is_empty() {
        out.push_str("<ul class=\"alignment\">");
        for note in notes {
            let _ = write!(out, "<li>{}</li>", html_escape(&note));
        }
        out.push_str("</ul>");
    }
    out
}

fn cell(entry: Option<&Entry>) -> String {
    let Some(entry) = entry else { return "<td class=\"cell missing\">not in this run</td>".into() };
    let side = &entry.side;
    let status_class = if side.fixed_by_hand { "fixed-by-hand".to_string() } else { side.status.replace(' ', "-") };
    let regression = if entry.change == Some(Change::Regression) { " regression" } else { "" };
    let grade = match entry.correct {
        Some(true) => "<span class=\"grade right\">✓ right</span>",
        Some(false) => "<span class=\"grade wrong\">✗ wrong</span>",
        None => "<span class=\"meta\">ungraded</span>",
    };
    let change = match entry.change {
        Some(Change::Unchanged) | None => String::new(),
        Some(change) => format!("<br><span class=\"meta\">{}</span>", change.label()),
    };
    format!(
        "<td class=\"cell {}{regression}\"><span class=\"badge {}\">{}</span> {grade}<br><code class=\"answer\">{}</code><br><span class=\"meta\">{} it · {} tok</span>{change}</td>",
        html_escape(&status_class),
        html_escape(&status_class),
        html_escape(&side.status),
        html_escape(&preview(&side.answer, 60)),
        side.iterations,
        thousands(side.tokens)
    )
}

fn row_html(row: &MatrixRow) -> String {
    let class = match row.agreement {
        Agreement::Regression => "regression",
        Agreement::Disagree => "disagree",
        Agreement::Partial => "partial",
        Agreement::Agree => "same",
    };
    let mut out = format!(
        "<tr><td><code>{}</code></td><td>{}</td><td class=\"agreement {class}\">{}</td>",
        html_escape(&row.question_id),
        html_escape(&row.question),
        row.agreement.label()
    );
    for entry in &row.runs {
        out.push_str(&cell(entry.as_ref()));
    }
    out.push_str("</tr>");
    out
}

/// The page of `matrix`, stamped `generated_at`.
pub fn matrix_html(matrix: &Matrix, generated_at: &chrono::DateTime<chrono::FixedOffset>) -> String {
    let title = format!("eval-dag compare · {} runs", matrix.runs.len());
    let mut out = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{title}</title><style>{STYLE}{MATRIX_STYLE}</style></head><body>"
    );
    let _ = write!(
        out,
        "<h1>{title}</h1><p>Generated {}. Run A is the baseline; a later run regresses on a question A passed and it does not.</p>",
        super::stamp(generated_at)
    );
    out.push_str(&summary_table(matrix));
    out.push_str("<div class=\"cards\">");
    for agreement in [Agreement::Regression, Agreement::Disagree, Agreement::Partial, Agreement::Agree] {
        let _ = write!(out, "<div class=\"card\"><b>{}</b>{}</div>", matrix.count(agreement), agreement.label());
    }
    out.push_str("</div><table class=\"matrix\"><tr><th>id</th><th>question</th><th>runs</th>");
    for run in &matrix.runs {
        let _ = write!(out, "<th title=\"{}\">{}</th>", html_escape(&run.name), html_escape(&run.label));
    }
    out.push_str("</tr>");
    for row in &matrix.questions {
        out.push_str(&row_html(row));
    }
    out.push_str("</table></body></html>");
    out
}
