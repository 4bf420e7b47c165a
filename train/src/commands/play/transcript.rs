//! The game as JSON: rules (as TOML, so custom files replay anywhere),
//! players, seed, and every step (action with seat and name, time-out, next
//! round) with its engine events and log lines. Replaying the steps on
//! `rules + seed` reproduces the game exactly (C-9).

use serde::{Deserialize, Serialize};
use std::path::Path;

/// Format tag written in every transcript.
pub const FORMAT: &str = "uno-attack-transcript/1";

/// One recorded step.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Step {
    /// `action`, `timeout` (F-3) or `next-round`.
    pub kind: String,
    /// Round number (1-based) the step was taken in.
    pub round: usize,
    /// The seat that acted (or timed out); `None` for `next-round`.
    pub seat: Option<usize>,
    /// True when the human took the step.
    pub human: bool,
    /// The action id (for `action`).
    pub action: Option<usize>,
    /// The action's name (`play:R5`, `draw`, …) or the step kind.
    pub name: String,
    /// The engine's events, as JSON values.
    pub events: Vec<serde_json::Value>,
    /// The log lines the step produced.
    pub log: Vec<String>,
    /// Your reaction time in a SLAP race shown after this step, in ms (display only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slap_ms: Option<u64>,
    /// The SLAP race's line as logged ("SLAP race: you 412 ms, Bot 2 530 ms"),
    /// every racer's time (display only; absent in transcripts before 2026-12).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slap_race: Option<String>,
}

/// A whole game.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Transcript {
    /// Always [`FORMAT`].
    pub format: String,
    /// The `--rules` argument as given.
    pub rules: String,
    /// The compiled rules as TOML (what replay loads).
    pub rules_toml: String,
    /// Players at the table.
    pub players: usize,
    /// The match seed.
    pub seed: u64,
    /// The human's seat.
    pub human_seat: usize,
    /// The bots' agent spec.
    pub bot: String,
    /// Display names per seat.
    pub names: Vec<String>,
    /// Every step in order.
    pub steps: Vec<Step>,
    /// Match scores when the transcript was written.
    pub scores: Vec<u32>,
    /// The match winner, if the match is over.
    pub match_winner: Option<usize>,
}

impl Transcript {
    /// Writes the transcript as pretty JSON, atomically (a temporary file in
    /// the same directory, then a rename): a game killed mid-write leaves the
    /// previous transcript whole.
    pub fn save(&self, path: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        uno_agents::neural::write_atomic(path, text.as_bytes()).map_err(|e| match e {
            uno_agents::neural::NeuralError::Io { source, .. } => {
                format!("cannot write {}: {source}", path.display())
            }
            e => e.to_string(),
        })
    }

    /// Reads a transcript written by [`Transcript::save`].
    pub fn load(path: &Path) -> Result<Transcript, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let t: Transcript = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not a transcript: {e}", path.display()))?;
        if t.format != FORMAT {
            return Err(format!(
                "{}: unknown transcript format `{}` (expected {FORMAT})",
                path.display(),
                t.format
            ));
        }
        // Names and labels are printed to the terminal: no escape sequences.
        let labels = t.names.iter().chain([&t.bot, &t.rules]);
        if let Some(bad) = labels.into_iter().find(|l| l.chars().any(char::is_control)) {
            return Err(format!(
                "{}: the name or label {bad:?} holds control characters",
                path.display()
            ));
        }
        Ok(t)
    }
}
