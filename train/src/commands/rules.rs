//! `uno-attack rules`: a preset or rules file resolved to every setting, as a
//! rules file to start from, with the table sizes it plays at and how it
//! differs from the nearest preset.

use super::CmdResult;
use uno_env::rules::Supply;
use uno_env::{Game, MAX_PLAYERS, MIN_PLAYERS, PRESETS, Rules};

/// Flags of `rules`.
#[derive(clap::Args)]
pub struct Args {
    /// Preset (attack-1999, attack-2010, attack-modern, flash, classic) or TOML path.
    #[arg(long, default_value = "attack-2010")]
    rules: String,
    /// Also require these rules to play at this table size (2..=10): an error if they do not.
    #[arg(long)]
    players: Option<usize>,
}

/// Runs `rules`: prints the report, or the error that refuses the rules (or the table size).
pub fn run(a: Args) -> CmdResult {
    let rules = Rules::load(&a.rules).map_err(|e| e.to_string())?;
    if let Some(n) = a.players {
        Game::new(rules.clone(), n).map_err(|e| e.to_string())?;
    }
    print!("{}", report(&rules));
    Ok(())
}

/// The table sizes `rules` plays at, the sizes it does not, and the first
/// refusal's size and message.
fn table_sizes(rules: &Rules) -> (Vec<usize>, Vec<usize>, Option<(usize, String)>) {
    let (mut plays, mut not) = (Vec::new(), Vec::new());
    let mut refused = None;
    for n in MIN_PLAYERS..=MAX_PLAYERS {
        match Game::new(rules.clone(), n) {
            Ok(_) => plays.push(n),
            Err(e) => {
                not.push(n);
                refused.get_or_insert((n, e.to_string()));
            }
        }
    }
    (plays, not, refused)
}

/// `2, 3, 4, 7` as `2 to 4, 7`.
fn ranges(sizes: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sizes.len() {
        let mut j = i;
        while j + 1 < sizes.len() && sizes[j + 1] == sizes[j] + 1 {
            j += 1;
        }
        parts.push(match j - i {
            0 => sizes[i].to_string(),
            1 => format!("{}, {}", sizes[i], sizes[j]),
            _ => format!("{} to {}", sizes[i], sizes[j]),
        });
        i = j + 1;
    }
    parts.join(", ")
}

/// The preset `rules` differs least from, with the settings that differ.
pub(crate) fn nearest_preset(rules: &Rules) -> (&'static str, Vec<String>) {
    PRESETS
        .iter()
        .filter_map(|p| Some((*p, rules.differences(&Rules::preset(p).ok()?))))
        .min_by_key(|(_, d)| d.len())
        .expect("the presets load")
}

/// The report: comment lines (deck, supply, table sizes, the nearest preset
/// and the differences from it), then every setting as TOML. The whole text
/// is a rules file that reads back as `rules`.
pub fn report(rules: &Rules) -> String {
    let supply = match rules.supply {
        Supply::Launcher => format!("the launcher ({} model)", rules.launcher.name()),
        Supply::Pile => "a draw pile".to_string(),
    };
    let mut out = format!(
        "# {}: {} cards, drawn from {supply}.\n",
        rules.name,
        rules.deck_size()
    );
    let (plays, not, refused) = table_sizes(rules);
    out += &match (plays.is_empty(), refused) {
        (true, Some((_, why))) => format!("# Plays at no table size: {why}\n"),
        // Every size refused is named; the reason is the first one's.
        (false, Some((n, why))) if not.len() == 1 => {
            format!("# Plays at {} players; not at {n}: {why}\n", ranges(&plays))
        }
        (false, Some((n, why))) => format!(
            "# Plays at {} players; not at {}. At {n}: {why}\n",
            ranges(&plays),
            ranges(&not)
        ),
        (_, None) => format!("# Plays at {} players.\n", ranges(&plays)),
    };
    let (preset, diff) = nearest_preset(rules);
    out += &if diff.is_empty() {
        format!("# The same game as preset `{preset}`.\n")
    } else {
        let mut lines = format!(
            "# Differs from preset `{preset}` in {} setting{}:\n",
            diff.len(),
            if diff.len() == 1 { "" } else { "s" }
        );
        for d in &diff {
            lines += &format!("#   {d}\n");
        }
        lines
    };
    out += "# Every setting follows: this text is a rules file (`--rules FILE`) for\n";
    out += "# `play`, `arena`, `train`, `simulate` and `bench`; see docs/env.md.\n\n";
    let mut toml = rules.to_toml();
    if rules.options.refill_at_discard.is_none() {
        // TOML has no null: an unset option is left out of the text, so it
        // is shown as a comment where it belongs.
        toml = toml.replacen(
            "\n[options]\n",
            "\n[options]\n# refill_at_discard = N   (unset: the discard pile is reloaded only when more \
             cards must be drawn than are left, A-2; N reloads it once it holds N cards)\n",
            1,
        );
    }
    out += &toml;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_fold_runs_of_sizes() {
        assert_eq!(ranges(&[2, 3, 4, 5, 6, 7, 8, 9, 10]), "2 to 10");
        assert_eq!(ranges(&[2, 3, 5, 7, 8, 9]), "2, 3, 5, 7 to 9");
        assert_eq!(ranges(&[4]), "4");
        assert_eq!(ranges(&[]), "");
    }

    #[test]
    fn every_preset_reads_back_from_its_report_and_plays_at_every_size() {
        for p in PRESETS {
            let rules = Rules::preset(p).unwrap();
            let text = report(&rules);
            assert_eq!(Rules::from_toml_str(&text).unwrap(), rules, "{p}");
            assert!(
                text.contains("# Plays at 2 to 10 players.\n"),
                "{p}:\n{text}"
            );
            assert!(
                text.contains(&format!("# The same game as preset `{p}`.\n")),
                "{p}:\n{text}"
            );
            // The one option TOML cannot spell while unset is still shown.
            assert!(
                text.contains("\n[options]\n# refill_at_discard = N "),
                "{p}:\n{text}"
            );
        }
    }

    #[test]
    fn a_changed_preset_names_its_differences_and_the_sizes_it_cannot_deal() {
        let mut rules = Rules::preset("classic").unwrap();
        rules.name = "big hands".into();
        rules.options.hand_size = 20;
        rules.options.mega_hit = true;
        let text = report(&rules);
        assert_eq!(Rules::from_toml_str(&text).unwrap(), rules);
        assert!(
            text.contains("# Differs from preset `classic` in 2 settings:\n#   options.hand_size\n#   options.mega_hit\n"),
            "{text}"
        );
        // 108 cards deal 20 each to at most 5 players (and a start card).
        let (plays, not, refused) = table_sizes(&rules);
        assert_eq!(plays, vec![2, 3, 4, 5]);
        assert_eq!(not, vec![6, 7, 8, 9, 10]);
        let (n, why) = refused.unwrap();
        assert_eq!(n, 6);
        // Every size refused is named, with the first one's reason.
        assert!(
            text.contains(&format!(
                "# Plays at 2 to 5 players; not at 6 to 10. At 6: {why}\n"
            )),
            "{text}"
        );
        // One size refused is named with its reason.
        rules.options.hand_size = 11;
        let text = report(&rules);
        let (plays, not, refused) = table_sizes(&rules);
        assert_eq!((plays.len(), not), (8, vec![10]));
        let (_, why) = refused.unwrap();
        assert!(
            text.contains(&format!("# Plays at 2 to 9 players; not at 10: {why}\n")),
            "{text}"
        );
    }
}
