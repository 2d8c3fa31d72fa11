//! One function per subcommand; each returns the process exit code.
//!
//! Exit codes: 0 success; 1 the evaluation ran but something
//! failed; 2 bad usage or bad input (an `Err` here).

use std::process::ExitCode;

use crate::cli::CliCommand;

/// `println!` for a command's output on stdout: a reader that went away
/// (`… | head`) ends the command quietly instead of a panic.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::commands::write_line(format_args!($($arg)*))
    };
}

mod baseline;
mod cache;
mod compare;
mod completions;
mod datasets;
mod derive;
mod dry_run;
mod exec;
mod export;
mod grade;
mod headless;
mod import;
mod man;
mod merge;
mod metamorphic;
mod prepare;
mod providers;
mod recritic;
mod replay_headless;
mod report;
mod run;
mod scorer_audit;
mod shard;
mod signals;
mod validate;
mod verify;

/// Run `command` and return its exit code; `Err` means bad input (exit 2).
pub fn dispatch(command: CliCommand) -> anyhow::Result<ExitCode> {
    match command {
        CliCommand::Run(args) => run::run(*args),
        CliCommand::Replay(args) if args.headless && !args.verify => replay_headless::replay(&args.trace),
        CliCommand::Replay(args) if args.verify => {
            let file = crate::config::Config::load(args.config.as_deref())?;
            let at =
                datasets::DatasetsAt { root: args.dataset_root.as_deref(), allow_outside: args.allow_outside_datasets };
            verify::run(&args.trace, file.node_timeout(args.node_timeout), at)
        }
        CliCommand::Replay(args) => derive::replay(&args),
        CliCommand::Prepare(args) => prepare::run(args),
        CliCommand::Import(args) => import::run(&args),
        CliCommand::Exec(args) => exec::run(args),
        CliCommand::Validate(args) => validate::run(args),
        CliCommand::Merge(args) => merge::run(&args),
        CliCommand::Report(args) => report::run(args),
        CliCommand::Compare(args) => compare::run(args),
        CliCommand::Grade(args) => grade::run(args),
        CliCommand::Recritic(args) => recritic::run(args),
        CliCommand::Baseline(args) => baseline::run(args),
        CliCommand::Export(args) => export::run(args),
        CliCommand::Cache(args) => cache::run(args),
        CliCommand::Completions(args) => completions::run(&args),
        CliCommand::Man(args) => man::run(&args),
        CliCommand::SandboxWorker(args) => {
            crate::sandbox::serve(&args.dataset)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Write one line of command output (see [`say!`]): a closed stdout ends the
/// process with exit 0, as other command-line tools do; any other write
/// failure is one line on stderr and exit 2.
pub fn write_line(line: std::fmt::Arguments) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let written = out.write_fmt(line).and_then(|()| out.write_all(b"\n")).and_then(|()| out.flush());
    match written {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(err) => {
            eprintln!("error: cannot write the output: {err}");
            std::process::exit(2);
        }
    }
}

/// Index the trace at `path` (its events are read as they are folded),
/// saying once on stderr what a trace of a newer version held that this
/// version skipped.
fn read_trace(path: &std::path::Path) -> Result<crate::trace::TraceLines, crate::trace::TraceError> {
    let trace = crate::trace::TraceLines::read(path)?;
    if let Some(note) = trace.newer_version_note() {
        eprintln!("note: {note}");
    }
    Ok(trace)
}

/// The state at the end of `trace` and its recorded LLM responses, in one pass.
fn fold_recorded(
    trace: &crate::trace::TraceLines,
) -> Result<(crate::run::RunState, crate::llm::ReplayClient), crate::trace::TraceError> {
    let mut recorded = crate::llm::ReplayClient::new(&trace.header.settings.model);
    let state = crate::report::fold_indexed(trace, |event| recorded.learn(event))?;
    Ok((state, recorded))
}

/// The error and its causes on one line (`outer: inner: root`); a multi-line
/// message (one problem per line) keeps its lines.
pub fn one_line(err: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if parts.last().is_none_or(|last| !last.contains(&text)) {
            parts.push(text);
        }
    }
    parts.join(": ").replace('\n', "\nerror: ")
}
