//! The arena: seeded, seat-rotated games between agents, played in parallel,
//! with win rates, confidence intervals, points, ranks and league ratings.
//!
//! # What a game is
//!
//! One game is one round (one deal, played until someone goes out or the round
//! is cut short by `max_decisions`). Game `g` deals from ChaCha stream
//! `g / K` of `seed` (`K` agents): the `K` games of a rotation block share the
//! deal and differ only in who sits where (duplicate-style, which lowers the
//! variance of comparisons), and no two of them seat the agents alike (a block
//! of `N` players' games would repeat each seating `N / K` times on one deal).
//! Where the names repeat around the table (A,A; A,B,A,B) some rotations
//! would seat them alike: those get deals of their own ([`Seating::deal`]).
//! Each seat's agent is reset with a seed mixed from `(seed, g, seat)`, so
//! results do not depend on the thread count.
//!
//! # Seat rotation
//!
//! With `N` players and `K` agents (`K` must divide `N`), the agents sit in a
//! cyclic order repeated around the table, and seat `s` of game `g` gets the
//! agent at position `(s + g) mod K` of the order (see [`Seating`]). With 2
//! agents at 4 seats that is A,B,A,B then B,A,B,A, ...; with 4 agents at 4
//! seats the four rotations of an order. Over every block of `K` games each
//! agent sits in each seat class once.
//!
//! With 3 or more different agents the order matters too (who plays after
//! whom), so the rotation blocks take turns over every distinct cyclic order
//! of the agents (A,B,C and A,C,B; one order for A,X,X,X): over `K · M`
//! games (`M` orders, [`Seating::block`]) the seating is exactly balanced,
//! and the results do not depend on the order the agents were listed in.
//! Past [`MAX_ORDERS`] orders each block's order is drawn from the seed.

use crate::agent::{Agent, mix_seed};
use crate::error::AgentError;
use crate::spec::{AgentSpec, build, check_checkpoints};
use crate::stats::{Z95, bradley_terry, bradley_terry_cov, diff_ci, wilson};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use uno_env::{Game, Rules};

/// What to play: rules, table size, agents, number of games, seed, threads.
#[derive(Clone, Debug)]
pub struct ArenaConfig {
    /// The edition.
    pub rules: Rules,
    /// Players at the table (2..=10).
    pub players: usize,
    /// The agents; their number must divide `players`.
    pub agents: Vec<AgentSpec>,
    /// Games (rounds) to play.
    pub games: u64,
    /// Master seed.
    pub seed: u64,
    /// Worker threads (0 = rayon's default).
    pub threads: usize,
}

impl ArenaConfig {
    /// Checks the table before anything is built or played: agents whose
    /// number divides the seats (one agent may fill them all), and at least
    /// one game.
    pub fn check(&self) -> Result<(), AgentError> {
        let k = self.agents.len();
        if k == 0 || !self.players.is_multiple_of(k) {
            return Err(AgentError::SeatsNotDivisible {
                agents: k,
                players: self.players,
            });
        }
        if self.games == 0 {
            return Err(AgentError::NoGames);
        }
        Ok(())
    }

    /// Who sits where in every game (the agents named by their specs).
    pub fn seating(&self) -> Seating {
        let names: Vec<String> = self.agents.iter().map(|a| a.to_string()).collect();
        Seating::new(&names, self.seed)
    }
}

/// Progress callback: `(games done, games in total)`.
pub type Progress<'a> = &'a (dyn Fn(u64, u64) + Sync);

/// The most cyclic orders of the agents an arena plays in turn (K = 6
/// different agents have 120); with more, each block's order is drawn from
/// the seed.
pub const MAX_ORDERS: usize = 120;

/// Who sits where in every game of an arena (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seating {
    /// Each agent's class: the rank of its name among the distinct names.
    class: Vec<usize>,
    /// The cyclic orders played in turn, as the agent at each position; empty
    /// when there are more than [`MAX_ORDERS`] (then each block draws one).
    orders: Vec<Vec<usize>>,
    /// Seeds the drawn orders.
    seed: u64,
}

