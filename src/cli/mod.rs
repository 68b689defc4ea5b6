//! The command line: `oomlint check` (also plain `oomlint [PATH...]`), `oomlint rule`,
//! `oomlint profile`, `oomlint sites` and `oomlint server`. Each command is a thin adapter: its arguments
//! (`args`) become calls to [`crate::app`], whose results it prints (`output`).

mod args;
mod check;
mod dims;
mod fix;
mod output;
mod profile;
mod rule;
mod sites;

use std::error::Error as _;
use std::ffi::OsString;

use clap::Parser;

use self::args::{ArgError, Cli, Command};
use self::output::{EXIT_CLEAN, EXIT_ERROR, fail};

/// Inserts `check` when no subcommand is given, so `oomlint src/` works like ruff.
fn normalize_args(mut args: Vec<OsString>) -> Vec<OsString> {
    const COMMANDS: &[&str] = &[
        "check",
        "rule",
        "profile",
        "dims",
        "server",
        "sites",
        "help",
        "-h",
        "--help",
        "-V",
        "--version",
    ];
    let needs_check = match args.get(1).and_then(|a| a.to_str()) {
        None => true,
        Some(first) => !COMMANDS.contains(&first),
    };
    if needs_check {
        args.insert(1.min(args.len()), OsString::from("check"));
    }
    args
}

/// Runs the command line and returns the exit code.
pub fn run(args: Vec<OsString>) -> i32 {
    // A bug must not look like a crash of the user's code: one line, then the run goes on for
    // the other files (each file is linted under `catch_unwind`).
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let place = info
            .location()
            .map(|l| format!(" ({}:{})", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("oomlint: internal error{place}: {message}; please report it");
    }));
    let cli = match Cli::try_parse_from(normalize_args(args)) {
        Ok(cli) => cli,
        Err(err) => {
            // A bad value of ours is the one-line usage error it always was.
            if let Some(bad) = err.source().and_then(|e| e.downcast_ref::<ArgError>()) {
                return fail(&bad.0);
            }
            let code = if err.use_stderr() {
                EXIT_ERROR
            } else {
                EXIT_CLEAN
            };
            let _ = err.print();
            return code;
        }
    };
    match cli.command {
        Command::Check(args) => check::check(args),
        Command::Rule(args) => rule::rule(args),
        Command::Profile(args) => profile::profile(args),
        Command::Dims(args) => dims::dims(args),
        Command::Server => crate::server::run(),
        Command::Sites(args) => sites::sites(args),
    }
}
