//! `uno-attack`: train, evaluate, benchmark and play UNO Attack! agents.
//!
//! Subcommands: `simulate` (random play with statistics and invariant checks),
//! `bench` (environment throughput), `arena` (agents head to head), `train`
//! (self-play PPO), `play` (you against the bot). Bad flags or configs print a
//! one-line error and exit with code 2.

mod commands;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// UNO Attack! reinforcement-learning environment, agents and trainer.
#[derive(Parser)]
#[command(name = "uno-attack", version, about, propagate_version = true)]
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Simulate(a) => commands::simulate::run(a),
        Command::Bench(a) => commands::bench::run(a),
        Command::Arena(a) => commands::arena::run(a),
        Command::Train(a) => commands::train::run(a),
        Command::Play(a) => commands::play::run(a),
        Command::Replay(a) => commands::play::run_replay(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
