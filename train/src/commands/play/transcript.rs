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

/// Held while a transcript is written (see [`hold_writes`]).
static WRITES: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Waits for a transcript write under way to finish and holds off the next
/// one while the guard lives: a program that exits on a signal holding it
/// ([`super::tui::exit_interrupted`]) never cuts a write short.
pub fn hold_writes() -> std::sync::MutexGuard<'static, ()> {
    // A write that panicked left nothing to protect: the lock is still good.
    WRITES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Transcript {
    /// Writes the transcript as pretty JSON, atomically (a temporary file in
    /// the same directory, then a rename): a game killed mid-write leaves the
    /// previous transcript whole.
    pub fn save(&self, path: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        // A signal's exit waits for a write under way (see [`hold_writes`]).
        let _writing = hold_writes();
        uno_agents::neural::write_atomic(path, text.as_bytes()).map_err(|e| match e {
            uno_agents::neural::NeuralError::Io { source, .. } => {
                format!("cannot write {}: {source}", path.display())
            }
            e => e.to_string(),
        })
    }

    /// Reads a transcript written by [`Transcript::save`].
    pub fn load(path: &Path) -> Result<Transcript, String> {
        // A whole match's transcript is about 80–220 KB (2 and 4 players, classic and
        // attack-2010, measured 2026-11-30); 32 MiB holds over a hundred times that. Parsing
        // costs up to about 22 times the file's size in memory (30 MB of empty arrays: 660 MB
        // and 2.5–2.8 s), so the cap bounds that too (it was 256 MiB: 11 s and about 3 GB).
        const MAX_TRANSCRIPT_BYTES: u64 = 32 << 20;
        let text = uno_env::file::read_text(path, MAX_TRANSCRIPT_BYTES, "transcript")
            .map_err(|e| format!("cannot read {e}"))?;
        let value: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not a transcript: {e}", path.display()))?;
        // Every string may reach the terminal: no escape sequences anywhere
        // (the rules' TOML may hold line breaks and tabs).
        if let Some(at) = control_characters(&value, "") {
            return Err(format!("{}: {at} holds control characters", path.display()));
        }
        let t: Transcript = serde_json::from_value(value)
            .map_err(|e| format!("{} is not a transcript: {e}", path.display()))?;
        if t.format != FORMAT {
            return Err(format!(
                "{}: unknown transcript format `{}` (expected {FORMAT})",
                path.display(),
                t.format
            ));
        }
        Ok(t)
    }
}

/// Where `v` holds a string (or key) with a control character, as a path
/// like `steps[3].name` (or `a key in steps[3]`); line breaks and tabs are
/// allowed in the top-level `rules_toml`.
fn control_characters(v: &serde_json::Value, at: &str) -> Option<String> {
    let bad = |s: &str, allow_lines: bool| {
        s.chars()
            .any(|c| c.is_control() && !(allow_lines && matches!(c, '\n' | '\r' | '\t')))
    };
    match v {
        serde_json::Value::String(s) => bad(s, at == "rules_toml").then(|| at.to_string()),
        serde_json::Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, x)| control_characters(x, &format!("{at}[{i}]"))),
        serde_json::Value::Object(m) => m.iter().find_map(|(k, x)| {
            let here = if at.is_empty() {
                k.clone()
            } else {
                format!("{at}.{k}")
            };
            if bad(k, false) {
                return Some(format!(
                    "a key in {}",
                    if at.is_empty() { "the file" } else { at }
                ));
            }
            control_characters(x, &here)
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::control_characters;
    use serde_json::json;

    #[test]
    fn control_characters_are_found_with_their_path() {
        let clean = json!({
            "rules_toml": "[rules]\n\tpreset = \"classic\"\r\n",
            "names": ["You", "Bot 1"],
            "steps": [{"log": ["a", "b"], "events": [{"k": 1}]}]
        });
        assert_eq!(control_characters(&clean, ""), None);
        let cases = [
            (json!({"names": ["You", "\u{1b}[2J"]}), "names[1]"),
            (
                json!({"steps": [{}, {"log": ["ok", "x\u{7}"]}]}),
                "steps[1].log[1]",
            ),
            // Line breaks belong only in the top-level rules TOML.
            (
                json!({"steps": [{"rules_toml": "a\nb"}]}),
                "steps[0].rules_toml",
            ),
            (json!({"name": "a\tb"}), "name"),
            (json!({"rules_toml": "\u{1b}]0;t"}), "rules_toml"),
            (json!({"x\u{9b}": 1}), "a key in the file"),
            (json!({"steps": [{"ev\u{1b}": 1}]}), "a key in steps[0]"),
        ];
        for (value, want) in cases {
            assert_eq!(
                control_characters(&value, "").as_deref(),
                Some(want),
                "{value}"
            );
        }
    }
}
