//! `eval_report.html`: one self-contained file (inline CSS and SVG, a few
//! lines of inline JS, no external assets) drawn from the minijinja templates
//! of the top-level `templates/` directory, auto-escaped as HTML. Rust
//! computes only the view data: typed structs serialised into each template's
//! context. A user's directory of templates replaces the built-in ones by
//! file name, as for the prompts.
//!
//! Up to [`SECTIONS_INLINE_UP_TO`] questions the page is readable with
//! JavaScript off; above it each question's details wait compressed in the
//! page (gzip, base64) and are drawn when the question is opened.
//!
//! Its files:
//! - the report's sections: `summary_section.rs`, `benchmark_section.rs`,
//!   `baselines_section.rs`, `run_charts_section.rs`, `scorecard_section.rs`,
//!   `taxonomy_section.rs`, `convergence_section.rs`, `trust_section.rs`,
//!   `reviews_section.rs`;
//! - one question: `question_section.rs` (its summary line and details),
//!   `conversation.rs` (its calls), `dag_picture.rs` (a DAG for `dag.svg.j2`);
//! - `compare --html`: `matrix_page.rs`, with `frontier_chart.rs`;
//! - shared: `bar_chart.rs` (the bar chart every section draws with),
//!   `untrusted.rs` (text that reorders shown as code points), `compress.rs`
//!   (question bodies kept compressed above 1,000 questions).

mod bar_chart;
mod baselines_section;
mod benchmark_section;
mod compress;
mod convergence_section;
mod conversation;
mod dag_picture;
mod frontier_chart;
mod matrix_page;
mod question_section;
mod reviews_section;
mod run_charts_section;
mod scorecard_section;
mod summary_section;
mod taxonomy_section;
mod trust_section;
mod untrusted;

use std::path::Path;

use chrono::{DateTime, FixedOffset, SecondsFormat};
use minijinja::{AutoEscape, Environment};
use serde::Serialize;

use crate::render::highlight_css;
use crate::report::analyses::convergence::convergence;
use crate::report::analyses::reviews::RunReviews;
use crate::report::analyses::scorecard::{critic_scorecard, label_free_signals};
use crate::report::analyses::taxonomy::findings_taxonomy;
use crate::report::documents::EvalResults;
use crate::run::{QuestionState, RunState};
use crate::templating::{TemplateError, TemplateSet};
use crate::text::thousands;
use question_section::{CodeHtml, QuestionSummary, question_body, question_summary};

/// The report's templates: built in, each replaced by a same-named file in
/// `$EVAL_DAG_TEMPLATES` or `<config dir>/eval-dag/templates/`.
pub const REPORT_TEMPLATES: TemplateSet = TemplateSet {
    set: "report",
    directory: "templates",
    env_var: "EVAL_DAG_TEMPLATES",
    built_in: &[
        ("report.html.j2", include_str!("../../../templates/report.html.j2")),
        ("macros.html.j2", include_str!("../../../templates/macros.html.j2")),
        ("summary.html.j2", include_str!("../../../templates/summary.html.j2")),
        ("benchmark.html.j2", include_str!("../../../templates/benchmark.html.j2")),
        ("baselines.html.j2", include_str!("../../../templates/baselines.html.j2")),
        ("run_charts.html.j2", include_str!("../../../templates/run_charts.html.j2")),
        ("scorecard.html.j2", include_str!("../../../templates/scorecard.html.j2")),
        ("taxonomy.html.j2", include_str!("../../../templates/taxonomy.html.j2")),
        ("convergence.html.j2", include_str!("../../../templates/convergence.html.j2")),
        ("trust.html.j2", include_str!("../../../templates/trust.html.j2")),
        ("reviews.html.j2", include_str!("../../../templates/reviews.html.j2")),
        ("question_summary.html.j2", include_str!("../../../templates/question_summary.html.j2")),
        ("question_body.html.j2", include_str!("../../../templates/question_body.html.j2")),
        ("dag.svg.j2", include_str!("../../../templates/dag.svg.j2")),
        ("matrix.html.j2", include_str!("../../../templates/matrix.html.j2")),
        ("frontier.html.j2", include_str!("../../../templates/frontier.html.j2")),
        ("report.css", include_str!("../../../templates/report.css")),
        ("matrix.css", include_str!("../../../templates/matrix.css")),
        ("filters.js", include_str!("../../../templates/filters.js")),
        ("sections.js", include_str!("../../../templates/sections.js")),
    ],
};

