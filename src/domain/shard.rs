//! A run split into shards that run apart (`run --shard K/N`) and are merged
//! back into one run (`eval-dag merge`).

use serde::{Deserialize, Serialize};

/// Which shard of a run this one is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// 1-based place among the shards.
    pub index: u32,
    /// How many shards the run was split into.
    pub count: u32,
    /// SHA-256 of the whole question list (`questions.jsonl`) every shard shares.
    pub questions_hash: String,
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// One shard a merged run was made of (the merged trace's header `merged_from`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergedShard {
    /// The shard's trace, as given to `merge`.
    pub path: String,
    /// SHA-256 of that trace file when it was merged.
    pub sha256: String,
    /// Its 1-based shard index.
    pub shard: u32,
}
