//! Editions as data: deck list, card effects, scores and options.
//!
//! A [`Rules`] value is everything that distinguishes one edition from another.
//! The five presets of `docs/rules.md` are built in ([`Rules::preset`]); a TOML file
//! can start from a preset (`preset = "attack-2010"`) and override any field, so
//! a house rule is a config change, not a code change. The engine never
//! branches on an edition's name: only on the data here.

use crate::card::{Kind, NUM_COLOURED_KINDS};
use crate::error::ConfigError;
use crate::game::MAX_FIRE;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The names of the built-in presets.
pub const PRESETS: [&str; 5] = [
    "attack-1999",
    "attack-2010",
    "attack-modern",
    "flash",
    "classic",
];

/// The built-in preset `name` stands for, in any case (`CLASSIC` is `classic`).
pub fn preset_name(name: &str) -> Option<&'static str> {
    PRESETS
        .iter()
        .copied()
        .find(|p| p.eq_ignore_ascii_case(name))
}

/// Largest deck the engine supports (cards are tracked in a 128-bit set).
pub const MAX_DECK: usize = 128;

/// How a rules file starts, for the errors of one that does not say what it is.
const HOW_A_RULES_FILE_STARTS: &str = "start from a preset (`preset = \"attack-2010\"`, then the settings to change) \
     or give every setting (`uno-attack rules --rules attack-2010` prints them all)";

/// Most presses "press until it fires" makes before it stops (L-3): a guard
/// that only a launcher firing on fewer than about 1 % of presses can reach
/// (at p = 0.01 the chance is 0.99^4096, about 1e-18).
pub const MAX_PRESSES_UNTIL_FIRE: u32 = 4096;

/// What a card does when it is played (and, with a few documented exceptions,
/// when it is turned as the start card).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Effect {
    /// No effect (numbers, plain Wild, Wild Customizable by default).
    None,
    /// The next player loses their turn (A-4, K-2, F-5).
    Skip,
    /// The direction of play reverses; with two players it acts as Skip (C-8).
    Reverse,
    /// The victim takes `n` (presses n times, or draws n) and loses their turn
    /// (A-3, K-1, F-4, A-18). `targeted`: the player names the victim (A-13, A-17).
    Hit {
        /// Presses (launcher) or cards (draw pile).
        n: u8,
        /// The player chooses the victim among the other players.
        #[serde(default)]
        targeted: bool,
    },
    /// The next player presses until the launcher fires (A-11).
    HitUntilFire,
    /// Every other player, from the next one on, takes `n` (A-10).
    AllHit {
        /// Presses each.
        n: u8,
    },
    /// Also discards every other card of its colour from the player's hand (A-5).
    DiscardAll,
    /// The player swaps hands with another player of their choice (A-9).
    TradeHands,
    /// Every opponent races; the slowest takes `n` (F-7).
    Slap {
        /// Cards the slowest draws.
        n: u8,
    },
}

impl Effect {
    /// The player chooses a seat for it when playing it (a target decision):
    /// Trade Hands (A-9) and targeted Hits (A-13, A-17).
    pub fn names_a_seat(self) -> bool {
        matches!(
            self,
            Effect::TradeHands | Effect::Hit { targeted: true, .. }
        )
    }
}

/// How one kind of card behaves in an edition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KindRule {
    /// What it does.
    pub effect: Effect,
    /// Points it scores when left in a hand (C-6).
    pub score: u16,
    /// May only be played while holding no card of the active colour; the victim
    /// may challenge a bluff (F-6, Wild Draw Four).
    #[serde(default)]
    pub no_active_colour: bool,
    /// Counts as a Hit card for Mega Hit stacking (A-14).
    #[serde(default)]
    pub stackable: bool,
    /// Turned as the start card, it is returned and another card turned (A-9, F-8, K-3).
    /// A kind whose effect is Trade Hands is returned whatever this says (A-9).
    #[serde(default)]
    pub start_redraw: bool,
    /// Cannot be played as the player's last card (A-9, Trade Hands; a kind
    /// whose effect is Trade Hands cannot be whatever this says).
    #[serde(default)]
    pub not_last: bool,
}

impl KindRule {
    /// A rule with just an effect and a score.
    pub fn new(effect: Effect, score: u16) -> Self {
        KindRule {
            effect,
            score,
            no_active_colour: false,
            stackable: false,
            start_redraw: false,
            not_last: false,
        }
    }
}

/// Where cards come from when a player must take some.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Supply {
    /// The UNO Attack! card launcher: a press fires zero or more cards (A-1, L-1).
    Launcher,
    /// A face-down draw pile: one card per draw (F-2, F-9).
    Pile,
}

/// How many cards a firing press shoots out: `1 + NegativeBinomial(r, mean)`,
/// capped at `max` (and at the cards loaded).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardCount {
    /// Negative binomial shape parameter.
    pub r: f64,
    /// Mean of the negative binomial part (the count's mean is 1 + mean before capping).
    pub mean: f64,
    /// Most cards one firing shoots out (1..=32).
    pub max: u8,
}

impl Default for CardCount {
    fn default() -> Self {
        CardCount {
            r: 3.0,
            mean: 2.5,
            max: 12,
        }
    }
}

