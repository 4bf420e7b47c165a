//! Quick throughput check: `cargo run --release -p uno-env --example quickbench -- [envs]`.
use uno_env::{EnvConfig, Rules};
fn main() {
    let envs: usize = match std::env::args().nth(1).as_deref() {
        None => 1024,
        Some("-h" | "--help") => {
            println!("usage: quickbench [envs]   (games per batch, default 1024)");
            return;
        }
        Some(a) => a.parse().unwrap_or_else(|_| {
            eprintln!("error: envs must be a whole number, not `{a}`");
            std::process::exit(2)
        }),
    };
    for (obs, threads) in [(false, 1), (true, 1), (false, 2), (true, 2)] {
        let cfg = EnvConfig::new(Rules::preset("attack-2010").unwrap(), 4);
        let never = std::sync::atomic::AtomicBool::new(false);
        let r = uno_env::bench::run(cfg, envs, threads, 2.0, obs, 1, &never).unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(2)
        });
        println!(
            "envs={envs} obs={obs} threads={threads} {:.2}M steps/s ({:.2}M/thread) state={}B",
            r.steps_per_sec / 1e6,
            r.steps_per_sec_per_thread / 1e6,
            r.state_bytes
        );
    }
}
