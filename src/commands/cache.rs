//! `eval-dag cache`: what the response cache holds (`stats`) and trimming it
//! (`prune`); and opening the cache a run uses.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;

use crate::cli::{CacheAction, CacheArgs};
use crate::config::{RunConfig, default_cache_path, load_default};
use crate::domain::{LlmRole, ProviderKind};
use crate::llm::{CacheScope, CachedClient, LlmClient, ResponseCache};

/// The file `cache` works on: `file`, else `[cache] path`, else the default.
fn cache_file(file: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    match file {
        Some(file) => Ok(file),
        None => load_default()?.cache.path.or_else(default_cache_path).context("no user cache directory: name a FILE"),
    }
}

/// Open an existing cache file for `cache`; a file SQLite cannot use is an error here.
fn open_existing(path: &Path) -> anyhow::Result<Option<ResponseCache>> {
    if !path.exists() {
        return Ok(None);
    }
    let cache = ResponseCache::open(path)?;
    match cache.warning() {
        Some(warning) => anyhow::bail!(warning),
        None => Ok(Some(cache)),
    }
}

/// Run the `cache` subcommand.
pub fn run(args: CacheArgs) -> anyhow::Result<ExitCode> {
    match args.action {
        CacheAction::Stats { file } => {
            let path = cache_file(file)?;
            let Some(cache) = open_existing(&path)? else {
                say!("{}: no response cache yet", path.display());
                return Ok(ExitCode::SUCCESS);
            };
            let stats = cache.stats().with_context(|| format!("cannot read {}", path.display()))?;
            let entries = crate::text::plural(stats.entries as usize, "response");
            say!("{}: {entries}, {:.1} KiB", path.display(), stats.bytes as f64 / 1024.0);
            for model in &stats.by_model {
                let stored = crate::text::plural(model.entries as usize, "response");
                let hits = crate::text::plural(model.hits as usize, "hit");
                say!("  {}/{}: {stored}, {hits}", model.provider, model.model);
            }
        }
        CacheAction::Prune { file, older_than, model } => {
            let path = cache_file(file)?;
            let Some(cache) = open_existing(&path)? else {
                say!("{}: no response cache yet", path.display());
                return Ok(ExitCode::SUCCESS);
            };
            let age = older_than.map(|days| Duration::from_secs(u64::from(days) * 86_400));
            let deleted =
                cache.prune(age, model.as_deref()).with_context(|| format!("cannot prune {}", path.display()))?;
            say!("{}: {} deleted", path.display(), crate::text::plural(deleted, "response"));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What each role's calls are keyed with in the cache; offline roles are not cached.
fn scopes(config: &RunConfig) -> BTreeMap<LlmRole, CacheScope> {
    let scope = |role: LlmRole| {
        let settings = config.role(role);
        let ((ProviderKind::Openai, Some(http), _) | (ProviderKind::Anthropic, _, Some(http))) =
            (settings.provider, &settings.openai, &settings.anthropic)
        else {
            return None;
        };
        Some(CacheScope {
            provider: settings.provider,
            base_url: http.base_url.clone(),
            model: http.model.clone(),
            temperature: http.temperature,
            max_tokens: http.max_tokens,
            structured: http.structured,
        })
    };
    LlmRole::ALL.into_iter().filter_map(|role| Some((role, scope(role)?))).collect()
}

/// Put the run's cache at `path`, if any, in front of `llm`; the cache is
/// returned to tell of a warning at the end. A file that cannot be created is
/// an error (before any call).
pub fn with_cache(
    path: Option<&Path>,
    config: &RunConfig,
    llm: &mut Arc<dyn LlmClient>,
) -> anyhow::Result<Option<Arc<ResponseCache>>> {
    let scopes = scopes(config);
    let Some(path) = path.filter(|_| !scopes.is_empty()) else {
        return Ok(None);
    };
    let cache = Arc::new(ResponseCache::open(path)?);
    if let Some(warning) = cache.warning() {
        eprintln!("warning: {warning}");
    }
    *llm = Arc::new(CachedClient::new(llm.clone(), cache.clone(), scopes));
    Ok(Some(cache))
}
