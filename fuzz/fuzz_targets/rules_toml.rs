//! Rules files: what loads must write back the same (`to_toml`), and every
//! table size it plays at deals a valid state that is exercised.
#![no_main]
use libfuzzer_sys::fuzz_target;
use uno_env::{Game, Rules};
mod common;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if text.len() > 4000 {
        return;
    }
    let Ok(r) = Rules::from_toml_str(text) else {
        return;
    };
    let t = r.to_toml();
    let r2 = Rules::from_toml_str(&t)
        .unwrap_or_else(|e| panic!("HARNESS: to_toml does not round-trip: {e}\n{t}"));
    assert_eq!(r, r2, "HARNESS: round trip differs");
    let _ = r.differences(&Rules::preset("classic").unwrap());
    for n in 2..=10 {
        let Ok(g) = Game::new(r.clone(), n) else {
            continue;
        };
        let s = g.new_state(n as u64);
        if let Err(e) = g.check_invariants(&s) {
            panic!("HARNESS: new_state invalid: {e}");
        }
        common::exercise(&g, &s, n as u64, 300);
    }
});
