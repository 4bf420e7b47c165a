//! Writes seed corpora: states of random games (for `state_json`) and
//! every preset as a rules file (for `rules_toml`). `seeds DIR`.
use uno_env::vec_env::Picker;
use uno_env::{Game, Rules};
mod common;
fn main() {
    let out = std::env::args().nth(1).unwrap();
    let sj = format!("{out}/state_json");
    let rt = format!("{out}/rules_toml");
    std::fs::create_dir_all(&sj).unwrap();
    std::fs::create_dir_all(&rt).unwrap();
    let mut k = 0;
    for (pi, p) in uno_env::PRESETS.iter().enumerate() {
        let r = Rules::preset(p).unwrap();
        std::fs::write(format!("{rt}/{p}.toml"), r.to_toml()).unwrap();
        std::fs::write(format!("{rt}/{p}-min.toml"), format!("preset = \"{p}\"\n[options]\nhand_size = 3\nuno_call = \"explicit\"\nscoring = \"challenge\"\n")).unwrap();
        for n in [2usize, 3, 4, 10] {
            let g = Game::new(r.clone(), n).unwrap();
            for seed in 0..6u64 {
                let mut s = g.new_state(seed);
                let mut rng = Picker::new(seed, 1);
                let stop = rng.below(120) as usize;
                common::play_random(&g, &mut s, &mut rng, stop);
                let mut bytes = vec![pi as u8, (n - 2) as u8];
                bytes.extend(s.to_json().as_bytes());
                std::fs::write(format!("{sj}/{k}"), bytes).unwrap();
                k += 1;
            }
        }
    }
}
