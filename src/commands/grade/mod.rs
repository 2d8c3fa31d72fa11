//! `eval-dag grade RESULTS_OR_TRACE`: grade every answer of a finished run
//! again, without re-running anything — against expected answers with the
//! run's matching options (or `--match`), and with the run's judges plus any
//! `--judge`. Judge calls recorded in the trace are reused; others go to the
//! configured OpenAI-compatible server. `--repeat-judges R` judges each
//! answer R times and reports how often each judge disagrees with itself.
//! Exit 1 when an answer is wrong.

use std::process::ExitCode;
use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::Value;

use crate::cli::{GradeArgs, RoleFlags};
use crate::config::{Config, RoleConfig};
use crate::domain::{DifficultyLevel, Question, StructuredOutput};
use crate::domain::{Grade, GradingMethod};
use crate::domain::{LlmRole, ProviderKind};
use crate::grade::{Answer, Grader, JudgedAt, judge_noise, majority, summarise};
use crate::llm::{AnthropicClient, LlmClient, OpenAiClient, ReplayClient};
use crate::report::{
    Convergence, CriticScorecard, FindingsTaxonomy, convergence, findings_taxonomy, metamorphic_summary,
    scorecard_graded_by,
};
use crate::text::preview;

mod people;
use people::People;

/// The critic's scorecard in one line.
fn critic_line(card: &CriticScorecard) -> String {
    let t = &card.total;
    let agreement = t.agreement().map_or("—".into(), |a| format!("{:.0}%", a * 100.0));
    format!(
        "critic: agreement {agreement} of {} graded verdicts{} · approved {} right, {} wrong · rejected {} wrong, {} right · {} rejections kept the answer approved later · wrong rejections cost {} iterations, {} tokens",
        t.graded(),
        card.graded_by_note().map(|note| format!(" ({note})")).unwrap_or_default(),
        t.correct_approvals,
        t.wrong_approvals,
        t.correct_rejections,
        t.wrong_rejections,
        t.answer_neutral_rejections,
        card.wrong_rejection_iterations,
        card.wrong_rejection_tokens
    )
}

/// The findings taxonomy and convergence in one line.
fn findings_line(taxonomy: &FindingsTaxonomy, convergence: &Convergence) -> String {
    let most = taxonomy.groups.first().map_or(String::new(), |g| format!(", most {} ({})", g.label(), g.count));
    let run = &convergence.run;
    let approved: Vec<String> = run.approved_at.iter().enumerate().map(|(i, n)| format!("{}:{n}", i + 1)).collect();
    format!(
        "findings: {} in {} groups{most} · {} oscillations · approved at iteration {}, never {}",
        taxonomy.total_findings,
        taxonomy.groups.len(),
        taxonomy.oscillations.len(),
        approved.join(" "),
        run.never_approved
    )
}

