//! Serde types shared by every part of eval-dag.
//!
//! Field names follow the base JSON formats (ARCHITECTURE.md, "Decisions the
//! code relies on") so files in them load unchanged; fields we add are
//! optional on input and unknown fields are ignored.
//!
//! Parts:
//! - Questions, DAGs, critic feedback and findings, execution results, iteration
//!   diffs.
//! - Where in a run something happened: `AttemptAt`, `IterationAt`, and
//!   `ForkedFrom` (the iteration a fork began from).
//! - `Rule`: the rule a finding is filed under.
//! - `provider.rs`: `ProviderKind`, the providers a user can choose, and
//!   `Provider`, the one a trace records. `Rule` and `Provider` keep a name this
//!   version does not know as `Other`, and are written, compared and hashed by name
//!   through `named.rs`.
//! - The records of an LLM exchange (`CallKey`, `ChatMessage`, `TokenUsage`,
//!   `FinishReason`) and of grading (`Grade`, `GradingSettings`).
//! - `budget.rs`: `Budget`, a run's spending limits — which `BudgetLimit` a
//!   `Spend` has reached, and by how much it went over.
//! - `reply_schema.rs`: `ReplySchema`, a reply's JSON Schema generated with
//!   `schemars` from the type it is read into, and its strict form where the shape
//!   allows one; `StructuredOutput`, how far a role asks for it.
//! - `batch.rs` (`BatchId`, `BatchStatus`, a call's `custom_id`), `shard.rs`
//!   (`Shard`, `MergedShard`) and `baseline.rs` (`Baseline`, `BaselineCall`).
//! - `digest.rs`: `sha256_hex`, the one SHA-256 in hex every part writes.
//! - `engine.rs`: `Engine`, the Python that runs DAGs, `PythonRecord`, which
//!   CPython a run used, and `EngineDivergence`, where two engines' runs of a DAG differ.

mod baseline;
mod batch;
mod budget;
mod clock;
mod consensus;
mod dag;
mod diff;
mod digest;
mod engine;
mod exchange;
mod feedback;
mod grading;
mod ids;
mod location;
pub mod lossy_path;
mod metamorphic;
mod named;
mod provider;
mod question;
mod reply_schema;
mod result;
mod review;
mod rule;
pub mod shard;

pub use baseline::{Baseline, BaselineCall};
pub use batch::{BatchId, BatchStatus, custom_id};
pub use budget::{Budget, BudgetLimit, Spend};
pub use clock::{RunClock, RunClockError};
pub use consensus::{Consensus, DraftAnswer};
pub use dag::{DagEdge, DagNodeSpec, GeneratedDag};
pub use diff::{FindingFate, IterationDiff, NodeChange, code_diff};
pub use digest::{sha256_hex, sha256_hex_of};
pub use engine::{DivergenceKind, Engine, EngineDivergence, EngineOutcome, PythonRecord};
pub use exchange::{CallKey, ChatMessage, FinishReason, LlmRole, MessageRole, RoleModel, RoleModels, TokenUsage};
pub use feedback::{CriticFeedback, Finding, FindingSource, LayerValidation, Severity};
pub use grading::{Grade, GradingMethod, GradingSettings};
pub use ids::{NodeId, QuestionId};
pub use location::{AttemptAt, ForkedFrom, IterationAt, epoch_draft_prefix};
pub(crate) use location::{is_one, is_zero, one};
pub use metamorphic::{Metamorphic, MetamorphicCheck, Relation, Transform};
pub use provider::{Provider, ProviderKind};
pub use question::{DifficultyLevel, Question, Scorer};
pub use reply_schema::{ReplySchema, StructuredOutput};
pub use result::{ExecutionResult, FailureKind};
pub use review::{
    PairShown, REVIEW_VERSION, Review, ReviewItem, ReviewKind, ReviewOrder, ReviewSelection, ReviewerName, Stratum,
    Verdict, canonical_json, shown_sha256,
};
pub use rule::Rule;
pub use shard::{MergedShard, Shard};
