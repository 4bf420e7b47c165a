//! How fast the host runs each CPU today: `cargo run --release -p uno-env --example host_gauge -- [seconds]`.
//!
//! Two readings, one thread per CPU (two on the development VM), to set
//! beside a benchmark's figures (`docs/performance-log.md`, session 50):
//!
//! - **clock**: the core's effective clock, from a chain of dependent
//!   register-to-register additions (one a cycle on current x86-64 cores),
//!   best of three 0.1 s runs; x86-64 only. (Until session 59 the chain
//!   added an immediate, which Intel's Golden Cove and later cores fold at
//!   rename, several a cycle: it read 8–10 GHz on the Xeon of session 59.)
//! - **gaps**: every thread spins reading the clock for `seconds` (default
//!   2) at once and counts the gaps of more than 1 µs between two readings:
//!   the guest's timer ticks, the host's interruptions and preemptions. It
//!   prints the gaps a second, the share of time they took and their sizes.
//!   A two-thread batch waits for the later thread, so a gap on either CPU
//!   stalls it: the two-thread bench loses at least about the sum of the
//!   shares, the one-thread bench one share. Spells in which the host runs
//!   a CPU slower without stopping it are not gaps, and are not counted.
use std::time::{Duration, Instant};

/// Edges of the gap size classes, in µs: gaps longer than the first edge
/// are counted, and the class above the last edge is open.
const EDGES: [f64; 7] = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0];

/// Gaps seen by one thread.
struct Gaps {
    /// Gaps per size class (between neighbouring `EDGES`, then above the last).
    count: [u64; EDGES.len()],
    /// Their total length.
    total: Duration,
    /// How long the thread spun.
    spun: Duration,
}

/// The effective clock in GHz: register-to-register additions in a
/// dependent chain (one a cycle) per second, best of three runs.
#[cfg(target_arch = "x86_64")]
fn clock_ghz() -> Option<f64> {
    const ROUNDS: u64 = 90_000_000;
    let mut best = f64::MAX;
    for _ in 0..3 {
        let mut x = 0u64;
        let start = Instant::now();
        for _ in 0..ROUNDS {
            // SAFETY: four additions of one register to another; no memory,
            // no stack. A register operand, not an immediate: a renamer
            // that folds immediate additions cannot fold these.
            unsafe {
                std::arch::asm!(
                    "add {0}, {1}",
                    "add {0}, {1}",
                    "add {0}, {1}",
                    "add {0}, {1}",
                    inout(reg) x,
                    in(reg) 1u64,
                    options(nomem, nostack)
                )
            };
        }
        std::hint::black_box(x);
        best = best.min(start.elapsed().as_secs_f64());
    }
    Some(4.0 * ROUNDS as f64 / best / 1e9)
}

/// No portable chain of known latency elsewhere.
#[cfg(not(target_arch = "x86_64"))]
fn clock_ghz() -> Option<f64> {
    None
}

/// Spins for `len`, counting the gaps of more than `EDGES[0]` µs between clock readings.
fn spin(len: Duration) -> Gaps {
    let min_gap = Duration::from_secs_f64(EDGES[0] * 1e-6);
    let mut g = Gaps {
        count: [0; EDGES.len()],
        total: Duration::ZERO,
        spun: Duration::ZERO,
    };
    let start = Instant::now();
    let mut prev = start;
    loop {
        let now = Instant::now();
        let d = now - prev;
        prev = now;
        if d > min_gap {
            let us = d.as_secs_f64() * 1e6;
            let class = EDGES[1..]
                .iter()
                .position(|&b| us < b)
                .unwrap_or(EDGES.len() - 1);
            g.count[class] += 1;
            g.total += d;
        }
        if now - start >= len {
            g.spun = now - start;
            return g;
        }
    }
}

fn main() {
    let seconds: f64 = match std::env::args().nth(1) {
        None => 2.0,
        Some(a) => match a.parse::<f64>() {
            Ok(s) if s > 0.0 && s <= 600.0 => s,
            _ => {
                eprintln!("error: seconds must be a number above 0 and at most 600, not `{a}`");
                eprintln!("usage: host_gauge [seconds]");
                std::process::exit(2)
            }
        },
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let len = Duration::from_secs_f64(seconds);
    // Each thread reads its clock, waits for the others, then spins.
    let ready = std::sync::Barrier::new(threads);
    let all: Vec<(Option<f64>, Gaps)> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let ghz = clock_ghz();
                    ready.wait();
                    (ghz, spin(len))
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("spinning thread"))
            .collect()
    });
    let mut labels: Vec<String> = EDGES
        .windows(2)
        .map(|w| format!("{}–{} µs", w[0], w[1]))
        .collect();
    labels.push(format!(">{} µs", EDGES[EDGES.len() - 1]));
    for (i, (ghz, g)) in all.iter().enumerate() {
        let secs = g.spun.as_secs_f64();
        let n: u64 = g.count.iter().sum();
        let sizes: Vec<String> = labels
            .iter()
            .zip(g.count)
            .filter(|(_, c)| *c > 0)
            .map(|(l, c)| format!("{l}: {c}"))
            .collect();
        let clock = ghz.map_or("clock n/a".to_string(), |c| format!("clock {c:.2} GHz"));
        println!(
            "thread {i}: {clock}; {:.0} gaps/s, {:.2} % of the time; {}",
            n as f64 / secs,
            g.total.as_secs_f64() / secs * 100.0,
            sizes.join(", ")
        );
    }
}
