//! Thin entry point: parse, log to a file, dispatch, map errors to exit codes.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use eval_dag::{cli::Cli, commands, logging};

/// mimalloc: the sandbox's workers build and drop millions of small Python
/// objects, where it beats the system allocator (figures in BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // `eval-dag` alone on a terminal opens the run browser; off one it is the usage error as before.
    if std::env::args_os().len() == 1 && std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        logging::init();
        return exit_code(commands::browse_default());
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() { ExitCode::from(2) } else { ExitCode::SUCCESS };
        }
    };
    logging::init();
    exit_code(commands::dispatch(cli.command))
}

/// A command's exit code; an error is one line on stderr and exit 2.
fn exit_code(result: anyhow::Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(err) => {
            tracing::error!("{err:?}");
            eprintln!("error: {}", commands::one_line(&err));
            ExitCode::from(2)
        }
    }
}
