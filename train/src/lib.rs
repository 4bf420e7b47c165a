//! Self-play PPO trainer for UNO Attack!: PPO maths ([`ppo`]), the burn learner ([`learner`]),
//! metrics output ([`metrics`]) and the training loop ([`selfplay`]: `Trainer` and
//! `TrainConfig`, what the `uno-attack train` command runs). The `uno-attack` program
//! itself (train, arena, play, bench, simulate) is this crate's binary, built with the
//! default `cli` feature; `default-features = false` builds the library alone.

#![warn(missing_docs)]

pub mod learner;
pub mod metrics;
pub mod ppo;
pub mod selfplay;
