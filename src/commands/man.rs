//! `eval-dag man [--out DIR]`: the man pages (roff). On stdout, the page of
//! `eval-dag` itself; into a directory, that page and one per subcommand
//! (`eval-dag-run.1`, …), hidden ones left out.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::CommandFactory;

use crate::cli::{Cli, ManArgs};

/// Every command's page: `eval-dag` first, then its visible subcommands.
fn pages() -> Vec<clap_mangen::Man> {
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build();
    let subcommands: Vec<clap::Command> = command.get_subcommands().filter(|s| !s.is_hide_set()).cloned().collect();
    std::iter::once(command).chain(subcommands).map(clap_mangen::Man::new).collect()
}

/// Write every page into `dir`; returns the files written.
fn write_pages(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create directory {}", dir.display()))?;
    pages()
        .iter()
        .map(|page| {
            page.generate_to(dir).with_context(|| format!("cannot write {}", dir.join(page.get_filename()).display()))
        })
        .collect()
}

/// Run the `man` subcommand.
pub fn run(args: &ManArgs) -> anyhow::Result<ExitCode> {
    match &args.out {
        Some(dir) => {
            let written = write_pages(dir)?;
            eprintln!("man: {} pages in {}", written.len(), dir.display());
        }
        None => {
            let mut roff = Vec::new();
            pages()[0].render(&mut roff).context("cannot render the man page")?;
            say!("{}", String::from_utf8_lossy(&roff).trim_end());
        }
    }
    Ok(ExitCode::SUCCESS)
}
