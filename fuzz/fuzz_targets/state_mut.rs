//! States of random games under random rule variants, their fields and
//! cards then edited (card moves, phases, seats, counters, the generator),
//! read back through JSON; those that pass `check_invariants` are exercised.
#![no_main]
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use serde::{Deserialize, Serialize};
use uno_env::{Game, Phase, State};
mod common;
mod rulesvar;

/// `State`'s JSON fields, to edit them: `State` keeps its fields private, and
/// a `serde_json::Value` cannot hold the 128-bit card sets. A field added to
/// `State` makes every input fail to read here (a panic at once, not a
/// silently narrower fuzzer).
#[derive(Serialize, Deserialize, Clone, Debug)]
#[serde(deny_unknown_fields)]
struct Mirror {
    hands: [u128; 10],
    pile: u128,
    discard: u128,
    rng: serde_json::Value,
    scores: [u32; 10],
    round_points: [u16; 10],
    played: Vec<u8>,
    pressed_on: [u8; 10],
    since_play: [u8; 10],
    uno_called: u16,
    active: u16,
    decisions: u32,
    round: u16,
    presses_since_refill: u16,
    script_pos: u16,
    players: u8,
    top: u8,
    colour: u8,
    current: u8,
    phase: String,
    reversed: bool,
    dealer: u8,
    misses: u8,
    last_fired: u8,
    stack: u8,
    stack_origin: u8,
    pending_face: u8,
    pending_card: u8,
    stage: u8,
    target: u8,
    from: u8,
    offender: u8,
    wd4_legal: bool,
    start: bool,
    bonus: bool,
    final_round: bool,
    truncated: bool,
    winner: u8,
    match_winner: u8,
}

#[derive(Arbitrary, Debug)]
struct Input {
    rules: rulesvar::RulesVar,
    players: u8,
    seed: u64,
    pre_steps: u8,
    fix: u8,
    muts: Vec<(u8, u8, u32)>,
}

fn small(v: u32) -> u8 {
    if v & 0x100 != 0 { 255 } else { (v % 12) as u8 }
}

fuzz_target!(|inp: Input| {
    let n = 2 + inp.players as usize % 9;
    let Ok(g) = Game::new(inp.rules.build(), n) else {
        return;
    };
    let mut s = g.new_state(inp.seed);
    let mut rng = uno_env::vec_env::Picker::new(inp.seed, 0);
    common::play_random(&g, &mut s, &mut rng, inp.pre_steps as usize);
    let mut m: Mirror = serde_json::from_str(&s.to_json()).unwrap();
    let deck = g.deck_size();
    for &(op, i, v) in inp.muts.iter().take(12) {
        let i = i as usize;
        match op % 20 {
            0..=2 => {
                let c = (v as usize) % deck;
                let bit = 1u128 << c;
                m.pile &= !bit;
                m.discard &= !bit;
                for h in m.hands.iter_mut() {
                    *h &= !bit;
                }
                match i % (2 + n) {
                    0 => m.pile |= bit,
                    1 => m.discard |= bit,
                    k => m.hands[k - 2] |= bit,
                }
            }
            3 => m.top = (v as usize % deck) as u8,
            4 => m.colour = (v % 6) as u8,
            5 => m.current = (v % 11) as u8,
            6 => m.phase = Phase::ALL[v as usize % Phase::ALL.len()].name().into(),
            7 => m.stack = v as u8,
            8 => {
                let x = small(v);
                match i % 8 {
                    0 => m.stack_origin = x,
                    1 => m.pending_face = if v & 0x100 != 0 { 255 } else { (v % 79) as u8 },
                    2 => {
                        m.pending_card = if v & 0x100 != 0 {
                            255
                        } else {
                            (v as usize % deck) as u8
                        }
                    }
                    3 => m.target = x,
                    4 => m.from = x,
                    5 => m.offender = x,
                    6 => m.winner = x,
                    _ => m.match_winner = x,
                }
            }
            9 => m.active = (v as u16) & ((1u16 << n) - 1),
            10 => m.uno_called = (v as u16) & ((1u16 << n) - 1),
            11 => match i % 6 {
                0 => m.reversed ^= true,
                1 => m.start ^= true,
                2 => m.bonus ^= true,
                3 => m.final_round ^= true,
                4 => m.truncated ^= true,
                _ => m.wd4_legal ^= true,
            },
            12 => m.scores[i % n] = v % 1000,
            13 => m.round_points[i % n] = v as u16,
            14 => match i % 8 {
                0 => m.decisions = v,
                1 => m.round = v as u16,
                2 => m.presses_since_refill = v as u16,
                3 => m.script_pos = v as u16,
                4 => m.misses = v as u8,
                5 => m.last_fired = v as u8,
                6 => m.stage = (v % 5) as u8,
                _ => m.dealer = (v as usize % n) as u8,
            },
            15 => m.pressed_on[i % 10] = v as u8,
            16 => m.since_play[i % 10] = v as u8,
            17 => {
                if let Some(o) = m.rng.as_object_mut() {
                    match i % 3 {
                        0 => {
                            o.insert("idx".into(), (v % 20).into());
                        }
                        1 => {
                            o.insert("word_pos".into(), (v as u64 * 16).into());
                        }
                        _ => {
                            o.insert("stream".into(), (v as u64).into());
                        }
                    }
                }
            }
            18 => {
                // swap two hands
                let a = i % n;
                let b = (v as usize) % n;
                m.hands.swap(a, b);
            }
            _ => {
                m.stage = (v % 4) as u8;
            }
        }
    }
    if inp.fix & 1 == 0 {
        // recompute played counts
        let mut played = vec![0u8; 79];
        let mut d = m.discard;
        while d != 0 {
            let c = d.trailing_zeros() as usize;
            d &= d - 1;
            played[g.face_of(c).index()] += 1;
        }
        m.played = played;
    }
    if inp.fix & 2 == 0 {
        let mut u = 0u16;
        for p in 0..n {
            if m.hands[p].count_ones() == 1 && (m.uno_called >> p) & 1 == 1 {
                u |= 1 << p;
            }
        }
        m.uno_called = u;
    }
    if inp.fix & 4 == 0 && m.discard >> m.top & 1 == 0 && m.discard != 0 {
        m.top = m.discard.trailing_zeros() as u8;
    }
    let text = serde_json::to_string(&m).unwrap();
    let Ok(st) = State::from_json(&text) else {
        return;
    };
    if g.check_invariants(&st).is_err() {
        return;
    }
    common::exercise(&g, &st, inp.seed, 150);
});
