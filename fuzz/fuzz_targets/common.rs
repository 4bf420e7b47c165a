//! What every target does with a state that passed `check_invariants`:
//! everything a user can then call. A panic anywhere, an illegal action
//! accepted, a refused one that changed the state, or a legal step that
//! leaves a state failing the check is a finding.
#![allow(dead_code)]
use uno_env::obs::{ORACLE_SIZE, encode, encode_oracle};
use uno_env::vec_env::{Picker, RewardMode, terminal_rewards};
use uno_env::{EventLog, Game, Imposed, NUM_ACTIONS, OBS_SIZE, Phase, State, action_name};

/// A target's input as two small numbers and the rest as text (none when
/// the input is shorter or not UTF-8).
pub fn split(data: &[u8]) -> Option<(u8, u8, &str)> {
    match data {
        [a, b, rest @ ..] => Some((*a, *b, std::str::from_utf8(rest).ok()?)),
        _ => None,
    }
}

/// One step of random play from `s`: the next round dealt when one is over,
/// with `timeouts` a simulated time-out in one normal turn in 16, else a
/// random legal action. False at the end of the match.
pub fn random_step(g: &Game, s: &mut State, rng: &mut Picker, timeouts: bool) -> bool {
    if s.is_match_over() {
        return false;
    }
    if s.is_round_over() {
        g.next_round(s).unwrap();
    } else if timeouts && s.phase() == Phase::Play && rng.below(16) == 0 {
        g.timeout(s, &mut ()).unwrap();
    } else {
        let a = g.legal_actions(s);
        assert!(!a.is_empty(), "HARNESS: no legal actions");
        g.apply(s, a[rng.below(a.len() as u64) as usize]).unwrap();
    }
    true
}

/// Up to `steps` random legal actions from `s` (see [`random_step`]).
pub fn play_random(g: &Game, s: &mut State, rng: &mut Picker, steps: usize) {
    for _ in 0..steps {
        if !random_step(g, s, rng, false) {
            break;
        }
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
    let mut rng = Picker::new(seed, 1);
    let mut t = s.clone();
    for _ in 0..steps {
        if !random_step(g, &mut t, &mut rng, true) {
            break;
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