/// The launcher's random mechanism (L-1; the models are in `docs/env.md`, *Launcher models*).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case", deny_unknown_fields)]
pub enum LauncherModel {
    /// Fires with a probability that depends on the misses since the last
    /// firing (`hazard[misses]`, the last entry repeating). Default
    /// `(0.20, 0.20, 0.55, 1.00)`.
    Hazard {
        /// Firing probability by misses since the last firing.
        #[serde(default = "default_hazard")]
        hazard: Vec<f64>,
        /// Cards per firing.
        #[serde(default)]
        cards: CardCount,
    },
    /// Memoryless: fires with probability `p`.
    Bernoulli {
        /// Firing probability (default 0.35).
        #[serde(default = "default_p")]
        p: f64,
        /// Cards per firing.
        #[serde(default)]
        cards: CardCount,
    },
    /// Replays a fixed pattern of firing presses (1-based indices within
    /// `period`), restarting on every refill.
    Pattern {
        /// Presses that fire, 1-based (default: the 96-press list).
        #[serde(default = "default_fires")]
        fires: Vec<u16>,
        /// Length of the pattern (default 96).
        #[serde(default = "default_period")]
        period: u16,
        /// Cards per firing.
        #[serde(default)]
        cards: CardCount,
    },
    /// Every press fires exactly one card (classic draw-pile behaviour).
    DrawOne,
    /// A given list of outcomes (cards fired per press, 0 = a miss), for tests;
    /// it starts over when exhausted.
    Scripted {
        /// Cards fired by each press in turn.
        outcomes: Vec<u8>,
    },
}

/// The smallest firing probability a launcher may have at its last stage:
/// chance draws are multiples of 2^-24 (`Rng::unit`), and a probability
/// stored as `f32` below that may round to 0, which would never fire.
pub const MIN_CHANCE: f64 = 1.0 / (1u32 << 24) as f64;

/// The `hazard` model's default firing probabilities.
fn default_hazard() -> Vec<f64> {
    vec![0.20, 0.20, 0.55, 1.00]
}

/// The `bernoulli` model's default firing probability.
fn default_p() -> f64 {
    0.35
}

/// The `pattern` model's default firing presses (`docs/env.md`, *Launcher models*).
fn default_fires() -> Vec<u16> {
    vec![
        2, 6, 9, 13, 17, 21, 24, 26, 27, 29, 32, 36, 37, 41, 44, 47, 48, 51, 54, 57, 58, 62, 66,
        69, 72, 73, 77, 81, 84, 85, 88, 92, 93, 96,
    ]
}

/// The `pattern` model's default period.
fn default_period() -> u16 {
    96
}

impl LauncherModel {
    /// The `hazard` default model.
    pub fn hazard() -> Self {
        LauncherModel::Hazard {
            hazard: default_hazard(),
            cards: CardCount::default(),
        }
    }

    /// The memoryless model with p = 0.35.
    pub fn bernoulli() -> Self {
        LauncherModel::Bernoulli {
            p: default_p(),
            cards: CardCount::default(),
        }
    }

    /// The 96-press pattern (`docs/env.md`, *Launcher models*).
    pub fn pattern() -> Self {
        LauncherModel::Pattern {
            fires: default_fires(),
            period: default_period(),
            cards: CardCount::default(),
        }
    }

    /// The model's name, as `model = "…"` writes it in a rules file.
    pub fn name(&self) -> &'static str {
        match self {
            LauncherModel::Hazard { .. } => "hazard",
            LauncherModel::Bernoulli { .. } => "bernoulli",
            LauncherModel::Pattern { .. } => "pattern",
            LauncherModel::DrawOne => "draw-one",
            LauncherModel::Scripted { .. } => "scripted",
        }
    }

    /// A model by preset name: `hazard`, `bernoulli`, `pattern`, `draw-one`.
    pub fn by_name(name: &str) -> Option<Self> {
        match name {
            "hazard" => Some(Self::hazard()),
            "bernoulli" => Some(Self::bernoulli()),
            "pattern" => Some(Self::pattern()),
            "draw-one" => Some(LauncherModel::DrawOne),
            _ => None,
        }
    }
}

/// How the UNO call is handled (C-4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UnoCall {
    /// The call is always made.
    Auto,
    /// A decision after playing the second-to-last card; not calling risks a catch.
    Explicit,
}

/// Where play resumes after a Wild Attack-Attack (A-13 / A-17).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AttackResume {
    /// 003's literal words: the second player from the attacker.
    SkipNext,
    /// 000's rule: the player after the target. `docs/rules.md` spells it
    /// `after_target`, which a rules file may use too.
    #[serde(alias = "after_target")]
    AfterTarget,
}

/// How a match is scored (C-7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scoring {
    /// The round winner scores the others' cards; first to the target wins.
    Winner,
    /// Each player collects the points they were caught holding; at the target the lowest total wins.
    Penalty,
    /// As penalty, but reaching the target eliminates; the last two play a deciding head-to-head hand.
    Challenge,
}

/// Who plays next (F-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TurnOrder {
    /// Round the table in the direction of play.
    Direction,
    /// UNO Flash's unit picks uniformly among all players each time.
    RandomUnit,
}

