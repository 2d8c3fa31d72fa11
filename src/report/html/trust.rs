//! The view of the report's "Trust without labels" section for
//! `templates/trust.html.j2`: per question, how far its epochs agreed
//! (`run --repeat`), what its metamorphic checks saw (`run --metamorphic`)
//! and how far its drafts agreed (`run --consensus`), with the answers side
//! by side and the DAG of each minority draft.

use serde::Serialize;

use super::svg::{DagPicture, dag_picture};
use crate::domain::{Consensus, Metamorphic, NodeId, QuestionId};
use crate::report::consensus::consensus_summary;
use crate::report::metamorphic::metamorphic_summary;
use crate::run::{QuestionState, RunState};
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
}

/// The section: run-wide lines, then a row per question that has any evidence.
#[derive(Debug, Serialize)]
pub struct TrustView {
    lines: Vec<String>,
    rows: Vec<TrustRow>,
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

fn row(q: &QuestionState) -> Option<TrustRow> {
    let latest = q.latest();
    let epochs = q.epochs();
    let epochs = (epochs.len() > 1)
        .then(|| q.majority_epoch().map(|(_, agreeing)| format!("{agreeing}/{} epochs gave this answer", epochs.len())))
        .flatten();
    let checks = latest.and_then(|a| a.metamorphic.as_ref()).map(checks).unwrap_or_default();
    let consensus = latest.and_then(|a| q.consensus.get(&a.epoch));
    if epochs.is_none() && checks.is_empty() && consensus.is_none() {
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
    TrustView { lines, rows: state.questions.iter().filter_map(row).collect() }
}