impl Seating {
    /// The seating of the agents named `names` for master `seed`. Equal names
    /// are the same agent: their order among themselves does not count.
    ///
    /// With one cyclic order (two different agents, or one and copies of
    /// another) it is the order listed. With more, the orders are the
    /// agents' names' distinct arrangements up to rotation, in sorted order,
    /// so every rotation block seats the same names whatever order they were
    /// listed in.
    pub fn new(names: &[String], seed: u64) -> Self {
        let mut distinct: Vec<&String> = names.iter().collect();
        distinct.sort();
        distinct.dedup();
        let class: Vec<usize> = names
            .iter()
            .map(|n| distinct.binary_search(&n).unwrap_or(0))
            .collect();
        let mut seating = Seating {
            class: class.clone(),
            orders: vec![(0..names.len()).collect()],
            seed,
        };
        // Every necklace has a rotation that starts with the smallest class:
        // arrange the others after it, each multiset permutation once, and
        // keep each arrangement's smallest rotation.
        let mut rest = class;
        rest.sort_unstable();
        let first = rest.first().copied();
        let mut keys = std::collections::BTreeSet::new();
        if let Some(first) = first {
            rest.remove(0);
            loop {
                let seq: Vec<usize> = std::iter::once(first).chain(rest.iter().copied()).collect();
                keys.insert(
                    (0..seq.len())
                        .map(|r| {
                            seq[r..]
                                .iter()
                                .chain(&seq[..r])
                                .copied()
                                .collect::<Vec<_>>()
                        })
                        .min()
                        .unwrap_or_default(),
                );
                if keys.len() > MAX_ORDERS || !next_permutation(&mut rest) {
                    break;
                }
            }
        }
        if keys.len() > MAX_ORDERS {
            seating.orders.clear();
        } else if keys.len() > 1 {
            seating.orders = keys.iter().map(|seq| seating.agents_of(seq)).collect();
        }
        seating
    }

    /// The agents for a sequence of classes: a class's agents take its places
    /// in list order.
    fn agents_of(&self, classes: &[usize]) -> Vec<usize> {
        let mut taken = vec![0usize; self.class.len()];
        classes
            .iter()
            .map(|&c| {
                let a = (0..self.class.len())
                    .filter(|&a| self.class[a] == c)
                    .nth(taken[c])
                    .unwrap_or(0);
                taken[c] += 1;
                a
            })
            .collect()
    }

    /// Games over which every agent sits in every seat class, in every cyclic
    /// order, equally: `K` times the number of orders (`K` when they are drawn).
    pub fn block(&self) -> u64 {
        (self.class.len() * self.orders.len().max(1)) as u64
    }

    /// The number of distinct cyclic orders played in turn (0 when drawn at random).
    pub fn orders(&self) -> usize {
        self.orders.len()
    }

    /// The agent (index in the list) in `seat` in game `game` (0 with no agents).
    pub fn agent_at(&self, game: u64, seat: usize) -> usize {
        self.table(game, seat + 1)[seat]
    }

    /// The agent (index in the list) in every seat of game `game` at a table
    /// of `players` (0s with no agents).
    pub fn table(&self, game: u64, players: usize) -> Vec<usize> {
        let k = self.class.len() as u64;
        if k == 0 {
            return vec![0; players];
        }
        let order = self.order_of(game / k);
        (0..players)
            .map(|seat| order[((seat as u64 + game) % k) as usize])
            .collect()
    }

    /// The cyclic order (agents by position) of rotation block `block`.
    fn order_of(&self, block: u64) -> Vec<usize> {
        match self.orders.len() {
            0 => self.drawn_order(block),
            m => self.orders[(block % m as u64) as usize].clone(),
        }
    }

    /// The ChaCha stream game `game` deals from: `game / K`, shared by the
    /// games of its rotation block, except that when the block's order of
    /// names repeats itself around the table (A,A or A,B,A,B: its period
    /// `P` under rotation is less than `K`), rotations `r` and `r + P` would
    /// seat the same names alike, so each repetition gets a deal of its own
    /// (stream `game / K + (r / P) · 2^40`). Every seating of names is then
    /// played at most once on a deal.
    pub fn deal(&self, game: u64) -> u64 {
        let k = self.class.len();
        if k == 0 {
            return game;
        }
        let block = game / k as u64;
        let classes: Vec<usize> = self
            .order_of(block)
            .iter()
            .map(|&a| self.class[a])
            .collect();
        let period = (1..=k)
            .find(|&p| k.is_multiple_of(p) && (0..k).all(|i| classes[i] == classes[(i + p) % k]))
            .unwrap_or(k);
        let copy = (game % k as u64) / period as u64;
        block + (copy << 40)
    }

