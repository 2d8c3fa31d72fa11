//! `eval_results.json` written into a run directory: streamed from the run's
//! state through a temporary file renamed into place, with the reviews of the
//! run (or of its sources) added when there are any.

use std::io::BufWriter;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::report::write_eval_results;
use crate::run::RunState;

/// Write `eval_results.json` into `out`, streamed as it is built, through a
/// temporary file renamed into place: a results file already there is replaced
/// only by a whole one. When the run has reviews (its own or its sources'),
/// the file is read back and written again with `summary.reviews`.
pub fn write_results(out: &Path, state: &RunState) -> anyhow::Result<PathBuf> {
    let path = out.join("eval_results.json");
    let partial = out.join("eval_results.json.partial");
    let replace = |write: &dyn Fn(&mut BufWriter<std::fs::File>) -> anyhow::Result<()>| -> anyhow::Result<()> {
        let mut file = BufWriter::new(std::fs::File::create(&partial)?);
        write(&mut file)?;
        file.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&partial, &path)?;
        Ok(())
    };
    let generated_at = chrono::Utc::now().to_rfc3339();
    replace(&|file| Ok(write_eval_results(file, state, &generated_at)?))
        .with_context(|| format!("cannot write {}", path.display()))?;
    if crate::report::has_reviews(out) {
        let mut doc = crate::report::load_results(&path)?;
        let reviews = crate::report::read_reviews(out, &doc);
        doc.summary.reviews = Some(crate::report::agreement_report(&doc, &reviews, None));
        replace(&|file| Ok(serde_json::to_writer_pretty(file, &doc)?))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(path)
}
