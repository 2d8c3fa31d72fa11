//! The findings taxonomy of a run: every finding the critic gave, grouped by
//! source, rule and — for the trial run's runtime errors — the Python
//! exception, with the questions each group hit, how many of its findings
//! were resolved later, and the iterations and tokens the rejections it took
//! part in cost. And oscillation: a finding resolved in one iteration and
//! back in a later one, a node whose code went back to an earlier iteration's.

use std::collections::BTreeMap;

use crate::domain::{Finding, FindingSource, GeneratedDag, QuestionId, Rule, Severity};
use crate::report::documents::{FindingGroup, FindingsTaxonomy, Oscillation, OscillationKind};
use crate::run::{Attempt, Iteration, Outcome, QuestionState, QuestionStatus, RunState};

/// Whether `name` could be a Python exception class: a dotted identifier
/// whose last part is capitalised and ends like one.
fn exception_name(name: &str) -> Option<&str> {
    let identifier = |s: &str| {
        s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let last = name.rsplit('.').next()?;
    let ending = ["Error", "Exception", "Exit", "Interrupt", "Iteration", "Warning"];
    (name.split('.').all(identifier)
        && last.starts_with(|c: char| c.is_ascii_uppercase())
        && ending.iter().any(|e| last.ends_with(e)))
    .then_some(last)
}

/// The exception a line names: `KeyError: 'x'`, `node n: KeyError: 'x'`.
fn exception_in(line: &str) -> Option<&str> {
    let line = line.trim();
    let line = line.strip_prefix("node ").and_then(|rest| rest.split_once(": ")).map_or(line, |(_, rest)| rest);
    exception_name(line.split(':').next()?.trim())
}

/// The Python exception a runtime error's message names (`KeyError`), if
/// any: its first line is the error, the rest the traceback's tail, whose
/// last line is the exception.
pub fn exception_type(message: &str) -> Option<String> {
    let mut lines = message.lines();
    let first = lines.next();
    first.into_iter().chain(lines.rev()).find_map(exception_in).map(str::to_string)
}

/// The group a finding falls in: source, rule, exception.
type GroupKey = (FindingSource, Rule, Option<String>);

fn group_key(finding: &Finding) -> GroupKey {
    let runtime = finding.source == FindingSource::TrialRun && finding.rule == Rule::RuntimeError;
    let exception = runtime.then(|| exception_type(&finding.message)).flatten();
    (finding.source, finding.rule.clone(), exception)
}

/// The iterations of `attempt` a critic judged, with their findings.
fn judged(attempt: &Attempt) -> Vec<(&Iteration, &[Finding])> {
    attempt.iterations.iter().filter_map(|it| Some((it, it.feedback.as_ref()?.findings.as_slice()))).collect()
}

/// Findings back after being resolved: present, gone in the next judged
/// iteration, present again later (people's notes are not the critic's).
fn findings_back(question_id: &QuestionId, attempt: &Attempt, found: &mut Vec<Oscillation>) {
    let judged = judged(attempt);
    for (k, &(iteration, findings)) in judged.iter().enumerate().skip(2) {
        for finding in findings.iter().filter(|f| f.source != FindingSource::Human) {
            if judged[k - 1].1.iter().any(|f| f.same_as(finding)) {
                continue;
            }
            let Some(earlier) = judged[..k - 1].iter().rposition(|(_, fs)| fs.iter().any(|f| f.same_as(finding)))
            else {
                continue;
            };
            found.push(Oscillation {
                question_id: question_id.clone(),
                attempt: attempt.number,
                iteration: iteration.number,
                kind: OscillationKind::FindingBack {
                    source: finding.source,
                    rule: finding.rule.clone(),
                    node_id: finding.node_id.clone(),
                    message: finding.message.lines().next().unwrap_or_default().to_string(),
                    resolved_at: judged[earlier + 1].0.number,
                },
            });
        }
    }
}

/// Nodes whose code changed to what an iteration before the previous one had.
fn nodes_reverted(question_id: &QuestionId, attempt: &Attempt, found: &mut Vec<Oscillation>) {
    let dags: Vec<(u32, &GeneratedDag)> =
        attempt.iterations.iter().filter_map(|it| Some((it.number, it.dag.as_ref()?))).collect();
    for (k, &(number, dag)) in dags.iter().enumerate().skip(2) {
        for node in &dag.nodes {
            let same_code = |d: &GeneratedDag| d.node(&node.node_id).is_some_and(|n| n.code == node.code);
            if same_code(dags[k - 1].1) {
                continue;
            }
            let Some(&(earlier, _)) = dags[..k - 1].iter().rev().find(|(_, d)| same_code(d)) else {
                continue;
            };
            found.push(Oscillation {
                question_id: question_id.clone(),
                attempt: attempt.number,
                iteration: number,
                kind: OscillationKind::NodeReverted { node_id: node.node_id.clone(), to_iteration: earlier },
            });
        }
    }
}

/// Every oscillation within `attempt` of `question_id`, in iteration order.
pub fn attempt_oscillations(question_id: &QuestionId, attempt: &Attempt) -> Vec<Oscillation> {
    let mut found = Vec::new();
    findings_back(question_id, attempt, &mut found);
    nodes_reverted(question_id, attempt, &mut found);
    found.sort_by_key(|o| o.iteration);
    found
}

/// Whether the question's answer was approved in the end (by the critic, or accepted by hand).
fn question_approved(q: &QuestionState) -> bool {
    matches!(q.status, QuestionStatus::Done(Outcome::Passed | Outcome::Failed | Outcome::FixedByHand))
}

/// The findings taxonomy of `state`.
pub fn findings_taxonomy(state: &RunState) -> FindingsTaxonomy {
    let mut groups: BTreeMap<GroupKey, FindingGroup> = BTreeMap::new();
    let mut oscillations = Vec::new();
    let tokens_of =
        |calls: &[u64]| -> u64 { calls.iter().filter_map(|id| state.calls.get(id)).map(|c| c.usage.total()).sum() };
    for q in &state.questions {
        let id = &q.question.id;
        let approved = question_approved(q);
        for attempt in q.attempts() {
            let judged = judged(attempt);
            for (k, &(iteration, findings)) in judged.iter().enumerate() {
                let later = &judged[k + 1..];
                let rejected = iteration.feedback.as_ref().is_some_and(|f| !f.is_approved);
                let next = attempt.iterations.iter().find(|it| it.number > iteration.number);
                for finding in findings {
                    let key = group_key(finding);
                    let group = groups.entry(key.clone()).or_insert_with(|| FindingGroup {
                        source: key.0,
                        rule: key.1,
                        exception: key.2,
                        count: 0,
                        questions: Vec::new(),
                        resolved: 0,
                        iterations_caused: 0,
                        tokens: 0,
                        oscillations: 0,
                    });
                    group.count += 1;
                    if group.questions.last() != Some(id) {
                        group.questions.push(id.clone());
                    }
                    let gone = later.iter().any(|(_, fs)| !fs.iter().any(|f| f.same_as(finding)));
                    if gone || approved {
                        group.resolved += 1;
                    }
                }
                // The rebuild a rejection caused, once per group among its blocking findings.
                let Some(next) = next.filter(|_| rejected) else { continue };
                let mut blamed: Vec<GroupKey> =
                    findings.iter().filter(|f| f.severity == Severity::Error).map(group_key).collect();
                blamed.sort();
                blamed.dedup();
                let tokens = tokens_of(&next.calls);
                for key in blamed {
                    if let Some(group) = groups.get_mut(&key) {
                        group.iterations_caused += 1;
                        group.tokens += tokens;
                    }
                }
            }
            oscillations.extend(attempt_oscillations(id, attempt));
        }
    }
    for oscillation in &oscillations {
        let OscillationKind::FindingBack { source, rule, node_id, message, .. } = &oscillation.kind else { continue };
        let finding = Finding {
            node_id: node_id.clone(),
            layer: None,
            rule: rule.clone(),
            source: *source,
            message: message.clone(),
            severity: Severity::Error,
        };
        if let Some(group) = groups.get_mut(&group_key(&finding)) {
            group.oscillations += 1;
        }
    }
    let mut groups: Vec<FindingGroup> = groups.into_values().collect();
    groups.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| (a.source, &a.rule).cmp(&(b.source, &b.rule))));
    FindingsTaxonomy { total_findings: groups.iter().map(|g| g.count).sum(), groups, oscillations }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::test_run::run_with_oscillation;

    #[test]
    fn exception_types_are_read_from_the_error_or_the_traceback() {
        assert_eq!(exception_type("node rates: KeyError: 'amount'").as_deref(), Some("KeyError"));
        assert_eq!(
            exception_type("Traceback:\n  line 2\nZeroDivisionError: division by zero").as_deref(),
            Some("ZeroDivisionError")
        );
        assert_eq!(exception_type("node a: json.decoder.JSONDecodeError: bad").as_deref(), Some("JSONDecodeError"));
        assert_eq!(exception_type("node a: StopIteration").as_deref(), Some("StopIteration"));
        assert_eq!(exception_type("node a: timed out after 5 s"), None);
        assert_eq!(exception_type("refused by the sandbox policy (line 2): import os"), None);
    }

    #[test]
    fn the_planted_oscillation_gives_exactly_the_groups_and_flags_it_implies() {
        let taxonomy = findings_taxonomy(&run_with_oscillation());
        // Label: count, questions, resolved, iterations caused, tokens, oscillations.
        let rows: Vec<String> = taxonomy
            .groups
            .iter()
            .map(|g| {
                let (label, questions) = (g.label(), g.questions.join(","));
                format!(
                    "{label}: {} {questions} {} {} {} {}",
                    g.count, g.resolved, g.iterations_caused, g.tokens, g.oscillations
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                "structural · unknown_field: 2 q_b 0 1 20 0",
                "trial_run · runtime_error · KeyError: 2 q_a 2 2 60 1",
                "trial_run · runtime_error · TypeError: 1 q_c 1 1 20 0",
                "semantic · layer_review: 1 q_a 1 1 30 0",
            ]
        );
        assert_eq!(taxonomy.total_findings, 6);
        let described: Vec<(&str, u32, String)> =
            taxonomy.oscillations.iter().map(|o| (o.question_id.as_str(), o.iteration, o.describe())).collect();
        assert_eq!(
            described,
            [
                ("q_a", 3, "back again: [trial run] rates runtime_error (resolved in iteration 2)".to_string()),
                ("q_a", 3, "node rates reverted to iteration 1's code".to_string()),
            ]
        );
    }
}