/// Up to this many questions every section is in the page; above it a
/// section's body is drawn when it is first opened.
const SECTIONS_INLINE_UP_TO: usize = 1000;

/// The compiled report templates.
#[derive(Debug)]
pub struct ReportTemplates {
    env: Environment<'static>,
}

impl ReportTemplates {
    /// The built-in templates, each replaced by a same-named file in `dir` when present.
    pub fn load(dir: Option<&Path>) -> Result<Self, TemplateError> {
        let mut env = Environment::new();
        // HTML and SVG are escaped; the style sheets and scripts are the templates' own text.
        env.set_auto_escape_callback(|name| match name.ends_with(".css") || name.ends_with(".js") {
            true => AutoEscape::None,
            false => AutoEscape::Html,
        });
        // Block tags on lines of their own leave no blank lines behind.
        let syntax = minijinja::syntax::SyntaxConfig::builder().trim_blocks(true).lstrip_blocks(true).build();
        env.set_syntax(syntax.map_err(|err| TemplateError {
            set: REPORT_TEMPLATES.set,
            path: "(syntax)".into(),
            message: err.to_string(),
        })?);
        env.set_formatter(untrusted::write_value);
        REPORT_TEMPLATES.load_into(&mut env, dir)?;
        Ok(Self { env })
    }

    /// The built-in templates, compiled once per process.
    #[allow(clippy::expect_used, reason = "the built-in templates, which the tests compile")]
    pub fn built_in() -> &'static Self {
        static BUILT_IN: std::sync::OnceLock<ReportTemplates> = std::sync::OnceLock::new();
        BUILT_IN.get_or_init(|| Self::load(None).expect("the built-in report templates compile"))
    }

    /// Template `name` rendered with `view` as its context; a template that
    /// fails (a user's, referring to what is not there) leaves its error in the page.
    fn render(&self, name: &str, view: &impl Serialize) -> String {
        let rendered = self.env.get_template(name).and_then(|t| t.render(minijinja::value::Serde(view)));
        rendered.unwrap_or_else(|err| {
            format!(
                "<p class=\"reason\">(template {} failed: {})</p>",
                minijinja::HtmlEscape(name),
                minijinja::HtmlEscape(&err.to_string())
            )
        })
    }

    /// `source` rendered as a template of this set with `ctx`.
    #[cfg(test)]
    pub fn render_str(&self, source: &str, ctx: minijinja::Value) -> String {
        let mut env = self.env.clone();
        env.add_template_owned("test.html.j2", source.to_string()).unwrap();
        env.get_template("test.html.j2").unwrap().render(ctx).unwrap()
    }
}

/// When a page was generated: RFC 3339 and, for people, local time and its zone to the second.
#[derive(Debug, Serialize)]
struct Stamp {
    rfc3339: String,
    shown: String,
}

impl Stamp {
    fn of(at: &DateTime<FixedOffset>) -> Self {
        Self {
            rfc3339: at.to_rfc3339_opts(SecondsFormat::Secs, false),
            shown: at.format("%Y-%m-%d %H:%M:%S UTC%:z").to_string(),
        }
    }
}

/// How long the run took: its recorded wall time, or up to its last event when unfinished.
fn run_time(state: &RunState) -> String {
    match &state.summary {
        Some(summary) => format!("the run took {}", crate::text::duration(summary.elapsed_ms)),
        None => format!("{} of run recorded (unfinished)", crate::text::duration(state.now_ms)),
    }
}

