//! One module per subcommand; each exposes `Args` (clap) and `run`.
// The `Args` doc comments are the `--help` text, written for a terminal:
// `<dir>` and `[:N]` there are placeholders, not HTML or intra-doc links.
#![allow(rustdoc::invalid_html_tags, rustdoc::broken_intra_doc_links)]

pub mod arena;
pub mod bench;
pub mod play;
pub mod rules;
pub mod simulate;
pub mod train;

/// A second Ctrl-C or SIGTERM sooner than this after the first is taken as the
/// same request (not "quit at once").
const DOUBLE_SIGNAL: std::time::Duration = std::time::Duration::from_secs(1);

/// Exit code of a command stopped by Ctrl-C or SIGTERM (128 + SIGINT).
pub const INTERRUPTED: i32 = 130;

/// Installs the Ctrl-C / SIGTERM handler of a long command and returns its
/// stop flag. The first signal raises the flag and prints `first` (what the
/// command does now); a second one, a second or more later, runs `quit`
/// and exits at once with [`INTERRUPTED`]. (A repeat within a second is the
/// same request delivered twice: coreutils `timeout` signals the process and
/// then its group.)
pub fn stop_on_signal(
    first: &'static str,
    quit: impl Fn() + Send + 'static,
) -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    use std::sync::atomic::{AtomicBool, Ordering};
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let at = std::sync::OnceLock::new();
    // Only one handler per process: a second command in the same process
    // (tests) keeps the first's, which is no worse than none.
    let _ = ctrlc::set_handler(move || {
        if at.set(std::time::Instant::now()).is_ok() {
            // The message first, then the flag: once the flag is up the
            // command may finish and exit before this thread runs again
            // (with the flag first, the message was lost now and then).
            eprintln!("\n{first}");
            flag.store(true, Ordering::SeqCst);
            return;
        }
        if at
            .get()
            .is_some_and(|t: &std::time::Instant| t.elapsed() < DOUBLE_SIGNAL)
        {
            return;
        }
        quit();
        std::process::exit(INTERRUPTED);
    });
    stop
}

/// A subcommand's failure: printed as one line, exit code 2.
pub type CmdResult = Result<(), String>;

/// Why a flag's text is not a whole number in its range ([`parse_whole`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotWhole {
    /// Not a number at all.
    NotANumber,
    /// A number in range with a fraction.
    Fraction,
    /// A number outside the range (or infinite, or NaN).
    OutOfRange,
}

/// Parses `s`, plain or in `e` notation (`20000`, `2e4`, `2.5e6`), as a
/// whole number from `min` to `max`: the one parser of every count flag.
pub fn parse_whole(s: &str, min: u64, max: u64) -> Result<u64, NotWhole> {
    let v: f64 = s.parse().map_err(|_| NotWhole::NotANumber)?;
    if !(v.is_finite() && (min as f64..=max as f64).contains(&v)) {
        return Err(NotWhole::OutOfRange);
    }
    if v.fract() != 0.0 {
        return Err(NotWhole::Fraction);
    }
    Ok(v as u64)
}

/// [`parse_whole`] with the count flags' messages, naming `range`.
fn parse_whole_flag(s: &str, min: u64, max: u64, range: &str) -> Result<u64, String> {
    parse_whole(s, min, max).map_err(|e| match e {
        NotWhole::NotANumber => format!("`{s}` is not a number"),
        NotWhole::Fraction => format!("`{s}` is not a whole number"),
        NotWhole::OutOfRange => format!("`{s}` is out of range ({range})"),
    })
}

/// The largest count a count flag takes.
const MAX_COUNT: u64 = 1_000_000_000_000_000;

/// Parses a count such as `20000`, `2e4` or `2.5e6`: a whole number from 1 to
/// 10^15 (a fraction or a negative number is refused with its value).
pub fn parse_count(s: &str) -> Result<u64, String> {
    parse_whole_flag(s, 1, MAX_COUNT, "1 to 1e15")
}

/// [`parse_count`] that also takes 0 (e.g. `--eval-games 0`, evaluation off).
pub fn parse_count_or_zero(s: &str) -> Result<u64, String> {
    parse_whole_flag(s, 0, MAX_COUNT, "0 to 1e15")
}

/// Parses a number of games stepped together (`--envs`), written as
/// [`parse_count`] takes it: 1 to [`uno_env::MAX_ENVS`].
pub fn parse_envs(s: &str) -> Result<usize, String> {
    let max = uno_env::MAX_ENVS;
    parse_whole_flag(s, 1, max as u64, &format!("1 to {max}")).map(|v| v as usize)
}

/// Parses a thread count: 0 to [`uno_env::MAX_THREADS`].
pub fn parse_threads(s: &str) -> Result<usize, String> {
    let v: usize = s.parse().map_err(|_| {
        if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
            format!("at most {} threads", uno_env::MAX_THREADS)
        } else {
            format!("`{s}` is not a whole number >= 0")
        }
    })?;
    if v > uno_env::MAX_THREADS {
        return Err(format!("at most {} threads", uno_env::MAX_THREADS));
    }
    Ok(v)
}

/// Threads to use for a `--threads` value: 0 means every core (at most
/// [`uno_env::MAX_THREADS`]), as in `arena`, `train` and `bench`.
pub fn all_cores_if_zero(threads: usize) -> usize {
    if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(uno_env::MAX_THREADS))
    } else {
        threads
    }
}

/// Loads rules from a preset name or TOML path and compiles them for `players`.
pub fn load_game(rules: &str, players: usize) -> Result<uno_env::Game, String> {
    let r = uno_env::Rules::load(rules).map_err(|e| e.to_string())?;
    uno_env::Game::new(r, players).map_err(|e| e.to_string())
}

/// Makes `checkpoint:<dir>` agent specs buildable (the neural agent lives behind a hook).
pub fn register_neural() {
    uno_agents::neural::register();
}
