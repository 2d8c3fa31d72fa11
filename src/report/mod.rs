//! What a run leaves behind: `eval_results.json` (and the HTML report).

mod results;

pub use results::results_json;
