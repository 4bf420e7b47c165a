//! What every target does with a state that passed `check_invariants`:
//! everything a user can then call. A panic anywhere, an illegal action
//! accepted, a refused one that changed the state, or a legal step that
//! leaves a state failing the check is a finding.
#![allow(dead_code)]
use uno_env::obs::{ORACLE_SIZE, encode, encode_oracle};
use uno_env::vec_env::{RewardMode, terminal_rewards};
use uno_env::{EventLog, Game, Imposed, NUM_ACTIONS, OBS_SIZE, State, action_name};

pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0 | 1;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

pub const PRESETS: [&str; 5] = uno_env::PRESETS;

/// Up to `steps` random legal actions from `s` (dealing the next round when
/// one is over), stopping at the end of the match.
pub fn play_random(g: &Game, s: &mut State, rng: &mut Rng, steps: usize) {
    for _ in 0..steps {
        if s.is_match_over() {
            break;
        }
        if s.is_round_over() {
            g.next_round(s).unwrap();
            continue;
        }
        let a = g.legal_actions(s);
        g.apply(s, a[rng.below(a.len())]).unwrap();
    }
}

fn read_only(g: &Game, s: &State) {
    let n = g.num_players();
    let _ = g.legal_actions(s);
    let mut obs = vec![0f32; ORACLE_SIZE];
    for seat in 0..=n {
        let _ = encode(g, s, seat, &mut obs[..OBS_SIZE]);
        let _ = encode_oracle(g, s, seat, &mut obs);
        let _ = s.hand_faces(g, seat);
        let _ = g.points(s.hand(seat));
    }
    let _ = s.top_face(g).name();
    let _ = s.scores();
    let _ = s.round_points();
    let mut out = [0f32; 10];
    for mode in [RewardMode::Win, RewardMode::Points] {
        for me in [false, true] {
            if s.is_round_over() {
                terminal_rewards(g, s, mode, me, &mut out);
            }
        }
    }
}

/// Everything a user can call on `s`, which passed `check_invariants`; then
/// up to `steps` random steps, checking the invariants after each.
pub fn exercise(g: &Game, s: &State, seed: u64, steps: usize) {
    let n = g.num_players();
    read_only(g, s);
    let mask = g.legal_mask(s);
    for a in 0..NUM_ACTIONS + 2 {
        let mut t = s.clone();
        let r = g.apply(&mut t, a);
        let legal = a < NUM_ACTIONS && mask >> a & 1 == 1;
        assert_eq!(
            r.is_ok(),
            legal,
            "HARNESS: apply({a}) ok={} legal={legal}",
            r.is_ok()
        );
        if r.is_ok() {
            if let Err(e) = g.check_invariants(&t) {
                note(&format!("after legal {} : {e}", action_name(a)), s);
            }
            read_only(g, &t);
        } else {
            assert_eq!(&t, s, "HARNESS: failed apply changed state");
        }
        // imposed race outcomes
        if legal {
            for imp in [
                Imposed {
                    slap_loser: Some(0),
                    uno_caught: Some(true),
                },
                Imposed {
                    slap_loser: Some(n - 1),
                    uno_caught: Some(false),
                },
                Imposed {
                    slap_loser: Some(usize::MAX),
                    uno_caught: None,
                },
                Imposed {
                    slap_loser: Some(s.current_player().unwrap_or(0)),
                    uno_caught: Some(true),
                },
            ] {
                let mut t = s.clone();
                let mut log = EventLog::imposing(imp);
                g.apply_with(&mut t, a, &mut log).unwrap();
                if let Err(e) = g.check_invariants(&t) {
                    note(
                        &format!("after legal {} imposed {imp:?}: {e}", action_name(a)),
                        s,
                    );
                }
            }
        }
    }
    {
        let mut t = s.clone();
        let mut log = EventLog::default();
        if g.timeout(&mut t, &mut log).is_ok()
            && let Err(e) = g.check_invariants(&t)
        {
            note(&format!("after timeout: {e}"), s);
        }
    }
    {
        let mut t = s.clone();
        if g.next_round(&mut t).is_ok()
            && let Err(e) = g.check_invariants(&t)
        {
            note(&format!("after next_round: {e}"), s);
        }
    }
    for seat in 0..=n {
        if let Ok(t) = g.resample_hidden(s, seat, seed) {
            if let Err(e) = g.check_invariants(&t) {
                note(&format!("after resample seat {seat}: {e}"), s);
            }
            read_only(g, &t);
            // round trip
            let j = t.to_json();
            let u = State::from_json(&j).expect("HARNESS: roundtrip");
            assert_eq!(u, t);
        }
    }
    // play on
    let mut rng = Rng(seed ^ 0x9E37_79B9_7F4A_7C15);
    let mut t = s.clone();
    for _ in 0..steps {
        if t.is_match_over() {
            break;
        }
        if t.is_round_over() {
            if g.next_round(&mut t).is_err() {
                break;
            }
        } else if rng.below(16) == 0 && t.phase() == uno_env::Phase::Play {
            g.timeout(&mut t, &mut ()).unwrap();
        } else {
            let acts = g.legal_actions(&t);
            assert!(!acts.is_empty(), "HARNESS: no legal actions");
            let a = acts[rng.below(acts.len())];
            g.apply(&mut t, a).unwrap();
        }
        if let Err(e) = g.check_invariants(&t) {
            note(&format!("play-on: {e}"), s);
        }
        read_only(g, &t);
    }
}

/// A legal step from a checked state left one that fails the check.
pub fn note(msg: &str, s: &State) {
    panic!("FINDING: {msg}\nfrom the state {}", s.to_json());
}
