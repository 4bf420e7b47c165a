//! Agents for UNO Attack!: random, heuristic and neural players, and the arena that rates them.

#[cfg(feature = "neural")]
pub mod neural;
