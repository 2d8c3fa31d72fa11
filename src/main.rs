//! Thin entry point: parse, log to a file, dispatch, map errors to exit codes.

use std::process::ExitCode;

use clap::Parser;
use eval_dag::{cli::Cli, commands, logging};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() { ExitCode::from(2) } else { ExitCode::SUCCESS };
        }
    };
    logging::init();
    match commands::dispatch(cli.command) {
        Ok(code) => code,
        Err(err) => {
            tracing::error!("{err:?}");
            eprintln!("error: {}", commands::one_line(&err));
            ExitCode::from(2)
        }
    }
}