/// Every rule option `docs/rules.md` names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// C-4 UNO call handling.
    pub uno_call: UnoCall,
    /// C-4 chance an opponent catches a missing UNO call.
    pub catch_probability: f64,
    /// A-8 hits stop at the first press that fires.
    pub stop_hits_on_fire: bool,
    /// A-14 Mega Hit stacking.
    pub mega_hit: bool,
    /// A-13 / A-17 where play resumes after Wild Attack-Attack.
    pub attack_resume: AttackResume,
    /// A-21 after a Skip or Reverse the same player may play one more card.
    pub bonus_play_after_skip: bool,
    /// A-2 reload the launcher once the discard pile holds this many cards.
    pub refill_at_discard: Option<u8>,
    /// C-7 match scoring mode.
    pub scoring: Scoring,
    /// C-7 target score.
    pub target_score: u32,
    /// F-4 variant: the player names the victim of a coloured draw/hit card or a Wild Draw Four (004).
    pub targeted_draws: bool,
    /// F-6 an illegal Wild Draw Four may be played as a bluff and challenged.
    pub wd4_bluffing: bool,
    /// F-2 a drawn card that is playable may be played at once.
    pub draw_then_play: bool,
    /// F-1 who plays next.
    pub turn_order: TurnOrder,
    /// C-2 cards dealt to each player.
    pub hand_size: u8,
    /// Decisions after which a round is cut short (truncation, not a rule).
    pub max_decisions: u32,
    /// F-3 chance per turn that a simulated player times out (0 = never).
    pub timeout_chance: f64,
    /// F-3 cards a time-out costs.
    pub timeout_draw: u8,
    /// C-4 cards (presses) the UNO penalty costs.
    pub uno_penalty: u8,
    /// F-6 cards the challenger takes when a challenged Wild Draw Four was legal.
    pub challenge_penalty: u8,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            uno_call: UnoCall::Auto,
            catch_probability: 1.0,
            stop_hits_on_fire: false,
            mega_hit: false,
            attack_resume: AttackResume::AfterTarget,
            bonus_play_after_skip: false,
            refill_at_discard: None,
            scoring: Scoring::Winner,
            target_score: 500,
            targeted_draws: false,
            wd4_bluffing: true,
            draw_then_play: true,
            turn_order: TurnOrder::Direction,
            hand_size: 7,
            max_decisions: 10_000,
            timeout_chance: 0.0,
            timeout_draw: 2,
            uno_penalty: 2,
            challenge_penalty: 6,
        }
    }
}

/// One edition: deck, card behaviour, supply and options.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    /// Display name (the preset's, or the user's).
    pub name: String,
    /// Cards per colour for coloured kinds, total for wild kinds.
    pub deck: BTreeMap<Kind, u8>,
    /// Behaviour of each kind in the deck.
    pub kinds: BTreeMap<Kind, KindRule>,
    /// Launcher or draw pile.
    pub supply: Supply,
    /// The launcher model (ignored with a draw pile).
    pub launcher: LauncherModel,
    /// Rule options.
    #[serde(default)]
    pub options: Options,
}

fn numbers(zero: u8, rest: u8) -> BTreeMap<Kind, u8> {
    let mut d = BTreeMap::new();
    for k in &Kind::ALL[..10] {
        d.insert(*k, if *k == Kind::N0 { zero } else { rest });
    }
    d
}

fn number_rules(kinds: &mut BTreeMap<Kind, KindRule>) {
    for k in &Kind::ALL[..10] {
        kinds.insert(
            *k,
            KindRule::new(Effect::None, k.number().unwrap_or(0) as u16),
        );
    }
}

