//! The view of the report's "Trust without labels" section for
//! `templates/trust.html.j2`: per question, how far its epochs agreed
//! (`run --repeat`), what its metamorphic checks saw (`run --metamorphic`),
//! how far its drafts agreed (`run --consensus`) and whether the two engines
//! agreed on its DAG (`run --differential`), with the answers side by side
//! and the DAG of each minority draft.

use serde::Serialize;

use super::dag_picture::{DagPicture, dag_picture};
use crate::domain::EngineOutcome;
use crate::domain::{Consensus, Metamorphic, NodeId, QuestionId};
use crate::report::analyses::consensus::consensus_summary;
use crate::report::analyses::differential::differential_summary;
use crate::report::analyses::metamorphic::metamorphic_summary;
use crate::run::{Attempt, QuestionState, RunState};
use crate::text::{percent, preview};

/// How wide an answer is shown.
const ANSWER_CHARS: usize = 40;

/// One metamorphic check, as the page shows it.
#[derive(Debug, Serialize)]
struct CheckView {
    transform: &'static str,
    relation: &'static str,
    answer: String,
    class: &'static str,
    note: String,
}

/// One node of a minority draft's DAG.
#[derive(Debug, Serialize)]
struct MinorityNode {
    id: NodeId,
    code: String,
}

/// The DAG of a draft whose answer is not the majority's (`run --consensus`).
#[derive(Debug, Serialize)]
struct MinorityDag {
    draft: u32,
    answer: String,
    plan: String,
    dag: DagPicture,
    nodes: Vec<MinorityNode>,
}

/// One question's label-free evidence.
#[derive(Debug, Serialize)]
struct TrustRow {
    id: QuestionId,
    question: String,
    answer: String,
    epochs: Option<String>,
    checks: Vec<CheckView>,
    consensus: Option<String>,
    minority: Vec<String>,
    minority_dags: Vec<MinorityDag>,
    /// The differential check's verdict (`run --differential`): how the
    /// engines' results differ, or that they agree.
    engines: Option<String>,
    /// Whether they differ.
    engines_differ: bool,
}

/// The section: run-wide lines, then a row per question that has any evidence.
#[derive(Debug, Serialize)]
pub struct TrustView {
    lines: Vec<String>,
    rows: Vec<TrustRow>,
    /// Whether the run checked its DAGs on both engines (the engines column).
    differential: bool,
}

fn checks(metamorphic: &Metamorphic) -> Vec<CheckView> {
    metamorphic
        .checks
        .iter()
        .map(|c| CheckView {
            transform: c.transform.label(),
            relation: c.relation.label(),
            answer: c.answer.as_ref().map_or("—".to_string(), |a| preview(a, ANSWER_CHARS)),
            class: if c.broken {
                "broken"
            } else if c.informational {
                "informational"
            } else {
                "holds"
            },
            note: c.note.clone().unwrap_or_default(),
        })
        .collect()
}

/// The DAGs of `epoch`'s drafts outside the consensus majority: each draft's
/// latest attempt's last iteration that has one.
fn minority_dags(q: &QuestionState, epoch: u32, consensus: &Consensus) -> Vec<MinorityDag> {
    let answer = |a: &Option<serde_json::Value>| a.as_ref().map_or("no answer".into(), |a| preview(a, ANSWER_CHARS));
    consensus
        .answers
        .iter()
        .filter(|a| !a.in_majority)
        .filter_map(|a| {
            let it = q.latest_in(epoch, a.draft)?.iterations.iter().rev().find(|it| it.dag.is_some())?;
            let dag = it.dag.as_ref()?;
            Some(MinorityDag {
                draft: a.draft,
                answer: answer(&a.answer),
                plan: dag.description.clone(),
                dag: dag_picture(dag, it.feedback.as_ref()),
                nodes: dag.nodes.iter().map(|n| MinorityNode { id: n.node_id.clone(), code: n.code.clone() }).collect(),
            })
        })
        .collect()
}