/// A question in the page's list: its summary, and its body when inline.
#[derive(Debug, Serialize)]
struct QuestionRow<'a> {
    #[serde(flatten)]
    summary: QuestionSummary<'a>,
    body: Option<String>,
}

/// Above [`SECTIONS_INLINE_UP_TO`] questions: the compressed bodies.
#[derive(Debug, Serialize)]
struct LazyBodies {
    questions: String,
    inline_up_to: String,
    chunk_size: usize,
    chunks: Vec<String>,
}

/// The whole page.
#[derive(Debug, Serialize)]
struct ReportPage<'a> {
    title: String,
    highlight_css: String,
    generated: Stamp,
    run_time: String,
    summary: summary_section::SummaryView<'a>,
    benchmark: Option<benchmark_section::BenchmarkView>,
    baselines: Option<baselines_section::BaselinesView>,
    run_charts: run_charts_section::RunCharts,
    scorecard: scorecard_section::ScorecardView<'a>,
    taxonomy: taxonomy_section::TaxonomyView<'a>,
    convergence: convergence_section::ConvergenceView<'a>,
    trust: trust_section::TrustView,
    reviews: Option<reviews_section::ReviewsView>,
    questions: Vec<QuestionRow<'a>>,
    lazy: Option<LazyBodies>,
}

/// The context of `question_body.html.j2`.
#[derive(Serialize)]
struct BodyContext<'a> {
    body: question_section::QuestionBody<'a>,
}

impl ReportTemplates {
    /// The body of question `q`.
    fn question_body(&self, state: &RunState, q: &QuestionState, code_html: &mut CodeHtml) -> String {
        self.render("question_body.html.j2", &BodyContext { body: question_body(state, q, code_html) })
    }

    /// `draw` applied to each group of `group` questions in turn, on every
    /// core (bodies are mostly highlighting code), results in order.
    fn in_parallel(
        &self,
        questions: &[&QuestionState],
        group: usize,
        draw: impl Fn(&[&QuestionState], &mut CodeHtml) -> String + Sync,
    ) -> Vec<String> {
        let groups: Vec<&[&QuestionState]> = questions.chunks(group).collect();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let share = groups.len().div_ceil(cores).max(1);
        std::thread::scope(|scope| {
            let workers: Vec<_> = groups
                .chunks(share)
                .map(|part| {
                    let draw = &draw;
                    // Code is highlighted once per group: unchanged nodes repeat across a
                    // question's iterations and attempts, rarely across questions.
                    scope.spawn(move || part.iter().map(|g| draw(g, &mut CodeHtml::default())).collect::<Vec<_>>())
                })
                .collect();
            let drawn = workers.into_iter().map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
            drawn.flatten().collect()
        })
    }

    /// The whole report of `state`, stamped `generated_at`.
    pub fn report_html(&self, state: &RunState, generated_at: &DateTime<FixedOffset>) -> String {
        self.reviewed_report_html(state, generated_at, None)
    }

