//! `uno-attack simulate`: random legal play with statistics and an invariant
//! check after every action.

use super::{CmdResult, load_game, parse_count};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use uno_env::vec_env::Picker;
use uno_env::{Events, Face, Game};

/// Flags of `simulate`.
#[derive(clap::Args)]
pub struct Args {
    /// Preset (attack-1999, attack-2010, attack-modern, flash, classic) or TOML path.
    #[arg(long, default_value = "attack-2010")]
    rules: String,
    /// Players at the table (2..=10).
    #[arg(long, default_value_t = 4)]
    players: usize,
    /// Rounds to play (e.g. 1000 or 1e3).
    #[arg(long, default_value = "1000", value_parser = parse_count)]
    games: u64,
    /// Base seed (round i uses ChaCha stream i).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Default)]
struct Stats {
    kinds: BTreeMap<String, u64>,
    presses: u64,
    misses: u64,
    fired: u64,
    drawn: u64,
}

impl Events for Stats {
    fn played(&mut self, _seat: usize, face: Face) {
        *self
            .kinds
            .entry(face.kind().name().to_string())
            .or_default() += 1;
    }
    fn pressed(&mut self, _seat: usize, fired: usize) {
        self.presses += 1;
        self.misses += (fired == 0) as u64;
        self.fired += fired as u64;
    }
    fn drew(&mut self, _seat: usize, n: usize) {
        self.drawn += n as u64;
    }
}

/// What `simulate` reports.
#[derive(Serialize)]
struct Report {
    rules: String,
    players: usize,
    /// Rounds played: fewer than `games_asked` when stopped by Ctrl-C.
    games: u64,
    games_asked: u64,
    seed: u64,
    decisions: u64,
    mean_decisions_per_round: f64,
    max_decisions_per_round: u32,
    truncated: u64,
    wins_by_seat: Vec<u64>,
    win_share_by_seat: Vec<f64>,
    mean_points_per_round: f64,
    cards_played_by_kind: BTreeMap<String, u64>,
    launcher_presses: u64,
    launcher_misses: u64,
    launcher_cards_fired: u64,
    cards_drawn_from_pile: u64,
    /// Rounds in which a check failed (or a legal action was refused), each
    /// counted once: such a round stops there and counts in no other figure.
    invariant_violations: u64,
    first_violation: Option<String>,
}

/// The invariant check `simulate` runs after the deal and every action.
type Check<'a> = dyn Fn(&Game, &uno_env::State) -> Result<(), uno_env::InvariantError> + 'a;

/// Plays `a.games` rounds in order, or the rounds before `stop` goes up.
fn simulate(game: &Game, a: &Args, check: &Check<'_>, stop: &AtomicBool) -> Report {
    let n = game.num_players();
    let mut stats = Stats::default();
    let mut wins = vec![0u64; n];
    let (mut decisions, mut max_d, mut truncated, mut violations, mut points) =
        (0u64, 0u32, 0u64, 0u64, 0u64);
    let mut first_violation = None;
    let mut played = 0;
    'rounds: for g in 0..a.games {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        played = g + 1;
        let mut s = game.new_state_on_stream(a.seed, g);
        let mut pick = Picker::new(a.seed, g);
        // The action just applied (named only in a report).
        let mut last = None;
        loop {
            if let Err(e) = check(game, &s) {
                violations += 1;
                first_violation.get_or_insert_with(|| {
                    let what = last.map_or_else(|| "after the deal".into(), uno_env::action_name);
                    format!("round {g}, {what}: {e}")
                });
                continue 'rounds;
            }
            if s.is_round_over() {
                break;
            }
            let a = pick.pick(game.legal_mask(&s));
            if let Err(e) = game.apply_with(&mut s, a, &mut stats) {
                violations += 1;
                first_violation
                    .get_or_insert_with(|| format!("round {g}: legal action refused: {e}"));
                continue 'rounds;
            }
            last = Some(a);
        }
        decisions += s.decisions() as u64;
        max_d = max_d.max(s.decisions());
        match s.round_winner() {
            Some(w) => {
                wins[w] += 1;
                points += s.round_points()[w] as u64;
            }
            None => truncated += 1,
        }
    }
    let games = played.max(1) as f64;
    Report {
        rules: game.rules().name.clone(),
        players: n,
        games: played,
        games_asked: a.games,
        seed: a.seed,
        decisions,
        mean_decisions_per_round: decisions as f64 / games,
        max_decisions_per_round: max_d,
        truncated,
        win_share_by_seat: wins.iter().map(|w| *w as f64 / games).collect(),
        wins_by_seat: wins,
        mean_points_per_round: points as f64 / games,
        cards_played_by_kind: stats.kinds,
        launcher_presses: stats.presses,
        launcher_misses: stats.misses,
        launcher_cards_fired: stats.fired,
        cards_drawn_from_pile: stats.drawn,
        invariant_violations: violations,
        first_violation,
    }
}

