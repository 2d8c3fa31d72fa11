//! One collapsible section per question: attempts, iterations, the DAG
//! drawing, highlighted code with the findings that blame each node, outputs,
//! feedback, the diff to the previous iteration, and the conversation log.

use std::collections::HashMap;
use std::fmt::Write;

use serde_json::Value;

use super::svg::dag_svg;
use crate::domain::{CriticFeedback, ExecutionResult, Finding, FindingFate, IterationDiff, NodeChange};
use crate::render::node_verdict;
use crate::render::{highlight_html, html_escape};
use crate::run::conversation::{Entry, call_label, changed_lines, entries, user_prompt};
use crate::run::{Attempt, Iteration, LlmCall, QuestionState, RunState};
use crate::text::{plural, preview};

/// How many characters of a node output are shown before "more".
const OUTPUT_PREVIEW: usize = 400;

/// Highlighted node code, each distinct source highlighted once per report
/// (unchanged nodes repeat across iterations and attempts).
#[derive(Default)]
pub struct CodeHtml(HashMap<String, String>);

impl CodeHtml {
    /// The highlighted HTML of `code`.
    pub fn of(&mut self, code: &str) -> &str {
        if !self.0.contains_key(code) {
            self.0.insert(code.to_string(), highlight_html(code));
        }
        &self.0[code]
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

fn finding_item(finding: &Finding, fate: Option<FindingFate>) -> String {
    let fate = fate.map_or(String::new(), |f| {
        let (class, label) = match f {
            FindingFate::Resolved => ("resolved", "resolved"),
            FindingFate::Persisting => ("persisting", "persisting"),
            FindingFate::New => ("new", "new"),
        };
        format!("<span class=\"fate {class}\">{label}</span> ")
    });
    let node = finding.node_id.as_deref().map(|n| format!(" <code>{}</code>", html_escape(n))).unwrap_or_default();
    format!(
        "<li class=\"finding {}\">{fate}<span class=\"src\">{}</span>{node} <span class=\"rule\">{}</span><pre>{}</pre></li>",
        finding.source.label().replace(' ', "-"),
        finding.source.label(),
        html_escape(&finding.rule),
        html_escape(&finding.message)
    )
}

fn nodes_html(it: &Iteration, trial: Option<&ExecutionResult>, code_html: &mut CodeHtml) -> String {
    let Some(dag) = &it.dag else { return String::new() };
    let feedback = it.feedback.as_ref();
    let mut out = String::from("<div class=\"nodes\">");
    for node in &dag.nodes {
        let verdict = node_verdict(feedback, &node.node_id);
        let inputs: Vec<String> = node.inputs.iter().map(|(k, v)| format!("{k} ← {v}")).collect();
        let _ = write!(
            out,
            "<div class=\"node-card {}\"><h5><code>{}</code> layer {} · {}{}</h5><p class=\"inputs\">{}</p>",
            verdict.class(),
            html_escape(&node.node_id),
            node.layer,
            html_escape(&node.operation),
            if node.node_id == dag.final_answer_node { " · <b>final</b>" } else { "" },
            html_escape(&inputs.join(", "))
        );
        let blamed: Vec<String> = feedback
            .into_iter()
            .flat_map(|f| f.findings_for_node(&node.node_id))
            .map(|f| finding_item(f, None))
            .collect();
        let _ = write!(out, "<div class=\"code-and-findings\"><pre class=\"code\">{}</pre>", code_html.of(&node.code));
        if !blamed.is_empty() {
            let _ = write!(out, "<ul class=\"findings\">{}</ul>", blamed.join(""));
        }
        out.push_str("</div>");
        if let Some(output) = trial.and_then(|t| t.node_outputs.get(&node.node_id)) {
            let text = pretty(output);
            if text.chars().count() > OUTPUT_PREVIEW {
                let _ = write!(
                    out,
                    "<details class=\"output\"><summary>output: {}</summary><pre>{}</pre></details>",
                    html_escape(&preview(output, 80)),
                    html_escape(&text)
                );
            } else {
                let _ = write!(out, "<p class=\"output\">output: <code>{}</code></p>", html_escape(&text));
            }
        }
        out.push_str("</div>");
    }
    out.push_str("</div>");
    out
}

fn feedback_html(feedback: &CriticFeedback) -> String {
    let mut out = format!("<div class=\"feedback\"><p>{}</p>", html_escape(&feedback.overall_reasoning));
    if !feedback.layer_validations.is_empty() {
        out.push_str("<table><tr><th>layer</th><th>nodes</th><th>valid</th><th>issues</th></tr>");
        for layer in &feedback.layer_validations {
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                layer.layer_index,
                html_escape(&layer.nodes_in_layer.join(", ")),
                if layer.is_valid { "yes" } else { "<b>no</b>" },
                html_escape(&layer.issues.join("; "))
            );
        }
        out.push_str("</table>");
    }
    let unpinned: Vec<String> =
        feedback.findings.iter().filter(|f| f.node_id.is_none()).map(|f| finding_item(f, None)).collect();
    if !unpinned.is_empty() {
        let _ = write!(out, "<p>Findings about the whole DAG:</p><ul class=\"findings\">{}</ul>", unpinned.join(""));
    }
    if !feedback.suggestions.is_empty() {
        let items: Vec<String> = feedback.suggestions.iter().map(|s| format!("<li>{}</li>", html_escape(s))).collect();
        let _ = write!(out, "<p>Suggestions:</p><ul>{}</ul>", items.join(""));
    }
    out.push_str("</div>");
    out
}

fn diff_html(previous: &Iteration, current: &Iteration) -> String {
    let (Some(before), Some(after)) = (&previous.dag, &current.dag) else { return String::new() };
    let diff = IterationDiff::between(before, previous.feedback.as_ref(), after, current.feedback.as_ref());
    let mut out = format!("<details class=\"diff\"><summary>Changes since iteration {}</summary><ul>", previous.number);
    for change in &diff.nodes {
        match change {
            NodeChange::Added { node } => {
                let _ = write!(out, "<li class=\"added\">added <code>{}</code></li>", html_escape(&node.node_id));
            }
            NodeChange::Removed { node } => {
                let _ = write!(out, "<li class=\"removed\">removed <code>{}</code></li>", html_escape(&node.node_id));
            }
            NodeChange::Changed { after, code_diff, .. } => {
                let _ = write!(
                    out,
                    "<li class=\"changed\">changed <code>{}</code><pre class=\"udiff\">{}</pre></li>",
                    html_escape(&after.node_id),
                    html_escape(code_diff)
                );
            }
            NodeChange::Unchanged { .. } => {}
        }
    }
    out.push_str("</ul><ul class=\"findings\">");
    for (fate, finding) in &diff.findings {
        out.push_str(&finding_item(finding, Some(*fate)));
    }
    out.push_str("</ul></details>");
    out
}

fn iteration_html(attempt: &Attempt, index: usize, code_html: &mut CodeHtml) -> String {
    let it = &attempt.iterations[index];
    let verdict = match &it.feedback {
        Some(_) if attempt.by_hand => "<span class=\"badge by-hand\">✎ written by hand (checked, not reviewed)</span>",
        Some(f) if f.is_approved => "<span class=\"badge passed\">approved</span>",
        Some(_) => "<span class=\"badge rejected\">rejected</span>",
        None => "<span class=\"badge\">no verdict</span>",
    };
    let findings = it.feedback.as_ref().map_or(0, |f| f.findings.len());
    let open = if index + 1 == attempt.iterations.len() { " open" } else { "" };
    let mut out = format!(
        "<details class=\"iteration\"{open}><summary>Iteration {} {verdict} · {findings} findings</summary>",
        it.number
    );
    if let Some(dag) = &it.dag {
        let _ = write!(
            out,
            "<p class=\"plan\">{}</p>{}",
            html_escape(&dag.description),
            dag_svg(dag, it.feedback.as_ref())
        );
    }
    out.push_str(&nodes_html(it, it.trial.as_ref(), code_html));
    for (n, label) in it.labels.iter().enumerate() {
        let verdict = if label.right { "right" } else { "wrong" };
        let superseded = if n + 1 < it.labels.len() { " superseded" } else { "" };
        let _ = write!(
            out,
            "<p class=\"label {verdict}{superseded}\">Labelled <b>{verdict}</b> by a person at {:.1}s: {}</p>",
            label.t_ms as f64 / 1000.0,
            html_escape(&label.reason)
        );
    }
    if let Some(feedback) = &it.feedback {
        out.push_str(&feedback_html(feedback));
    }
    if index > 0 {
        out.push_str(&diff_html(&attempt.iterations[index - 1], it));
    }
    out.push_str("</details>");
    out
}

fn conversation_html(state: &RunState, q: &QuestionState) -> String {
    let mut out = String::from("<details class=\"conversation\"><summary>Conversation log</summary>");
    for entry in entries(state, q) {
        match entry {
            Entry::Call { call, previous } => call_html(&mut out, call, previous),
            Entry::Iteration { attempt, iteration } => {
                let _ =
                    write!(out, "<h6 class=\"turn\">attempt {} · iteration {}</h6>", attempt.number, iteration.number);
            }
            Entry::Verdict(Iteration { feedback: Some(feedback), .. }) if feedback.is_approved => {
                out.push_str("<p class=\"verdict approved\">✓ approved</p>");
            }
            Entry::Verdict(Iteration { feedback: Some(feedback), .. }) => {
                let findings = plural(feedback.findings.len(), "finding");
                let _ = write!(out, "<p class=\"verdict rejected\">✗ rejected: {findings}</p>");
            }
            Entry::Verdict(_) => {}
            Entry::Outcome(Attempt { number, outcome: Some(outcome), .. }) => {
                let _ = write!(out, "<p class=\"verdict\">■ attempt {number} {}</p>", outcome.label());
            }
            Entry::Outcome(_) => {}
            Entry::Grading(attempt) => {
                let _ = write!(out, "<h6 class=\"turn\">attempt {} · grading</h6>", attempt.number);
            }
        }
    }
    out.push_str("</details>");
    out
}

/// One call of the conversation log: a collapsed line with what it was for,
/// tokens and latency; opened, the prompt — whole for the first call of its
/// kind, else only the lines changed since the previous one (the trace keeps
/// every prompt whole) — and the response.
fn call_html(out: &mut String, call: &LlmCall, previous: Option<&LlmCall>) {
    let label = call_label(call);
    let retries =
        if call.retries > 0 { format!(" · {}", plural(call.retries as usize, "retry")) } else { String::new() };
    let _ = write!(
        out,
        "<details><summary>{} · {} tokens · {} ms{retries}</summary>",
        html_escape(&label),
        call.usage.total(),
        call.latency_ms
    );
    match (user_prompt(call), previous.and_then(user_prompt)) {
        (Some(prompt), Some(before)) => {
            let changes = changed_lines(&before, &prompt);
            let total = plural(prompt.lines().count(), "line");
            if changes.is_empty() {
                let _ = write!(out, "<h6>prompt ({total}): same as the last {}</h6>", html_escape(&label));
            } else {
                let _ =
                    write!(out, "<h6>prompt ({total}): what changed since the last {}</h6><pre>", html_escape(&label));
                for line in changes {
                    match line {
                        Some(line) => out.push_str(&html_escape(line)),
                        None => out.push_str("<span class=\"gap\">⋯</span>"),
                    }
                    out.push('\n');
                }
                out.push_str("</pre>");
            }
        }
        (Some(prompt), None) => {
            let _ = write!(out, "<h6>prompt</h6><pre>{}</pre>", html_escape(&prompt));
        }
        (None, _) => {}
    }
    let response = call.error.as_deref().map_or(call.response.clone(), |e| format!("(call failed: {e})"));
    let _ = write!(out, "<h6>response</h6><pre>{}</pre></details>", html_escape(&response));
}

/// The opening of question `q`'s section up to its one-line summary (the
/// `<details>` is left open for the body; close it with `</details>`).
pub fn question_summary(q: &QuestionState) -> String {
    let answer = q.latest().and_then(|a| a.final_answer.as_ref());
    let status = q.status.label();
    let search = format!("{} {}", q.question.id, q.question.question).to_lowercase();
    let mut out = format!(
        "<details class=\"question\" id=\"{id}\" data-status=\"{status}\" data-difficulty=\"{level}\" data-text=\"{search}\"><summary><code>{id}</code> <span class=\"level {level}\">{level}</span> <span class=\"badge {status_class}\">{status}</span> {text} <span class=\"answer\">{answer}</span></summary>",
        id = html_escape(&q.question.id),
        level = q.question.difficulty_level.as_str(),
        search = html_escape(&search),
        status_class = status.replace(' ', "-"),
        text = html_escape(&q.question.question),
        answer = answer.map(|a| format!("→ {}", html_escape(&preview(a, 50)))).unwrap_or_default(),
    );
    if let Some(correct) = q.correct() {
        let (class, mark) = if correct { ("passed", "✓") } else { ("failed", "✗ wrong") };
        out = out.replacen("</summary>", &format!(" <span class=\"badge {class}\">{mark}</span></summary>"), 1);
    }
    out
}

/// The body of question `q`'s section (`<div class="body">…</div>`): answer,
/// grades, every attempt's iterations and the conversation.
pub fn question_body(state: &RunState, q: &QuestionState, code_html: &mut CodeHtml) -> String {
    let latest = q.latest();
    let answer = latest.and_then(|a| a.final_answer.as_ref());
    let mut out = format!("<div class=\"body\"><p class=\"reasoning\">{}</p>", html_escape(&q.question.reasoning));
    let _ = write!(
        out,
        "<p class=\"spend\">{} tokens ({} prompt, {} cached) · ${:.4}</p>",
        q.usage.total(),
        q.usage.prompt_tokens,
        q.usage.cached_tokens,
        q.cost_usd
    );
    if let Some(answer) = answer {
        let _ = write!(out, "<p>Final answer:</p><pre class=\"answer\">{}</pre>", html_escape(&pretty(answer)));
    }
    if let Some(narrative) = latest.and_then(|a| a.narrative.as_ref()) {
        let _ = write!(out, "<p class=\"narrative\">“{}”</p>", html_escape(narrative));
    }
    if let Some(expected) = &q.question.expected_answer {
        let _ = write!(out, "<p>Expected answer:</p><pre>{}</pre>", html_escape(&pretty(expected)));
    }
    for grade in latest.map(|a| a.grades.as_slice()).unwrap_or_default() {
        let (class, mark) = if grade.passed { ("passed", "✓ right") } else { ("failed", "✗ wrong") };
        let score = grade.score.map_or("error".to_string(), |s| format!("{s:.2}"));
        let _ = write!(
            out,
            "<p class=\"grade\"><span class=\"badge {class}\">{mark}</span> {} score {score}: {}</p>",
            html_escape(&grade.method),
            html_escape(grade.error.as_deref().unwrap_or(&grade.reason))
        );
    }
    if let Some(reason) = latest.and_then(|a| a.reason.as_ref()) {
        let _ = write!(out, "<p class=\"reason\">{}</p>", html_escape(reason));
    }
    for attempt in &q.attempts {
        let how = if attempt.by_hand { "by hand, from" } else { "forked from" };
        let forked =
            attempt.forked_from.map(|(a, i)| format!(" ({how} attempt {a}, iteration {i})")).unwrap_or_default();
        let outcome = attempt.outcome.map(|o| o.label()).unwrap_or("unfinished");
        let _ = write!(
            out,
            "<details class=\"attempt\" open><summary>Attempt {}{forked} · {outcome}</summary>",
            attempt.number
        );
        for index in 0..attempt.iterations.len() {
            out.push_str(&iteration_html(attempt, index, code_html));
        }
        out.push_str("</details>");
    }
    out.push_str(&conversation_html(state, q));
    out.push_str("</div>");
    out
}
