//! The report's templates through the binary: hostile text from models and
//! datasets escaped in every template that shows it, and every template
//! replaced from a user's directory (`<config dir>/eval-dag/templates/`).

use crate::common::{eval_dag, root, tui::SAMPLE};
use eval_dag::report::REPORT_TEMPLATES;

/// `eval-dag report TRACE` in `home`, the page it wrote.
fn report_of(trace: &std::path::Path, home: &std::path::Path) -> String {
    let html = home.join("report.html");
    let output = eval_dag(home).arg("report").arg(trace).arg("--out").arg(&html).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    std::fs::read_to_string(html).unwrap()
}

/// `eval-dag compare --html` of `trace` against itself in `home`, the page it wrote.
fn matrix_of(trace: &std::path::Path, home: &std::path::Path) -> String {
    let html = home.join("matrix.html");
    let output = eval_dag(home).arg("compare").arg(trace).arg(trace).arg("--html").arg(&html).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    std::fs::read_to_string(html).unwrap()
}

/// The sample trace with hostile text in the places a model or a dataset
/// fills: dataset name, model, question ids and text, the plan, node code,
/// node outputs and findings. Each payload tries to open an element, leave an
/// attribute, or reorder text with U+202E.
fn hostile_trace(dir: &std::path::Path) -> std::path::PathBuf {
    let json = |text: &str| serde_json::to_string(text).unwrap();
    let text = std::fs::read_to_string(root().join(SAMPLE)).unwrap();
    let text = text
        .replace("\"sample-data/fraud\"", &json("data/<svg onload=alert(1)>\u{202e}fraud"))
        .replace("\"scripted-model\"", &json("model\" onmouseover=\"alert(2)"))
        .replace("\"q_01\"", &json("javascript:alert(3)"))
        .replace("Which category has the highest fraud rate?", "</summary><script>alert(4)</script>\\u202eetar")
        .replace("fraud rate per category, then the highest", "<iframe src=javascript:alert(5)>")
        .replace("ZeroDivisionError: division by zero", "<img src=x onerror=alert(6)>")
        .replace(
            "\"node_outputs\":{\"count\":50000}",
            "\"node_outputs\":{\"count\":\"</pre><script>alert(7)</script>\"}",
        )
        .replace("def ", "def \\u202e ")
        .replace("\"operation\":\"count\"", "\"operation\":\"<a href='javascript:alert(8)'>\"")
        .replace("\"step\":false,", "\"step\":false,\"baselines\":true,");
    // A metamorphic check whose answer and note come from the model's code.
    let checked = serde_json::json!({"seq": 71, "t_ms": 630, "event": {"type": "metamorphic_checked",
        "at": {"question_id": "javascript:alert(3)", "attempt": 1},
        "metamorphic": {"order_dependent": true, "checks": [{"transform": "shuffle", "relation": "other",
            "answer": "<b onclick=alert(9)>", "broken": true, "informational": false,
            "note": "<script>alert(10)</script>"}]}}});
    // A second draft of q_02 outside the majority, its DAG from the model.
    let draft_2 = serde_json::json!({"question_id": "q_02", "attempt": 1, "draft": 2});
    let dag = serde_json::json!({"question_id": "q_02", "description": "<b onclick=alert(12)>",
        "nodes": [{"node_id": "count", "operation": "count", "function_name": "count",
            "inputs": {"overview": "dataset.overview"}, "expected_output_type": "int", "layer": 0,
            "code": "def count(overview):\n    return '</pre><script>alert(11)</script>'\n"}],
        "edges": [], "final_answer_node": "count"});
    let consensus = serde_json::json!({"answers": [{"draft": 1, "answer": 50000, "in_majority": true},
        {"draft": 2, "answer": "<i>x</i>", "in_majority": false}], "agreement": 0.5});
    let drafts = [
        serde_json::json!({"seq": 72, "t_ms": 631, "event": {"type": "question_started", "at": draft_2}}),
        serde_json::json!({"seq": 73, "t_ms": 632, "event": {"type": "dag_built",
            "at": {"question_id": "q_02", "attempt": 1, "draft": 2, "iteration": 1}, "dag": dag}}),
        serde_json::json!({"seq": 74, "t_ms": 633, "event": {"type": "consensus_reached", "question_id": "q_02",
            "consensus": consensus}}),
    ];
    // The hostile question answered right without the data (`run --baselines`).
    let key = serde_json::json!({"question_id": "javascript:alert(3)", "role": "baseline", "attempt": 1,
        "iteration": 0, "layer": null, "baseline": "no_data"});
    let baseline = [
        serde_json::json!({"seq": 75, "t_ms": 634, "event": {"type": "llm_call_started", "call_id": 90,
            "key": key, "provider": "openai", "model": "m", "messages": []}}),
        serde_json::json!({"seq": 76, "t_ms": 635, "event": {"type": "llm_call_finished", "call_id": 90,
            "key": key, "response": "{\"answer\": \"grocery_pos\"}", "usage": {"prompt_tokens": 1,
            "completion_tokens": 1}, "latency_ms": 1, "error": null, "retries": 0, "cost_usd": 0.0}}),
    ];
    let drafts: Vec<String> = drafts.iter().chain(&baseline).map(|line| format!("{line}\n")).collect();
    let text = format!("{text}{checked}\n{}", drafts.concat());
    let path = dir.join("hostile.trace.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

/// The part of `html` from the first `start` to the next `end` after it.
fn part<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
    let from = html.find(start).unwrap_or_else(|| panic!("{start} in the page"));
    let to = html[from..].find(end).map_or(html.len(), |n| from + n + end.len());
    &html[from..to]
}

#[test]
fn hostile_text_is_escaped_in_every_template_that_shows_it() {
    let dir = tempfile::tempdir().unwrap();
    let trace = hostile_trace(dir.path());
    let html = report_of(&trace, dir.path());
    let matrix = matrix_of(&trace, dir.path());
    for (page, name) in [(&html, "report"), (&matrix, "compare --html")] {
        for raw in
            ["<script>alert", "<svg onload", "<iframe", "<img", "onmouseover=\"", "href=\"javascript:", "\u{202e}"]
        {
            assert!(!page.contains(raw), "{raw} reached the {name} page as it is");
        }
        assert!(!page.contains("(template "), "every template rendered in the {name} page");
    }
    let dataset = "data&#x2f;&lt;svg onload=alert(1)&gt;⟨U+202E⟩fraud";
    let model = "model&quot; onmouseover=&quot;alert(2)";
    let question = "&lt;&#x2f;summary&gt;&lt;script&gt;alert(4)&lt;&#x2f;script&gt;⟨U+202E⟩etar";
    // The questions' bodies, after the sections that also draw DAGs and code (the trust section's minority drafts).
    let bodies = &html[html.find("<details class=\"question\"").expect("the questions")..];
    // One case per template: the part of the page it draws, and the hostile text it shows there.
    let cases = [
        ("report.html.j2", part(&html, "<title>", "</h1>"), dataset),
        ("summary.html.j2", part(&html, "<table class=\"roles\">", "</table>"), model),
        ("summary.html.j2", part(&html, "<summary>Run settings", "</details>"), dataset),
        ("run_charts.html.j2", part(&html, "<svg class=\"chart tokens\"", "</svg>"), "javascript:alert(3) · "),
        ("taxonomy.html.j2", part(&html, "id=\"findings-taxonomy\"", "</section>"), "href=\"#javascript:alert(3)\""),
        (
            "question_summary.html.j2",
            part(&html, "<details class=\"question\" id=\"javascript", "</summary>"),
            question,
        ),
        (
            "question_body.html.j2",
            part(&html, "<p class=\"plan\">&lt;iframe", "</p>"),
            "&lt;iframe src=javascript:alert(5)&gt;",
        ),
        (
            "question_body.html.j2",
            part(&html, "<p class=\"output\">", "</p>"),
            "&lt;&#x2f;pre&gt;&lt;script&gt;alert(7)",
        ),
        (
            "question_body.html.j2",
            part(&html, "<li class=\"finding trial-run\">", "</li>"),
            "&lt;img src=x onerror=alert(6)&gt;",
        ),
        ("question_body.html.j2", part(bodies, "<pre class=\"code\">", "</pre>"), "⟨U+202E⟩"),
        ("dag.svg.j2", part(bodies, "<svg class=\"dag\"", "</svg>"), "&lt;a href=&#x27;javascript:alert(8)&#x27;&gt;"),
        (
            "trust.html.j2",
            part(&html, "<tr class=\"minority\">", "</tr>"),
            "return &#x27;&lt;&#x2f;pre&gt;&lt;script&gt;alert(11)&lt;&#x2f;script&gt;&#x27;",
        ),
        ("trust.html.j2", part(&html, "<tr class=\"minority\">", "</tr>"), "&lt;b onclick=alert(12)&gt;"),
        ("trust.html.j2", part(&html, "<tr class=\"minority\">", "</tr>"), "&lt;i&gt;x&lt;&#x2f;i&gt;"),
        ("trust.html.j2", part(&html, "id=\"trust\"", "</section>"), "&lt;b onclick=alert(9)&gt;"),
        ("trust.html.j2", part(&html, "id=\"trust\"", "</section>"), "&lt;script&gt;alert(10)&lt;&#x2f;script&gt;"),
        ("trust.html.j2", part(&html, "id=\"trust\"", "</section>"), question),
        ("baselines.html.j2", part(&html, "id=\"baselines\"", "</section>"), question),
        ("matrix.html.j2", part(&matrix, "<table class=\"matrix\">", "</table>"), question),
        (
            "matrix.html.j2",
            part(&matrix, "<table class=\"matrix\">", "</table>"),
            "<td><code>javascript:alert(3)</code></td>",
        ),
    ];
    for (template, drawn, escaped) in cases {
        assert!(drawn.contains(escaped), "{template} shows {escaped}: {drawn}");
    }
    // The scorecard and the convergence show no text of their own from a model or a dataset:
    // question ids only, in links like the taxonomy's.
    assert!(part(&html, "id=\"critic-scorecard\"", "</section>").contains("<h2>Critic scorecard</h2>"));
    assert!(part(&html, "id=\"convergence\"", "</section>").contains("<h2>Convergence</h2>"));
}

#[test]
fn every_template_can_be_replaced_from_the_users_directory() {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("config/eval-dag/templates");
    std::fs::create_dir_all(&user).unwrap();
    for (name, source) in REPORT_TEMPLATES.built_in {
        let marker = format!("user-{name}");
        let mine = if name.ends_with(".css") || name.ends_with(".js") {
            format!("/* {marker} */{source}")
        } else if *name == "macros.html.j2" {
            source.replace("<time datetime=", &format!("<i>{marker}</i><time datetime="))
        } else {
            format!("<!-- {marker} -->{source}")
        };
        assert_ne!(&mine, source, "{name} is changed");
        std::fs::write(user.join(name), mine).unwrap();
    }
    let trace = root().join(SAMPLE);
    let html = report_of(&trace, dir.path());
    let matrix = matrix_of(&trace, dir.path());
    for (name, _) in REPORT_TEMPLATES.built_in {
        let marker = format!("user-{name}");
        let in_page = match *name {
            "matrix.html.j2" | "matrix.css" | "frontier.html.j2" => matrix.contains(&marker),
            // Opens the compressed details of a report above 1,000 questions only.
            "sections.js" => !html.contains(&marker),
            _ => html.contains(&marker),
        };
        assert!(in_page, "the user's {name} was used");
    }
    assert!(matrix.contains("user-macros.html.j2") && matrix.contains("user-report.css"), "the pages share them");
    std::fs::write(user.join("summary.html.j2"), "{% if %}").unwrap();
    let output =
        eval_dag(dir.path()).arg("report").arg(&trace).arg("--out").arg(dir.path().join("r.html")).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "a broken template stops the report");
    assert!(stderr.contains(&format!("report template {}", user.join("summary.html.j2").display())), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
}
