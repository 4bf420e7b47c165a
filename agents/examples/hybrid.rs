//! Where does a network's edge come from? Plays `base` in one seat against
//! `opp` in the others, first as it is, then with `other` taking over the
//! decisions of one phase at a time, and prints the win share of each.
//!
//! Then, over the first 5,000 games, how often `other` would have chosen
//! differently in the base agent's play-phase decisions, by kind of action.
//! With `ONLY_DIFF=1` only that second part runs.
//!
//! `cargo run -p uno-agents --release --example hybrid -- <preset> <players> <games> <base> <other> <opp>`

use std::time::Instant;
use uno_agents::{Agent, build, parse_spec};
use uno_env::{Game, Phase, Rules, State};

struct Hybrid {
    base: Box<dyn Agent + Send>,
    other: Box<dyn Agent + Send>,
    swap: u32,
}

impl Agent for Hybrid {
    fn name(&self) -> String {
        "hybrid".into()
    }
    fn act(&mut self, game: &Game, state: &State, seat: usize) -> usize {
        if self.swap & (1 << state.phase() as u32) != 0 {
            self.other.act(game, state, seat)
        } else {
            self.base.act(game, state, seat)
        }
    }
    fn reset(&mut self, seed: u64) {
        self.base.reset(seed);
        self.other.reset(seed ^ 0x5555);
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    uno_agents::neural::register();
    let a: Vec<String> = std::env::args().skip(1).collect();
    let game = Game::new(Rules::load(&a[0])?, a[1].parse()?)?;
    let games: u64 = a[2].parse()?;
    let n = game.num_players();
    let mut counts = [0u64; 10];
    for swap in std::iter::once(0u32)
        .chain(Phase::ALL.iter().map(|p| 1 << *p as u32))
        .take(if std::env::var("ONLY_DIFF").is_ok() {
            0
        } else {
            11
        })
    {
        let t = Instant::now();
        let mut me = Hybrid {
            base: build(&parse_spec(&a[3])?, 1)?,
            other: build(&parse_spec(&a[4])?, 2)?,
            swap,
        };
        let mut opps: Vec<_> = (0..n)
            .map(|i| build(&parse_spec(&a[5]).unwrap(), 10 + i as u64).unwrap())
            .collect();
        let mut wins = 0u64;
        let mut decided = 0u64;
        for g in 0..games {
            let mut st = game.new_state_on_stream(7, g);
            let mine = (g % n as u64) as usize;
            me.reset(g * 31 + 1);
            for (i, o) in opps.iter_mut().enumerate() {
                o.reset(g * 31 + 2 + i as u64);
            }
            while let Some(p) = st.current_player() {
                let act = if p == mine {
                    if swap == 0 {
                        counts[st.phase() as usize] += 1;
                    }
                    if swap & (1 << st.phase() as u32) != 0 {
                        decided += 1;
                    }
                    me.act(&game, &st, p)
                } else {
                    opps[p].act(&game, &st, p)
                };
                game.apply(&mut st, act)?;
            }
            wins += (st.round_winner() == Some(mine)) as u64;
        }
        let w = wins as f64 / games as f64;
        let se = (w * (1.0 - w) / games as f64).sqrt();
        let label = if swap == 0 {
            "none".to_string()
        } else {
            Phase::ALL[swap.trailing_zeros() as usize]
                .name()
                .to_string()
        };
        if swap != 0 && decided == 0 {
            continue;
        }
        println!(
            "swap {label:<12} win {:.2}% ±{:.2}  swapped decisions {decided} ({:.1}s)",
            100.0 * w,
            196.0 * se,
            t.elapsed().as_secs_f64()
        );
    }
    println!("decisions by phase (base run): {counts:?}");
    disagreements(&game, &a, games.min(5000))?;
    Ok(())
}

fn category(id: usize) -> String {
    let name = uno_env::action_name(id);
    let Some(face) = name.strip_prefix("play:") else {
        return name;
    };
    let rest = face.trim_start_matches(['R', 'G', 'B', 'Y']);
    if rest.len() < face.len() && rest.chars().all(|c| c.is_ascii_digit()) {
        "number".into()
    } else if rest.len() < face.len() {
        rest.trim_start_matches('-').to_string()
    } else {
        face.to_string()
    }
}

/// In the base agent's play-phase decisions, how often `other` would choose
/// differently, by kind of action.
fn disagreements(game: &Game, a: &[String], games: u64) -> Result<(), Box<dyn std::error::Error>> {
    let n = game.num_players();
    let mut base = build(&parse_spec(&a[3])?, 1)?;
    let mut other = build(&parse_spec(&a[4])?, 2)?;
    let mut opps: Vec<_> = (0..n)
        .map(|i| build(&parse_spec(&a[5]).unwrap(), 10 + i as u64).unwrap())
        .collect();
    let mut pairs: std::collections::BTreeMap<(String, String), u64> = Default::default();
    let (mut total, mut differ, mut same_kind) = (0u64, 0u64, 0u64);
    for g in 0..games {
        let mut st = game.new_state_on_stream(7, g);
        let mine = (g % n as u64) as usize;
        base.reset(g * 31 + 1);
        other.reset(g * 31 + 1);
        for (i, o) in opps.iter_mut().enumerate() {
            o.reset(g * 31 + 2 + i as u64);
        }
        while let Some(p) = st.current_player() {
            let act = if p == mine {
                let x = base.act(game, &st, p);
                if st.phase() == Phase::Play && game.legal_actions(&st).len() > 1 {
                    total += 1;
                    let y = other.act(game, &st, p);
                    if x != y {
                        differ += 1;
                        let (cx, cy) = (category(x), category(y));
                        if cx == cy {
                            same_kind += 1;
                        }
                        *pairs.entry((cx, cy)).or_default() += 1;
                    }
                }
                x
            } else {
                opps[p].act(game, &st, p)
            };
            game.apply(&mut st, act)?;
        }
    }
    println!(
        "play decisions with a choice: {total}; {} disagree {differ} ({:.1}%), {same_kind} of them the same kind (colour or number differs)",
        a[4],
        100.0 * differ as f64 / total as f64
    );
    let mut v: Vec<_> = pairs.into_iter().collect();
    v.sort_by_key(|(_, c)| std::cmp::Reverse(*c));
    for ((x, y), c) in v.iter().take(20) {
        println!(
            "  base {x:<14} other {y:<14} {c:>6} ({:.1}% of choices)",
            100.0 * *c as f64 / total as f64
        );
    }
    Ok(())
}
