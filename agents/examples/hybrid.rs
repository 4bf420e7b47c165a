//! Where does a network's edge come from? Plays `base` in one seat against
//! `opp` in the others, first as it is, then with `other` taking over the
//! decisions of one phase at a time, and prints the win share of each.
//!
//! Then, over the first 5,000 games, how often `other` would have chosen
//! differently in the base agent's play-phase decisions, by kind of action.
//! With `ONLY_DIFF=1` only that second part runs.
//!
//! `cargo run -p uno-agents --release --example hybrid -- <preset> <players> <games> <base> <other> <opp>`

use std::collections::BTreeMap;
use std::time::Instant;
use uno_agents::{Agent, build, parse_spec};
use uno_env::{Action, Game, Phase, Rules, State};

type Error = Box<dyn std::error::Error>;
type Boxed = Box<dyn Agent + Send>;

/// Plays game `g` (dealt on stream `g`, seats rotated): `me` in seat
/// `g mod n`, `opps[p]` in every other seat `p`. `pick` chooses `me`'s
/// actions (it sees `me`, the state and the seat); returns whether `me` won.
fn play_round(
    game: &Game,
    g: u64,
    me: &mut Boxed,
    opps: &mut [Boxed],
    mut pick: impl FnMut(&mut Boxed, &State, usize) -> usize,
) -> Result<bool, Error> {
    let mut st = game.new_state_on_stream(7, g);
    let mine = (g % game.num_players() as u64) as usize;
    me.reset(g * 31 + 1);
    for (i, o) in opps.iter_mut().enumerate() {
        o.reset(g * 31 + 2 + i as u64);
    }
    while let Some(p) = st.current_player() {
        let act = if p == mine {
            pick(me, &st, p)
        } else {
            opps[p].act(game, &st, p)
        };
        game.apply(&mut st, act)?;
    }
    Ok(st.round_winner() == Some(mine))
}

/// The kind of an action: `number`, a card kind (`hit2`, `wild`, …) or the action's name.
fn category(id: usize) -> String {
    match Action::from_id(id) {
        Some(Action::Play(face)) if face.kind().number().is_some() => "number".into(),
        Some(Action::Play(face)) => face.kind().name().into(),
        _ => uno_env::action_name(id),
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), Error> {
    uno_agents::neural::register();
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() != 6 {
        return Err("usage: hybrid <preset> <players> <games> <base> <other> <opp>".into());
    }
    let players: usize = a[1]
        .parse()
        .map_err(|_| format!("players must be a whole number, not `{}`", a[1]))?;
    let game = Game::new(Rules::load(&a[0])?, players)?;
    let games: u64 = a[2]
        .parse()
        .map_err(|_| format!("games must be a whole number, not `{}`", a[2]))?;
    if games == 0 {
        return Err("games must be at least 1".into());
    }
    let (base, other, opp) = (parse_spec(&a[3])?, parse_spec(&a[4])?, parse_spec(&a[5])?);
    let opponents = || -> Result<Vec<Boxed>, Error> {
        (0..game.num_players())
            .map(|i| Ok(build(&opp, 10 + i as u64)?))
            .collect()
    };

    if std::env::var("ONLY_DIFF").is_err() {
        let mut counts = [0u64; Phase::ALL.len()];
        for swap in std::iter::once(None).chain(Phase::ALL.map(Some)) {
            let t = Instant::now();
            let (mut me, mut substitute) = (build(&base, 1)?, build(&other, 2)?);
            let mut opps = opponents()?;
            let (mut wins, mut swapped) = (0u64, 0u64);
            for g in 0..games {
                substitute.reset((g * 31 + 1) ^ 0x5555);
                wins += play_round(&game, g, &mut me, &mut opps, |me, st, p| {
                    if swap.is_none() {
                        counts[st.phase() as usize] += 1;
                    }
                    if swap == Some(st.phase()) {
                        swapped += 1;
                        substitute.act(&game, st, p)
                    } else {
                        me.act(&game, st, p)
                    }
                })? as u64;
            }
            if swap.is_some() && swapped == 0 {
                continue; // a phase these rules never reach
            }
            let w = wins as f64 / games as f64;
            let half = 196.0 * (w * (1.0 - w) / games as f64).sqrt();
            let label = swap.map_or("none", Phase::name);
            println!(
                "swap {label:<14} win {:.2}% ±{half:.2}  swapped decisions {swapped} ({:.1}s)",
                100.0 * w,
                t.elapsed().as_secs_f64()
            );
        }
        println!("the base agent's decisions by phase: {counts:?}");
    }

    let (mut me, mut substitute) = (build(&base, 1)?, build(&other, 1)?);
    let mut opps = opponents()?;
    let mut pairs: BTreeMap<(String, String), u64> = BTreeMap::new();
    let (mut total, mut differ, mut same_kind) = (0u64, 0u64, 0u64);
    for g in 0..games.min(5000) {
        substitute.reset(g * 31 + 1);
        play_round(&game, g, &mut me, &mut opps, |me, st, p| {
            let x = me.act(&game, st, p);
            if st.phase() == Phase::Play && game.legal_actions(st).len() > 1 {
                total += 1;
                let y = substitute.act(&game, st, p);
                if x != y {
                    differ += 1;
                    let (cx, cy) = (category(x), category(y));
                    same_kind += (cx == cy) as u64;
                    *pairs.entry((cx, cy)).or_default() += 1;
                }
            }
            x
        })?;
    }
    println!(
        "play decisions with a choice: {total}; {} disagrees in {differ} ({:.1}%), {same_kind} of them the same kind (colour or number differs)",
        a[4],
        100.0 * differ as f64 / total.max(1) as f64
    );
    let mut v: Vec<_> = pairs.into_iter().collect();
    v.sort_by_key(|(_, c)| std::cmp::Reverse(*c));
    for ((x, y), c) in v.iter().take(20) {
        println!(
            "  base {x:<18} other {y:<18} {c:>6} ({:.1}% of choices)",
            100.0 * *c as f64 / total as f64
        );
    }
    Ok(())
}