impl Rules {
    /// A built-in preset by name, in any case (one of [`PRESETS`]; the rules
    /// carry the preset's own spelling, as [`preset_name`] gives it).
    ///
    /// ```
    /// use uno_env::{ConfigError, Rules};
    /// let mut rules = Rules::preset("attack-2010")?;
    /// rules.options.mega_hit = false; // a variant in code
    /// rules.validate()?;
    /// assert_eq!(Rules::preset("ATTACK-2010")?, Rules::load("attack-2010")?);
    /// assert!(matches!(Rules::preset("attack-2011"), Err(ConfigError::UnknownPreset(_))));
    /// # Ok::<(), ConfigError>(())
    /// ```
    pub fn preset(name: &str) -> Result<Rules, ConfigError> {
        let name = preset_name(name).ok_or_else(|| ConfigError::UnknownPreset(name.to_string()))?;
        let mut kinds = BTreeMap::new();
        number_rules(&mut kinds);
        let hit = |n| Effect::Hit { n, targeted: false };
        let mut options = Options::default();
        let (deck, supply) = match name {
            "attack-1999" => {
                let mut d = numbers(0, 2);
                d.extend([
                    (Kind::Hit2, 2),
                    (Kind::Reverse, 2),
                    (Kind::Skip, 2),
                    (Kind::DiscardAll, 1),
                    (Kind::TradeHands, 1),
                    (Kind::Wild, 4),
                    (Kind::WildAllHit, 2),
                    (Kind::WildHitFire, 2),
                ]);
                kinds.insert(
                    Kind::Hit2,
                    KindRule {
                        stackable: true,
                        ..KindRule::new(hit(2), 20)
                    },
                );
                kinds.insert(Kind::Reverse, KindRule::new(Effect::Reverse, 20));
                kinds.insert(Kind::Skip, KindRule::new(Effect::Skip, 20));
                kinds.insert(Kind::DiscardAll, KindRule::new(Effect::DiscardAll, 30));
                kinds.insert(
                    Kind::TradeHands,
                    KindRule {
                        not_last: true,
                        start_redraw: true,
                        ..KindRule::new(Effect::TradeHands, 30)
                    },
                );
                kinds.insert(Kind::Wild, KindRule::new(Effect::None, 50));
                kinds.insert(Kind::WildAllHit, KindRule::new(Effect::AllHit { n: 1 }, 50));
                kinds.insert(Kind::WildHitFire, KindRule::new(Effect::HitUntilFire, 50));
                (d, Supply::Launcher)
            }
            "attack-2010" => {
                let mut d = numbers(0, 2);
                d.extend([
                    (Kind::Reverse, 1),
                    (Kind::Skip, 2),
                    (Kind::DiscardAll, 2),
                    (Kind::Hit1, 1),
                    (Kind::Hit2, 2),
                    (Kind::Wild, 4),
                    (Kind::WildAttackAttack, 4),
                ]);
                kinds.insert(Kind::Reverse, KindRule::new(Effect::Reverse, 20));
                kinds.insert(Kind::Skip, KindRule::new(Effect::Skip, 20));
                kinds.insert(
                    Kind::Hit1,
                    KindRule {
                        stackable: true,
                        ..KindRule::new(hit(1), 20)
                    },
                );
                kinds.insert(
                    Kind::Hit2,
                    KindRule {
                        stackable: true,
                        ..KindRule::new(hit(2), 40)
                    },
                );
                kinds.insert(Kind::DiscardAll, KindRule::new(Effect::DiscardAll, 30));
                kinds.insert(Kind::Wild, KindRule::new(Effect::None, 50));
                kinds.insert(
                    Kind::WildAttackAttack,
                    KindRule {
                        stackable: true,
                        ..KindRule::new(
                            Effect::Hit {
                                n: 2,
                                targeted: true,
                            },
                            50,
                        )
                    },
                );
                options.stop_hits_on_fire = true;
                options.mega_hit = true;
                options.attack_resume = AttackResume::SkipNext;
                (d, Supply::Launcher)
            }
            "attack-modern" => {
                let mut d = numbers(0, 2);
                d.extend([
                    (Kind::Reverse, 1),
                    (Kind::Hit2, 2),
                    (Kind::Skip, 2),
                    (Kind::DiscardAll, 2),
                    (Kind::Wild, 4),
                    (Kind::WildAttackAttack, 4),
                    (Kind::WildCustom, 3),
                    (Kind::WildHit4, 1),
                ]);
                kinds.insert(Kind::Reverse, KindRule::new(Effect::Reverse, 20));
                kinds.insert(
                    Kind::Hit2,
                    KindRule {
                        stackable: true,
                        ..KindRule::new(hit(2), 20)
                    },
                );
                kinds.insert(Kind::Skip, KindRule::new(Effect::Skip, 20));
                kinds.insert(Kind::DiscardAll, KindRule::new(Effect::DiscardAll, 30));
                kinds.insert(Kind::WildHit4, KindRule::new(hit(4), 40));
                kinds.insert(Kind::Wild, KindRule::new(Effect::None, 50));
                kinds.insert(
                    Kind::WildAttackAttack,
                    KindRule {
                        stackable: true,
                        ..KindRule::new(
                            Effect::Hit {
                                n: 2,
                                targeted: true,
                            },
                            50,
                        )
                    },
                );
                // A-19: plays as a plain Wild unless the config gives it an effect.
                kinds.insert(Kind::WildCustom, KindRule::new(Effect::None, 50));
                options.attack_resume = AttackResume::AfterTarget;
                (d, Supply::Launcher)
            }
            "flash" | "classic" => {
                let third = if name == "flash" {
                    Kind::Slap
                } else {
                    Kind::Reverse
                };
                let mut d = numbers(1, 2);
                d.extend([
                    (Kind::Draw2, 2),
                    (Kind::Skip, 2),
                    (third, 2),
                    (Kind::Wild, 4),
                    (Kind::WildDraw4, 4),
                ]);
                kinds.insert(Kind::Draw2, KindRule::new(hit(2), 20));
                kinds.insert(Kind::Skip, KindRule::new(Effect::Skip, 20));
                if name == "flash" {
                    kinds.insert(
                        Kind::Slap,
                        KindRule {
                            start_redraw: true,
                            ..KindRule::new(Effect::Slap { n: 2 }, 20)
                        },
                    );
                    options.turn_order = TurnOrder::RandomUnit;
                } else {
                    kinds.insert(Kind::Reverse, KindRule::new(Effect::Reverse, 20));
                }
                kinds.insert(Kind::Wild, KindRule::new(Effect::None, 50));
                kinds.insert(
                    Kind::WildDraw4,
                    KindRule {
                        no_active_colour: true,
                        start_redraw: true,
                        ..KindRule::new(hit(4), 50)
                    },
                );
                (d, Supply::Pile)
            }
            other => unreachable!("preset_name gave `{other}`, which has no deck here"),
        };
        let launcher = if supply == Supply::Launcher {
            LauncherModel::hazard()
        } else {
            LauncherModel::DrawOne
        };
        let rules = Rules {
            name: name.to_string(),
            deck,
            kinds,
            supply,
            launcher,
            options,
        };
        rules.validate()?;
        Ok(rules)
    }

