//! How far apart the machine's two cores are: `cargo run --release -p uno-env --example core_latency -- [rounds]`.
//!
//! Two threads hand one cache line back and forth `rounds` times (default
//! 200,000) and the one-way time is printed. On the development VM it tells
//! the host's spells apart (`docs/performance-log.md`, session 46): about 20–60 ns
//! when the two vCPUs share a cache, 170–330 ns when they do not, and then
//! every line two threads both write costs that much each time it moves.
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The line handed back and forth, alone on its cache line.
#[repr(align(128))]
struct Line(AtomicU64);

fn main() {
    let rounds: u64 = match std::env::args().nth(1) {
        None => 200_000,
        Some(a) => a.parse().unwrap_or_else(|_| {
            eprintln!("error: rounds must be a whole number, not `{a}`");
            eprintln!("usage: core_latency [rounds]");
            std::process::exit(2)
        }),
    };
    if rounds == 0 {
        eprintln!("error: rounds must be at least 1");
        std::process::exit(2);
    }
    let line = Line(AtomicU64::new(0));
    let start = std::thread::scope(|s| {
        s.spawn(|| {
            for i in 0..rounds {
                while line.0.load(Ordering::Acquire) != 2 * i + 1 {
                    std::hint::spin_loop();
                }
                line.0.store(2 * i + 2, Ordering::Release);
            }
        });
        let start = Instant::now();
        for i in 0..rounds {
            line.0.store(2 * i + 1, Ordering::Release);
            while line.0.load(Ordering::Acquire) != 2 * i + 2 {
                std::hint::spin_loop();
            }
        }
        start
    });
    let ns = start.elapsed().as_secs_f64() * 1e9 / (2 * rounds) as f64;
    println!("one-way {ns:.0} ns");
}
