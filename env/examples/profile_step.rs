//! Profiling driver: `cargo run --release -p uno-env --example profile_step -- [obs|floor] [batches] [envs=N] [threads=T]`.
//! Steps N (default 1,024) random attack-2010 4-player games on T threads (default 1) and prints the rate.
//!
//! `floor` steps nothing: it copies one real observation and mask row into
//! every game's rows of the batch buffers, batch after batch (one thread). That
//! is the cost of the bytes alone, the floor under any encoder of this layout.
use std::time::Instant;
use uno_env::{Buffers, EnvConfig, NUM_ACTIONS, OBS_SIZE, Rules, VecEnv};
/// One line naming the problem, and exit code 2.
fn fail(msg: String) -> ! {
    eprintln!("error: {msg}");
    eprintln!("usage: profile_step [obs|floor] [batches] [envs=N] [threads=T]");
    std::process::exit(2)
}

fn main() {
    let (mut obs, mut floor) = (false, false);
    let (mut batches, mut envs, mut threads) = (3000usize, 1024usize, 1usize);
    for a in std::env::args().skip(1) {
        let number = |v: &str, what: &str| -> usize {
            v.parse()
                .unwrap_or_else(|_| fail(format!("{what} must be a whole number, not `{v}`")))
        };
        match a.as_str() {
            "obs" => obs = true,
            "floor" => floor = true,
            "-h" | "--help" => {
                println!("usage: profile_step [obs|floor] [batches] [envs=N] [threads=T]");
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
    let start = Instant::now();
    for _ in 0..batches {
        env.step_random(buf.batch(), obs).unwrap();
    }
    let rate = (batches * envs) as f64 / start.elapsed().as_secs_f64();
    println!("{:.2}M steps/s (obs: {obs})", rate / 1e6);
}
