//! What a run leaves behind and how people come back to it: `eval_results.json`,
//! loading finished runs, comparing two runs.

mod compare;
mod html;
mod load;
mod results;
#[cfg(test)]
mod test_run;
mod verify;

pub use compare::{Change, Row, Side, compare};
pub use html::{dag_svg, report_html};
pub use load::{fold_trace, is_trace, load_results};
pub use results::{graded_tally, results_json};
pub use verify::{Drift, VerifyReport, json_diff, verify};
