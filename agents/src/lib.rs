//! `uno-agents`: the players of the project and the arena that rates them.
//!
//! Every player implements [`Agent`]: given the game, a state and its seat it
//! returns a legal action id, reading only what that seat may see (the
//! hand-written agents go through [`PublicView`]). The ladder of hand-written
//! agents is `random` < `random-play` < `first-legal` < `greedy` < `heuristic`;
//! [`search`] plays out each action on resampled deals on top of any of them; the neural agent
//! (feature `neural`) plugs in through a checkpoint hook ([`register_checkpoint_builder`]).
//! Agents are named by spec strings ([`parse_spec`], [`build`]) so scripts and
//! the CLI can pit any of them against each other in the [`arena`], which plays
//! seeded, seat-rotated games in parallel and reports win rates with confidence
//! intervals, points, ranks and Bradley–Terry league ratings.
//!
//! ```
//! use uno_agents::{ArenaConfig, build, parse_spec, parse_spec_list, run_arena};
//! use uno_env::{Game, Rules};
//!
//! // Agents by spec, head to head: seeds and seats are handled by the arena.
//! let cfg = ArenaConfig {
//!     rules: Rules::preset("classic")?,
//!     players: 2,
//!     agents: parse_spec_list("heuristic,random-play")?,
//!     games: 200,
//!     seed: 1,
//!     threads: 1,
//! };
//! let report = run_arena(&cfg, None)?;
//! println!("{report}"); // or serde_json::to_string(&report)
//! assert_eq!(report.agents[0].games, 200);
//!
//! // An agent by hand: it acts for the seat to move.
//! let game = Game::new(Rules::preset("classic")?, 2)?;
//! let mut agent = build(&parse_spec("greedy")?, 0)?;
//! let mut state = game.new_state(3);
//! while let Some(seat) = state.current_player() {
//!     let action = agent.act(&game, &state, seat);
//!     game.apply(&mut state, action)?;
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A shipped or trained network plays as `checkpoint:<dir>` (or
//! `neural::NeuralAgent::load`). The burn-backed `neural` module is the
//! default feature `neural`; `default-features = false` builds the other
//! agents, the arena and [`SoloVecEnv`] without burn (a `checkpoint:` spec
//! is then an [`AgentError::NeuralUnavailable`]).

#![warn(missing_docs)]

pub mod agent;
pub mod arena;
pub mod error;
pub mod heuristic;
pub mod search;
pub mod simple;
pub mod solo;
pub mod spec;
pub mod stats;
pub mod view;

pub use agent::Agent;
pub use arena::{
    AgentResult, ArenaConfig, ArenaReport, LeagueConfig, LeagueEntry, LeagueReport, MAX_ORDERS,
    Progress, Seating, WinDiff, run_arena, run_arena_partial, run_arena_until, run_league,
    run_league_until,
};
pub use error::AgentError;
pub use heuristic::{Heuristic, HeuristicParams};
pub use search::{Search, SearchParams};
pub use simple::{FirstLegal, Greedy, RandomAgent, RandomPlay};
pub use solo::SoloVecEnv;
pub use spec::{
    AgentFactory, AgentSpec, CheckpointBuilder, CustomAgent, build, parse_spec, parse_spec_list,
    register_checkpoint_builder,
};
pub use view::PublicView;

#[cfg(feature = "neural")]
pub mod neural;
