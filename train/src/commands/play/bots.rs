//! Which bot sits at the table: the `--bot` spec; or the shipped checkpoint
//! that `checkpoints/bots.toml` names for these rules and table size (a
//! choice measured head to head); or the shipped checkpoint for these rules
//! and table size (`checkpoints/<rules>-<N>p/meta.json`); else a shipped
//! network trained on several tables that include these rules (`train
//! --tables`, e.g. `checkpoints/universal`); falling back to `heuristic`.
//! Checkpoints are looked for in `./checkpoints`, then in the workspace's; a
//! table's own checkpoint in `./checkpoints` wins over the workspace's `bots.toml`.

use serde::Deserialize;
use std::path::{Path, PathBuf};
use uno_agents::neural::TableMeta;
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
    // The crate's parent is the workspace (shown without a `train/..` detour).
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    roots.push(manifest.parent().unwrap_or(manifest).join("checkpoints"));
    roots
}

/// The table's own checkpoint (`<rules>-<N>p` with a `meta.json`) in the
/// first of `roots` that has one: the root's index and the directory.
fn own_checkpoint_in(roots: &[PathBuf], rules: &str, players: usize) -> Option<(usize, PathBuf)> {
    let name = checkpoint_name(rules, players);
    roots
        .iter()
        .map(|r| r.join(&name))
        .enumerate()
        .find(|(_, d)| d.join("meta.json").is_file())
}

/// A shipped checkpoint trained on several tables, one of them of these
/// rules: the one with a table of this size too, else the first by name.
/// Returns the directory and the matching table.
pub fn shipped_multi_table(rules: &str, players: usize) -> Option<(PathBuf, TableMeta)> {
    multi_table_in(&checkpoint_roots(), rules, players)
}

/// [`shipped_multi_table`] among the checkpoint directories under `roots`
/// (the first root holding any match wins).
fn multi_table_in(roots: &[PathBuf], rules: &str, players: usize) -> Option<(PathBuf, TableMeta)> {
    let mut found: Vec<(bool, PathBuf, TableMeta)> = Vec::new();
    for root in roots {
        let Ok(entries) = std::fs::read_dir(root) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        dirs.sort();
        for dir in dirs {
            let Ok(meta) = uno_agents::neural::read_meta(&dir) else {
                continue;
            };
            // One-table checkpoints are found by name (`own_checkpoint_in`).
            if meta.tables.is_empty() {
                continue;
            }
            if let Some(t) = meta.table_for(rules, players) {
                found.push((t.players == players, dir, t));
            }
        }
        if !found.is_empty() {
            break;
        }
    }
    // An exact table size first; otherwise the first found.
    let k = found.iter().position(|f| f.0).unwrap_or(0);
    (!found.is_empty()).then(|| {
        let (_, dir, table) = found.swap_remove(k);
        (dir, table)
    })
}

/// The file beside the shipped checkpoints that names, per table, a bot
/// other than the table's own checkpoint (`<rules>-<N>p`).
pub const BOTS_FILE: &str = "bots.toml";

/// `bots.toml`: the tables whose default bot was chosen by measurement.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BotsFile {
    /// One entry per table.
    #[serde(default)]
    table: Vec<BotEntry>,
}

/// One `[[table]]` of `bots.toml`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BotEntry {
    /// Rules name (a preset, or a rules file's `name`).
    rules: String,
    /// Table size.
    players: usize,
    /// A checkpoint directory beside `bots.toml`.
    bot: String,
    /// The measurement behind the choice, shown to the player.
    why: String,
}

/// The bot that `bots.toml` (in the first of `roots` holding one) names for
/// these rules and table size: its directory, the table of its `meta.json`
/// that serves these rules, and the file's reason. A file that does not
/// parse, or names a checkpoint that is missing or trained for other rules,
/// is an error naming the file.
fn preferred_in(
    roots: &[PathBuf],
    rules: &str,
    players: usize,
) -> Result<Option<(PathBuf, TableMeta, String)>, String> {
    let Some((root, file)) = roots
        .iter()
        .map(|r| (r, r.join(BOTS_FILE)))
        .find(|(_, f)| f.is_file())
    else {
        return Ok(None);
    };
    let fail = |e: String| format!("{}: {e}", file.display());
    let text = uno_env::file::read_text(&file, 1 << 20, "bots file")
        .map_err(|e| format!("cannot read {e}"))?;
    let bots: BotsFile =
        toml::from_str(&text).map_err(|e| fail(uno_env::rules::toml_error_line(&text, &e)))?;
    let mut found = bots
        .table
        .into_iter()
        .filter(|t| t.rules.eq_ignore_ascii_case(rules) && t.players == players);
    let Some(entry) = found.next() else {
        return Ok(None);
    };
    if found.next().is_some() {
        return Err(fail(format!("lists {rules} at {players} players twice")));
    }
    let table_name = format!("`{}` for {rules} at {players} players", entry.bot);
    // One directory name: no path, no `.` or `..`.
    if matches!(entry.bot.as_str(), "" | "." | "..") || entry.bot.contains(['/', '\\']) {
        return Err(fail(format!(
            "names {table_name}: `bot` must be the name of a checkpoint directory beside the file"
        )));
    }
    // The reason reaches the terminal: no escape sequences.
    if entry.why.chars().any(char::is_control) {
        return Err(fail(format!(
            "names {table_name}: `why` holds control characters"
        )));
    }
    let dir = root.join(&entry.bot);
    let meta = uno_agents::neural::read_meta(&dir)
        .map_err(|e| fail(format!("names {table_name}: {e}")))?;
    let table = meta.table_for(rules, players).ok_or_else(|| {
        fail(format!(
            "names {table_name}, but that checkpoint was not trained on {rules}"
        ))
    })?;
    Ok(Some((dir, table, entry.why)))
}

