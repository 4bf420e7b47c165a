//! Self-play PPO trainer for UNO Attack!: PPO maths ([`ppo`]), the burn learner ([`learner`])
//! and metrics output ([`metrics`]).

#![warn(missing_docs)]

pub mod learner;
pub mod metrics;
pub mod ppo;
pub mod selfplay;
