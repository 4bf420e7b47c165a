//! `uno-attack play` (you against the bot, full-screen or `--plain`) and
//! `uno-attack replay` (step through a transcript).
//!
//! The game core ([`session`]) is shared by both front ends: the terminal UI
//! ([`tui`], drawn by [`render`], keys mapped by [`input`]) and the
//! line-based mode ([`plain`]). Bots are resolved in [`bots`]; every step is
//! narrated from the engine's events ([`narrate`]) and recorded in a
//! [`transcript`] that [`replay`] steps through.

pub mod bots;
pub mod cards;
pub mod input;
pub mod narrate;
pub mod plain;
pub mod render;
pub mod replay;
pub mod session;
pub mod transcript;
pub mod tui;

use super::CmdResult;
use std::path::PathBuf;

/// Flags of `play`.
#[derive(clap::Args)]
pub struct Args {
    /// Preset (attack-1999, attack-2010, attack-modern, flash, classic) or TOML path.
    #[arg(long, default_value = "attack-2010")]
    pub rules: String,
    /// Players at the table (2..=10): you and N-1 bots.
    #[arg(long, default_value_t = 4)]
    pub players: usize,
    /// Agent spec for the bots (default: the shipped network that
    /// checkpoints/bots.toml names for these rules and table size, else the
    /// shipped checkpoint under checkpoints/<rules>-<N>p/, else a shipped
    /// network trained on several tables that include these rules, e.g.
    /// checkpoints/universal, else `heuristic`; `heuristic` too when the
    /// rules file changes settings of the rules that checkpoint was trained on).
    #[arg(long)]
    pub bot: Option<String>,
    /// Seed of the match (deal, launcher, bots).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Your seat (0..N-1).
    #[arg(long, default_value_t = 0)]
    pub seat: usize,
    /// Milliseconds a bot "thinks" before it acts (at most 60000).
    #[arg(long, default_value_t = 600, value_parser = parse_ms)]
    pub think_ms: u64,
    /// Seconds per turn for you (F-3 timer; a time-out draws `timeout_draw`),
    /// at most 86400 (one day). Default: 10 with Flash's unit in the
    /// full-screen UI, off otherwise; 0 = off.
    #[arg(long, value_parser = parse_timer_secs)]
    pub timer_secs: Option<f64>,
    /// Milliseconds you have to call UNO once on one card (explicit UNO), at
    /// most 60000; 0 = no limit.
    #[arg(long, default_value_t = 3000, value_parser = parse_ms)]
    pub uno_window_ms: u64,
    /// A bot's mean SLAP reaction time in ms (each race draws 0.6–1.4 × this);
    /// you race them with the space key (F-7); at most 60000.
    #[arg(long, default_value_t = 600, value_parser = parse_ms)]
    pub bot_reaction_ms: u64,
    /// Probability that a bot forgets to call UNO when `uno_call = explicit`
    /// (then you may catch it with `c`).
    #[arg(long, default_value_t = 0.3)]
    pub bot_forgets_uno: f64,
    /// Milliseconds of launcher suspense when you press (at most 60000).
    #[arg(long, default_value_t = 700, value_parser = parse_ms)]
    pub anim_ms: u64,
    /// Stop after this many rounds (0 = play the match to the end).
    #[arg(long, default_value_t = 0)]
    pub rounds: usize,
    /// Symbols and letters for colours, not only colour.
    #[arg(long, alias = "color-blind")]
    pub colour_blind: bool,
    /// Line-based mode for screen readers and scripts (reads commands from stdin).
    #[arg(long)]
    pub plain: bool,
    /// Write the game as JSON to this file (for `uno-attack replay`); an
    /// existing file is replaced only if it is an earlier transcript.
    #[arg(long)]
    pub transcript: Option<PathBuf>,
}

/// The longest turn timer `--timer-secs` takes: one day.
pub const MAX_TIMER_SECS: f64 = 86_400.0;

/// Parses `--timer-secs`: seconds from 0 (off) to [`MAX_TIMER_SECS`].
pub fn parse_timer_secs(s: &str) -> Result<f64, String> {
    let t: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    check_timer_secs(t).map_err(|e| format!("`{s}` {e}"))
}

/// Checks a `--timer-secs` value: 0 (off) to [`MAX_TIMER_SECS`] (larger
/// values overflowed the timer's `Duration` and panicked).
pub fn check_timer_secs(t: f64) -> Result<f64, String> {
    if !(t.is_finite() && (0.0..=MAX_TIMER_SECS).contains(&t)) {
        return Err(format!(
            "is out of range (0 to {MAX_TIMER_SECS} seconds, one day; 0 = off)"
        ));
    }
    Ok(t)
}

/// The longest delay or window the millisecond flags take (`--think-ms`,
/// `--anim-ms`, `--bot-reaction-ms`, `--uno-window-ms`): one minute.
pub const MAX_MS: u64 = 60_000;

/// Parses a millisecond flag: a whole number from 0 to [`MAX_MS`], written
/// as the count flags take it (`1000` or `1e3`, [`parse_whole`]).
///
/// [`parse_whole`]: crate::commands::parse_whole
pub fn parse_ms(s: &str) -> Result<u64, String> {
    use crate::commands::{NotWhole, parse_whole};
    parse_whole(s.trim(), 0, MAX_MS).map_err(|e| match e {
        NotWhole::OutOfRange => format!("`{s}` is out of range (0 to {MAX_MS} ms, one minute)"),
        NotWhole::NotANumber | NotWhole::Fraction => {
            format!("`{s}` is not a whole number of milliseconds")
        }
    })
}