    /// The order of rotation block `block` when they are drawn: a shuffle of
    /// the classes seeded from the master seed and the block.
    fn drawn_order(&self, block: u64) -> Vec<usize> {
        let mut classes = self.class.clone();
        classes.sort_unstable();
        let mut z = mix_seed(self.seed ^ 0x0DE2_5EA7, block);
        for i in (1..classes.len()).rev() {
            z = mix_seed(z, i as u64);
            classes.swap(i, (z % (i as u64 + 1)) as usize);
        }
        self.agents_of(&classes)
    }
}

/// Steps `v` to its next lexicographic permutation; false (and `v` sorted)
/// after the last.
fn next_permutation(v: &mut [usize]) -> bool {
    let Some(i) = (1..v.len()).rev().find(|&i| v[i - 1] < v[i]) else {
        v.reverse();
        return false;
    };
    let j = (i..v.len()).rev().find(|&j| v[j] > v[i - 1]).unwrap_or(i);
    v.swap(i - 1, j);
    v[i..].reverse();
    true
}

/// Results of one agent.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AgentResult {
    /// The agent's spec string.
    pub spec: String,
    /// Seats it holds per game.
    pub seats_per_game: usize,
    /// Games played.
    pub games: u64,
    /// Games one of its seats won.
    pub wins: u64,
    /// wins / games (truncated games count as no-win).
    pub win_rate: f64,
    /// 95 % Wilson interval of the win rate.
    pub win_ci: [f64; 2],
    /// The chance level of the win rate (seats held / players).
    pub chance: f64,
    /// Mean points won per game: the points of every card left in the other
    /// hands when it won (C-6 standard scoring; under penalty or challenge
    /// scoring, C-7, the winner scores nothing and this is what the others
    /// are charged).
    pub points_won: f64,
    /// Mean points left in its hands per seat in games it did not win
    /// (`None`, JSON `null`, when it won every game).
    pub points_held: Option<f64>,
    /// Mean rank per seat (1 = went out; others by cards then points left; ties share the mean rank).
    pub mean_rank: f64,
    /// Wins by seat index (seats are table positions: the dealer, and so the
    /// first to play, is drawn at random each deal, C-2).
    pub wins_by_seat: Vec<u64>,
}

/// Win-rate difference between the two agents of a two-agent arena.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WinDiff {
    /// First agent's win rate minus the second's.
    pub diff: f64,
    /// 95 % interval of the difference.
    pub ci: [f64; 2],
}

/// Everything an arena run measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ArenaReport {
    /// Rules name.
    pub rules: String,
    /// Players at the table.
    pub players: usize,
    /// Games played.
    pub games: u64,
    /// Games asked for: more than `games` when the arena was stopped early
    /// ([`run_arena_partial`]).
    #[serde(default)]
    pub games_asked: u64,
    /// Master seed.
    pub seed: u64,
    /// Games cut short (no winner).
    pub truncated: u64,
    /// Mean decisions per game.
    pub mean_decisions: f64,
    /// Per-agent results, in the order given.
    pub agents: Vec<AgentResult>,
    /// For exactly two agents: the win-rate difference.
    pub diff: Option<WinDiff>,
}

/// The outcome of one game, as the referee saw it.
struct Outcome {
    winner: Option<usize>,
    truncated: bool,
    decisions: u32,
    /// Points won by the winner.
    points: u32,
    /// Per seat: the agent (index in the list), points held, rank.
    seated: Vec<usize>,
    held: Vec<u32>,
    rank: Vec<f64>,
}

/// Per-agent sums over games (see [`run_arena`]).
struct Tally {
    games: u64,
    wins: Vec<u64>,
    pts: Vec<u64>,
    held: Vec<u64>,
    held_n: Vec<u64>,
    rank: Vec<f64>,
    by_seat: Vec<Vec<u64>>,
    truncated: u64,
    decisions: u64,
}

impl Tally {
    fn new(k: usize, n: usize) -> Self {
        Tally {
            games: 0,
            wins: vec![0; k],
            pts: vec![0; k],
            held: vec![0; k],
            held_n: vec![0; k],
            rank: vec![0.0; k],
            by_seat: vec![vec![0; n]; k],
            truncated: 0,
            decisions: 0,
        }
    }

