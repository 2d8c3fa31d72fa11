//! The response cache's file: one SQLite database (WAL journal, busy
//! timeout) that several questions of a run and several runs at once read and
//! write. A file that cannot be created is an error; a file that is not a
//! database, or stays locked, turns the cache off with one warning and the run
//! goes on uncached.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension, params};

use crate::domain::{Provider, ProviderKind, TokenUsage};

/// How long a write waits for another writer (another run) before the cache gives up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS responses (
    key BLOB PRIMARY KEY,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    response TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    hits INTEGER NOT NULL DEFAULT 0,
    usage TEXT
)";

/// The column files written before it had (their responses are served
/// without the usage they were sent with, which is then counted locally).
const USAGE_COLUMN: &str = "ALTER TABLE responses ADD COLUMN usage TEXT";

/// A response the cache served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedResponse {
    /// Its text.
    pub text: String,
    /// The tokens the call that stored it used, as its provider counted them;
    /// none in entries stored before the cache kept them.
    pub usage: Option<TokenUsage>,
}

/// The cache file cannot be created or written (bad input: the run does not start).
#[derive(Debug, thiserror::Error)]
#[error("cannot write the response cache {path}: {reason} (give another with --cache FILE, or --no-cache)")]
pub struct CacheFileError {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub reason: String,
}

/// What a cache file holds (`eval-dag cache stats`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CacheStats {
    /// Responses stored.
    pub entries: u64,
    /// Size of the file and its journal, in bytes.
    pub bytes: u64,
    /// Per model: responses stored and times served, most entries first.
    pub by_model: Vec<ModelStats>,
}

/// One model's share of a cache file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelStats {
    /// Provider.
    pub provider: Provider,
    /// Model name.
    pub model: String,
    /// Responses stored.
    pub entries: u64,
    /// Times a stored response was served.
    pub hits: u64,
}

/// One response cache file, shared by every client of a run.
pub struct ResponseCache {
    path: PathBuf,
    /// `None` once the cache is off (unreadable or locked file).
    conn: Mutex<Option<Connection>>,
    /// Why the cache went off, to tell the user once.
    warning: Mutex<Option<String>>,
}

fn now_secs() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

fn connect(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // Reads `journal_mode` back: also the first read of the file, which finds a non-database.
    conn.query_row("PRAGMA journal_mode=WAL", [], |row| row.get::<_, String>(0))?;
    // With WAL, NORMAL syncs at checkpoints only: a power cut may lose the
    // last replies stored, never the file.
    conn.execute_batch("PRAGMA synchronous=NORMAL")?;
    conn.execute(SCHEMA, [])?;
    let has_usage = conn.prepare("SELECT usage FROM responses LIMIT 0").is_ok();
    if !has_usage {
        // Another run may add it at the same moment: a duplicate column is no error.
        match conn.execute(USAGE_COLUMN, []) {
            Err(err) if !err.to_string().contains("duplicate column") => return Err(err),
            _ => {}
        }
    }
    Ok(conn)
}

