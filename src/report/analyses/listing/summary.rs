//! The `summary` of an `eval_results.json`, read as a stream: the document's
//! keys are read in order, every value before `summary` skipped unparsed,
//! and reading stops once the summary is read (it is the document's first
//! key as eval-dag writes it), so a results file of any size costs only its
//! summary.

use std::fmt;
use std::io::BufReader;
use std::path::Path;

use serde::Deserializer;
use serde::de::{Error, IgnoredAny, MapAccess, Visitor};

use super::figures::Figures;
use crate::report::documents::Summary;

/// What the visitor says to stop reading once it has the summary.
const STOP: &str = "summary read";

/// The figures of the results file at `path`: `Ok(None)` when there is none,
/// `Err` (one line) when it cannot be read or holds no eval-dag summary.
pub(super) fn read(path: &Path) -> Result<Option<Figures>, String> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err.to_string()),
    };
    let mut found = None;
    let mut document = serde_json::Deserializer::from_reader(BufReader::new(file));
    let read = document.deserialize_map(SummaryOnly { found: &mut found });
    match (found, read) {
        (Some(summary), _) => Ok(Some(figures(&summary))),
        (None, Err(err)) => Err(err.to_string()),
        (None, Ok(())) => Err("no summary in the document".into()),
    }
}

/// The list's figures from a results summary.
fn figures(summary: &Summary) -> Figures {
    Figures {
        benchmark: summary.benchmark.as_ref().map(|b| b.name.clone()),
        questions: Some(summary.total_questions),
        pass_rate: Some(summary.pass_rate),
        accuracy: summary.grading.accuracy,
        benchmark_accuracy: summary.benchmark.as_ref().and_then(|b| b.accuracy_by_question),
        tokens: Some(summary.tokens.total),
        cost_usd: Some(summary.cost_usd),
        cost_per_right: crate::report::analyses::frontier::summary_cost_per_right(summary),
        wall_ms: summary.elapsed_ms,
    }
}

/// Reads a results document's keys until `summary`, into `found`.
struct SummaryOnly<'a> {
    found: &'a mut Option<Summary>,
}

impl<'de> Visitor<'de> for SummaryOnly<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an eval-dag results document (an object with a summary)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == "summary" {
                *self.found = Some(map.next_value()?);
                return Err(A::Error::custom(STOP));
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}
