//! Random rule variants (options, supply, launcher models, effects) and
//! preset overrides: long random games with the invariants checked after
//! every step.
#![no_main]
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use uno_env::vec_env::Picker;
use uno_env::{Game, Rules};
mod common;
mod rulesvar;

#[derive(Arbitrary, Debug)]
struct Input {
    r: rulesvar::RulesVar,
    players: u8,
    seed: u64,
    extra: String,
}

fuzz_target!(|inp: Input| {
    let r = inp.r.build();
    if r.validate().is_err() {
        return;
    }
    let t = r.to_toml();
    let r2 = Rules::from_toml_str(&t)
        .unwrap_or_else(|e| panic!("HARNESS: to_toml does not round-trip: {e}\n{t}"));
    assert_eq!(r, r2, "HARNESS: round trip differs");
    // an override on top
    let over = format!(
        "preset = \"{}\"\n{}",
        uno_env::PRESETS[inp.r.preset as usize % uno_env::PRESETS.len()],
        inp.extra
    );
    let _ = Rules::from_toml_str(&over).map(|x| {
        for n in 2..=10 {
            let _ = Game::new(x.clone(), n).map(|g| {
                let s = g.new_state(1);
                common::exercise(&g, &s, 1, 50);
            });
        }
    });
    let n = 2 + inp.players as usize % 9;
    let Ok(g) = Game::new(r, n) else { return };
    let s = g.new_state(inp.seed);
    if let Err(e) = g.check_invariants(&s) {
        panic!("HARNESS: new_state invalid: {e}");
    }
    // play a long way, exercising along the way
    let mut rng = Picker::new(inp.seed, 0);
    let mut t = s.clone();
    for i in 0..400 {
        if i % 40 == 0 {
            common::exercise(&g, &t, inp.seed, 0);
        }
        if !common::random_step(&g, &mut t, &mut rng, true) {
            break;
        }
        if let Err(e) = g.check_invariants(&t) {
            panic!("HARNESS: invariant broken: {e}\n{}", t.to_json());
        }
    }
});
