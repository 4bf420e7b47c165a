//! `uno-attack`: train, evaluate, benchmark and play UNO Attack! agents.
//!
//! Subcommands: `simulate` (random play with statistics and invariant checks),
//! `bench` (environment throughput), `arena` (agents head to head), `train`
//! (self-play PPO), `play` (you against the bot), `replay` (a game transcript),
//! `rules` (a preset or rules file with every setting). Bad flags or configs
//! print a one-line error and exit with code 2.

mod commands;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::process::ExitCode;

/// UNO Attack! reinforcement-learning environment, agents and trainer.
#[derive(Parser)]
#[command(name = "uno-attack", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play rounds with uniformly random legal actions and report statistics.
    Simulate(commands::simulate::Args),
    /// Measure environment throughput (steps per second).
    Bench(commands::bench::Args),
    /// Pit agents against each other, seats rotated, with confidence intervals.
    Arena(commands::arena::Args),
    /// Train a policy by self-play PPO.
    Train(commands::train::Args),
    /// Play against the bot in the terminal (full screen, or --plain).
    Play(commands::play::Args),
    /// Step through a game transcript written by `play --transcript`.
    Replay(commands::play::ReplayArgs),
    /// Print a preset or rules file with every setting, as a rules file to edit.
    Rules(commands::rules::Args),
}

/// Parses the command line. Negative numbers are values (so `--seed -1` is
/// refused as an invalid seed, not as an unknown flag); a parse error prints
/// its one-line message (no usage block) and exits with code 2.
fn parse() -> Result<Cli, ExitCode> {
    let command = Cli::command().mut_subcommands(|c| c.allow_negative_numbers(true));
    let parsed = command
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    parsed.map_err(|e| {
        use clap::error::ErrorKind;
        if matches!(
            e.kind(),
            ErrorKind::DisplayHelp
                | ErrorKind::DisplayVersion
                | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
        ) {
            let _ = e.print();
            return ExitCode::from(e.exit_code() as u8);
        }
        // The message up to the usage block, folded onto one line (clap puts
        // what is missing, e.g. `<FILE>`, on the lines after the first).
        let text = e.to_string();
        let message: Vec<&str> = text
            .lines()
            .map(str::trim)
            .take_while(|l| !l.is_empty() && !l.starts_with("Usage:"))
            .collect();
        let message = if message.is_empty() {
            "error: invalid arguments".to_string()
        } else {
            message.join(" ")
        };
        eprintln!("{message} (see --help)");
        ExitCode::from(2)
    })
}

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, which turns a closed pipe (`| head`) into a panic
    // on the next print; the default action ends the program quietly instead.
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any other thread exists;
    // SIG_DFL is a valid action for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Output that cannot be written (a full disk, /dev/full) is an error
    // message and exit code 1, not a panic's backtrace: `println!` panics on
    // a write error, so its message is recognised here.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let msg = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if let Some(why) = msg.strip_prefix("failed printing to stdout: ") {
            eprintln!("error: cannot write the output: {why}");
            std::process::exit(1);
        }
        default_hook(info)
    }));
    let cli = match parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let result = match cli.command {
        Command::Simulate(a) => commands::simulate::run(a),
        Command::Bench(a) => commands::bench::run(a),
        Command::Arena(a) => commands::arena::run(a),
        Command::Train(a) => commands::train::run(a),
        Command::Play(a) => commands::play::run(a),
        Command::Replay(a) => commands::play::run_replay(a),
        Command::Rules(a) => commands::rules::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