/// Resolves `--bot` (or the default) into a spec; an explicit bad spec is an error.
pub fn resolve(bot: Option<&str>, game: &Game) -> Result<BotChoice, String> {
    if let Some(s) = bot {
        let spec = parse_spec(s).map_err(|e| format!("--bot: {e}"))?;
        // A checkpoint must have been trained for these rules, as in the
        // arena; a table size or settings it did not see are noted.
        let notes = uno_agents::neural::check_compatible_all(&spec.checkpoints(), game)
            .map_err(|(_, e)| format!("--bot {s}: {e}"))?;
        // Build once now so a bad checkpoint fails before the screen opens.
        build(&spec, 0).map_err(|e| format!("--bot {s}: {e}"))?;
        return Ok(BotChoice {
            note: format!("bot: {spec} (--bot){}", bracketed(&notes)),
            spec,
        });
    }
    let name = rules_key(game);
    let n = game.num_players();
    // Roots nearest first: a table's own checkpoint in `./checkpoints` wins
    // over a later root's `bots.toml`.
    let roots = checkpoint_roots();
    let own = own_checkpoint_in(&roots, &name, n);
    let searched = own.as_ref().map_or(roots.len(), |(i, _)| i + 1);
    let preferred = preferred_in(&roots[..searched], &name, n)?;
    let why = preferred.as_ref().map(|p| p.2.clone());
    let shipped = match (preferred, own) {
        (Some((dir, table, _)), _) => Some((dir, table)),
        (None, Some((_, dir))) => {
            // An unreadable meta.json fails to load below, with its error.
            let table = uno_agents::neural::read_meta(&dir)
                .map(|m| m.main_table())
                .unwrap_or(TableMeta {
                    rules: name.clone(),
                    players: n,
                    rules_toml: None,
                });
            Some((dir, table))
        }
        (None, None) => shipped_multi_table(&name, n),
    };
    if let Some((dir, table)) = shipped {
        // A variant of the preset (a rules file that keeps its name) is not
        // what the checkpoint learned: the heuristic plays instead.
        let changed = table
            .trained_rules()
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
        // The arena's check, under the name the checkpoint was found for (a
        // renamed copy of a preset is noted below): its note names every
        // table size the checkpoint was trained at for these rules.
        let keyed;
        let checked = if name == game.rules().name {
            game
        } else {
            let mut rules = game.rules().clone();
            rules.name = name.clone();
            keyed = Game::new(rules, n).map_err(|e| e.to_string())?;
            &keyed
        };
        let loaded = uno_agents::neural::check_compatible(&dir, checked)
            .map_err(|e| e.to_string())
            .and_then(|notes| build(&spec, 0).map(|_| notes).map_err(|e| e.to_string()));
        match loaded {
            Ok(notes) => {
                let size = bracketed(notes.as_slice());
                let alias = if name == game.rules().name {
                    String::new()
                } else {
                    format!(", for `{name}`: the same rules as `{}`", game.rules().name)
                };
                let why = why
                    .map(|w| format!(" (chosen in {BOTS_FILE}: {w})"))
                    .unwrap_or_default();
                return Ok(BotChoice {
                    note: format!(
                        "bot: shipped checkpoint {}{alias}{size}{why}",
                        dir.display()
                    ),
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

/// The notes of the checkpoint check ([`uno_agents::neural::check_compatible`],
/// as the arena prints them), each as " (…)" after the bot's name, their
/// lines joined by "; ".
fn bracketed(notes: &[String]) -> String {
    notes
        .iter()
        .map(|n| {
            format!(
                " ({})",
                n.trim_start_matches("note: ").replace("\nnote: ", "; ")
            )
        })
        .collect()
}

/// The rules' name used in checkpoint directories: the preset name, or the
/// TOML's `name`; a rules file that copies a preset under another name (no
/// setting changed) is that preset, as the arena's check accepts a checkpoint
/// of the preset for it.
fn rules_key(game: &Game) -> String {
    let rules = game.rules();
    if uno_env::PRESETS.contains(&rules.name.as_str()) {
        return rules.name.clone();
    }
    match crate::commands::rules::nearest_preset(rules) {
        (preset, diff) if diff.is_empty() => preset.to_string(),
        _ => rules.name.clone(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use uno_agents::neural::{CheckpointMeta, NetConfig, write_meta};

    /// Writes a meta.json trained on `tables` (none: a one-table checkpoint) into `dir`.
    fn fake(dir: &Path, tables: &[(&str, usize)]) {
        let mut meta = CheckpointMeta::new(
            "classic",
            2,
            uno_env::OBS_VERSION,
            NetConfig::new(uno_env::obs::OBS_SIZE, uno_env::NUM_ACTIONS),
        );
        meta.tables = tables
            .iter()
            .map(|&(r, p)| TableMeta {
                rules: r.into(),
                players: p,
                rules_toml: None,
            })
            .collect();
        std::fs::create_dir_all(dir).unwrap();
        write_meta(dir, &meta).unwrap();
    }

    #[test]
    fn bots_toml_names_the_bot_of_the_tables_it_lists() {
        let root = tempfile::tempdir().unwrap();
        let roots = vec![root.path().to_path_buf()];
        fake(&root.path().join("classic-2p"), &[]);
        fake(&root.path().join("multi"), &[("classic", 2), ("flash", 4)]);
        let write = |text: &str| std::fs::write(root.path().join(BOTS_FILE), text).unwrap();
        let pick = |r: &str, n| {
            preferred_in(&roots, r, n).map(|p| {
                p.map(|(d, t, why)| {
                    let name = d.file_name().unwrap().to_string_lossy().to_string();
                    (name, t.rules, t.players, why)
                })
            })
        };
        // No file: no choice made here.
        assert_eq!(pick("classic", 2), Ok(None));
        write(
            "[[table]]\nrules = \"classic\"\nplayers = 2\nbot = \"multi\"\nwhy = \"measured\"\n\n\
             [[table]]\nrules = \"flash\"\nplayers = 3\nbot = \"multi\"\nwhy = \"w\"\n",
        );
        assert_eq!(
            pick("classic", 2),
            Ok(Some((
                "multi".into(),
                "classic".into(),
                2,
                "measured".into()
            )))
        );
        // The table of the checkpoint that serves these rules (any size).
        assert_eq!(
            pick("flash", 3),
            Ok(Some(("multi".into(), "flash".into(), 4, "w".into())))
        );
        // Tables the file does not list are left to the usual rule.
        assert_eq!(pick("classic", 3), Ok(None));
        assert_eq!(pick("attack-2010", 2), Ok(None));
        // Every bad file is an error naming it and the problem.
        let entry = |bot: &str| {
            format!("[[table]]\nrules = \"classic\"\nplayers = 2\nbot = \"{bot}\"\nwhy = \"w\"\n")
        };
        for (text, problem) in [
            ("[[table]\n".to_string(), "line 1, column"),
            (entry("multi").replace("why", "how"), "unknown field `how`"),
            (
                entry("multi") + &entry("classic-2p"),
                "lists classic at 2 players twice",
            ),
            (entry("gone"), "names `gone` for classic at 2 players"),
            (
                entry("../multi"),
                "must be the name of a checkpoint directory",
            ),
            (entry(""), "must be the name of a checkpoint directory"),
            (entry(".."), "must be the name of a checkpoint directory"),
            (
                entry("multi").replace("why = \"w\"", "why = \"\\u001b[2J\""),
                "`why` holds control characters",
            ),
            (
                entry("multi").replace("classic", "attack-1999"),
                "but that checkpoint was not trained on attack-1999",
            ),
        ] {
            write(&text);
            let rules = if text.contains("attack-1999") {
                "attack-1999"
            } else {
                "classic"
            };
            let err = preferred_in(&roots, rules, 2).unwrap_err();
            assert!(
                err.contains(BOTS_FILE) && err.contains(problem),
                "{text:?}: {err}"
            );
        }
    }

    #[test]
    fn a_multi_table_checkpoint_serves_the_rules_it_lists() {
        let root = tempfile::tempdir().unwrap();
        let roots = vec![root.path().to_path_buf()];
        fake(&root.path().join("classic-2p"), &[]);
        fake(&root.path().join("a"), &[("flash", 2), ("classic", 3)]);
        fake(&root.path().join("b"), &[("flash", 4), ("attack-1999", 2)]);
        let pick = |r: &str, n| {
            multi_table_in(&roots, r, n).map(|(d, t)| {
                let name = d.file_name().unwrap().to_string_lossy().to_string();
                (name, t.players)
            })
        };
        // The table of this size where one has it, else the first by name.
        assert_eq!(pick("flash", 4), Some(("b".into(), 4)));
        assert_eq!(pick("flash", 2), Some(("a".into(), 2)));
        assert_eq!(pick("flash", 3), Some(("a".into(), 2)));
        assert_eq!(pick("attack-1999", 4), Some(("b".into(), 2)));
        // One-table checkpoints are found by name only (`own_checkpoint_in`).
        assert_eq!(pick("attack-modern", 2), None);
        assert_eq!(pick("classic", 2), Some(("a".into(), 3)));
    }
}
