//! The decision-tree judge: task nodes turn the question, answer and node
//! outputs into something to judge, judgement nodes pick a verdict, verdict
//! leaves score 0-10 (or lead to a further node).
//!
//! Traversal: the root is reached; a task node that ran reaches all its
//! children, a judgement node reaches only the verdict it chose, a reached
//! verdict reaches its child. A node runs once every parent has settled (ran or
//! was skipped) and at least one parent reached it, so nodes run in topological
//! order and independent branches run concurrently. A node is shown the
//! labelled outputs of every task node among its ancestors that ran.
//!
//! **Deterministic score.** Several verdict leaves can be reached (a task node
//! with several children opens parallel branches). The judge's score is the
//! *minimum* leaf score over all reached leaves, ties broken by the smallest
//! node id: a judge is only as good as its harshest reached criterion. The
//! graph is built with nodes and children sorted by id, so neither declaration
//! order nor the order in which LLM replies arrive changes the result.

use std::fmt;

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use minijinja::context;
use petgraph::Direction;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{Dfs, Reversed};
use schemars::JsonSchema;
use serde_json::Value;

use super::judge_prompts::{JudgeCall, JudgeError, JudgeInput};
use super::judged::{Outcome, Verdict};
use crate::domain::ReplySchema;
use crate::text::one_line;

/// A task node's reply.
#[derive(JsonSchema)]
#[allow(dead_code, reason = "the reply's shape, for its schema; the reply is read leniently")]
struct TaskReply {
    /// What the task asked for.
    output: String,
}

/// A judgement node's reply.
#[derive(JsonSchema)]
#[allow(dead_code, reason = "the reply's shape, for its schema; the reply is read leniently")]
struct JudgementReply {
    /// One of the options offered.
    verdict: String,
    /// Why.
    reason: String,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Bool(b) => write!(f, "{b}"),
            Self::Text(s) => write!(f, "{s:?}"),
        }
    }
}

/// What a node does.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum NodeKind {
    /// Produce a labelled text for the nodes below.
    Task { instructions: String, output_label: String, inputs: Vec<JudgeInput> },
    /// Choose one of the child verdicts.
    Judgement { criteria: String, inputs: Vec<JudgeInput>, binary: bool },
    /// A reached verdict: a score, or (with a child edge) a further node.
    Verdict { verdict: Verdict, score: Option<u8> },
}

/// One node of a judge.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JudgeNode {
    /// Unique id from the judge file.
    pub id: String,
    /// What it does.
    pub kind: NodeKind,
}

/// A validated decision-tree judge (built by `judge_file`).
#[derive(Debug, Clone)]
pub struct DagJudge {
    graph: DiGraph<JudgeNode, ()>,
    root: NodeIndex,
    /// Node index → position in a topological order (keys calls, orders outputs).
    position: Vec<usize>,
}

/// How a node settled.
#[derive(Debug, Clone)]
enum State {
    Pending,
    Skipped,
    /// A reached verdict.
    Reached,
    /// A task's output.
    Output(String),
    /// A judgement's choice.
    Chose {
        child: NodeIndex,
        verdict: Verdict,
        reason: String,
    },
}

/// Characters of a judgement's reason kept in the grade's reason.
const REASON_CHARS: usize = 160;

impl DagJudge {
    /// A judge from a validated graph, its root and a topological order.
    pub(crate) fn new(graph: DiGraph<JudgeNode, ()>, root: NodeIndex, order: &[NodeIndex]) -> Self {
        let mut position = vec![usize::MAX; graph.node_count()];
        for (at, node) in order.iter().enumerate() {
            if let Some(slot) = position.get_mut(node.index()) {
                *slot = at;
            }
        }
        Self { graph, root, position }
    }

    /// Run the judge; an LLM failure or an unusable reply is an error.
    pub(crate) async fn run(&self, call: &JudgeCall<'_>) -> Result<Outcome, JudgeError> {
        let count = self.graph.node_count();
        let mut waiting: Vec<usize> =
            self.graph.node_indices().map(|n| self.graph.neighbors_directed(n, Direction::Incoming).count()).collect();
        let mut reached = vec![false; count];
        let mut state = vec![State::Pending; count];
        reached[self.root.index()] = true;
        let mut ready = vec![self.root];
        let mut running = FuturesUnordered::new();
        loop {
            while let Some(node) = ready.pop() {
                let is_verdict = matches!(self.graph[node].kind, NodeKind::Verdict { .. });
                if reached[node.index()] && !is_verdict {
                    let labelled = self.labelled_outputs(node, &state);
                    running.push(async move { (node, self.ask(call, node, labelled).await) });
                    continue;
                }
                state[node.index()] = if reached[node.index()] { State::Reached } else { State::Skipped };
                self.settle(node, &state, &mut reached, &mut waiting, &mut ready);
            }
            let Some((node, result)) = running.next().await else {
                break;
            };
            state[node.index()] = result?;
            self.settle(node, &state, &mut reached, &mut waiting, &mut ready);
        }
        self.decide(&state)
    }

    /// Mark `node`'s children reached (as its state says) and release the ready ones.
    fn settle(
        &self,
        node: NodeIndex,
        state: &[State],
        reached: &mut [bool],
        waiting: &mut [usize],
        ready: &mut Vec<NodeIndex>,
    ) {
        for child in self.graph.neighbors(node) {
            if reaches(&state[node.index()], child) {
                reached[child.index()] = true;
            }
            waiting[child.index()] = waiting[child.index()].saturating_sub(1);
            if waiting[child.index()] == 0 {
                ready.push(child);
            }
        }
    }