    /// Adds a game's outcome to its agents' sums.
    fn add(&mut self, o: &Outcome) {
        self.games += 1;
        self.truncated += o.truncated as u64;
        self.decisions += o.decisions as u64;
        let winner = o.winner.map(|w| o.seated[w]);
        for (s, ((&a, &r), &h)) in o.seated.iter().zip(&o.rank).zip(&o.held).enumerate() {
            self.rank[a] += r;
            if o.winner == Some(s) {
                self.wins[a] += 1;
                self.pts[a] += o.points as u64;
                self.by_seat[a][s] += 1;
            } else if winner != Some(a) {
                // Points held count in games the agent did not win (its other
                // seats in a game it won are not losses).
                self.held[a] += h as u64;
                self.held_n[a] += 1;
            }
        }
    }

    /// The sums of two tallies.
    fn merge(mut self, o: Tally) -> Tally {
        let add = |a: &mut Vec<u64>, b: &[u64]| a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        self.games += o.games;
        add(&mut self.wins, &o.wins);
        add(&mut self.pts, &o.pts);
        add(&mut self.held, &o.held);
        add(&mut self.held_n, &o.held_n);
        self.rank.iter_mut().zip(&o.rank).for_each(|(x, y)| *x += y);
        for (a, b) in self.by_seat.iter_mut().zip(&o.by_seat) {
            add(a, b);
        }
        self.truncated += o.truncated;
        self.decisions += o.decisions;
        self
    }
}

type Seats = Vec<Vec<Box<dyn Agent + Send>>>;

fn build_seats(specs: &[AgentSpec], per: usize) -> Result<Seats, AgentError> {
    specs
        .iter()
        .map(|s| (0..per).map(|_| build(s, 0)).collect())
        .collect()
}

fn play_one(
    game: &Game,
    seats: &mut Seats,
    seating: &Seating,
    seed: u64,
    g: u64,
) -> Result<Outcome, AgentError> {
    let n = game.num_players();
    let k = seats.len();
    // One deal per rotation block of `k` games (see the module docs).
    let mut state = game.new_state_on_stream(seed, seating.deal(g));
    // Which instance plays each seat.
    let seated = seating.table(g, n);
    let mut used = vec![0usize; k];
    let mut who = Vec::with_capacity(n);
    for &a in &seated {
        who.push((a, used[a]));
        used[a] += 1;
    }
    for (s, &(a, i)) in who.iter().enumerate() {
        seats[a][i].reset(mix_seed(
            seed,
            g.wrapping_mul(16).wrapping_add(s as u64 + 1),
        ));
    }
    while let Some(p) = state.current_player() {
        let (a, i) = who[p];
        let action = seats[a][i].act(game, &state, p);
        if let Err(e) = game.apply(&mut state, action) {
            return Err(AgentError::IllegalAction {
                agent: seats[a][i].name(),
                seat: p,
                action,
                game: g,
                reason: e.to_string(),
            });
        }
    }
    let winner = state.round_winner();
    let held: Vec<u32> = (0..n).map(|p| game.points(state.hand(p))).collect();
    let points = winner.map_or(0, |w| (0..n).filter(|&p| p != w).map(|p| held[p]).sum());
    let key = |p: usize| {
        if Some(p) == winner {
            (0usize, 0u32)
        } else {
            (1 + state.hand_len(p), held[p])
        }
    };
    let rank = (0..n)
        .map(|p| {
            let better = (0..n).filter(|&q| key(q) < key(p)).count();
            let ties = (0..n).filter(|&q| key(q) == key(p)).count();
            better as f64 + (ties as f64 + 1.0) / 2.0
        })
        .collect();
    Ok(Outcome {
        winner,
        truncated: state.is_truncated(),
        decisions: state.decisions(),
        points,
        seated,
        held,
        rank,
    })
}

fn pool(threads: usize) -> Result<rayon::ThreadPool, AgentError> {
    if threads > uno_env::MAX_THREADS {
        return Err(AgentError::ThreadPool(format!(
            "at most {} threads, not {threads}",
            uno_env::MAX_THREADS
        )));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| AgentError::ThreadPool(e.to_string()))
}

/// Runs the arena. `progress` is called from worker threads as games finish.
/// A checkpoint trained for other rules is an error before any game.
pub fn run_arena(cfg: &ArenaConfig, progress: Option<Progress>) -> Result<ArenaReport, AgentError> {
    run_arena_until(cfg, progress, &AtomicBool::new(false))
}

