//! Profiling driver: `cargo run --release -p uno-env --example profile_step -- [obs|floor] [times] [batches] [envs=N] [threads=T]`.
//! Steps N (default 1,024) random attack-2010 4-player games on T threads (default 1) and prints the rate.
//!
//! `times` also times every batch and prints the spread of batch times and
//! how much of the run went to batches slower than the median: to tell a
//! host that slows every batch a little from one that stops a few for long.
//!
//! `floor` steps nothing: it copies one real observation and mask row into
//! every game's rows of the batch buffers, batch after batch (one thread). That
//! is the cost of the bytes alone, the floor under any encoder of this layout.
use std::time::Instant;
use uno_env::{Buffers, EnvConfig, NUM_ACTIONS, OBS_SIZE, Rules, VecEnv};
/// One line naming the problem, and exit code 2.
fn fail(msg: String) -> ! {
    eprintln!("error: {msg}");
    eprintln!("usage: profile_step [obs|floor] [times] [batches] [envs=N] [threads=T]");
    std::process::exit(2)
}

fn main() {
    let (mut obs, mut floor, mut times) = (false, false, false);
    let (mut batches, mut envs, mut threads) = (3000usize, 1024usize, 1usize);
    for a in std::env::args().skip(1) {
        let number = |v: &str, what: &str| -> usize {
            v.parse()
                .unwrap_or_else(|_| fail(format!("{what} must be a whole number, not `{v}`")))
        };
        match a.as_str() {
            "obs" => obs = true,
            "floor" => floor = true,
            "times" => times = true,
            "-h" | "--help" => {
                println!("usage: profile_step [obs|floor] [times] [batches] [envs=N] [threads=T]");
                return;
            }
            _ => {
                if let Some(v) = a.strip_prefix("envs=") {
                    envs = number(v, "envs");
                } else if let Some(v) = a.strip_prefix("threads=") {
                    threads = number(v, "threads");
                } else if a.bytes().all(|b| b.is_ascii_digit()) {
                    batches = number(&a, "batches");
                } else {
                    fail(format!("unknown argument `{a}`"));
                }
            }
        }
    }
    if batches == 0 {
        fail("batches must be at least 1".into());
    }
    // VecEnv reads 0 as one thread; a profile names its thread count.
    if threads == 0 {
        fail("threads must be at least 1".into());
    }
    let cfg = EnvConfig::new(Rules::preset("attack-2010").unwrap(), 4);
    let mut env = VecEnv::new(cfg, envs, 1, threads).unwrap_or_else(|e| fail(e.to_string()));
    let mut buf = Buffers::new(envs);
    env.reset(buf.batch()).unwrap();
    if floor {
        let row = buf.obs[..OBS_SIZE].to_vec();
        let mask = buf.mask[..NUM_ACTIONS].to_vec();
        let start = Instant::now();
        for b in 0..batches {
            for (j, (o, m)) in buf
                .obs
                .chunks_exact_mut(OBS_SIZE)
                .zip(buf.mask.chunks_exact_mut(NUM_ACTIONS))
                .enumerate()
            {
                o.copy_from_slice(&row);
                o[(b + j) % OBS_SIZE] = b as f32;
                m.copy_from_slice(&mask);
            }
            std::hint::black_box((&mut buf.obs, &mut buf.mask));
        }
        let rate = (batches * envs) as f64 / start.elapsed().as_secs_f64();
        println!(
            "{:.2}M rows/s (floor: {} observation + {} mask bytes a row)",
            rate / 1e6,
            OBS_SIZE * 4,
            NUM_ACTIONS
        );
        return;
    }
    let mut took = Vec::with_capacity(if times { batches } else { 0 });
    let start = Instant::now();
    for _ in 0..batches {
        let t = times.then(Instant::now);
        env.step_random(buf.batch(), obs).unwrap();
        if let Some(t) = t {
            took.push(t.elapsed().as_nanos() as u64);
        }
    }
    let rate = (batches * envs) as f64 / start.elapsed().as_secs_f64();
    println!("{:.2}M steps/s (obs: {obs})", rate / 1e6);
    if times {
        print_times(&took, envs);
    }
}

/// The spread of batch times (nanoseconds) and the share of the run that
/// batches slower than the median took beyond it, split at twice the median.
fn print_times(took: &[u64], envs: usize) {
    let mut sorted = took.to_vec();
    sorted.sort_unstable();
    let q = |p: f64| sorted[((sorted.len() - 1) as f64 * p) as usize] as f64 / 1e3;
    let median = sorted[sorted.len() / 2];
    let total: u64 = took.iter().sum();
    let share = |keep: &dyn Fn(u64) -> bool| {
        let extra: u64 = took
            .iter()
            .filter(|&&t| keep(t))
            .map(|&t| t.saturating_sub(median))
            .sum();
        100.0 * extra as f64 / total as f64
    };
    println!(
        "batch times (us): median {:.1} ({:.2}M steps/s), p10 {:.1}, p90 {:.1}, p99 {:.1}, p99.9 {:.1}, max {:.1}",
        median as f64 / 1e3,
        envs as f64 / median as f64 * 1e3,
        q(0.1),
        q(0.9),
        q(0.99),
        q(0.999),
        q(1.0)
    );
    println!(
        "time beyond the median: {:.1} % of the run ({:.1} % in batches up to 2 x the median, {:.1} % in {} slower ones)",
        share(&|_| true),
        share(&|t| t <= 2 * median),
        share(&|t| t > 2 * median),
        took.iter().filter(|&&t| t > 2 * median).count()
    );
}