impl ResponseCache {
    /// Open (or create) the cache at `path`. A file that cannot be created is
    /// an error; one SQLite cannot use gives a cache that is off, with its
    /// [`Self::warning`].
    pub fn open(path: &Path) -> Result<Self, CacheFileError> {
        let fail = |reason: String| CacheFileError { path: path.to_path_buf(), reason };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|err| fail(err.to_string()))?;
        }
        std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(|err| fail(err.to_string()))?;
        let cache = Self { path: path.to_path_buf(), conn: Mutex::new(None), warning: Mutex::new(None) };
        match connect(path) {
            Ok(conn) => *cache.conn.lock().unwrap_or_else(PoisonError::into_inner) = Some(conn),
            Err(err) => cache.turn_off(&err),
        }
        Ok(cache)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Why the cache went off, if it did (one line).
    pub fn warning(&self) -> Option<String> {
        self.warning.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    fn turn_off(&self, err: &rusqlite::Error) {
        let line = format!("the response cache {} cannot be used ({err}); going on uncached", self.path.display());
        tracing::warn!("{line}");
        *self.conn.lock().unwrap_or_else(PoisonError::into_inner) = None;
        self.warning.lock().unwrap_or_else(PoisonError::into_inner).get_or_insert(line);
    }

    /// Run `work` on the connection; an error turns the cache off. `None` when off.
    fn with<T>(&self, work: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Option<T> {
        let outcome = {
            let conn = self.conn.lock().unwrap_or_else(PoisonError::into_inner);
            work(conn.as_ref()?)
        };
        outcome.map_err(|err| self.turn_off(&err)).ok()
    }

    /// The response stored under `key`, counted as a hit.
    pub fn lookup(&self, key: &[u8]) -> Option<CachedResponse> {
        self.with(|conn| {
            let found = conn
                .query_row("SELECT response, usage FROM responses WHERE key = ?1", [key], |row| {
                    let usage = row.get::<_, Option<String>>(1)?.and_then(|text| serde_json::from_str(&text).ok());
                    Ok(CachedResponse { text: row.get(0)?, usage })
                })
                .optional()?;
            if found.is_some() {
                conn.execute("UPDATE responses SET hits = hits + 1 WHERE key = ?1", [key])?;
            }
            Ok(found)
        })
        .flatten()
    }

    /// Store `response` under `key`, sent with `usage` (a later store of the same key wins).
    pub fn store(&self, key: &[u8], provider: ProviderKind, model: &str, response: &str, usage: TokenUsage) {
        let usage = serde_json::to_string(&usage).ok();
        self.with(|conn| {
            conn.execute(
                "INSERT INTO responses (key, provider, model, response, created_at, usage)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT(key) DO UPDATE SET response = excluded.response, created_at = excluded.created_at,
                 usage = excluded.usage",
                params![key, provider.name(), model, response, now_secs(), usage],
            )
        });
    }

    /// Entries, size and hits by model; `None` when the cache is off.
    pub fn stats(&self) -> Option<CacheStats> {
        let by_model = self.with(|conn| {
            let mut statement = conn.prepare(
                "SELECT provider, model, COUNT(*), COALESCE(SUM(hits), 0) FROM responses
                 GROUP BY provider, model ORDER BY COUNT(*) DESC, model",
            )?;
            let rows = statement.query_map([], |row| {
                let provider = row.get::<_, String>(0)?.into();
                Ok(ModelStats { provider, model: row.get(1)?, entries: row.get(2)?, hits: row.get(3)? })
            })?;
            rows.collect::<rusqlite::Result<Vec<_>>>()
        })?;
        let journal = |suffix: &str| {
            let mut name = self.path.as_os_str().to_owned();
            name.push(suffix);
            std::fs::metadata(PathBuf::from(name)).map_or(0, |m| m.len())
        };
        let bytes = journal("") + journal("-wal");
        Some(CacheStats { entries: by_model.iter().map(|m| m.entries).sum(), bytes, by_model })
    }

    /// Delete the responses stored more than `older_than` ago and/or of
    /// `model` (every response when neither is given); how many went, `None`
    /// when the cache is off.
    pub fn prune(&self, older_than: Option<Duration>, model: Option<&str>) -> Option<usize> {
        let before = older_than.map_or(i64::MAX, |age| now_secs() - age.as_secs() as i64);
        self.with(|conn| {
            let deleted = conn.execute(
                "DELETE FROM responses WHERE created_at <= ?1 AND (?2 IS NULL OR model = ?2)",
                params![before, model],
            )?;
            conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE); VACUUM;")?;
            Ok(deleted)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(prompt_tokens: u64, completion_tokens: u64) -> TokenUsage {
        TokenUsage { prompt_tokens, completion_tokens, ..TokenUsage::default() }
    }

    #[test]
    fn a_response_comes_back_with_its_usage_and_a_file_from_before_gains_the_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.sqlite");
        let old = Connection::open(&path).unwrap();
        old.execute_batch(
            "CREATE TABLE responses (key BLOB PRIMARY KEY, provider TEXT NOT NULL, model TEXT NOT NULL,
             response TEXT NOT NULL, created_at INTEGER NOT NULL, hits INTEGER NOT NULL DEFAULT 0);
             INSERT INTO responses (key, provider, model, response, created_at) VALUES (x'6f6c64', 'openai', 'm', 'before', 1);",
        )
        .unwrap();
        drop(old);
        let cache = ResponseCache::open(&path).unwrap();
        assert_eq!(cache.lookup(b"old"), Some(CachedResponse { text: "before".into(), usage: None }));
        cache.store(b"new", ProviderKind::Openai, "m", "after", usage(120, 30));
        assert_eq!(cache.lookup(b"new"), Some(CachedResponse { text: "after".into(), usage: Some(usage(120, 30)) }));
        assert!(cache.warning().is_none());
        let again = ResponseCache::open(&path).unwrap();
        assert_eq!(again.lookup(b"new").and_then(|r| r.usage), Some(usage(120, 30)), "the column is added once");
    }

    #[test]
    fn stores_serves_counts_and_prunes_by_model() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ResponseCache::open(&dir.path().join("nested/cache.sqlite")).unwrap();
        assert_eq!(cache.lookup(b"k1"), None);
        cache.store(b"k1", ProviderKind::Openai, "m1", "one", usage(5, 2));
        cache.store(b"k2", ProviderKind::Openai, "m2", "two", usage(1, 1));
        assert_eq!(cache.lookup(b"k1").map(|r| r.text).as_deref(), Some("one"));
        assert_eq!(cache.lookup(b"k1").map(|r| r.text).as_deref(), Some("one"));
        let stats = cache.stats().unwrap();
        assert_eq!(stats.entries, 2);
        assert!(stats.bytes > 0);
        let m1 = stats.by_model.iter().find(|m| m.model == "m1").unwrap();
        assert_eq!((m1.entries, m1.hits, &m1.provider), (1, 2, &Provider::from("openai")));
        assert_eq!(cache.prune(Some(Duration::from_secs(86_400)), None), Some(0), "nothing is a day old");
        assert_eq!(cache.prune(None, Some("m2")), Some(1));
        assert_eq!(cache.lookup(b"k2"), None);
        assert_eq!(cache.lookup(b"k1").map(|r| r.text).as_deref(), Some("one"));
        assert!(cache.warning().is_none());
    }

    #[test]
    fn a_file_that_is_not_a_database_turns_the_cache_off_with_one_warning() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache.sqlite");
        std::fs::write(&path, vec![b'x'; 8192]).unwrap();
        let cache = ResponseCache::open(&path).unwrap();
        cache.store(b"k", ProviderKind::Openai, "m", "text", usage(1, 1));
        assert_eq!(cache.lookup(b"k"), None);
        let warning = cache.warning().expect("a warning");
        assert!(warning.contains("cache.sqlite") && warning.contains("uncached"), "{warning}");
        assert!(!warning.contains('\n'));
    }

    #[test]
    fn a_path_that_cannot_be_created_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, "").unwrap();
        let err = ResponseCache::open(&blocker.join("cache.sqlite")).err().expect("an error");
        assert!(err.to_string().contains("cannot write the response cache"), "{err}");
    }
}