    /// Rules from a preset name or a TOML file path.
    pub fn load(spec: &str) -> Result<Rules, ConfigError> {
        if let Some(name) = preset_name(spec) {
            return Rules::preset(name);
        }
        let path = std::path::Path::new(spec);
        if !path.exists() {
            // Something that looks like a path is reported as a missing file.
            return Err(
                if spec.ends_with(".toml") || spec.contains(std::path::MAIN_SEPARATOR) {
                    ConfigError::Io(format!("{spec}: no such file"))
                } else {
                    ConfigError::UnknownPreset(spec.to_string())
                },
            );
        }
        // A rules file is a few kilobytes.
        const MAX_RULES_BYTES: u64 = 1 << 20;
        let text = crate::file::read_text(path, MAX_RULES_BYTES, "rules file")
            .map_err(|e| ConfigError::Io(e.to_string()))?;
        // A TOML error, or a value out of range, names the file it is in.
        Rules::from_toml_str(&text).map_err(|e| match e {
            ConfigError::Toml(m) => ConfigError::Toml(format!("{spec}: {m}")),
            ConfigError::Invalid(m) => ConfigError::Invalid(format!("{spec}: {m}")),
            other => other,
        })
    }

    /// Rules from TOML text. A top-level `preset = "<name>"` starts from that
    /// preset and every other key overrides it (tables merge key by key).
    ///
    /// ```
    /// use uno_env::{ConfigError, Rules};
    /// let rules = Rules::from_toml_str(
    ///     "preset = \"attack-2010\"\n[options]\nmega_hit = false\n[launcher]\nmodel = \"bernoulli\"\np = 0.35\n",
    /// )?;
    /// assert!(!rules.options.mega_hit);
    /// assert_eq!(Rules::from_toml_str(&rules.to_toml())?, rules); // a complete file reads back the same
    /// // Bad files are typed errors naming the problem.
    /// let err = Rules::from_toml_str("preset = \"classic\"\n[options]\nmega_hitt = true\n").unwrap_err();
    /// assert!(matches!(err, ConfigError::Toml(_)) && err.to_string().contains("mega_hitt"));
    /// # Ok::<(), ConfigError>(())
    /// ```
    pub fn from_toml_str(text: &str) -> Result<Rules, ConfigError> {
        let value: toml::Value =
            toml::from_str(text).map_err(|e| ConfigError::Toml(toml_error_line(text, &e)))?;
        Rules::from_toml_value(value)
    }