/// [`run_arena`] that gives up when `stop` is raised (a Ctrl-C handler's
/// flag): the games under way finish, no new one starts, and the result is
/// [`AgentError::Interrupted`].
pub fn run_arena_until(
    cfg: &ArenaConfig,
    progress: Option<Progress>,
    stop: &AtomicBool,
) -> Result<ArenaReport, AgentError> {
    let report = run_arena_partial(cfg, progress, stop)?;
    if report.stopped_early() {
        return Err(AgentError::Interrupted);
    }
    Ok(report)
}

/// [`run_arena`] that stops when `stop` is raised and reports the games
/// finished by then: the games under way finish, no new one starts, and the
/// report's `games` is less than its `games_asked`
/// ([`ArenaReport::stopped_early`]). Those games are the ones that happened
/// to be done, not whole rotation blocks. Stopped before any game finished,
/// the result is [`AgentError::Interrupted`].
pub fn run_arena_partial(
    cfg: &ArenaConfig,
    progress: Option<Progress>,
    stop: &AtomicBool,
) -> Result<ArenaReport, AgentError> {
    let game = Game::new(cfg.rules.clone(), cfg.players)?;
    // The table is checked before the thread pool is built.
    cfg.check()?;
    // A checkpoint trained for other rules is refused before any game (its
    // notes, for another table size or a variant, are the caller's to print:
    // `neural::check_compatible_all`).
    check_checkpoints(&cfg.agents, &game)?;
    run_on(
        &game,
        cfg,
        &pool(cfg.threads)?,
        progress,
        &AtomicUsize::new(0),
        cfg.games,
        stop,
    )
}

fn run_on(
    game: &Game,
    cfg: &ArenaConfig,
    pool: &rayon::ThreadPool,
    progress: Option<Progress>,
    done: &AtomicUsize,
    total: u64,
    stop: &AtomicBool,
) -> Result<ArenaReport, AgentError> {
    cfg.check()?;
    let n = cfg.players;
    let k = cfg.agents.len();
    let per = n / k;
    let seating = cfg.seating();
    // Every worker thread's agents, built once (a network loaded once per
    // thread, not per piece of work), and any error at once.
    let seat_sets: Vec<std::sync::Mutex<Seats>> = (0..pool.current_num_threads())
        .map(|_| build_seats(&cfg.agents, per).map(std::sync::Mutex::new))
        .collect::<Result<_, _>>()?;
    // Each thread adds its games into its own tally (memory does not grow
    // with the number of games); the tallies are sums of whole numbers and
    // halves, exact in any order, so any thread count gives the same report.
    let t: Tally = pool.install(|| {
        (0..cfg.games)
            .into_par_iter()
            // Once `stop` is up no game starts, and the games not started are
            // dropped without a step each (there may be 10^12 of them).
            .take_any_while(|_| !stop.load(Ordering::Relaxed))
            .map(|g| {
                // Each thread uses its own agents. They are busy only when this
                // thread took this game while inside another (an agent that
                // runs rayon work of its own): that game gets agents of its
                // own, and as every seat is reseeded per game the result is
                // the same.
                let i = rayon::current_thread_index().unwrap_or(0) % seat_sets.len();
                let o = match seat_sets[i].try_lock() {
                    Ok(mut seats) => play_one(game, &mut seats, &seating, cfg.seed, g),
                    Err(std::sync::TryLockError::WouldBlock) => play_one(
                        game,
                        &mut build_seats(&cfg.agents, per)?,
                        &seating,
                        cfg.seed,
                        g,
                    ),
                    Err(e) => return Err(AgentError::ThreadPool(e.to_string())),
                };
                let d = done.fetch_add(1, Ordering::Relaxed) as u64 + 1;
                if let Some(p) = progress {
                    p(d, total);
                }
                o
            })
            .try_fold(
                || Tally::new(k, n),
                |mut t, r| {
                    t.add(&r?);
                    Ok::<_, AgentError>(t)
                },
            )
            .try_reduce(|| Tally::new(k, n), |a, b| Ok(a.merge(b)))
    })?;
    let Tally {
        games,
        wins,
        pts,
        held,
        held_n,
        rank,
        by_seat,
        truncated,
        decisions,
    } = t;
    if games == 0 && cfg.games > 0 {
        return Err(AgentError::Interrupted);
    }
    let agents: Vec<AgentResult> = (0..k)
        .map(|a| {
            let (lo, hi) = wilson(wins[a], games, Z95);
            AgentResult {
                spec: cfg.agents[a].to_string(),
                seats_per_game: per,
                games,
                wins: wins[a],
                win_rate: wins[a] as f64 / games as f64,
                win_ci: [lo, hi],
                chance: per as f64 / n as f64,
                points_won: pts[a] as f64 / games as f64,
                points_held: (held_n[a] > 0).then(|| held[a] as f64 / held_n[a] as f64),
                mean_rank: rank[a] / (games as f64 * per as f64),
                wins_by_seat: by_seat[a].clone(),
            }
        })
        .collect();
    let diff = (k == 2).then(|| {
        let (d, lo, hi) = diff_ci(wins[0], wins[1], games, Z95);
        WinDiff {
            diff: d,
            ci: [lo, hi],
        }
    });
    Ok(ArenaReport {
        rules: cfg.rules.name.clone(),
        players: n,
        games,
        games_asked: cfg.games,
        seed: cfg.seed,
        truncated,
        mean_decisions: decisions as f64 / games as f64,
        agents,
        diff,
    })
}