/// Refuses a `--transcript` path that holds a file other than an earlier
/// transcript (notes, a config…): `play` writes the transcript as soon as the
/// game starts, so it would be lost even if you quit at once.
pub fn check_transcript_target(path: &std::path::Path) -> Result<(), String> {
    // The transcript is written by renaming a new file over the path: a
    // directory, device or pipe there would be replaced (/dev/null, as root).
    if path.exists() && !path.is_file() {
        return Err(format!(
            "--transcript {} exists and is not a regular file (a directory, device or pipe); choose a file path",
            path.display()
        ));
    }
    if path.is_file() && transcript::Transcript::load(path).is_err() {
        return Err(format!(
            "--transcript {} exists and is not a transcript of `play`: it would be replaced (choose another file, or remove it)",
            path.display()
        ));
    }
    Ok(())
}

/// Flags of `replay`.
#[derive(clap::Args)]
pub struct ReplayArgs {
    /// A transcript written by `uno-attack play --transcript`.
    pub file: PathBuf,
    /// Print every step as text instead of the full-screen viewer.
    #[arg(long)]
    pub plain: bool,
    /// Symbols and letters for colours, not only colour.
    #[arg(long, alias = "color-blind")]
    pub colour_blind: bool,
}

/// Runs `play`.
pub fn run(a: Args) -> CmdResult {
    crate::commands::register_neural();
    let game = crate::commands::load_game(&a.rules, a.players)?;
    if a.seat >= a.players {
        return Err(format!(
            "--seat {} is not a seat at a table of {} (0..{})",
            a.seat,
            a.players,
            a.players - 1
        ));
    }
    if let Some(t) = a.timer_secs {
        check_timer_secs(t).map_err(|e| format!("--timer-secs {e}"))?;
    }
    if let Some(p) = &a.transcript {
        check_transcript_target(p)?;
    }
    if !(0.0..=1.0).contains(&a.bot_forgets_uno) {
        return Err(format!(
            "--bot-forgets-uno must be a probability in [0, 1], got {}",
            a.bot_forgets_uno
        ));
    }
    let choice = bots::resolve(a.bot.as_deref(), &game)?;
    let session = session::Session::new(game, &a, &choice)?;
    if a.plain {
        plain::run(session, &a)
    } else {
        tui::run(session, &a)
    }
}

/// Runs `replay`.
pub fn run_replay(a: ReplayArgs) -> CmdResult {
    let t = transcript::Transcript::load(&a.file)?;
    let r = replay::Replay::build(t).map_err(|e| format!("{}: {e}", a.file.display()))?;
    if a.plain {
        replay::print_plain(&r);
        Ok(())
    } else {
        replay::run_tui(r, a.colour_blind)
    }
}

/// A session from `play` flags (`argv` without the program name), for tests.
#[cfg(test)]
pub(crate) fn test_session(argv: &[&str]) -> (session::Session, Args) {
    use clap::Parser;
    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        a: Args,
    }
    let a = Cli::parse_from(std::iter::once("play").chain(argv.iter().copied())).a;
    let game = crate::commands::load_game(&a.rules, a.players).unwrap();
    let choice = bots::resolve(a.bot.as_deref(), &game).unwrap();
    (session::Session::new(game, &a, &choice).unwrap(), a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timer_seconds_are_bounded_by_a_day() {
        assert_eq!(parse_timer_secs("0"), Ok(0.0));
        assert_eq!(parse_timer_secs("2.5"), Ok(2.5));
        assert_eq!(parse_timer_secs("86400"), Ok(86_400.0));
        // What `Duration::from_secs_f64` panicked on, and other non-values.
        for bad in ["86401", "1e20", "1e300", "-1", "nan", "inf", "ten"] {
            let err = parse_timer_secs(bad).unwrap_err();
            assert!(
                err.contains("out of range") || err.contains("not a number"),
                "{bad}: {err}"
            );
        }
        // Every accepted value makes a Duration.
        let _ = std::time::Duration::from_secs_f64(parse_timer_secs("86400").unwrap());
    }

    #[test]
    fn millisecond_flags_take_counts_as_the_count_flags_do_and_name_their_range() {
        // Written as --games and --steps take a count.
        assert_eq!(parse_ms("1e3"), Ok(1_000));
        assert_eq!(parse_ms("6e4"), Ok(60_000));
        assert_eq!(parse_ms(" 700 "), Ok(700));
        // Too large for a u64, or for the count: out of range, with the range.
        for big in [
            "99999999999999999999",
            "1e20",
            "60001",
            "7e4",
            "-1",
            "inf",
            "nan",
        ] {
            assert_eq!(
                parse_ms(big),
                Err(format!(
                    "`{big}` is out of range (0 to 60000 ms, one minute)"
                )),
            );
        }
        assert_eq!(
            parse_ms("1.5"),
            Err("`1.5` is not a whole number of milliseconds".into())
        );
        assert_eq!(
            parse_ms("ten"),
            Err("`ten` is not a whole number of milliseconds".into())
        );
        // As --timer-secs takes e notation too.
        assert_eq!(parse_timer_secs("1e3"), Ok(1_000.0));
    }

    #[test]
    fn millisecond_flags_are_bounded_by_a_minute() {
        assert_eq!(parse_ms("0"), Ok(0));
        assert_eq!(parse_ms("60000"), Ok(60_000));
        for bad in [
            "60001",
            "18446744073709551615",
            "99999999999999999999",
            "-1",
            "1.5",
            "x",
        ] {
            let err = parse_ms(bad).unwrap_err();
            assert!(
                err.contains("out of range") || err.contains("not a whole number"),
                "{bad}: {err}"
            );
        }
    }
}