/// How the engines' runs of `attempt`'s approved DAG came out, in a run that
/// checked them.
fn engines(attempt: &Attempt) -> Option<String> {
    let approved = attempt.iterations.last().and_then(|i| i.feedback.as_ref()).is_some_and(|f| f.is_approved);
    let Some(divergence) = &attempt.divergence else {
        return (approved && attempt.execution.is_some()).then(|| "both engines agree".to_string());
    };
    let said = |side: &EngineOutcome| {
        let what = match (&side.answer, &side.error) {
            (Some(answer), _) => preview(answer, ANSWER_CHARS),
            (None, Some(error)) => error.clone(),
            (None, None) => "no answer".into(),
        };
        format!("{}: {what}", side.engine)
    };
    let from = divergence.first_node.as_ref().map(|node| format!(" from node {node}")).unwrap_or_default();
    Some(format!(
        "differ ({}{from}) — {} · {}",
        divergence.kind.name(),
        said(&divergence.primary),
        said(&divergence.other)
    ))
}

fn row(q: &QuestionState, differential: bool) -> Option<TrustRow> {
    let latest = q.latest();
    let engines = latest.filter(|_| differential).and_then(engines);
    let epochs = q.epochs();
    let epochs = (epochs.len() > 1)
        .then(|| q.majority_epoch().map(|(_, agreeing)| format!("{agreeing}/{} epochs gave this answer", epochs.len())))
        .flatten();
    let checks = latest.and_then(|a| a.metamorphic.as_ref()).map(checks).unwrap_or_default();
    let consensus = latest.and_then(|a| q.consensus.get(&a.epoch));
    if epochs.is_none() && checks.is_empty() && consensus.is_none() && engines.is_none() {
        return None;
    }
    let answer = latest.and_then(|a| a.final_answer.as_ref()).map_or("—".to_string(), |a| preview(a, ANSWER_CHARS));
    Some(TrustRow {
        id: q.question.id.clone(),
        question: q.question.question.clone(),
        answer,
        epochs,
        checks,
        consensus: consensus.map(|c| {
            let agreeing = c.answers.iter().filter(|a| a.in_majority).count();
            format!("{agreeing}/{} drafts agree", c.answers.len())
        }),
        minority: consensus
            .map(|c| {
                let answer =
                    |a: &Option<serde_json::Value>| a.as_ref().map_or("no answer".into(), |a| preview(a, ANSWER_CHARS));
                c.answers
                    .iter()
                    .filter(|a| !a.in_majority)
                    .map(|a| format!("draft {}: {}", a.draft, answer(&a.answer)))
                    .collect()
            })
            .unwrap_or_default(),
        minority_dags: latest
            .zip(consensus)
            .map(|(attempt, consensus)| minority_dags(q, attempt.epoch, consensus))
            .unwrap_or_default(),
        engines_differ: latest.is_some_and(|a| a.divergence.is_some()),
        engines,
    })
}

/// The section of `state`; empty (and not drawn) when the run used none of it.
pub fn trust_view(state: &RunState) -> TrustView {
    let mut lines = Vec::new();
    if let Some(m) = metamorphic_summary(state) {
        let labels = m.against_labels.map(|l| format!("; {}", l.describe())).unwrap_or_default();
        lines.push(format!(
            "Metamorphic checks: {} of {} checked answers break an invariant ({} order dependent){labels}.",
            m.broken, m.checked, m.order_dependent
        ));
    }
    if let Some(c) = consensus_summary(state) {
        let labels = c.against_labels.map(|l| format!("; {}", l.describe())).unwrap_or_default();
        lines.push(format!(
            "Consensus of {} drafts: mean agreement {}, {} of {} questions unanimous{labels}.",
            c.k,
            percent(Some(c.mean_agreement)),
            c.unanimous,
            c.questions
        ));
    }
    let differential = differential_summary(state);
    if let Some(d) = &differential {
        let python = state.settings.as_ref().and_then(|s| s.python.as_ref());
        let python = python.map(|p| format!(" (CPython {})", p.version)).unwrap_or_default();
        lines.push(format!(
            "Engines{python}: {} of {} approved DAGs give different results on RustPython and CPython \
             ({} answer, {} order, {} error text, {} outcome).",
            d.diverged, d.checked, d.kinds.answer, d.kinds.order, d.kinds.error_text, d.kinds.outcome
        ));
    }
    let rows = state.questions.iter().filter_map(|q| row(q, differential.is_some())).collect();
    TrustView { lines, rows, differential: differential.is_some() }
}
