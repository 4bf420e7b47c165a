//! Which bot sits at the table: the `--bot` spec, or the shipped checkpoint
//! for these rules and table size (`checkpoints/<rules>-<N>p/meta.json`),
//! falling back to `heuristic`.

use std::path::{Path, PathBuf};
use uno_agents::{Agent, AgentSpec, build, parse_spec};
use uno_env::Game;

/// The bots' spec and a sentence saying how it was chosen.
#[derive(Clone, Debug)]
pub struct BotChoice {
    /// The spec every bot seat is built from.
    pub spec: AgentSpec,
    /// Shown to the player: which bot, and why.
    pub note: String,
}

/// The directory name of the shipped checkpoint for `rules` and `players`.
pub fn checkpoint_name(rules: &str, players: usize) -> String {
    format!("{rules}-{players}p")
}

/// Where shipped checkpoints may live: `./checkpoints` and the workspace's own.
fn checkpoint_roots() -> Vec<PathBuf> {
    let mut roots = vec![PathBuf::from("checkpoints")];
    let ws = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("checkpoints");
    roots.push(ws);
    roots
}

/// The shipped checkpoint directory for these rules and table size, if any.
pub fn shipped_checkpoint(rules: &str, players: usize) -> Option<PathBuf> {
    let name = checkpoint_name(rules, players);
    checkpoint_roots()
        .into_iter()
        .map(|r| r.join(&name))
        .find(|d| d.join("meta.json").is_file())
}

/// Resolves `--bot` (or the default) into a spec; an explicit bad spec is an error.
pub fn resolve(bot: Option<&str>, game: &Game, rules_arg: &str) -> Result<BotChoice, String> {
    if let Some(s) = bot {
        let spec = parse_spec(s).map_err(|e| format!("--bot: {e}"))?;
        // Build once now so a bad checkpoint fails before the screen opens.
        build(&spec, 0).map_err(|e| format!("--bot {s}: {e}"))?;
        return Ok(BotChoice {
            note: format!("bot: {spec} (--bot)"),
            spec,
        });
    }
    let name = rules_key(game, rules_arg);
    let n = game.num_players();
    if let Some(dir) = shipped_checkpoint(&name, n) {
        // A variant of the preset (a rules file that keeps its name) is not
        // what the checkpoint learned: the heuristic plays instead.
        let changed = uno_agents::neural::read_meta(&dir)
            .ok()
            .and_then(|m| m.trained_rules())
            .map(|r| r.differences(game.rules()))
            .unwrap_or_default();
        if !changed.is_empty() {
            return Ok(BotChoice {
                spec: AgentSpec::Heuristic(Default::default()),
                note: format!(
                    "bot: heuristic (checkpoint {} was trained on `{}` without these changes: {})",
                    dir.display(),
                    name,
                    changed.join(", ")
                ),
            });
        }
        let spec = AgentSpec::Checkpoint(dir.clone());
        match build(&spec, 0) {
            Ok(_) => {
                return Ok(BotChoice {
                    note: format!("bot: shipped checkpoint {}", dir.display()),
                    spec,
                });
            }
            Err(e) => {
                return Ok(BotChoice {
                    spec: AgentSpec::Heuristic(Default::default()),
                    note: format!(
                        "bot: heuristic (checkpoint {} did not load: {e})",
                        dir.display()
                    ),
                });
            }
        }
    }
    Ok(BotChoice {
        spec: AgentSpec::Heuristic(Default::default()),
        note: format!(
            "bot: heuristic (no shipped checkpoint checkpoints/{}/)",
            checkpoint_name(&name, n)
        ),
    })
}

/// The rules' name used in checkpoint directories: the preset name, or the TOML's `name`.
fn rules_key(game: &Game, rules_arg: &str) -> String {
    if uno_env::PRESETS.contains(&rules_arg) {
        rules_arg.to_string()
    } else {
        game.rules().name.clone()
    }
}

/// One agent per bot seat (`None` at the human's seat), each with its own seed.
pub fn build_seats(
    spec: &AgentSpec,
    players: usize,
    human: usize,
    seed: u64,
) -> Result<Vec<Option<Box<dyn Agent + Send>>>, String> {
    (0..players)
        .map(|p| {
            if p == human {
                Ok(None)
            } else {
                let s = uno_agents::agent::mix_seed(seed, 0xB07 + p as u64);
                build(spec, s).map(Some).map_err(|e| e.to_string())
            }
        })
        .collect()
}
