//! Quick throughput check: `cargo run --release -p uno-env --example quickbench -- [envs]`.
use uno_env::{EnvConfig, Rules};
fn main() {
    let envs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1024);
    for (obs, threads) in [(false, 1), (true, 1), (false, 2), (true, 2)] {
        let cfg = EnvConfig::new(Rules::preset("attack-2010").unwrap(), 4);
        let r = uno_env::bench::run(cfg, envs, threads, 2.0, obs, 1).unwrap();
        println!(
            "envs={envs} obs={obs} threads={threads} {:.2}M steps/s ({:.2}M/thread) state={}B",
            r.steps_per_sec / 1e6,
            r.steps_per_sec_per_thread / 1e6,
            r.state_bytes
        );
    }
}