    /// Rules from a parsed TOML value (see [`Rules::from_toml_str`]).
    pub fn from_toml_value(mut value: toml::Value) -> Result<Rules, ConfigError> {
        let table = value
            .as_table_mut()
            .ok_or_else(|| ConfigError::Toml("expected a table".into()))?;
        // Kind names are case-blind when parsed but not when merged: `WILD`
        // would sit beside the preset's `wild` and one of them be lost.
        for section in ["deck", "kinds"] {
            for k in table
                .get(section)
                .and_then(|v| v.as_table())
                .into_iter()
                .flat_map(|t| t.keys())
            {
                if let Some(kind) = Kind::parse(k)
                    && kind.name() != k
                {
                    return Err(ConfigError::Toml(format!(
                        "[{section}] `{k}`: write the card kind as `{}`",
                        kind.name()
                    )));
                }
            }
        }
        // `Some(false)`: a blank name, which does not say what the file is either.
        let named = table
            .get("name")
            .map(|n| n.as_str().is_none_or(|s| !s.trim().is_empty()));
        let from_preset = table.contains_key("preset");
        let merged = match table.remove("preset") {
            Some(toml::Value::String(p)) => {
                // An unknown name is an error of the file's `preset` key (`Rules::load`
                // adds the file's name), not of a `--rules` argument.
                let base = Rules::preset(&p).map_err(|e| match e {
                    ConfigError::UnknownPreset(_) => ConfigError::Toml(format!(
                        "`preset`: unknown preset `{p}`: expected one of {}",
                        PRESETS.join(", ")
                    )),
                    other => other,
                })?;
                let mut base_v =
                    toml::Value::try_from(&base).map_err(|e| ConfigError::Toml(e.to_string()))?;
                // A kind the preset lacks is added whole: say so rather than
                // serde's bare "missing field".
                if let (Some(over), Some(have)) = (
                    table.get("kinds").and_then(|k| k.as_table()),
                    base_v.get("kinds").and_then(|k| k.as_table()),
                ) {
                    for (kind, rule) in over {
                        let given = |f: &str| rule.as_table().is_some_and(|t| t.contains_key(f));
                        let complete = given("effect") && given("score");
                        if !have.contains_key(kind) && !complete {
                            return Err(ConfigError::Toml(format!(
                                "kind `{kind}` is not in preset `{p}`, so [kinds.{kind}] must give its `effect` and `score`"
                            )));
                        }
                    }
                }
                // An overriding launcher of another model replaces the base one
                // whole (its fields differ by model); without a `model`, or with
                // the same one, its fields override the base's one by one.
                let model_of = |v: Option<&toml::Value>| {
                    v.and_then(|l| l.get("model"))
                        .and_then(|m| m.as_str())
                        .map(str::to_owned)
                };
                let over = model_of(table.get("launcher"));
                if over.is_some()
                    && over != model_of(base_v.get("launcher"))
                    && let Some(t) = base_v.as_table_mut()
                {
                    t.remove("launcher");
                }
                // The same for an effect of another type: `{ type = "skip" }`
                // over a Hit's `{ type = "hit", n = 2 }` is a Skip, not a Skip
                // with a stray `n`.
                if let (Some(over), Some(have)) = (
                    table.get("kinds").and_then(|k| k.as_table()),
                    base_v.get_mut("kinds").and_then(|k| k.as_table_mut()),
                ) {
                    let type_of = |e: Option<&toml::Value>| {
                        e.and_then(|e| e.get("type"))
                            .and_then(|t| t.as_str())
                            .map(str::to_owned)
                    };
                    for (kind, rule) in over {
                        let given = type_of(rule.get("effect"));
                        if let Some(base_rule) = have.get_mut(kind).and_then(|r| r.as_table_mut())
                            && given.is_some()
                            && given != type_of(base_rule.get("effect"))
                        {
                            base_rule.remove("effect");
                        }
                    }
                }
                merge(&mut base_v, value);
                base_v
            }
            Some(_) => return Err(ConfigError::Toml("`preset` must be a string".into())),
            // serde's "missing field `name`" would not say how a rules file starts.
            None if named != Some(true) => {
                let what = if named.is_some() {
                    "an empty `name` and no `preset`"
                } else {
                    "neither `preset` nor `name`"
                };
                return Err(ConfigError::Toml(format!(
                    "{what}: {HOW_A_RULES_FILE_STARTS}"
                )));
            }
            None => value,
        };
        // A file without `preset` gives every setting: what it leaves out is
        // an error below, not serde's default (a truncated file would
        // quietly play other rules).
        let given = (!from_preset).then(|| merged.clone());
        // Serde ignores extra keys beside a tag that names a unit variant
        // (`{ type = "skip", n = 5 }`) and in effects: a misspelt setting
        // would silently give another game.
        let effects = merged
            .get("kinds")
            .and_then(|k| k.as_table())
            .into_iter()
            .flatten()
            .filter_map(|(kind, rule)| Some((format!("kinds.{kind}.effect"), rule.get("effect")?)));
        let launcher = merged.get("launcher").map(|l| ("launcher".to_string(), l));
        for (path, v) in effects {
            if let Some(k) = unknown_field::<Effect>(v) {
                return Err(ConfigError::Toml(format!(
                    "`{path}`: unknown field `{k}` for an effect of type `{}`",
                    v.get("type").and_then(|t| t.as_str()).unwrap_or("?")
                )));
            }
        }
        if let Some((path, v)) = launcher
            && let Some(k) = unknown_field::<LauncherModel>(v)
        {
            return Err(ConfigError::Toml(format!(
                "`{path}`: unknown field `{k}` for the launcher model `{}`",
                v.get("model").and_then(|t| t.as_str()).unwrap_or("?")
            )));
        }
        // The path of the value that does not fit (`options.mega_hit`) leads the message.
        let rules: Rules = serde_path_to_error::deserialize(merged).map_err(
            |e: serde_path_to_error::Error<toml::de::Error>| {
                let path = e.path().to_string();
                let mut message = one_line(e.inner().message());
                // A file without `preset` gives every setting: say so beside
                // serde's "missing field `deck`".
                if !from_preset && message.starts_with("missing field") {
                    message.push_str(
                        " (a rules file without `preset` gives every setting: `uno-attack rules \
                         --rules attack-2010` prints them all; or start from a preset, \
                         `preset = \"attack-2010\"`, then the settings to change)",
                    );
                }
                ConfigError::Toml(if path == "." {
                    message
                } else {
                    format!("`{path}`: {message}")
                })
            },
        )?;
        if let Some(given) = &given {
            let full =
                toml::Value::try_from(&rules).map_err(|e| ConfigError::Toml(e.to_string()))?;
            if let Some(path) = first_missing(&full, given, "") {
                return Err(ConfigError::Toml(format!(
                    "`{path}` is missing: a rules file without `preset` gives every setting \
                     (`uno-attack rules --rules attack-2010` prints them all), or starts from a \
                     preset (`preset = \"attack-2010\"`, then the settings to change)"
                )));
            }
        }
        rules.validate()?;
        Ok(rules)
    }

    /// Rules as TOML text (round-trips through [`Rules::from_toml_str`]).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    /// The settings (dotted TOML paths such as `options.hand_size`) in which
    /// `self` and `other` differ, the display name aside; empty when the two
    /// play the same game.
    pub fn differences(&self, other: &Rules) -> Vec<String> {
        fn walk(
            path: &str,
            a: Option<&toml::Value>,
            b: Option<&toml::Value>,
            out: &mut Vec<String>,
        ) {
            match (a, b) {
                (Some(toml::Value::Table(x)), Some(toml::Value::Table(y))) => {
                    let keys: std::collections::BTreeSet<&String> =
                        x.keys().chain(y.keys()).collect();
                    for k in keys {
                        let p = if path.is_empty() {
                            k.clone()
                        } else {
                            format!("{path}.{k}")
                        };
                        walk(&p, x.get(k), y.get(k), out);
                    }
                }
                (a, b) if a != b => out.push(path.to_string()),
                _ => {}
            }
        }
        let value = |r: &Rules| {
            let unnamed = Rules {
                name: String::new(),
                ..r.clone()
            };
            toml::Value::try_from(&unnamed).ok()
        };
        let mut out = Vec::new();
        walk("", value(self).as_ref(), value(other).as_ref(), &mut out);
        out
    }

