//! Action, face, kind, colour and phase names, and scenarios (JSON) built
//! into states and exercised.
#![no_main]
use libfuzzer_sys::fuzz_target;
use uno_env::{Action, Game, Rules, Scenario};
mod common;

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let Ok(text) = std::str::from_utf8(&data[2..]) else {
        return;
    };
    let _ = Action::parse(text);
    let _ = uno_env::Face::parse(text);
    let _ = uno_env::Kind::parse(text);
    let _ = uno_env::Colour::parse(text);
    let _ = text.parse::<uno_env::Phase>();
    let Ok(sc) = serde_json::from_str::<Scenario>(text) else {
        return;
    };
    let n = 2 + data[1] as usize % 9;
    let p = common::PRESETS[data[0] as usize % 5];
    let Ok(g) = Game::new(Rules::preset(p).unwrap(), n) else {
        return;
    };
    let Ok(s) = g.scenario(&sc) else { return };
    common::exercise(&g, &s, 3, 100);
});