    /// (label, output) of every task ancestor of `node` that ran, in topological order.
    fn labelled_outputs(&self, node: NodeIndex, state: &[State]) -> Vec<(String, String)> {
        let reversed = Reversed(&self.graph);
        let mut dfs = Dfs::new(reversed, node);
        let mut ancestors = Vec::new();
        while let Some(n) = dfs.next(reversed) {
            if n != node {
                ancestors.push(n);
            }
        }
        ancestors.sort_by_key(|n| self.position(*n));
        ancestors
            .into_iter()
            .filter_map(|n| match (&self.graph[n].kind, &state[n.index()]) {
                (NodeKind::Task { output_label, .. }, State::Output(out)) => Some((output_label.clone(), out.clone())),
                _ => None,
            })
            .collect()
    }

    fn position(&self, node: NodeIndex) -> usize {
        self.position.get(node.index()).copied().unwrap_or(usize::MAX)
    }

    /// Ask the LLM to carry out a task or judgement node.
    async fn ask(
        &self,
        call: &JudgeCall<'_>,
        node: NodeIndex,
        labelled: Vec<(String, String)>,
    ) -> Result<State, JudgeError> {
        let JudgeNode { id, kind } = &self.graph[node];
        let at_node = |source: JudgeError| JudgeError::Node { id: id.clone(), source: Box::new(source) };
        let labelled: Vec<_> =
            labelled.into_iter().map(|(label, output)| context! { label => label, output => output }).collect();
        let children: Vec<(NodeIndex, Verdict)> = self
            .graph
            .neighbors(node)
            .filter_map(|c| match &self.graph[c].kind {
                NodeKind::Verdict { verdict, .. } => Some((c, verdict.clone())),
                _ => None,
            })
            .collect();
        let ctx = match kind {
            NodeKind::Task { instructions, inputs, .. } => {
                context! { kind => "task", instructions => instructions, labelled => labelled, ..call.inputs(inputs) }
            }
            NodeKind::Judgement { criteria, inputs, binary } => {
                let mut options: Vec<String> = children.iter().map(|(_, v)| v.to_string()).collect();
                options.sort();
                let kind = if *binary { "binary" } else { "non_binary" };
                context! { kind => kind, criteria => criteria, options => options, labelled => labelled, ..call.inputs(inputs) }
            }
            NodeKind::Verdict { .. } => return Ok(State::Reached),
        };
        let schema = match kind {
            NodeKind::Task { .. } => ReplySchema::of::<TaskReply>("task"),
            _ => ReplySchema::of::<JudgementReply>("judgement"),
        };
        let reply = call.ask_json(self.position(node), "dag_node.j2", &ctx, schema).await.map_err(at_node)?;
        if matches!(kind, NodeKind::Task { .. }) {
            return match reply.get("output") {
                Some(Value::String(text)) => Ok(State::Output(text.clone())),
                Some(other) => Ok(State::Output(other.to_string())),
                None => Err(at_node(JudgeError::MissingField { field: "output" })),
            };
        }
        let said = reply.get("verdict").ok_or_else(|| at_node(JudgeError::MissingField { field: "verdict" }))?;
        let reason = reply.get("reason").and_then(Value::as_str).unwrap_or_default().to_string();
        children
            .iter()
            .find(|(_, verdict)| verdict.matches(said))
            .map(|(child, verdict)| State::Chose { child: *child, verdict: verdict.clone(), reason })
            .ok_or_else(|| {
                let options: Vec<String> = children.iter().map(|(_, v)| v.to_string()).collect();
                at_node(JudgeError::UnknownVerdict { said: said.clone(), options })
            })
    }

    /// The decisive leaf (lowest score, then smallest id) and the path to it.
    fn decide(&self, state: &[State]) -> Result<Outcome, JudgeError> {
        let leaves: Vec<(u8, &str, NodeIndex)> = self
            .graph
            .node_indices()
            .filter_map(|n| match (&self.graph[n].kind, &state[n.index()]) {
                (NodeKind::Verdict { score: Some(s), .. }, State::Reached) => Some((*s, self.graph[n].id.as_str(), n)),
                _ => None,
            })
            .collect();
        let &(score, _, leaf) =
            leaves.iter().min_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1))).ok_or(JudgeError::NoScoredVerdict)?;
        let mut path = vec![leaf];
        let mut current = leaf;
        while let Some(parent) = self
            .graph
            .neighbors_directed(current, Direction::Incoming)
            .filter(|p| reaches(&state[p.index()], current))
            .min_by(|a, b| self.graph[*a].id.cmp(&self.graph[*b].id))
        {
            path.push(parent);
            current = parent;
        }
        path.reverse();
        let mut steps: Vec<String> = path
            .iter()
            .filter_map(|n| match &state[n.index()] {
                State::Output(_) => Some(self.graph[*n].id.clone()),
                State::Chose { verdict, reason, .. } => {
                    Some(format!("{}: {verdict} ({})", self.graph[*n].id, one_line(reason, REASON_CHARS)))
                }
                _ => None,
            })
            .collect();
        steps.push(format!("{score}/10"));
        let mut reason = steps.join(" → ");
        if leaves.len() > 1 {
            reason.push_str(&format!(" (lowest of {} reached verdicts)", leaves.len()));
        }
        Ok(Outcome { score: f64::from(score) / 10.0, reason })
    }
}

/// Whether a parent in `state` reaches `child`.
fn reaches(state: &State, child: NodeIndex) -> bool {
    match state {
        State::Output(_) | State::Reached => true,
        State::Chose { child: chosen, .. } => *chosen == child,
        State::Pending | State::Skipped => false,
    }
}