    /// Total number of cards in the deck.
    pub fn deck_size(&self) -> usize {
        self.deck
            .iter()
            .map(|(k, n)| {
                if k.is_wild() {
                    *n as usize
                } else {
                    4 * *n as usize
                }
            })
            .sum()
    }

    /// The rule for a kind (every kind in the deck has one after validation).
    pub fn kind_rule(&self, kind: Kind) -> Option<&KindRule> {
        self.kinds.get(&kind)
    }

    /// Checks that the rules describe a playable game.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |m: String| Err(ConfigError::Invalid(m));
        // The name is printed (headers, errors, transcripts): no escape
        // sequences or line breaks.
        if self.name.trim().is_empty() {
            return bad(
                "the rules' name is empty: give the rules a name (it tells them apart in headers, checkpoints and transcripts)"
                    .into(),
            );
        }
        if self.name.chars().any(char::is_control) {
            return bad(format!(
                "the rules' name {:?} holds control characters",
                self.name
            ));
        }
        let size = self.deck_size();
        if size == 0 {
            return bad(
                "the deck is empty: give `[deck]` counts of cards (a preset's deck is a start: `preset = \"classic\"`)"
                    .into(),
            );
        }
        if size > MAX_DECK {
            return bad(format!(
                "deck has {size} cards; at most {MAX_DECK} are supported"
            ));
        }
        for (k, n) in &self.deck {
            if *n > 0 && !self.kinds.contains_key(k) {
                return bad(format!(
                    "deck has `{}` cards but `kinds` has no rule for them",
                    k.name()
                ));
            }
        }
        for (k, r) in &self.kinds {
            if !self.deck.contains_key(k) {
                return bad(format!(
                    "`{}` has a rule in `kinds` but no count in the deck (add `[deck] {} = N`)",
                    k.name(),
                    k.name()
                ));
            }
            match r.effect {
                Effect::Hit { n, .. } | Effect::AllHit { n } | Effect::Slap { n }
                    if n == 0 || n > 20 =>
                {
                    return bad(format!(
                        "`{}`: hit/draw count must be 1..=20, got {n}",
                        k.name()
                    ));
                }
                _ => {}
            }
            if k.is_wild() && r.effect == Effect::DiscardAll {
                return bad(format!(
                    "`{}`: discard-all needs a coloured card (A-5)",
                    k.name()
                ));
            }
            if r.no_active_colour && !matches!(r.effect, Effect::Hit { .. }) {
                return bad(format!(
                    "`{}`: no_active_colour (F-6) needs a hit/draw effect",
                    k.name()
                ));
            }
            // A-14: a Mega Hit stack holds Hit cards; a card that can be
            // challenged (no_active_colour, C-8) settles before it could stack.
            if r.stackable && (!matches!(r.effect, Effect::Hit { .. }) || r.no_active_colour) {
                return bad(format!(
                    "`{}`: stackable (A-14) needs a hit effect without no_active_colour",
                    k.name()
                ));
            }
            if !k.is_wild() && (k.index() >= NUM_COLOURED_KINDS) {
                return bad(format!("`{}` is not a coloured kind", k.name()));
            }
        }
        let o = &self.options;
        if !(0.0..=1.0).contains(&o.catch_probability) {
            return bad(format!(
                "catch_probability must be in [0, 1], got {}",
                o.catch_probability
            ));
        }
        if !(0.0..=1.0).contains(&o.timeout_chance) {
            return bad(format!(
                "timeout_chance must be in [0, 1], got {}",
                o.timeout_chance
            ));
        }
        if o.target_score == 0 {
            return bad("target_score must be positive".into());
        }
        if !self
            .deck
            .iter()
            .any(|(k, &n)| n > 0 && self.kinds.get(k).is_some_and(|r| r.score > 0))
        {
            return bad(
                "every card in the deck scores 0 points, so no match could reach target_score (C-6, C-7)"
                    .into(),
            );
        }
        // A round ends when a hand empties (C-5): with only cards that cannot
        // be played last (`not_last`, Trade Hands) and no Discard All to
        // shed a hand's last cards at once, no round could end.
        if self.deck.iter().filter(|(_, n)| **n > 0).all(|(k, _)| {
            self.kinds.get(k).is_some_and(|r| {
                (r.not_last || r.effect == Effect::TradeHands) && r.effect != Effect::DiscardAll
            })
        }) {
            return bad(
                "every card in the deck is one that cannot be played last (not_last, or Trade Hands), so no round could end (C-5)"
                    .into(),
            );
        }
        if o.hand_size == 0 {
            return bad("hand_size must be positive".into());
        }
        if o.max_decisions == 0 {
            return bad("max_decisions must be positive".into());
        }
        if let Some(n) = o.refill_at_discard
            && n < 2
        {
            return bad("refill_at_discard must be at least 2".into());
        }
        let check_count = |c: &CardCount| {
            if !(c.r > 0.0
                && c.r.is_finite()
                && c.mean >= 0.0
                && c.mean.is_finite()
                && (1..=MAX_FIRE).contains(&(c.max as usize)))
            {
                return Err(ConfigError::Invalid(format!(
                    "launcher cards: need r > 0, mean >= 0, 1 <= max <= {MAX_FIRE} (got r={}, mean={}, max={})",
                    c.r, c.mean, c.max
                )));
            }
            Ok(())
        };
        match &self.launcher {
            LauncherModel::Hazard { hazard, cards } => {
                if hazard.is_empty()
                    || hazard.len() > 16
                    || hazard.iter().any(|p| !(0.0..=1.0).contains(p))
                {
                    return bad("launcher hazard: 1 to 16 probabilities in [0, 1]".into());
                }
                if hazard.last().is_some_and(|p| *p < MIN_CHANCE) {
                    // The last probability applies from then on: after that
                    // many misses the launcher would never fire again.
                    return bad(format!(
                        "launcher hazard: the last probability must be at least {MIN_CHANCE:e} (2^-24, the finest chance the engine draws; below it the launcher would stop firing)"
                    ));
                }
                check_count(cards)?;
            }
            LauncherModel::Bernoulli { p, cards } => {
                if !(*p >= MIN_CHANCE && *p <= 1.0) {
                    return bad(format!(
                        "launcher p must be in [{MIN_CHANCE:e}, 1] (2^-24, the finest chance the engine draws; below it the launcher would never fire), got {}",
                        if *p != 0.0 && p.abs() < 1e-4 {
                            format!("{p:e}")
                        } else {
                            p.to_string()
                        }
                    ));
                }
                check_count(cards)?;
            }
            LauncherModel::Pattern {
                fires,
                period,
                cards,
            } => {
                if *period == 0
                    || *period > 128
                    || fires.is_empty()
                    || fires.iter().any(|f| *f == 0 || f > period)
                {
                    return bad(
                        "launcher pattern: period 1..=128 and firing presses in 1..=period".into(),
                    );
                }
                check_count(cards)?;
            }
            LauncherModel::DrawOne => {}
            LauncherModel::Scripted { outcomes } => {
                if outcomes.is_empty() || outcomes.iter().all(|o| *o == 0) {
                    return bad("launcher scripted: needs at least one outcome that fires".into());
                }
            }
        }
        Ok(())
    }
}

