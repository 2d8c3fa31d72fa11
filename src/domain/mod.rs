//! Serde types shared by every part of eval-dag.
//!
//! Field names follow the base JSON formats (ARCHITECTURE.md, "Decisions the
//! code relies on") so files in them load unchanged; fields we add are
//! optional on input and unknown fields are ignored.

mod baseline;
mod batch;
mod budget;
mod consensus;
mod dag;
mod diff;
mod digest;
mod exchange;
mod feedback;
mod grading;
mod ids;
mod location;
mod metamorphic;
mod named;
mod provider;
mod question;
mod reply_schema;
mod result;
mod rule;
pub mod shard;

pub use baseline::{Baseline, BaselineCall};
pub use batch::{BatchId, BatchStatus, custom_id};
pub use budget::{Budget, BudgetLimit, Spend};
pub use consensus::{Consensus, DraftAnswer};
pub use dag::{DagEdge, DagNodeSpec, GeneratedDag};
pub use diff::{FindingFate, IterationDiff, NodeChange, code_diff};
pub use digest::{sha256_hex, sha256_hex_of};
pub use exchange::{CallKey, ChatMessage, FinishReason, LlmRole, RoleModel, RoleModels, TokenUsage};
pub use feedback::{CriticFeedback, Finding, FindingSource, LayerValidation, Severity};
pub use grading::{Grade, GradingSettings};
pub use ids::{NodeId, QuestionId};
pub use location::{AttemptAt, ForkedFrom, IterationAt, epoch_draft_prefix};
pub(crate) use location::{is_one, is_zero, one};
pub use metamorphic::{Metamorphic, MetamorphicCheck, Relation, Transform};
pub use provider::{Provider, ProviderKind};
pub use question::{DifficultyLevel, Question, Scorer};
pub use reply_schema::{ReplySchema, StructuredOutput};
pub use result::ExecutionResult;
pub use rule::Rule;
pub use shard::{MergedShard, Shard};
