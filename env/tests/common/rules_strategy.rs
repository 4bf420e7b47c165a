//! A proptest strategy for rule sets a user could write: a preset with
//! random changes to its deck, card effects, launcher and options. Shared by
//! `env/tests/random_rules.rs` and `agents/tests/random_rules.rs` (included by
//! path, as test helpers are).

use proptest::prelude::*;
use proptest::sample::select;
use uno_env::rules::{AttackResume, CardCount, Scoring, Supply, TurnOrder, UnoCall};
use uno_env::{Effect, Kind, KindRule, LauncherModel, Options, PRESETS, Rules};

/// A card effect, with counts that are sometimes out of range (0 or 21+) so
/// that `validate` has something to refuse.
fn effect() -> impl Strategy<Value = Effect> {
    let n = prop_oneof![8 => 1u8..=4, 1 => Just(0u8), 1 => 21u8..=30];
    prop_oneof![
        4 => Just(Effect::None),
        1 => Just(Effect::Skip),
        1 => Just(Effect::Reverse),
        2 => (n.clone(), any::<bool>()).prop_map(|(n, targeted)| Effect::Hit { n, targeted }),
        1 => Just(Effect::HitUntilFire),
        1 => n.clone().prop_map(|n| Effect::AllHit { n }),
        1 => Just(Effect::DiscardAll),
        1 => Just(Effect::TradeHands),
        1 => n.prop_map(|n| Effect::Slap { n }),
    ]
}

/// A kind's rule: an effect, a score and the four flags (each set one time in six).
fn kind_rule() -> impl Strategy<Value = KindRule> {
    let flag = || prop::bool::weighted(1.0 / 6.0);
    (effect(), 0u16..=60, flag(), flag(), flag(), flag()).prop_map(
        |(effect, score, no_active_colour, stackable, start_redraw, not_last)| KindRule {
            effect,
            score,
            no_active_colour,
            stackable,
            start_redraw,
            not_last,
        },
    )
}

fn card_count() -> impl Strategy<Value = CardCount> {
    (0.5f64..6.0, 0.0f64..5.0, 1u8..=20).prop_map(|(r, mean, max)| CardCount { r, mean, max })
}

/// A launcher model of any kind, with valid parameters.
fn launcher() -> impl Strategy<Value = LauncherModel> {
    prop_oneof![
        (
            prop::collection::vec(0.0f64..=1.0, 0..6),
            0.05f64..=1.0,
            card_count()
        )
            .prop_map(|(mut hazard, last, cards)| {
                hazard.push(last);
                LauncherModel::Hazard { hazard, cards }
            }),
        (0.05f64..=1.0, card_count()).prop_map(|(p, cards)| LauncherModel::Bernoulli { p, cards }),
        (
            1u16..=40,
            prop::collection::vec(1u16..=40, 1..8),
            card_count()
        )
            .prop_map(|(period, fires, cards)| LauncherModel::Pattern {
                fires: fires.into_iter().map(|f| (f - 1) % period + 1).collect(),
                period,
                cards,
            }),
        Just(LauncherModel::DrawOne),
        prop::collection::vec(0u8..=4, 1..6).prop_map(|mut outcomes| {
            outcomes.push(1);
            LauncherModel::Scripted { outcomes }
        }),
    ]
}

/// Every option drawn (none kept from the preset).
fn options() -> impl Strategy<Value = Options> {
    (
        (
            select(vec![UnoCall::Auto, UnoCall::Explicit]),
            0.0f64..=1.0,
            any::<bool>(),
            any::<bool>(),
            select(vec![AttackResume::SkipNext, AttackResume::AfterTarget]),
            any::<bool>(),
        ),
        (
            prop::option::weighted(0.2, 2u8..=20),
            select(vec![Scoring::Winner, Scoring::Penalty, Scoring::Challenge]),
            prop_oneof![1u32..=60, 100u32..=500],
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            prop_oneof![4 => Just(TurnOrder::Direction), 1 => Just(TurnOrder::RandomUnit)],
        ),
        (
            1u8..=10,
            50u32..=3000,
            prop_oneof![3 => Just(0.0f64), 1 => 0.0f64..=1.0],
            0u8..=4,
            0u8..=4,
            0u8..=8,
        ),
    )
        .prop_map(|(a, b, c)| Options {
            uno_call: a.0,
            catch_probability: a.1,
            stop_hits_on_fire: a.2,
            mega_hit: a.3,
            attack_resume: a.4,
            bonus_play_after_skip: a.5,
            refill_at_discard: b.0,
            scoring: b.1,
            target_score: b.2,
            targeted_draws: b.3,
            wd4_bluffing: b.4,
            draw_then_play: b.5,
            turn_order: b.6,
            hand_size: c.0,
            max_decisions: c.1,
            timeout_chance: c.2,
            timeout_draw: c.3,
            uno_penalty: c.4,
            challenge_penalty: c.5,
        })
}

/// A rule set: a preset, then up to six kinds given a new count and rule (a
/// count of 0 removes the kind's cards, and with the flag its rule too), then
/// maybe another supply and launcher, then every option drawn.
#[derive(Clone, Debug)]
pub struct RulesDraw {
    preset: usize,
    kinds: Vec<(usize, u8, KindRule, bool)>,
    supply: Option<(bool, LauncherModel)>,
    options: Options,
}

pub fn rules_draw() -> impl Strategy<Value = RulesDraw> {
    (
        0..PRESETS.len(),
        prop::collection::vec(
            (0..Kind::ALL.len(), 0u8..=4, kind_rule(), any::<bool>()),
            0..7,
        ),
        prop::option::weighted(0.4, (any::<bool>(), launcher())),
        options(),
    )
        .prop_map(|(preset, kinds, supply, options)| RulesDraw {
            preset,
            kinds,
            supply,
            options,
        })
}

impl RulesDraw {
    /// The rule set this draw describes (not validated).
    pub fn rules(&self) -> Rules {
        let mut r = Rules::preset(PRESETS[self.preset]).expect("preset");
        r.name = format!("{} (fuzzed)", r.name);
        for &(k, count, rule, drop_rule) in &self.kinds {
            let kind = Kind::ALL[k];
            let count = if kind.is_wild() { count * 2 } else { count };
            if count == 0 {
                // Half of the removals drop the rule too; the other half
                // leave a rule for a kind with no cards (which is allowed).
                r.deck.insert(kind, 0);
                if drop_rule {
                    r.deck.remove(&kind);
                    r.kinds.remove(&kind);
                }
            } else {
                r.deck.insert(kind, count);
                r.kinds.insert(kind, rule);
            }
        }
        if let Some((launcher_supply, model)) = &self.supply {
            r.supply = if *launcher_supply {
                Supply::Launcher
            } else {
                Supply::Pile
            };
            r.launcher = model.clone();
        }
        r.options = self.options.clone();
        r
    }
}
