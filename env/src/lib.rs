//! `uno-env`: the rules engine and reinforcement-learning environment for
//! UNO Attack! (1999, 2010 and modern decks), UNO Flash and classic UNO.
//!
//! The crate follows OpenSpiel's split: a [`Game`] is the static part (rules
//! compiled into tables, player count, sizes of spaces) and a [`State`] is one
//! position (plain data, serde, its own ChaCha chance generator). Every edition
//! is a [`Rules`] value (deck list, card effects, options); one engine serves
//! them all. Decisions are explicit phases with one fixed action space
//! ([`action`]); chance is explicit and seeded (C-9).
//!
//! ```
//! use uno_env::{Game, Rules};
//! let game = Game::new(Rules::preset("attack-2010").unwrap(), 4).unwrap();
//! let mut state = game.new_state(7);
//! while !state.is_round_over() {
//!     let a = game.legal_actions(&state)[0];
//!     game.apply(&mut state, a).unwrap();
//! }
//! assert!(game.check_invariants(&state).is_ok());
//! ```

#![warn(missing_docs)]

pub mod action;
pub mod bench;
pub mod card;
mod engine;
pub mod error;
pub mod events;
pub mod file;
pub mod game;
mod invariants;
pub mod obs;
mod resample;
pub mod rng;
pub mod rules;
pub mod scenario;
pub mod state;
mod team;
pub mod vec_env;

pub use action::{Action, ActionMask, NUM_ACTIONS, action_name};
pub use card::{Colour, Face, Kind, NUM_FACES};
pub use error::{
    ActionError, ConfigError, EncodeError, InvariantError, ParseNameError, ScenarioError,
};
pub use events::{Event, EventLog, Events, Imposed};
pub use game::{Game, MAX_PLAYERS, MIN_PLAYERS};
pub use obs::{OBS_SIZE, OBS_VERSION};
pub use rules::{
    AttackResume, Effect, KindRule, LauncherModel, MIN_CHANCE, Options, PRESETS, Rules, Scoring,
    Supply, TurnOrder, UnoCall,
};
pub use scenario::Scenario;
pub use state::{Phase, State};
pub use vec_env::{
    AlignedVec, BUFFER_ALIGN, BatchMut, Buffers, EnvConfig, Episode, EpisodeEnd, MAX_ENVS,
    MAX_THREADS, RewardMode, VecEnv, VecEnvError,
};