impl ArenaReport {
    /// True if the arena was stopped before it played every game asked for.
    pub fn stopped_early(&self) -> bool {
        self.games < self.games_asked
    }
}

impl fmt::Display for ArenaReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let games = if self.stopped_early() {
            format!(
                "{} of {} games (stopped early)",
                self.games, self.games_asked
            )
        } else {
            format!("{} games", self.games)
        };
        writeln!(
            f,
            "{} | {} players | {games} | seed {} | truncated {} | {:.1} decisions/game",
            self.rules, self.players, self.seed, self.truncated, self.mean_decisions
        )?;
        let w = self
            .agents
            .iter()
            .map(|a| a.spec.len())
            .max()
            .unwrap_or(5)
            .max(5);
        writeln!(
            f,
            "{:<w$}  {:>7}  {:>7}  {:>17}  {:>6}  {:>9}  {:>9}  {:>5}",
            "agent", "games", "wins", "win rate [95% CI]", "chance", "pts won", "pts held", "rank"
        )?;
        for a in &self.agents {
            writeln!(
                f,
                "{:<w$}  {:>7}  {:>7}  {:>5.1}% [{:>4.1},{:>4.1}]  {:>5.1}%  {:>9.2}  {:>9}  {:>5.2}",
                a.spec,
                a.games,
                a.wins,
                100.0 * a.win_rate,
                100.0 * a.win_ci[0],
                100.0 * a.win_ci[1],
                100.0 * a.chance,
                a.points_won,
                a.points_held.map_or("n/a".into(), |p| format!("{p:.2}")),
                a.mean_rank
            )?;
        }
        if self.truncated > 0 {
            // `chance` assumes every game has a winner.
            let won = 1.0 - self.truncated as f64 / self.games.max(1) as f64;
            writeln!(
                f,
                "{} games ({:.1} %) were cut at the decision cap and won by no one: agents all alike would win {won:.3} × chance, not chance",
                self.truncated,
                100.0 * (1.0 - won)
            )?;
        }
        if let Some(d) = &self.diff {
            writeln!(
                f,
                "difference {} - {}: {:+.1} percentage points of win rate [{:+.1}, {:+.1}]",
                self.agents[0].spec,
                self.agents[1].spec,
                100.0 * d.diff,
                100.0 * d.ci[0],
                100.0 * d.ci[1]
            )?;
        }
        if self.stopped_early() {
            writeln!(
                f,
                "stopped early: these are the games finished by then, not whole rotation blocks, so the agents' seats were not shared out evenly"
            )?;
        }
        Ok(())
    }
}

/// A round-robin league: every pair of specs plays `games_per_pair` games.
#[derive(Clone, Debug)]
pub struct LeagueConfig {
    /// The edition.
    pub rules: Rules,
    /// Players at the table (must be even: each pair shares the seats half and half).
    pub players: usize,
    /// The entrants.
    pub specs: Vec<AgentSpec>,
    /// Games per pair.
    pub games_per_pair: u64,
    /// Master seed (pair `i` plays with a seed mixed from it).
    pub seed: u64,
    /// Worker threads (0 = rayon's default).
    pub threads: usize,
}