    /// The whole report of `state`, stamped `generated_at`, with a section on
    /// `reviewed`: the run's results and people's reviews of them.
    pub fn reviewed_report_html(
        &self,
        state: &RunState,
        generated_at: &DateTime<FixedOffset>,
        reviewed: Option<(&EvalResults, &RunReviews)>,
    ) -> String {
        let title = state
            .settings
            .as_ref()
            .map_or("eval-dag report".to_string(), |s| format!("eval-dag · {}", s.dataset_dir.display()));
        let all: Vec<&QuestionState> = state.questions.iter().collect();
        let (mut bodies, lazy) = match all.len() <= SECTIONS_INLINE_UP_TO {
            true => (self.in_parallel(&all, 1, |g, code| self.question_body(state, g[0], code)), None),
            false => {
                let chunks = self.in_parallel(&all, compress::CHUNK, |g, code| {
                    // In memory, so it cannot fail; if it did, those questions would open empty.
                    compress::chunk(g.iter().map(|q| self.question_body(state, q, code))).unwrap_or_else(|err| {
                        tracing::warn!("question bodies left out of the report: {err}");
                        String::new()
                    })
                });
                let lazy = LazyBodies {
                    questions: thousands(state.questions.len() as u64),
                    inline_up_to: thousands(SECTIONS_INLINE_UP_TO as u64),
                    chunk_size: compress::CHUNK,
                    chunks,
                };
                (Vec::new(), Some(lazy))
            }
        };
        bodies.reverse();
        let questions =
            state.questions.iter().map(|q| QuestionRow { summary: question_summary(q), body: bodies.pop() }).collect();
        let (card, taxonomy, converged) = (critic_scorecard(state), findings_taxonomy(state), convergence(state));
        // Every question's baselines, graded once for the summary and the baselines section.
        let answers = crate::report::analyses::baselines::question_baselines(state);
        let page = ReportPage {
            title,
            highlight_css: highlight_css(),
            generated: Stamp::of(generated_at),
            run_time: run_time(state),
            summary: summary_section::summary_view(state, &answers),
            benchmark: benchmark_section::benchmark_view(state),
            baselines: baselines_section::baselines_view(state, &answers),
            run_charts: run_charts_section::questions_charts(state),
            scorecard: scorecard_section::scorecard_view(&card, label_free_signals(state)),
            taxonomy: taxonomy_section::taxonomy_view(&taxonomy),
            convergence: convergence_section::convergence_view(&converged),
            trust: trust_section::trust_view(state),
            reviews: reviewed.and_then(|(doc, reviews)| reviews_section::reviews_view(doc, reviews)),
            questions,
            lazy,
        };
        self.render("report.html.j2", &page)
    }
}

