//! `eval-dag runs [DIR…]`: the runs under some directories (`report::scan_runs`)
//! as JSON (`--json`), a table off a terminal, or the run browser on one —
//! also what `eval-dag` alone opens on a terminal, over `runs/`. The browser
//! hands back what the user picked; this command opens it through the same
//! paths as `replay`, `compare` and `run --resume` (parsed as if typed), each
//! opened from the browser so back at its first screen returns to it, and
//! shows the browser again. A resumed live run returns to the browser when it
//! ends; `q` anywhere else quits everything.

use std::ffi::OsStr;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::cli::{ReplayArgs, RunArgs, RunsArgs};
use crate::report::{RunRow, list_runs};
use crate::tui::{Browser, Choice, Ended};

/// Where runs are looked for when no directory is given.
const DEFAULT_DIR: &str = "runs";

/// Run the `runs` subcommand.
pub fn run(args: RunsArgs) -> anyhow::Result<ExitCode> {
    let dirs = if args.dirs.is_empty() { vec![PathBuf::from(DEFAULT_DIR)] } else { args.dirs };
    if let Some(missing) = dirs.iter().find(|dir| !dir.is_dir()) {
        anyhow::bail!("{} is not a directory: give directories that hold runs", missing.display());
    }
    if args.json {
        say!("{}", serde_json::to_string_pretty(&list_runs(&dirs))?);
    } else if std::io::stdout().is_terminal() && std::io::stdin().is_terminal() {
        return browse(dirs);
    } else {
        for row in list_runs(&dirs) {
            say!("{}", table_line(&row));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `eval-dag` with no command on a terminal: the run browser over `runs/`.
pub fn browse_default() -> anyhow::Result<ExitCode> {
    browse(vec![PathBuf::from(DEFAULT_DIR)])
}

/// One run as a line of the table printed off a terminal.
fn table_line(row: &RunRow) -> String {
    let or_dash = |text: Option<String>| text.unwrap_or_else(|| "—".into());
    let mut line = format!(
        "{}  {}  {}  {}  {} questions  pass {}  accuracy {}  {}",
        row.path.display(),
        row.status.label(),
        or_dash(row.started.clone()),
        or_dash(row.dataset.clone()),
        or_dash(row.questions.map(|n| n.to_string())),
        crate::text::percent(row.pass_rate),
        crate::text::percent(row.accuracy),
        or_dash(row.cost_usd.map(|c| format!("${c:.4}"))),
    );
    if let Some(problem) = &row.problem {
        line.push_str(&format!("  ({problem})"));
    }
    line
}

/// The run browser over `dirs` until the user quits.
fn browse(dirs: Vec<PathBuf>) -> anyhow::Result<ExitCode> {
    let theme = crate::tui::Theme::load(&crate::config::theme_name())?;
    let keys = crate::config::load_default()?.keys;
    let runtime = tokio::runtime::Runtime::new()?;
    let mut browser = Browser::new(dirs, theme, keys);
    loop {
        let stop = Box::pin(super::signals::interrupted());
        let Some(choice) = crate::tui::browse(&runtime, &mut browser, stop)? else {
            return Ok(ExitCode::SUCCESS);
        };
        match open(choice) {
            Ok(Some(Ended::Back)) => {}
            Ok(_) => return Ok(ExitCode::SUCCESS),
            Err(err) => browser.say(super::one_line(&err)),
        }
    }
}

/// Open what the user picked; how it ended (`Back`: show the browser again).
fn open(choice: Choice) -> anyhow::Result<Option<Ended>> {
    match choice {
        Choice::Open(dir) => {
            let trace = dir.join(crate::report::TRACE_FILE);
            super::derive::replay_shown(&parsed::<ReplayArgs>("replay", &[trace.as_os_str()])?, true)
        }
        Choice::Compare(runs) => super::compare::from_browser(&runs),
        Choice::Matrix(runs) => super::compare::from_browser(&runs),
        Choice::Review(dir) => super::review::from_browser(&dir),
        Choice::Resume(dir) => {
            let args = parsed::<RunArgs>("run", &["--resume".as_ref(), dir.as_os_str()])?;
            super::run::run(args)?;
            Ok(Some(Ended::Back))
        }
    }
}

/// The arguments of the subcommand `name` parsed from `words`, as if typed
/// after `eval-dag <name>` (defaults, environment and checks as there).
fn parsed<A: clap::Args + clap::FromArgMatches>(name: &'static str, words: &[&OsStr]) -> anyhow::Result<A> {
    let command = A::augment_args(clap::Command::new(name));
    let matches = command.try_get_matches_from(std::iter::once(OsStr::new(name)).chain(words.iter().copied()))?;
    Ok(A::from_arg_matches(&matches)?)
}
