//! `eval_report.html`: one self-contained file (inline CSS, a few lines of
//! inline JS for the filter bar, no external assets) that is readable with
//! JavaScript off. Question sections start collapsed so large runs stay usable.

mod chart;
mod matrix;
mod question;
mod run_charts;
mod scorecard;
mod svg;
mod taxonomy;

use std::fmt::Write;

use chrono::{DateTime, FixedOffset, SecondsFormat};

use crate::domain::DifficultyLevel;
use crate::render::{highlight_css, html_escape};
use crate::report::convergence::convergence;
use crate::report::economy::{TokenEconomy, token_economy};
use crate::report::results::level_breakdown;
use crate::report::roles::role_usage;
use crate::report::scorecard::critic_scorecard;
use crate::report::taxonomy::findings_taxonomy;
use crate::run::{Outcome, QuestionState, QuestionStatus, RunState};

pub use matrix::matrix_html;
pub use svg::dag_svg;

const STYLE: &str = r#"
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:16px;color:#1d2330;background:#fbfbfd}
h1{font-size:22px;margin:0 0 4px} code,pre{font:12.5px/1.4 ui-monospace,monospace}
pre{background:#f2f3f7;padding:8px;border-radius:6px;overflow:auto;margin:4px 0;white-space:pre-wrap}
.feedback>p:first-child{white-space:pre-line}
table{border-collapse:collapse;margin:8px 0} td,th{border:1px solid #d6d9e2;padding:3px 8px;text-align:left}
.cards{display:flex;gap:12px;flex-wrap:wrap;margin:12px 0}.card{background:#fff;border:1px solid #d6d9e2;border-radius:8px;padding:10px 14px}
.card b{display:block;font-size:22px}
.filters{position:sticky;top:0;background:#fbfbfd;padding:8px 0;border-bottom:1px solid #d6d9e2;z-index:1}
details{margin:4px 0} summary{cursor:pointer}
details.question{background:#fff;border:1px solid #d6d9e2;border-radius:8px;padding:6px 10px;margin:8px 0}
.body{padding:4px 0 4px 12px}
.badge{border-radius:10px;padding:0 8px;font-size:12px;background:#e4e6ee}
.badge.passed{background:#d5f5df;color:#0d6b2c}.badge.fixed-by-hand,.badge.by-hand{background:#ece1f7;color:#5b2a86}.card.by-hand b{color:#5b2a86}.badge.failed,.badge.rejected{background:#fde0e0;color:#9b1c1c}
.badge.exhausted{background:#fdecc8;color:#8a5300}.level{font-size:12px;color:#5b6275}
.answer{color:#0d4f9b}
svg.dag{display:block;margin:8px 0;max-width:100%;height:auto}
svg .edge{fill:none;stroke:#8d94a8;stroke-width:1.5}
svg .node rect{fill:#eaf7ee;stroke:#3a9b5c;stroke-width:1.5}svg .node.flagged rect{fill:#fff4dc;stroke:#c98a00}
svg .node.failed rect{fill:#fde4e4;stroke:#c62828}svg .node.final rect{stroke-width:3.5}
svg text{font:12px ui-monospace,monospace;fill:#1d2330}svg text.op{fill:#5b6275;font-size:10.5px}
.node-card{border-left:4px solid #3a9b5c;padding:2px 0 2px 10px;margin:10px 0}.node-card.flagged{border-color:#c98a00}.node-card.failed{border-color:#c62828}
.node-card h5{margin:2px 0;font-size:13px}.inputs{margin:0;color:#5b6275;font-size:12px}
.code-and-findings{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:10px}
ul.findings{list-style:none;padding:0;margin:4px 0}.finding{border:1px solid #e2c98e;background:#fffaf0;border-radius:6px;padding:4px 8px;margin:4px 0}
.finding.trial-run{border-color:#e3a0a0;background:#fff5f5}.finding.semantic{border-color:#a9bde8;background:#f5f8ff}svg.chart text{font-size:12px}svg.chart rect.good{fill:#7fbf7f}svg.chart rect.bad{fill:#e08080}svg.chart rect.none{fill:#c0c0c0}svg.chart rect.accuracy{fill:#7fa7d9}svg.chart{print-color-adjust:exact;-webkit-print-color-adjust:exact}
.charts{display:flex;flex-wrap:wrap;gap:24px}figure{margin:8px 0}figcaption{font-weight:600;margin:4px 0}p.label.right{color:#1a7f37}p.label.wrong{color:#b42318}p.label.superseded{opacity:.6;text-decoration:line-through}.finding.human-note{border-color:#9bc59d;background:#f3fbf3}
.src{font-size:11px;text-transform:uppercase;color:#5b6275}.rule{font-weight:600}
.fate{font-size:11px;border-radius:8px;padding:0 6px}.fate.resolved{background:#d5f5df}.fate.persisting{background:#fdecc8}.fate.new{background:#fde0e0}
.udiff{background:#f7f7fa}.added{color:#0d6b2c}.removed{color:#9b1c1c}
.conversation h6{margin:8px 0 2px}.conversation h6.turn{font-size:13px;border-top:1px solid #d6d9e2;padding-top:6px;margin-top:12px}.verdict{margin:2px 0;font-weight:600}.verdict.approved{color:#0d6b2c}.verdict.rejected{color:#9b1c1c}.gap{color:#8d94a8}
"#;

const SCRIPT: &str = r#"
(function(){var f=document.getElementById('filters');if(!f)return;f.hidden=false;
function apply(){var failed=document.getElementById('f-failed').checked,d=document.getElementById('f-level').value,
t=document.getElementById('f-text').value.toLowerCase();document.querySelectorAll('details.question').forEach(function(q){
var ok=(!failed||q.dataset.status!=='passed')&&(!d||q.dataset.difficulty===d)&&(!t||q.dataset.text.indexOf(t)>=0);q.hidden=!ok;});}
f.addEventListener('input',apply);})();
"#;

/// Up to this many questions every section is in the page; above it a
/// section's body is drawn when it is first opened.
const SECTIONS_INLINE_UP_TO: usize = 1000;

/// Fills a question's body from its waiting script element when first opened
/// (`toggle` does not bubble: caught on the way down).
const ON_DEMAND_SCRIPT: &str = r#"
document.addEventListener('toggle',function(e){var q=e.target;if(!q.open||!q.classList||!q.classList.contains('question'))return;
var b=q.querySelector(':scope>div.body[data-body]');if(!b||b.childNodes.length)return;
var s=document.getElementById('body-'+b.dataset.body);if(s)b.innerHTML=s.textContent;},true);
"#;

/// "NN% (right/graded)" of `questions`, or a dash when none was graded.
fn accuracy_text<'a>(questions: impl IntoIterator<Item = &'a QuestionState>) -> String {
    let (graded, right) = crate::report::graded_tally(questions);
    graded_text(graded, right)
}

/// `right` of `graded` answers as a percentage with its counts; "—" when none was graded.
fn graded_text(graded: usize, right: usize) -> String {
    match graded {
        0 => "—".into(),
        _ => format!("{:.0}% ({right}/{graded})", 100.0 * right as f64 / graded as f64),
    }
}

/// `n` with thousands separators: 3,600,000.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The run's cost, or why there is none although tokens were spent.
fn cost_text(state: &RunState) -> String {
    if state.cost_usd == 0.0 && state.usage.total() > 0 {
        "— <small>(no price for this model)</small>".into()
    } else {
        format!("${:.4}", state.cost_usd)
    }
}

/// Tokens and cost per question and per passed question, the share of
/// rejected iterations and the prompt cache's use, in one paragraph.
fn economy_html(e: &TokenEconomy) -> String {
    let share = |rate: Option<f64>| rate.map_or("—".to_string(), |r| format!("{:.0}%", 100.0 * r));
    let per = |tokens: Option<f64>, cost: Option<f64>| match tokens.zip(cost) {
        Some((tokens, cost)) => format!("{} tokens (${cost:.4})", thousands(tokens.round() as u64)),
        None => "—".to_string(),
    };
    format!(
        "<p class=\"economy\">Per question: <b>{}</b> · per passed question: <b>{}</b> · on rejected iterations: <b>{}</b> of tokens · prompt cache hits: <b>{}</b> of prompt tokens ({} cached) · prompt bytes in a prefix shared with an earlier call: <b>{}</b></p>",
        per(e.tokens_per_question, e.cost_per_question_usd),
        per(e.tokens_per_passed_question, e.cost_per_passed_question_usd),
        share(e.rejected_iteration_token_share),
        share(e.cache_hit_rate),
        thousands(e.cached_tokens),
        share(e.prompt_prefix_shared)
    )
}

/// Which model played which role, with each role's calls, tokens and cost.
fn roles_html(state: &RunState) -> String {
    let roles = role_usage(state);
    if roles.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<table class=\"roles\"><tr><th>role</th><th>provider / model</th><th>calls</th><th>prompt tokens</th><th>cached</th><th>completion tokens</th><th>cost</th></tr>",
    );
    for (role, used) in &roles {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{} / {}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>${:.4}</td></tr>",
            role.setting_name(),
            html_escape(&used.provider),
            html_escape(&used.model),
            used.calls,
            thousands(used.prompt_tokens),
            thousands(used.cached_tokens),
            thousands(used.completion_tokens),
            used.cost_usd
        );
    }
    out.push_str("</table>");
    out
}

fn summary_html(state: &RunState) -> String {
    let total = state.questions.len();
    let count = |o| state.count(|s| s == QuestionStatus::Done(o));
    let passed = count(Outcome::Passed);
    let rate = if total == 0 { 0.0 } else { 100.0 * passed as f64 / total as f64 };
    // Stopped by the user: counted apart, and `run --resume` continues them.
    let extra_cards = match count(Outcome::Cancelled) {
        0 => String::new(),
        n => format!("<div class=\"card\"><b>{n}</b>cancelled (resumable)</div>"),
    };
    // Not started or stopped because the run's budget was reached: resumable too.
    let extra_cards = match count(Outcome::Budget) {
        0 => extra_cards,
        n => format!("{extra_cards}<div class=\"card\"><b>{n}</b>stopped by budget (resumable)</div>"),
    };
    // Answers the user accepted by hand: shown apart, never in the pass rate or accuracy.
    let extra_cards = match count(Outcome::FixedByHand) {
        0 => extra_cards,
        n => format!("{extra_cards}<div class=\"card by-hand\"><b>{n}</b>fixed by hand (not the model's)</div>"),
    };
    // Never finished (the run was stopped or killed first): neither passed nor failed.
    let extra_cards = match state.count(|s| !matches!(s, QuestionStatus::Done(_))) {
        0 => extra_cards,
        n => format!("{extra_cards}<div class=\"card\"><b>{n}</b>unfinished</div>"),
    };
    let mut out = format!(
        "<div class=\"cards\"><div class=\"card\"><b>{rate:.0}%</b>pass rate</div><div class=\"card\"><b>{passed}/{total}</b>passed</div><div class=\"card\"><b>{}</b>failed</div><div class=\"card\"><b>{}</b>exhausted</div>{extra_cards}<div class=\"card\"><b>{}</b>accuracy (graded)</div><div class=\"card\"><b>{}{}</b>tokens{}</div><div class=\"card\"><b>{}</b>estimated cost</div></div>",
        count(Outcome::Failed),
        count(Outcome::Exhausted),
        accuracy_text(&state.questions),
        if state.tokens_estimated { "~" } else { "" },
        thousands(state.usage.total()),
        if state.tokens_estimated { " (some estimated)" } else { "" },
        cost_text(state)
    );
    out.push_str(&economy_html(&token_economy(state)));
    out.push_str(
        "<table><tr><th>difficulty</th><th>total</th><th>passed</th><th>not passed</th><th>unfinished</th><th>pass rate</th><th>accuracy (graded)</th></tr>",
    );
    for level in DifficultyLevel::ALL {
        let of = level_breakdown(state, level);
        let rate = if of.total == 0 { "—".to_string() } else { format!("{:.0}%", 100.0 * of.pass_rate) };
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{rate}</td><td>{}</td></tr>",
            level.as_str(),
            of.total,
            of.passed,
            of.failed,
            of.unfinished,
            graded_text(of.grading.graded, of.grading.correct)
        );
    }
    out.push_str("</table>");
    out.push_str(&roles_html(state));
    out.push_str(&run_charts::difficulty_chart(state));
    if let Some(settings) = &state.settings {
        let _ = write!(
            out,
            "<details><summary>Run settings</summary><table><tr><td>dataset</td><td>{}</td></tr><tr><td>dataset hash</td><td><code>{}</code></td></tr><tr><td>provider / model</td><td>{} / {}</td></tr><tr><td>questions / max iterations / concurrency</td><td>{} / {} / {}</td></tr><tr><td>layer reviews at once</td><td>{}</td></tr><tr><td>seed</td><td>{}</td></tr></table></details>",
            html_escape(&settings.dataset_dir),
            html_escape(&settings.dataset_hash),
            html_escape(&settings.provider),
            html_escape(&settings.model),
            settings.questions,
            settings.max_iterations,
            settings.concurrency,
            match settings.review_concurrency {
                0 => "all layers".to_string(),
                n => n.to_string(),
            },
            settings.seed
        );
    }
    if let Some(failure) = &state.failure {
        let _ = write!(out, "<p class=\"reason\">The run failed: {}</p>", html_escape(failure));
    }
    out
}

/// When a page was generated, for people (local time and its zone, to the
/// second) inside a `<time>` that keeps the RFC 3339 form.
fn stamp(at: &DateTime<FixedOffset>) -> String {
    format!(
        "<time datetime=\"{}\">{}</time>",
        at.to_rfc3339_opts(SecondsFormat::Secs, false),
        at.format("%Y-%m-%d %H:%M:%S UTC%:z")
    )
}

/// How long the run took: its recorded wall time, or up to its last event when unfinished.
fn run_time(state: &RunState) -> String {
    match &state.summary {
        Some(summary) => format!("the run took {}", crate::text::duration(summary.elapsed_ms)),
        None => format!("{} of run recorded (unfinished)", crate::text::duration(state.now_ms)),
    }
}

/// Questions whose bodies are drawn together, spread over the cores.
const BODIES_AT_ONCE: usize = 512;

/// Hand `emit` the body of each of `questions` (with its index), in order.
/// Bodies — mostly highlighting code — are drawn on every core, a window of
/// [`BODIES_AT_ONCE`] at a time so that only that many wait in memory.
fn for_each_body(state: &RunState, questions: &[&QuestionState], mut emit: impl FnMut(usize, String)) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    for (window, of_window) in questions.chunks(BODIES_AT_ONCE).enumerate() {
        let share = of_window.len().div_ceil(cores);
        let drawn: Vec<Vec<String>> = std::thread::scope(|scope| {
            let workers: Vec<_> = of_window
                .chunks(share)
                .map(|part| {
                    scope.spawn(move || {
                        let mut code_html = question::CodeHtml::default();
                        part.iter().map(|q| question::question_body(state, q, &mut code_html)).collect()
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
        });
        for (offset, body) in drawn.into_iter().flatten().enumerate() {
            emit(window * BODIES_AT_ONCE + offset, body);
        }
    }
}

/// The whole report of `state`, stamped `generated_at`.
pub fn report_html(state: &RunState, generated_at: &DateTime<FixedOffset>) -> String {
    let title =
        state.settings.as_ref().map_or("eval-dag report".to_string(), |s| format!("eval-dag · {}", s.dataset_dir));
    let mut out = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{}</title><style>{STYLE}{}</style></head><body>",
        html_escape(&title),
        highlight_css()
    );
    let _ =
        write!(out, "<h1>{}</h1><p>Generated {} · {}</p>", html_escape(&title), stamp(generated_at), run_time(state));
    out.push_str(&summary_html(state));
    out.push_str(&run_charts::questions_charts(state));
    out.push_str(&scorecard::scorecard_html(&critic_scorecard(state)));
    out.push_str(&taxonomy::taxonomy_html(&findings_taxonomy(state)));
    out.push_str(&taxonomy::convergence_html(&convergence(state)));
    out.push_str(
        "<div class=\"filters\" id=\"filters\" hidden><label><input type=\"checkbox\" id=\"f-failed\"> not passed only</label> \
         <select id=\"f-level\"><option value=\"\">all difficulties</option><option>easy</option><option>medium</option><option>hard</option></select> \
         <input type=\"search\" id=\"f-text\" placeholder=\"filter questions\"></div>",
    );
    let questions: Vec<&QuestionState> = state.questions.iter().collect();
    if questions.len() <= SECTIONS_INLINE_UP_TO {
        for_each_body(state, &questions, |index, body| {
            out.push_str(&question::question_summary(questions[index]));
            out.push_str(&body);
            out.push_str("</details>");
        });
        let _ = write!(out, "<script>{SCRIPT}</script></body></html>");
        return out;
    }
    let _ = write!(
        out,
        "<noscript><p class=\"reason\">This run has {} questions: above {} each question's details are drawn when it is opened, which needs JavaScript. The summary, the charts and the list above are complete; every detail is also in <code>eval_results.json</code>.</p></noscript>",
        thousands(state.questions.len() as u64),
        thousands(SECTIONS_INLINE_UP_TO as u64)
    );
    for (index, q) in state.questions.iter().enumerate() {
        out.push_str(&question::question_summary(q));
        let _ = write!(out, "<div class=\"body\" data-body=\"{index}\"></div></details>");
    }
    // Each body waits, unparsed, in a script element of a type the browser
    // does not run, after the list so the list paints first. Bodies hold no
    // `<script` or `<!--` of their own: every text in them is escaped.
    for_each_body(state, &questions, |index, body| {
        let _ = write!(out, "<script type=\"text/x-eval-dag-section\" id=\"body-{index}\">{body}</script>");
    });
    let _ = write!(out, "<script>{SCRIPT}{ON_DEMAND_SCRIPT}</script></body></html>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::AttemptAt;
    use crate::report::test_run::run_with_one_pass_and_one_exhausted;
    use crate::run::EngineEvent;

    fn now() -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339("2026-11-25T04:05:12.123456789+01:00").unwrap()
    }

    #[test]
    fn the_report_is_self_contained_and_shows_every_question_iteration_and_node() {
        let state = run_with_one_pass_and_one_exhausted();
        let now = now();
        let html = report_html(&state, &now);
        assert!(!html.contains("http://") && !html.contains("https://"), "no external references");
        assert!(!html.contains("<link") && !html.contains("src="), "no external assets");
        for q in &state.questions {
            assert!(html.contains(&format!("id=\"{}\"", q.question.id)), "{} has a section", q.question.id);
        }
        assert!(html.contains("Iteration 1"));
        assert!(html.contains("<code>a</code>"), "node a is shown");
        assert!(html.contains("<svg class=\"dag\""));
        assert!(html.contains("50%</b>pass rate"));
        assert!(html.contains("Per question: <b>"), "tokens per question are in the summary");
        assert!(html.contains("<p class=\"spend\">"), "each question shows its tokens and cost");
        assert!(!html.contains("cancelled (resumable)"), "no card for what did not happen");
        let mut stopped = state.clone();
        stopped.apply(
            20,
            &EngineEvent::QuestionStarted { at: AttemptAt::new("q_02", 2), forked_from: None, by_hand: false },
        );
        let cancel = EngineEvent::QuestionFinished {
            at: AttemptAt::new("q_02", 2),
            outcome: Outcome::Cancelled,
            iterations: 1,
            final_answer: None,
            reason: Some("cancelled".into()),
        };
        stopped.apply(21, &cancel);
        assert!(report_html(&stopped, &now).contains("<b>1</b>cancelled (resumable)"), "a stopped run says so");
        assert!(!html.contains("</b>unfinished"), "a finished run has no unfinished card");
        let killed = report_html(&crate::report::test_run::run_stopped_after(6, 2), &now);
        assert!(killed.contains("<b>4</b>unfinished") && killed.contains("<b>0</b>failed"), "{killed}");
        // q_0002 to q_0006 are hard: q_0002 exhausted, the others never finished.
        assert!(killed.contains("<tr><td>hard</td><td>5</td><td>0</td><td>1</td><td>4</td>"), "{killed}");
        assert!(
            html.contains(
                "Generated <time datetime=\"2026-11-25T04:05:12+01:00\">2026-11-25 04:05:12 UTC+01:00</time>"
            ),
            "a stamp for people: {html}"
        );
        assert!(!html.contains("04:05:12.123"), "no nanoseconds");
        assert_eq!(
            (thousands(0), thousands(999), thousands(1000), thousands(3_600_000)),
            ("0".into(), "999".into(), "1,000".into(), "3,600,000".into())
        );
    }

    #[test]
    fn the_report_charts_difficulties_and_questions_and_says_how_long_the_run_took() {
        let state = run_with_one_pass_and_one_exhausted();
        let html = report_html(&state, &now());
        let chart = |class: &str| {
            let start = html.find(&format!("<svg class=\"chart {class}\"")).unwrap_or_else(|| panic!("{class} chart"));
            html[start..start + html[start..].find("</svg>").unwrap()].to_string()
        };
        let difficulty = chart("difficulty");
        assert!(difficulty.contains("medium · pass rate</text><rect class=\"good\""), "{difficulty}");
        assert!(difficulty.contains("100% (1/1)</text>") && difficulty.contains("0% (0/1)</text>"), "{difficulty}");
        assert_eq!(difficulty.matches("— (no questions)").count(), 1, "no easy question: {difficulty}");
        assert_eq!(difficulty.matches("— (none graded)").count(), 3, "no expected answers: {difficulty}");
        let tokens = chart("tokens");
        assert_eq!(tokens.matches("<rect").count(), 2, "one bar per question: {tokens}");
        let (first, second) = (tokens.find("q_01 · medium").unwrap(), tokens.find("q_02 · hard").unwrap());
        assert!(first < second, "rank order: {tokens}");
        assert!(tokens.contains("<rect class=\"good\"") && tokens.contains("<rect class=\"bad\""), "{tokens}");
        assert_eq!(chart("time").matches("<rect").count(), 2);
        let stamp = &html[html.find("<p>Generated").unwrap()..];
        assert!(stamp[..stamp.find("</p>").unwrap()].ends_with(" · 0.0s of run recorded (unfinished)"), "{stamp}");
    }

    #[test]
    fn above_a_thousand_questions_each_section_is_drawn_from_the_page_when_opened() {
        use crate::report::test_run::run_of;
        let inline = report_html(&run_of(1000), &now());
        assert_eq!(inline.matches("<details class=\"question\"").count(), 1000);
        assert!(!inline.contains("data-body=") && !inline.contains("<noscript>"), "1,000 questions: all inline");
        let state = run_of(1001);
        assert!(state.questions[7].question.question.starts_with("</script>"), "a question tries to end a script");
        let html = report_html(&state, &now());
        assert_eq!(html.matches("<details class=\"question\"").count(), 1001, "every question is listed");
        assert_eq!(html.matches("\"></div></details>").count(), 1001, "with an empty body");
        assert!(html.contains("<noscript><p class=\"reason\">This run has 1,001 questions: above 1,000"));
        let list_end = html.find("<script type=\"text/x-eval-dag-section\"").unwrap();
        assert!(html[..list_end].contains("data-body=\"1000\"></div></details>"), "the list comes first");
        let mut code_html = question::CodeHtml::default();
        for (index, q) in state.questions.iter().enumerate() {
            let open = format!("<script type=\"text/x-eval-dag-section\" id=\"body-{index}\">");
            let start = html.find(&open).unwrap_or_else(|| panic!("body {index}")) + open.len();
            let body = &html[start..start + html[start..].find("</script>").unwrap()];
            assert_eq!(body, question::question_body(&state, q, &mut code_html), "body {index} whole");
            assert!(!body.contains("<script") && !body.contains("<!--"), "body {index} cannot end early");
        }
        assert_eq!(html.matches("</script>").count(), 1002, "no script but the bodies' and the page's own");
        assert!(html.contains("addEventListener('toggle'"), "the page draws a body when opened");
    }

    #[test]
    fn above_a_hundred_questions_the_per_question_charts_show_ranges() {
        use crate::report::test_run::run_of;
        let bars = |html: &str, class: &str| {
            let start = html.find(&format!("<svg class=\"chart {class}\"")).unwrap();
            let svg = &html[start..start + html[start..].find("</svg>").unwrap()];
            svg.matches("<text x=\"0\"").count()
        };
        let hundred = report_html(&run_of(100), &now());
        assert_eq!((bars(&hundred, "tokens"), bars(&hundred, "time")), (100, 100), "one bar per question");
        let state = run_of(101);
        let html = report_html(&state, &now());
        assert!(html.contains("How many questions took how much"));
        let tokens_svg = &html[html.find("<svg class=\"chart tokens\"").unwrap()..];
        let tokens_svg = &tokens_svg[..tokens_svg.find("</svg>").unwrap()];
        assert_eq!(bars(&html, "tokens"), 12, "twelve ranges: {tokens_svg}");
        let counted: u64 = tokens_svg
            .split("</text>")
            .filter_map(|t| t.rsplit('>').next())
            .filter_map(|n| n.replace(',', "").parse::<u64>().ok())
            .sum();
        assert_eq!(counted, 101, "every question in one range: {tokens_svg}");
        assert!(tokens_svg.contains("<rect class=\"good\"") && tokens_svg.contains("<rect class=\"bad\""));
    }
}