/// A TOML error in `text` on one line: `line L, column C: message` (the
/// place when the parser knows it). Rules files and training configs alike.
/// The toml crate gives no message for some errors (`garbage =` at the end of
/// the text), so the reason is then read from the text at the place.
#[doc(hidden)] // for the workspace's other crates; not part of the API
pub fn toml_error_line(text: &str, e: &toml::de::Error) -> String {
    let place = e.span().map_or(String::new(), |span| {
        let before = &text[..span.start.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        format!("line {line}, column {column}: ")
    });
    let message = one_line(e.message());
    if !message.is_empty() {
        return format!("{place}{message}");
    }
    let reason = match e.span() {
        Some(span) => {
            let at = span.start.min(text.len());
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
            let line = text[line_start..line_end].trim();
            match text[at..].chars().next() {
                None | Some('\n') | Some('\r') if line.ends_with('=') => {
                    format!("a value is missing after `=` in `{line}`")
                }
                None | Some('\n') | Some('\r') => format!("the line ends too soon: `{line}`"),
                Some(c) => format!("unexpected `{c}` in `{line}`"),
            }
        }
        None => "the text is not valid TOML".to_string(),
    };
    format!("{place}{reason}")
}

fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(": ")
}

/// A key of table `v` that a `T` read from it does not keep (serde drops
/// unknown keys beside an internal tag); `None` when every key is used or
/// `v` is not a valid `T` (whose own error is reported elsewhere).
fn unknown_field<T: Serialize + serde::de::DeserializeOwned>(v: &toml::Value) -> Option<String> {
    let t: T = v.clone().try_into().ok()?;
    let back = toml::Value::try_from(&t).ok()?;
    let (given, kept) = (v.as_table()?, back.as_table()?);
    given.keys().find(|k| !kept.contains_key(*k)).cloned()
}

/// Deep-merges `over` into `base`: tables merge key by key, anything else replaces.
/// The path (`options.mega_hit`) of the first setting of `full` that `given`
/// leaves out, in `full`'s order, below `prefix`.
fn first_missing(full: &toml::Value, given: &toml::Value, prefix: &str) -> Option<String> {
    let (toml::Value::Table(full), toml::Value::Table(given)) = (full, given) else {
        return None;
    };
    full.iter().find_map(|(k, v)| {
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match given.get(k) {
            None => Some(path),
            Some(g) => first_missing(v, g, &path),
        }
    })
}

fn merge(base: &mut toml::Value, over: toml::Value) {
    match (base, over) {
        (toml::Value::Table(b), toml::Value::Table(o)) => {
            for (k, v) in o {
                match b.get_mut(&k) {
                    Some(bv) if bv.is_table() && v.is_table() => merge(bv, v),
                    _ => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (b, o) => *b = o,
    }
}

impl Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Kind::parse(&s).ok_or_else(|| serde::de::Error::custom(format!("unknown card kind `{s}`")))
    }
}
