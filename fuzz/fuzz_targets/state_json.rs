//! Raw JSON read as a state (seed the corpus with `seeds`); a state that
//! passes `check_invariants` for a preset at its table size is exercised.
#![no_main]
use libfuzzer_sys::fuzz_target;
use uno_env::{Game, Rules, State};
mod common;

fuzz_target!(|data: &[u8]| {
    let Some((seed, _, text)) = common::split(data) else {
        return;
    };
    let Ok(st) = State::from_json(text) else {
        return;
    };
    let n = st.num_players();
    for p in uno_env::PRESETS {
        let Ok(g) = Game::new(Rules::preset(p).unwrap(), n) else {
            continue;
        };
        if g.check_invariants(&st).is_err() {
            continue;
        }
        common::exercise(&g, &st, seed as u64, 100);
    }
});
