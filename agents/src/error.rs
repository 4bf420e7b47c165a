//! Errors of agent specs, agent construction and the arena.

use std::path::PathBuf;

/// Everything that can go wrong when naming, building or running agents.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The spec string is empty.
    #[error(
        "empty agent spec (expected random, random-play, first-legal, greedy, heuristic[:k=v,...], search[:k=v,...] or checkpoint:<path>)"
    )]
    EmptySpec,
    /// The spec names no known agent.
    #[error(
        "unknown agent `{0}` (expected random, random-play, first-legal, greedy, heuristic[:k=v,...], search[:k=v,...] or checkpoint:<path>)"
    )]
    UnknownAgent(String),
    /// This agent takes no `:options`.
    #[error("agent `{0}` takes no options (got `{1}`)")]
    UnexpectedOptions(String, String),
    /// An agent option (heuristic or search) is not of the form `key=value`.
    #[error("agent option `{0}` is not of the form key=value")]
    BadOverride(String),
    /// An agent parameter (heuristic or search) is unknown or its value has the wrong type.
    #[error("agent parameter `{key}`: {reason}")]
    BadParam {
        /// The parameter.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// `checkpoint:` without a path.
    #[error("`checkpoint:` needs a path (checkpoint:<dir>)")]
    MissingCheckpointPath,
    /// No neural builder is available for `checkpoint:<path>`.
    #[error(
        "cannot build checkpoint:{0}: this build has no neural agents (uno-agents without its `neural` feature, and no checkpoint builder registered)"
    )]
    NeuralUnavailable(PathBuf),
    /// The registered neural builder failed.
    #[error("cannot build checkpoint:{path}: {message}")]
    Checkpoint {
        /// The checkpoint path.
        path: PathBuf,
        /// The builder's error.
        message: String,
    },
    /// The rules or table size are invalid.
    #[error("invalid game: {0}")]
    Game(#[from] uno_env::ConfigError),
    /// A league pairs two agents at a table: the table needs an even number of seats.
    #[error(
        "a league seats two agents at each table, so it needs an even number of players, not {0}"
    )]
    LeagueOddTable(usize),
    /// The arena was given no agents, or a count that does not divide the seats.
    #[error(
        "{agents} agent(s) cannot share {players} seats evenly: the number of agents must divide the number of players"
    )]
    SeatsNotDivisible {
        /// Agents given.
        agents: usize,
        /// Players at the table.
        players: usize,
    },
    /// A league needs at least two specs.
    #[error("a league needs at least two agent specs, got {0}")]
    LeagueTooSmall(usize),
    /// The arena was asked for zero games.
    #[error("the arena needs at least one game")]
    NoGames,
    /// An agent returned an illegal action.
    #[error(
        "agent `{agent}` in seat {seat} returned illegal action {action} (game {game}): {reason}"
    )]
    IllegalAction {
        /// The agent's name.
        agent: String,
        /// Its seat.
        seat: usize,
        /// The action id.
        action: usize,
        /// The game index.
        game: u64,
        /// The engine's reason.
        reason: String,
    },
    /// The rayon thread pool could not be built.
    #[error("thread pool: {0}")]
    ThreadPool(String),
    /// A single-agent env was given a bad argument (a game count, seat,
    /// opponent list or buffer that does not fit).
    #[error("{0}")]
    Env(String),
    /// Memory ran out while building a single-agent env's games and their
    /// agents: refused before anything was built (Python raises `MemoryError`).
    #[error("out of memory for {what} ({mb} MB)")]
    OutOfMemory {
        /// What was being allocated.
        what: String,
        /// Its size in MiB.
        mb: usize,
    },
    /// The arena was stopped before its games were played
    /// ([`crate::run_arena_until`]).
    #[error("the arena was interrupted")]
    Interrupted,
    /// A single-agent env was stepped before its first reset (nothing changed).
    #[error(
        "call reset() first: it deals the games and plays the opponents up to the learner's turn"
    )]
    NotReset,
    /// A step got a number of actions other than one per game (nothing changed).
    #[error("{given} actions for {games} games")]
    ActionCount {
        /// Actions given.
        given: usize,
        /// Games in the env.
        games: usize,
    },
    /// The learner's action in a game is not legal there (nothing changed:
    /// every action is checked before any is applied).
    #[error("game {game}: {reason}")]
    IllegalLearnerAction {
        /// The game's index.
        game: usize,
        /// The action id given.
        action: usize,
        /// The engine's reason.
        reason: String,
    },
}