/// Run the `grade` subcommand.
pub fn run(args: GradeArgs) -> anyhow::Result<ExitCode> {
    let trace_file = super::report::trace_path(&args.input)?;
    let trace = super::recorded::read_trace(&trace_file)?;
    let (state, mut llm) = super::recorded::fold_recorded(&trace)?;
    let people = People::of(&trace_file, &state, &trace.header.created_at);
    let mut grading = trace.header.settings.grading.clone();
    if let Some(options) = args.match_options {
        grading.match_options = options;
    }
    // The run's judges keep their places so their recorded calls still match.
    for judge in args.judges {
        if !grading.judges.contains(&judge) {
            grading.judges.push(judge);
        }
    }
    let grader = Grader::from_settings(&grading)?;
    if grader.has_judges() {
        llm = with_judge_model(llm, &args.roles, args.structured)?;
    }
    let llm: Arc<dyn LlmClient> = Arc::new(llm);
    let runtime = tokio::runtime::Runtime::new()?;
    let no_outputs = IndexMap::new();
    let mut graded: Vec<(DifficultyLevel, Vec<Grade>)> = Vec::new();
    let mut decided: Vec<bool> = Vec::new();
    let mut judged_repeatedly: Vec<Vec<Vec<Grade>>> = Vec::new();
    for q in &state.questions {
        let Some(attempt) = q.latest() else { continue };
        let answer = attempt.final_answer.as_ref();
        let outputs = attempt.execution.as_ref().map_or(&no_outputs, |e| &e.node_outputs);
        let subject = Answer { value: answer, narrative: attempt.narrative.as_deref(), node_outputs: outputs };
        let judged = JudgedAt::final_answer(attempt.at(&q.question.id));
        let repeats: Vec<Vec<Grade>> = (1..=args.repeat_judges)
            .map(|repeat| {
                let at = judged.clone().repeated(repeat);
                runtime.block_on(grader.grade(&q.question, &subject, &at, llm.as_ref()))
            })
            .collect();
        let mut grades = majority(&repeats);
        if args.repeat_judges > 1 && !grades.is_empty() {
            judged_repeatedly.push(repeats.clone());
        }
        // No expected answer: what people said of the answer grades it, ahead of the judges.
        let by_people = match answer.is_some() && q.question.expected_answer.is_none() {
            true => people.grade(&q.question.id),
            false => None,
        };
        if let Some(grade) = &by_people {
            grades.insert(0, grade.clone());
        } else if let Some(line) = people.contradiction(&q.question.id, &grades) {
            say!("{line}");
        }
        // No expected answer, no review and no judge: a person's label of the answer is the ground truth.
        if grades.is_empty()
            && answer.is_some()
            && let Some(label) = attempt.iterations.last().and_then(|it| it.label())
        {
            let score = if label.right { 1.0 } else { 0.0 };
            grades.push(Grade::scored(
                GradingMethod::Label,
                score,
                1.0,
                format!("labelled by a person: {}", label.reason),
            ));
        }
        if grades.is_empty() {
            continue;
        }
        print_grades(&q.question, answer, &grades, &repeats, args.repeat_judges);
        decided.push(by_people.map_or(grades.iter().all(|g| g.passed), |grade| grade.passed));
        graded.push((q.question.difficulty_level, grades));
    }
    if graded.is_empty() {
        say!("nothing to grade: no question of this run has an expected answer, and no judge was given");
        return Ok(ExitCode::SUCCESS);
    }
    print_summary(&graded, &judged_repeatedly, args.repeat_judges);
    if let Some(line) = people.line() {
        say!("{line}");
    }
    say!("{}", critic_line(&scorecard_graded_by(&state, &grader)));
    say!("{}", findings_line(&findings_taxonomy(&state), &convergence(&state)));
    if let Some(line) = crate::report::baselines_line(&state) {
        say!("{line}");
    }
    if let Some(checks) = metamorphic_summary(&state) {
        let labels = checks.against_labels.map(|l| format!(" · {}", l.describe())).unwrap_or_default();
        say!(
            "metamorphic: {} of {} checked answers break an invariant ({} order dependent){labels}",
            checks.broken,
            checks.checked,
            checks.order_dependent
        );
    }
    Ok(if decided.iter().all(|right| *right) { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The recorded responses with the judge role's model behind them, for judge
/// calls the trace does not hold.
fn with_judge_model(
    mut llm: ReplayClient,
    roles: &RoleFlags,
    structured: Option<StructuredOutput>,
) -> anyhow::Result<ReplayClient> {
    let config = Config::load(None)?;
    // Judges need a model: the judge role's provider (openai-compatible
    // unless the config file names anthropic) and server.
    let provider = config.roles.get(LlmRole::Judge).and_then(|r| r.provider).or(config.llm.provider);
    let provider = provider.filter(|p| *p != ProviderKind::Offline).unwrap_or(ProviderKind::Openai);
    // The provider worked out here decides, as a role's own choice would.
    let mut choice = roles.choice(LlmRole::Judge, None);
    choice.own.provider = Some(provider);
    let mut role = config.role_config(LlmRole::Judge, choice, |name| std::env::var(name).ok());
    if let (Ok(role), Some(level)) = (&mut role, structured) {
        role.ask_structured(level);
    }
    match role {
        Ok(RoleConfig { openai: Some(settings), .. }) => {
            llm = llm.with_fallback(Arc::new(OpenAiClient::new(settings)?));
        }
        Ok(RoleConfig { anthropic: Some(settings), .. }) => {
            llm = llm.with_fallback(Arc::new(AnthropicClient::new(settings)?));
        }
        _ => {}
    }
    Ok(llm)
}

/// One line per grade of `question`'s answer; with repeated judgements, how
/// many of them passed.
fn print_grades(question: &Question, answer: Option<&Value>, grades: &[Grade], repeats: &[Vec<Grade>], repeat: u32) {
    let answer_text = answer.map(|a| preview(a, 20)).unwrap_or_else(|| "nothing".into());
    for (index, grade) in grades.iter().enumerate() {
        let votes = match repeats.iter().filter_map(|r| r.get(index)).filter(|g| g.passed).count() {
            _ if repeat == 1 || grade.method.is_deterministic() => String::new(),
            passed => format!(" ({passed}/{repeat} judgements passed)"),
        };
        let mark = match (&grade.error, grade.passed) {
            (Some(_), _) => "?",
            (None, true) => "✓",
            (None, false) => "✗",
        };
        let expected = question.expected_answer.as_ref().map_or_else(|| "—".into(), |e| preview(e, 20));
        say!(
            "{:<8} {:<6} {mark} {:<16} expected {expected:<20} got {answer_text:<20} {}{votes}",
            question.id,
            question.difficulty_level.as_str(),
            grade.method,
            grade.error.as_deref().unwrap_or(&grade.reason)
        );
    }
}

/// Each method's accuracy, overall and by difficulty, and the judges' noise.
fn print_summary(graded: &[(DifficultyLevel, Vec<Grade>)], judged_repeatedly: &[Vec<Vec<Grade>>], repeat: u32) {
    let summary = summarise(graded.iter().map(|(level, grades)| (*level, grades.as_slice())));
    for (method, accuracy) in &summary.overall {
        let mut line = format!("{method}: {}", accuracy.describe());
        for (level, methods) in &summary.by_difficulty {
            if let Some(of_level) = methods.get(method) {
                line.push_str(&format!(" · {} {}", level.as_str(), of_level.describe()));
            }
        }
        say!("{line}");
    }
    for noise in judge_noise(judged_repeatedly) {
        say!("noise over {repeat} judgements: {}", noise.describe());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::test_run::run_with_oscillation;

    #[test]
    fn the_findings_line_counts_groups_oscillations_and_approvals() {
        let state = run_with_oscillation();
        assert_eq!(
            findings_line(&findings_taxonomy(&state), &convergence(&state)),
            "findings: 6 in 4 groups, most structural · unknown_field (2) · 2 oscillations · approved at iteration 1:0 2:1 3:0 4:1, never 1"
        );
    }
}
