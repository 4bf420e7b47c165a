//! Profiling driver: `cargo run --release -p uno-env --example profile_step -- [obs] [batches] [envs=N] [threads=T]`.
//! Steps N (default 1,024) random attack-2010 4-player games on T threads (default 1) and prints the rate.
use std::time::Instant;
use uno_env::{Buffers, EnvConfig, Rules, VecEnv};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let obs = args.iter().any(|a| a == "obs");
    let batches: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(3000);
    let envs: usize = args
        .iter()
        .find_map(|a| a.strip_prefix("envs=")?.parse().ok())
        .unwrap_or(1024);
    let threads: usize = args
        .iter()
        .find_map(|a| a.strip_prefix("threads=")?.parse().ok())
        .unwrap_or(1);
    let cfg = EnvConfig::new(Rules::preset("attack-2010").unwrap(), 4);
    let mut env = VecEnv::new(cfg, envs, 1, threads).unwrap();
    let mut buf = Buffers::new(envs);
    env.reset(buf.batch()).unwrap();
    let start = Instant::now();
    for _ in 0..batches {
        env.step_random(buf.batch(), obs).unwrap();
    }
    let rate = (batches * envs) as f64 / start.elapsed().as_secs_f64();
    println!("{:.2}M steps/s (obs: {obs})", rate / 1e6);
}
