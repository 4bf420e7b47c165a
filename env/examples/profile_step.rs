//! Profiling driver: `cargo run --release -p uno-env --example profile_step -- [obs]`.
use uno_env::{Buffers, EnvConfig, Rules, VecEnv};
fn main() {
    let obs = std::env::args().nth(1).is_some_and(|a| a == "obs");
    let cfg = EnvConfig::new(Rules::preset("attack-2010").unwrap(), 4);
    let mut env = VecEnv::new(cfg, 1024, 1, 1).unwrap();
    let mut buf = Buffers::new(1024);
    env.reset(buf.batch()).unwrap();
    for _ in 0..3000 {
        env.step_random(buf.batch(), obs).unwrap();
    }
}
