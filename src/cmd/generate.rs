//! `groundcheck completions SHELL` and `groundcheck man [COMMAND]`: the shell completions and
//! the man pages, generated from the same clap command that parses the arguments, so they can
//! never disagree with the program that prints them.
//!
//! The man page is printed by the program rather than shipped as a generated file: a file in
//! the repository would have to be regenerated (and checked) on every change of a flag, while
//! `groundcheck man > groundcheck.1` in a package's build always matches the binary packaged.

use clap::CommandFactory;
use clap_complete::Shell;

use crate::args::Cli;
use crate::failure::Failure;

/// The completion script for `shell`, written to `out`.
pub fn completions(shell: Shell, out: &mut Vec<u8>) -> Result<u8, Failure> {
    let mut cli = Cli::command();
    clap_complete::generate(shell, &mut cli, "groundcheck", out);
    Ok(0)
}

/// The man page (roff) of `groundcheck`, or of one of its commands as `groundcheck-COMMAND`.
pub fn man(command: Option<&str>, out: &mut Vec<u8>) -> Result<u8, Failure> {
    let mut cli = Cli::command();
    cli.build(); // the version and the global settings reach every command
    let page = match command {
        None => clap_mangen::Man::new(cli),
        Some(name) => {
            let Some(sub) = cli.find_subcommand(name) else {
                let names: Vec<&str> =
                    cli.get_subcommands().map(clap::Command::get_name).filter(|n| *n != "help").collect();
                return Err(Failure::input(format!(
                    "man {name}: no such command (one of: {})",
                    names.join(", ")
                )));
            };
            let title = format!("groundcheck-{}", sub.get_name());
            clap_mangen::Man::new(sub.clone().display_name(title.clone())).title(title)
        }
    };
    page.render(out).map_err(|e| Failure::input(format!("man: cannot render it: {e}")))?;
    Ok(0)
}
