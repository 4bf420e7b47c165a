//! A random variant of a preset's rules (for the structured targets).
#![allow(dead_code)]
use arbitrary::Arbitrary;
use uno_env::Rules;
use uno_env::rules::*;

#[derive(Arbitrary, Debug, Clone)]
pub struct RulesVar {
    pub preset: u8,
    pub flags: u32,
    pub hand: u8,
    pub launcher: u8,
    pub scripted: Vec<u8>,
    pub target: u16,
    pub refill: u8,
    pub maxdec: u16,
    pub catch_p: u8,
    pub timeout_draw: u8,
    pub uno_pen: u8,
    pub chal_pen: u8,
}

impl RulesVar {
    pub fn build(&self) -> Rules {
        let mut r =
            Rules::preset(uno_env::PRESETS[self.preset as usize % uno_env::PRESETS.len()]).unwrap();
        let f = self.flags;
        let o = &mut r.options;
        if f & 1 != 0 {
            o.uno_call = UnoCall::Explicit;
        }
        o.scoring = match (f >> 1) & 3 {
            1 => Scoring::Penalty,
            2 => Scoring::Challenge,
            _ => Scoring::Winner,
        };
        if f & 8 != 0 {
            o.targeted_draws = !o.targeted_draws;
        }
        if f & 16 != 0 {
            o.wd4_bluffing = !o.wd4_bluffing;
        }
        if f & 32 != 0 {
            o.draw_then_play = !o.draw_then_play;
        }
        if f & 64 != 0 {
            o.bonus_play_after_skip = !o.bonus_play_after_skip;
        }
        if f & 128 != 0 {
            o.mega_hit = !o.mega_hit;
        }
        if f & 256 != 0 {
            o.stop_hits_on_fire = !o.stop_hits_on_fire;
        }
        if f & 512 != 0 {
            o.attack_resume = if o.attack_resume == AttackResume::SkipNext {
                AttackResume::AfterTarget
            } else {
                AttackResume::SkipNext
            };
        }
        if f & 1024 != 0 {
            o.turn_order = if o.turn_order == TurnOrder::RandomUnit {
                TurnOrder::Direction
            } else {
                TurnOrder::RandomUnit
            };
        }
        if f & 2048 != 0 {
            o.hand_size = 1 + self.hand % 12;
        }
        if f & 4096 != 0 {
            o.refill_at_discard = Some(self.refill);
        }
        if f & 8192 != 0 {
            o.target_score = 1 + self.target as u32;
        }
        if f & 16384 != 0 {
            o.max_decisions = 1 + self.maxdec as u32 % 300;
        }
        if f & 32768 != 0 {
            o.catch_probability = self.catch_p as f64 / 255.0;
        }
        if f & 65536 != 0 {
            o.timeout_chance = self.catch_p as f64 / 255.0;
            o.timeout_draw = self.timeout_draw % 25;
        }
        if f & (1 << 17) != 0 {
            o.uno_penalty = self.uno_pen;
            o.challenge_penalty = self.chal_pen;
        }
        if f & (1 << 18) != 0 {
            r.supply = if r.supply == Supply::Pile {
                Supply::Launcher
            } else {
                Supply::Pile
            };
        }
        if f & (1 << 19) != 0 {
            r.launcher = match self.launcher % 5 {
                0 => LauncherModel::hazard(),
                1 => LauncherModel::bernoulli(),
                2 => LauncherModel::pattern(),
                3 => LauncherModel::DrawOne,
                _ => LauncherModel::Scripted {
                    outcomes: self.scripted.iter().take(16).copied().collect(),
                },
            };
        }
        if f & (1 << 20) != 0 {
            // stackable everything that is a hit, no_active_colour toggles
            for k in r.kinds.values_mut() {
                if matches!(k.effect, Effect::Hit { .. }) && !k.no_active_colour {
                    k.stackable = true;
                }
            }
        }
        if f & (1 << 21) != 0
            && let Some(k) = r.kinds.get_mut(&uno_env::Kind::WildCustom)
        {
            k.effect = match self.launcher % 6 {
                0 => Effect::TradeHands,
                1 => Effect::HitUntilFire,
                2 => Effect::AllHit { n: 2 },
                3 => Effect::Slap { n: 3 },
                4 => Effect::Skip,
                _ => Effect::Reverse,
            };
        }
        r
    }
}
