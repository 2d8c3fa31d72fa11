//! Calls sent through a provider's batch API: the batch's id as the provider
//! gave it, how a batch ended, and the `custom_id` a call carries in it.

use super::{CallKey, sha256_hex};
use serde::{Deserialize, Serialize};

/// A batch's id as the provider gave it (`batch_abc123`, `msgbatch_…`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BatchId(pub String);

impl std::fmt::Display for BatchId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for BatchId {
    fn from(id: &str) -> Self {
        Self(id.to_string())
    }
}

/// How a batch ended, in one vocabulary for every provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BatchStatus {
    /// Every line was processed (some may have failed on their own).
    Completed,
    /// The provider's window ended first: the unprocessed lines have no result.
    Expired,
    /// Cancelled (by the user, or by the provider on request).
    Cancelled,
    /// The provider refused or lost the batch as a whole.
    Failed,
}

impl BatchStatus {
    /// Human name.
    pub fn label(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Expired => "expired",
            Self::Cancelled => "cancelled",
            Self::Failed => "failed",
        }
    }
}

/// The `custom_id` of the call `key` in a batch: the lowercase hex SHA-256 of
/// the key's JSON, as the trace writes it (both providers accept 64 hex
/// characters), so a batch's result lines match their calls after a restart.
pub fn custom_id(key: &CallKey) -> String {
    sha256_hex(serde_json::to_string(key).unwrap_or_default().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::LlmRole;

    #[test]
    fn a_custom_id_is_the_hex_sha256_of_the_key_json_and_tells_keys_apart() {
        let key = CallKey::run_wide(LlmRole::QuestionGeneration);
        let json = r#"{"question_id":null,"role":"question_generation","attempt":1,"iteration":0,"layer":null}"#;
        assert_eq!(serde_json::to_string(&key).unwrap(), json);
        // python3 -c 'import hashlib; print(hashlib.sha256(JSON.encode()).hexdigest())'
        let id = custom_id(&key);
        assert_eq!(id, "99d3a590e42707b10a79024c04fa2a147ff92cb7d00c906c7fb45848b12f53a0");
        assert_ne!(custom_id(&key.repair(1)), id);
    }

    #[test]
    fn batch_statuses_are_written_in_lowercase() {
        for (status, name) in [
            (BatchStatus::Completed, "completed"),
            (BatchStatus::Expired, "expired"),
            (BatchStatus::Cancelled, "cancelled"),
            (BatchStatus::Failed, "failed"),
        ] {
            assert_eq!(serde_json::to_value(status).unwrap(), serde_json::json!(name));
            assert_eq!(status.label(), name);
        }
    }
}
