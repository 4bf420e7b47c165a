//! Action, face, kind, colour and phase names, and scenarios (JSON) built
//! into states and exercised.
#![no_main]
use libfuzzer_sys::fuzz_target;
use uno_env::{Action, Game, Rules, Scenario};
mod common;

fuzz_target!(|data: &[u8]| {
    let Some((preset, players, text)) = common::split(data) else {
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
    let n = 2 + players as usize % 9;
    let p = uno_env::PRESETS[preset as usize % uno_env::PRESETS.len()];
    let Ok(g) = Game::new(Rules::preset(p).unwrap(), n) else {
        return;
    };
    let Ok(s) = g.scenario(&sc) else { return };
    common::exercise(&g, &s, 3, 100);
});
