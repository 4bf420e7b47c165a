//! Profiling driver: `cargo run --release -p uno-env --example profile_step -- [obs|floor] [batches] [envs=N] [threads=T]`.
//! Steps N (default 1,024) random attack-2010 4-player games on T threads (default 1) and prints the rate.
//!
//! `floor` steps nothing: it copies one real observation and mask row into
//! every game's rows of the batch buffers, batch after batch (one thread). That
//! is the cost of the bytes alone, the floor under any encoder of this layout.
use std::time::Instant;
use uno_env::{Buffers, EnvConfig, NUM_ACTIONS, OBS_SIZE, Rules, VecEnv};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let obs = args.iter().any(|a| a == "obs");
    let floor = args.iter().any(|a| a == "floor");
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
