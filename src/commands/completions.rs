//! `eval-dag completions SHELL`: the shell completion script, on stdout.

use std::process::ExitCode;

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::{Cli, CompletionsArgs};

/// The command line as completion offers it: the hidden sandbox worker left
/// out (clap's generators offer hidden subcommands too).
fn offered() -> clap::Command {
    let full = Cli::command();
    let visible: Vec<clap::Command> = full.get_subcommands().filter(|s| !s.is_hide_set()).cloned().collect();
    clap::Command::new("eval-dag")
        .version(env!("CARGO_PKG_VERSION"))
        .propagate_version(true)
        .subcommand_required(true)
        .about(full.get_about().cloned().unwrap_or_default())
        .subcommands(visible)
}

/// The completion script of `shell`.
fn script(shell: Shell) -> String {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut offered(), "eval-dag", &mut script);
    let script = String::from_utf8_lossy(&script).into_owned();
    match shell {
        // clap_complete spells the state of `eval-dag <command>` two ways for a
        // hyphenated name (clap-rs/clap#6421), so no subcommand's flags would
        // complete: spell the case labels the way the loop sets the state.
        Shell::Bash => script.replace("eval__subcmd__dag", "eval__dag"),
        _ => script,
    }
}

/// Run the `completions` subcommand.
pub fn run(args: &CompletionsArgs) -> anyhow::Result<ExitCode> {
    say!("{}", script(args.shell).trim_end());
    Ok(ExitCode::SUCCESS)
}
