//! Errors as types: bad configuration and illegal moves.

use thiserror::Error;

/// A configuration that cannot make a game.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum ConfigError {
    /// Not one of the built-in presets, nor an existing file.
    #[error(
        "unknown rules `{0}`: expected one of attack-1999, attack-2010, attack-modern, flash, classic, or a TOML file path"
    )]
    UnknownPreset(String),
    /// The TOML text does not parse or does not fit the schema.
    #[error("invalid rules TOML: {0}")]
    Toml(String),
    /// A file could not be read.
    #[error("cannot read rules file {0}")]
    Io(String),
    /// The values are out of range or inconsistent.
    #[error("invalid rules: {0}")]
    Invalid(String),
    /// A vectorized-environment setting out of range (games, threads).
    #[error("invalid environment setting: {0}")]
    Env(String),
    /// Memory ran out for the games' states: the allocation was refused and
    /// nothing was built (Python raises `MemoryError`).
    #[error("out of memory for {what} ({mb} MB)")]
    OutOfMemory {
        /// What was being allocated.
        what: String,
        /// Its size in MiB.
        mb: usize,
    },
    /// Player count outside 2..=10 (C-1).
    #[error("invalid player count {0}: UNO needs 2 to 10 players (C-1)")]
    Players(usize),
    /// The deck cannot deal every hand and still be sure of a start card.
    #[error(
        "deck of {deck} cards cannot deal {players} hands of {hand} plus a start card \
         ({returned} of its cards are returned when turned as the start card)"
    )]
    DeckTooSmall {
        /// Cards in the deck.
        deck: usize,
        /// Players.
        players: usize,
        /// Cards per hand.
        hand: usize,
        /// Cards that are returned when turned as the start card (A-9, F-8, K-3).
        returned: usize,
    },
}

/// A buffer, seat or state an observation encoder (or `Game::resample_hidden`)
/// cannot work from.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeError {
    /// The output buffer is too short.
    #[error("output buffer holds {got} values, needs {need}")]
    Buffer {
        /// Its length.
        got: usize,
        /// The length needed.
        need: usize,
    },
    /// The seat is not at the table.
    #[error("seat {seat} is not a seat of the {players}-player table")]
    Seat {
        /// The seat asked for.
        seat: usize,
        /// Players at the table.
        players: usize,
    },
    /// The state is for another table size.
    #[error("the state is for {state} players, the game for {game}")]
    Table {
        /// The state's players.
        state: usize,
        /// The game's players.
        game: usize,
    },
}

/// An action the engine refused; the state is unchanged.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ActionError {
    /// Action id outside the action space.
    #[error("action id {0} is out of range (the action space has {1} actions)")]
    OutOfRange(usize, usize),
    /// The round (or match) is over.
    #[error("the round is over: no action can be applied (start the next round or reset)")]
    RoundOver,
    /// The state does not belong to this game (another table size) or names
    /// no seat to act; check states from elsewhere with `Game::check_invariants`.
    #[error("invalid state for this game: {0}")]
    InvalidState(String),
    /// Not legal here, with the reason.
    #[error("illegal action `{action}` in phase {phase}: {reason}")]
    Illegal {
        /// The action's name.
        action: String,
        /// The decision phase.
        phase: String,
        /// Why it is not legal.
        reason: String,
    },
}

/// A scenario that does not describe a valid position.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum ScenarioError {
    /// The configuration is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// More copies of a face than the deck has.
    #[error("scenario uses more `{0}` cards than the deck holds")]
    TooMany(String),
    /// Inconsistent fields.
    #[error("invalid scenario: {0}")]
    Invalid(String),
}

/// A state that breaks an invariant of its game
/// ([`crate::Game::check_invariants`]): the first violation found, in words.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{message}")]
pub struct InvariantError {
    message: String,
}

impl InvariantError {
    /// An error with this description of the violation.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The description of the violation.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// A name that [`std::str::FromStr`] could not read as an action, colour,
/// card kind, face or phase.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("`{text}` is not the name of {what}")]
pub struct ParseNameError {
    /// What was being read, with its article (`an action`, `a colour`, …).
    pub what: &'static str,
    /// The text given.
    pub text: String,
}