impl LeagueConfig {
    /// Checks the table before anything is built or played: two or more
    /// specs, and an even number of seats (each pair shares them half and half).
    pub fn check(&self) -> Result<(), AgentError> {
        if self.specs.len() < 2 {
            return Err(AgentError::LeagueTooSmall(self.specs.len()));
        }
        if !self.players.is_multiple_of(2) {
            return Err(AgentError::LeagueOddTable(self.players));
        }
        Ok(())
    }
}

/// One entrant's league line.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LeagueEntry {
    /// The spec.
    pub spec: String,
    /// Its place in the list given (the row and column of `wins`): tells
    /// apart a spec listed twice. Reports written before 2026-11-26 lack it.
    #[serde(default)]
    pub index: usize,
    /// Bradley–Terry rating on the Elo scale (mean 0).
    pub rating: f64,
    /// Half the width of the rating's 95 % interval (Elo points), from the
    /// fit's Fisher information; `None` when the league's pairs do not connect
    /// every agent. Reports written before 2026-11-27 lack it.
    #[serde(default)]
    pub rating_ci95: Option<f64>,
    /// Games played.
    pub games: u64,
    /// Games won.
    pub wins: u64,
}

/// League results: ratings, the head-to-head matrix and each pair's report.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LeagueReport {
    /// Entrants sorted by rating, best first.
    pub table: Vec<LeagueEntry>,
    /// `wins[i][j]`: games spec i won against spec j (in input order).
    pub wins: Vec<Vec<u64>>,
    /// Spec strings in input order.
    pub specs: Vec<String>,
    /// Each pair's arena report.
    pub pairs: Vec<ArenaReport>,
    /// The ratings' covariance (Elo², in input order; see
    /// [`crate::stats::bradley_terry_cov`]), for the uncertainty of a
    /// difference of two ratings. Reports written before 2026-11-27 lack it.
    #[serde(default)]
    pub rating_cov: Option<Vec<Vec<f64>>>,
    /// [`LeagueReport::close_neighbours`] as the league found them, for
    /// readers of the JSON: `[place a, place b, difference, half-width]`.
    #[serde(default)]
    pub close: Vec<(usize, usize, f64, f64)>,
}

impl LeagueReport {
    /// Neighbours in the table (by place) whose ratings' difference is within
    /// its 95 % interval: `(place a, place b, difference, half-width)`, places
    /// counted from 0. The fit cannot tell such agents apart.
    pub fn close_neighbours(&self) -> Vec<(usize, usize, f64, f64)> {
        let Some(c) = &self.rating_cov else {
            return Vec::new();
        };
        let k = c.len();
        self.table
            .windows(2)
            .enumerate()
            .filter_map(|(r, w)| {
                let (a, b) = (w[0].index, w[1].index);
                if a >= k || b >= k {
                    return None;
                }
                let d = w[0].rating - w[1].rating;
                let half = Z95 * (c[a][a] + c[b][b] - 2.0 * c[a][b]).max(0.0).sqrt();
                (d.abs() <= half).then_some((r, r + 1, d, half))
            })
            .collect()
    }
}

/// Runs a round-robin league and rates it with Bradley–Terry (a checkpoint
/// trained for other rules is an error before any game).
pub fn run_league(
    cfg: &LeagueConfig,
    progress: Option<Progress>,
) -> Result<LeagueReport, AgentError> {
    run_league_until(cfg, progress, &AtomicBool::new(false))
}