/// The whole report of `state` with the built-in templates, stamped `generated_at`.
pub fn report_html(state: &RunState, generated_at: &DateTime<FixedOffset>) -> String {
    ReportTemplates::built_in().report_html(state, generated_at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::AttemptAt;
    use crate::report::test_run::run_with_one_pass_and_one_exhausted;
    use crate::run::{EngineEvent, Outcome};

    fn now() -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339("2026-11-25T04:05:12.123456789+01:00").unwrap()
    }

    #[test]
    fn the_report_is_self_contained_and_shows_every_question_iteration_and_node() {
        let state = run_with_one_pass_and_one_exhausted();
        let now = now();
        let html = report_html(&state, &now);
        assert!(!html.contains("http://") && !html.contains("https://"), "no external references");
        assert!(!html.contains("<link") && !html.contains("src="), "no external assets");
        for q in &state.questions {
            assert!(html.contains(&format!("id=\"{}\"", q.question.id)), "{} has a section", q.question.id);
        }
        assert!(html.contains("Iteration 1"));
        assert!(html.contains("<code>a</code>"), "node a is shown");
        assert!(html.contains("<pre class=\"code\"><span class=\"c"), "its code highlighted, as markup: {html}");
        assert!(!html.contains("(template "), "every template rendered: {html}");
        assert!(html.contains("<svg class=\"dag\""));
        assert!(html.contains("50%</b>pass rate"));
        assert!(html.contains("Per question: <b>"), "tokens per question are in the summary");
        assert!(html.contains("<p class=\"spend\">"), "each question shows its tokens and cost");
        assert!(!html.contains("cancelled (resumable)"), "no card for what did not happen");
        let mut stopped = state.clone();
        stopped.apply(
            20,
            &EngineEvent::QuestionStarted { at: AttemptAt::new("q_02", 2), forked_from: None, by_hand: false },
        );
        let cancel = EngineEvent::QuestionFinished {
            at: AttemptAt::new("q_02", 2),
            outcome: Outcome::Cancelled,
            iterations: 1,
            final_answer: None,
            reason: Some("cancelled".into()),
        };
        stopped.apply(21, &cancel);
        assert!(report_html(&stopped, &now).contains("<b>1</b>cancelled (resumable)"), "a stopped run says so");
        assert!(!html.contains("</b>unfinished"), "a finished run has no unfinished card");
        let killed = report_html(&crate::report::test_run::run_stopped_after(6, 2), &now);
        assert!(killed.contains("<b>4</b>unfinished") && killed.contains("<b>0</b>failed"), "{killed}");
        // q_0002 to q_0006 are hard: q_0002 exhausted, the others never finished.
        assert!(killed.contains("<tr><td>hard</td><td>5</td><td>0</td><td>1</td><td>4</td>"), "{killed}");
        assert!(
            html.contains(
                "Generated <time datetime=\"2026-11-25T04:05:12+01:00\">2026-11-25 04:05:12 UTC+01:00</time>"
            ),
            "a stamp for people: {html}"
        );
        assert!(!html.contains("04:05:12.123"), "no nanoseconds");
        assert_eq!(
            (thousands(0), thousands(999), thousands(1000), thousands(3_600_000)),
            ("0".into(), "999".into(), "1,000".into(), "3,600,000".into())
        );
    }

    #[test]
    fn the_report_charts_difficulties_and_questions_and_says_how_long_the_run_took() {
        let state = run_with_one_pass_and_one_exhausted();
        let html = report_html(&state, &now());
        let chart = |class: &str| {
            let start = html.find(&format!("<svg class=\"chart {class}\"")).unwrap_or_else(|| panic!("{class} chart"));
            html[start..start + html[start..].find("</svg>").unwrap()].to_string()
        };
        let difficulty = chart("difficulty");
        assert!(difficulty.contains("medium · pass rate</text><rect class=\"good\""), "{difficulty}");
        assert!(
            difficulty.contains("100% (1&#x2f;1)</text>") && difficulty.contains("0% (0&#x2f;1)</text>"),
            "{difficulty}"
        );
        assert_eq!(difficulty.matches("— (no questions)").count(), 1, "no easy question: {difficulty}");
        assert_eq!(difficulty.matches("— (none graded)").count(), 3, "no expected answers: {difficulty}");
        let tokens = chart("tokens");
        assert_eq!(tokens.matches("<rect").count(), 2, "one bar per question: {tokens}");
        let (first, second) = (tokens.find("q_01 · medium").unwrap(), tokens.find("q_02 · hard").unwrap());
        assert!(first < second, "rank order: {tokens}");
        assert!(tokens.contains("<rect class=\"good\"") && tokens.contains("<rect class=\"bad\""), "{tokens}");
        assert_eq!(chart("time").matches("<rect").count(), 2);
        let stamp = &html[html.find("<p>Generated").unwrap()..];
        assert!(stamp[..stamp.find("</p>").unwrap()].ends_with(" · 0.0s of run recorded (unfinished)"), "{stamp}");
    }

    /// The bodies a large report keeps compressed, opened as the page's script would.
    fn compressed_bodies(html: &str) -> Vec<String> {
        use base64::Engine;
        use std::io::Read;
        let mut bodies = Vec::new();
        for (k, part) in html.split("<script type=\"application/x-eval-dag-sections\" id=\"chunk-").skip(1).enumerate()
        {
            let (id, rest) = part.split_once("\">").unwrap();
            assert_eq!(id, k.to_string(), "chunks in order");
            let data = &rest[..rest.find("</script>").unwrap()];
            let gzip = base64::engine::general_purpose::STANDARD.decode(data).unwrap();
            let mut json = String::new();
            flate2::read::GzDecoder::new(&gzip[..]).read_to_string(&mut json).unwrap();
            bodies.extend(serde_json::from_str::<Vec<String>>(&json).unwrap());
        }
        bodies
    }

    #[test]
    fn above_a_thousand_questions_each_section_waits_compressed_and_is_drawn_when_opened() {
        use crate::report::test_run::run_of;
        let inline = report_html(&run_of(1000), &now());
        assert_eq!(inline.matches("<details class=\"question\"").count(), 1000);
        assert!(!inline.contains("data-body=") && !inline.contains("<noscript>"), "1,000 questions: all inline");
        assert!(!inline.contains("DecompressionStream"), "and no script to open compressed details");
        let state = run_of(1001);
        assert!(state.questions[7].question.question.starts_with("</script>"), "a question tries to end a script");
        let html = report_html(&state, &now());
        assert_eq!(html.matches("<details class=\"question\"").count(), 1001, "every question is listed");
        assert_eq!(html.matches("\"></div></details>").count(), 1001, "with an empty body");
        assert!(html.contains("<noscript><p class=\"reason\">This run has 1,001 questions: above 1,000"));
        let list_end = html.find("<script type=\"application/x-eval-dag-sections\"").unwrap();
        assert!(html[..list_end].contains("data-body=\"1000\"></div></details>"), "the list comes first");
        let bodies = compressed_bodies(&html);
        assert_eq!(bodies.len(), 1001, "every body, in ⌈1001 / {}⌉ chunks", compress::CHUNK);
        assert_eq!(
            html.matches("<script type=\"application/x-eval-dag-sections\"").count(),
            1001_usize.div_ceil(compress::CHUNK)
        );
        let templates = ReportTemplates::built_in();
        let mut code_html = CodeHtml::default();
        for (index, q) in state.questions.iter().enumerate() {
            let expected = templates.question_body(&state, q, &mut code_html);
            assert_eq!(bodies[index], expected, "body {index} whole");
            assert!(expected.starts_with("<div class=\"body\">"), "body {index}");
        }
        assert!(
            html[..list_end].contains("&lt;&#x2f;script&gt;&lt;script&gt;alert(1)"),
            "the hostile question is escaped"
        );
        assert_eq!(
            html.matches("</script>").count(),
            1001_usize.div_ceil(compress::CHUNK) + 1,
            "the chunks' and the page's own"
        );
        assert!(html.contains("addEventListener('toggle'") && html.contains("new DecompressionStream('gzip')"));
        assert!(html.contains("var size=32,"), "the script knows the chunk size");
    }

    #[test]
    fn above_a_hundred_questions_the_per_question_charts_show_ranges() {
        use crate::report::test_run::run_of;
        let bars = |html: &str, class: &str| {
            let start = html.find(&format!("<svg class=\"chart {class}\"")).unwrap();
            let svg = &html[start..start + html[start..].find("</svg>").unwrap()];
            svg.matches("<text x=\"0\"").count()
        };
        let hundred = report_html(&run_of(100), &now());
        assert_eq!((bars(&hundred, "tokens"), bars(&hundred, "time")), (100, 100), "one bar per question");
        let state = run_of(101);
        let html = report_html(&state, &now());
        assert!(html.contains("How many questions took how much"));
        let tokens_svg = &html[html.find("<svg class=\"chart tokens\"").unwrap()..];
        let tokens_svg = &tokens_svg[..tokens_svg.find("</svg>").unwrap()];
        assert_eq!(bars(&html, "tokens"), 12, "twelve ranges: {tokens_svg}");
        let counted: u64 = tokens_svg
            .split("</text>")
            .filter_map(|t| t.rsplit('>').next())
            .filter_map(|n| n.replace(',', "").parse::<u64>().ok())
            .sum();
        assert_eq!(counted, 101, "every question in one range: {tokens_svg}");
        assert!(tokens_svg.contains("<rect class=\"good\"") && tokens_svg.contains("<rect class=\"bad\""));
    }
}