/// Runs `simulate`.
pub fn run(a: Args) -> CmdResult {
    let game = load_game(&a.rules, a.players)?;
    // Ctrl-C (or SIGTERM) ends the round under way, then reports rounds
    // 0..k: the same rounds a run of k would play.
    let stop = super::stop_on_signal(
        "interrupted: finishing the round under way, then reporting the rounds played (Ctrl-C again to quit at once)",
        || {},
    );
    let r = simulate(&game, &a, &|g, s| g.check_invariants(s), &stop);
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&r).map_err(|e| e.to_string())?
        );
    } else {
        let rounds = if r.games < r.games_asked {
            format!(
                "{} of {} round{} (stopped early)",
                r.games,
                r.games_asked,
                if r.games_asked == 1 { "" } else { "s" }
            )
        } else {
            format!("{} round{}", r.games, if r.games == 1 { "" } else { "s" })
        };
        println!(
            "rules {} · {} players · {rounds} · seed {}",
            r.rules, r.players, r.seed
        );
        println!(
            "decisions: {} (mean {:.1}, max {} per round), truncated rounds: {}",
            r.decisions, r.mean_decisions_per_round, r.max_decisions_per_round, r.truncated
        );
        let shares: Vec<String> = r
            .win_share_by_seat
            .iter()
            .map(|w| format!("{:.3}", w))
            .collect();
        println!("win share by seat: {}", shares.join(" "));
        println!(
            "mean points the winner scores per round (a round cut short counts 0): {:.1}",
            r.mean_points_per_round
        );
        println!(
            "launcher: {} presses, {} misses, {} cards fired; draw pile: {} cards drawn",
            r.launcher_presses, r.launcher_misses, r.launcher_cards_fired, r.cards_drawn_from_pile
        );
        let kinds: Vec<String> = r
            .cards_played_by_kind
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        println!("cards played by kind: {}", kinds.join(" "));
        println!(
            "invariant violations: {} (rounds, each stopped at its first)",
            r.invariant_violations
        );
        if let Some(v) = &r.first_violation {
            println!("first violation: {v}");
        }
    }
    if r.invariant_violations > 0 {
        return Err(format!("{} invariant violations", r.invariant_violations));
    }
    if stop.load(Ordering::SeqCst) {
        std::process::exit(super::INTERRUPTED);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(games: u64) -> Args {
        Args {
            rules: "classic".into(),
            players: 2,
            games,
            seed: 4,
            json: true,
        }
    }

    /// A stop flag that is never raised.
    fn go() -> AtomicBool {
        AtomicBool::new(false)
    }

    /// Stopped after k rounds, the report is that of a run of k rounds
    /// (rounds are played in order), and says how many were asked for.
    #[test]
    fn a_stopped_run_reports_the_rounds_played() {
        let game = load_game("classic", 2).unwrap();
        let stop = AtomicBool::new(false);
        let rounds = std::cell::Cell::new(0u32);
        let r = simulate(
            &game,
            &args(1_000_000),
            &|g, s| {
                if s.decisions() == 0 {
                    rounds.set(rounds.get() + 1);
                    if rounds.get() == 7 {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
                g.check_invariants(s)
            },
            &stop,
        );
        assert_eq!((r.games, r.games_asked), (7, 1_000_000));
        let whole = simulate(&game, &args(7), &|g, s| g.check_invariants(s), &go());
        assert_eq!((whole.games, whole.games_asked), (7, 7));
        assert_eq!(r.decisions, whole.decisions);
        assert_eq!(r.wins_by_seat, whole.wins_by_seat);
        assert_eq!(r.win_share_by_seat, whole.win_share_by_seat);
        assert_eq!(r.cards_played_by_kind, whole.cards_played_by_kind);
    }

    #[test]
    fn a_failing_check_counts_each_round_once_and_names_the_first() {
        let game = load_game("classic", 2).unwrap();
        let clean = simulate(&game, &args(20), &|g, s| g.check_invariants(s), &go());
        assert_eq!(
            (clean.invariant_violations, clean.first_violation),
            (0, None)
        );
        // A check that fails from the 5th decision of every round on.
        let late = simulate(
            &game,
            &args(20),
            &|_, s| {
                if s.decisions() >= 5 {
                    Err(uno_env::InvariantError::new(format!(
                        "planted at {}",
                        s.decisions()
                    )))
                } else {
                    Ok(())
                }
            },
            &go(),
        );
        assert_eq!(late.invariant_violations, 20);
        assert!(
            late.first_violation
                .as_deref()
                .is_some_and(|v| v.starts_with("round 0, ") && v.ends_with(": planted at 5")),
            "{:?}",
            late.first_violation
        );
        // A stopped round counts in no other figure.
        assert_eq!(
            (late.truncated, late.wins_by_seat.iter().sum::<u64>()),
            (0, 0)
        );
        // A check that fails once (its 30th call, in some round): one
        // violation, and every other round played out.
        let calls = std::cell::Cell::new(0u32);
        let once = simulate(
            &game,
            &args(20),
            &|g, s| {
                calls.set(calls.get() + 1);
                if calls.get() == 30 {
                    Err(uno_env::InvariantError::new("planted once"))
                } else {
                    g.check_invariants(s)
                }
            },
            &go(),
        );
        assert_eq!(once.invariant_violations, 1);
        assert_eq!(once.wins_by_seat.iter().sum::<u64>() + once.truncated, 19);
    }
}