/// [`run_league`] that gives up when `stop` is raised (a Ctrl-C handler's
/// flag): the games under way finish, no new one starts, and the result is
/// [`AgentError::Interrupted`] (the ratings need every pairing whole).
pub fn run_league_until(
    cfg: &LeagueConfig,
    progress: Option<Progress>,
    stop: &AtomicBool,
) -> Result<LeagueReport, AgentError> {
    cfg.check()?;
    let k = cfg.specs.len();
    let game = Game::new(cfg.rules.clone(), cfg.players)?;
    check_checkpoints(&cfg.specs, &game)?;
    let pool = pool(cfg.threads)?;
    let pairs: Vec<(usize, usize)> = (0..k)
        .flat_map(|i| (i + 1..k).map(move |j| (i, j)))
        .collect();
    let total = cfg.games_per_pair * pairs.len() as u64;
    let done = AtomicUsize::new(0);
    let mut wins = vec![vec![0u64; k]; k];
    let mut reports = Vec::new();
    for (idx, &(i, j)) in pairs.iter().enumerate() {
        let arena = ArenaConfig {
            rules: cfg.rules.clone(),
            players: cfg.players,
            agents: vec![cfg.specs[i].clone(), cfg.specs[j].clone()],
            games: cfg.games_per_pair,
            seed: mix_seed(cfg.seed, idx as u64 + 1),
            threads: cfg.threads,
        };
        let r = run_on(&game, &arena, &pool, progress, &done, total, stop)?;
        if r.stopped_early() {
            return Err(AgentError::Interrupted);
        }
        wins[i][j] += r.agents[0].wins;
        wins[j][i] += r.agents[1].wins;
        reports.push(r);
    }
    let wf: Vec<Vec<f64>> = wins
        .iter()
        .map(|r| r.iter().map(|&x| x as f64).collect())
        .collect();
    let ratings = bradley_terry(&wf);
    let rating_cov = bradley_terry_cov(&wf, &ratings);
    let specs: Vec<String> = cfg.specs.iter().map(|s| s.to_string()).collect();
    let mut table: Vec<LeagueEntry> = (0..k)
        .map(|i| LeagueEntry {
            spec: specs[i].clone(),
            index: i,
            rating: ratings[i],
            rating_ci95: rating_cov.as_ref().map(|c| Z95 * c[i][i].max(0.0).sqrt()),
            games: cfg.games_per_pair * (k as u64 - 1),
            wins: wins[i].iter().sum(),
        })
        .collect();
    table.sort_by(|a, b| b.rating.total_cmp(&a.rating));
    let mut report = LeagueReport {
        table,
        wins,
        specs,
        pairs: reports,
        rating_cov,
        close: Vec::new(),
    };
    report.close = report.close_neighbours();
    Ok(report)
}

impl fmt::Display for LeagueReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = self.specs.iter().map(|s| s.len()).max().unwrap_or(5).max(5);
        writeln!(
            f,
            "{:>3}  {:<w$}  {:>8}  {:>6}  {:>7}  {:>7}  {:>6}",
            "#", "agent", "rating", "±95%", "games", "wins", "win%"
        )?;
        for (r, e) in self.table.iter().enumerate() {
            writeln!(
                f,
                "{:>3}  {:<w$}  {:>+8.1}  {:>6}  {:>7}  {:>7}  {:>5.1}%",
                r + 1,
                e.spec,
                e.rating,
                e.rating_ci95.map_or("n/a".into(), |h| format!("{h:.1}")),
                e.games,
                e.wins,
                100.0 * e.wins as f64 / e.games.max(1) as f64
            )?;
        }
        for &(a, b, d, half) in &self.close {
            writeln!(
                f,
                "#{} and #{} are not told apart: their difference is {d:+.1} ± {half:.1} (95 %); see their head-to-head below",
                a + 1,
                b + 1
            )?;
        }
        writeln!(
            f,
            "head to head (row's wins against column; agents by rank as above):"
        )?;
        let n = self.specs.len();
        // The agents in the table's order (by rating): each row's list index
        // (a spec listed twice is told apart by it, not by its name).
        let order: Vec<usize> = self
            .table
            .iter()
            .map(|e| e.index)
            .filter(|&i| i < n)
            .collect();
        // Row labels are "#rank spec"; columns as wide as the largest count.
        let lw = w + format!("#{} ", n).len();
        let cw = self
            .wins
            .iter()
            .flatten()
            .map(|c| c.to_string().len())
            .max()
            .unwrap_or(1)
            .max(format!("#{n}").len());
        write!(f, "{:<lw$}", "")?;
        for r in 0..order.len() {
            write!(f, "  {:>cw$}", format!("#{}", r + 1))?;
        }
        writeln!(f)?;
        for (r, &i) in order.iter().enumerate() {
            write!(f, "{:<lw$}", format!("#{} {}", r + 1, self.specs[i]))?;
            for &j in &order {
                if i == j {
                    write!(f, "  {:>cw$}", "-")?;
                } else {
                    write!(f, "  {:>cw$}", self.wins[i][j])?;
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
