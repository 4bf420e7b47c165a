//! Throughput measurement behind `uno-attack bench`: random legal play in a
//! [`VecEnv`], with or without observation and mask writing, and the timing
//! loop ([`measure`]) that the single-agent env's benchmark shares.

use crate::error::ConfigError;
use crate::state::State;
use crate::vec_env::{Buffers, EnvConfig, VecEnv};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What a benchmark run measured.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// Rules name.
    pub rules: String,
    /// Players per table.
    pub players: usize,
    /// Games stepped together.
    pub envs: usize,
    /// Threads.
    pub threads: usize,
    /// Whether observations and masks were written.
    pub obs: bool,
    /// Steps (decisions) taken.
    pub steps: u64,
    /// Episodes finished.
    pub episodes: u64,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Steps per second, all threads.
    pub steps_per_sec: f64,
    /// Steps per second per thread.
    pub steps_per_sec_per_thread: f64,
    /// Steps per second of the median round of 16 batches (see
    /// [`Measured::steady_steps_per_sec`]): the rate between the host's
    /// interruptions. `steps_per_sec` is the wall-clock rate.
    pub steady_steps_per_sec: f64,
    /// The share of the measurement's time that this process ran on its
    /// threads: its CPU time / (wall time × threads). About 1 (or a little
    /// more, from the rest of the process) when nothing else ran; lower when
    /// another process took a core, which lowers the rates, most of all on
    /// several threads, where every batch waits for the slowest. `None` where
    /// the platform does not say (not a Unix).
    pub cpu_share: Option<f64>,
    /// `size_of::<State>()` in bytes.
    pub state_bytes: usize,
    /// Built-in opponents of a single-agent env (`uno-attack bench
    /// --opponents`); its steps are the learner's decisions only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opponents: Option<String>,
    /// The settings in which the rules differ from the preset of their name
    /// (a rules file that starts from a preset); empty for a preset itself.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules_changed: Vec<String>,
    /// The measurement was stopped before its time was up (Ctrl-C): the
    /// rate is over the shorter time it ran.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stopped_early: bool,
}

/// What [`measure`] counted.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    /// Steps (rows) taken.
    pub steps: u64,
    /// Episodes finished.
    pub episodes: u64,
    /// Wall time in seconds.
    pub seconds: f64,
    /// `stop` ended the measurement before `seconds` were up.
    pub stopped_early: bool,
    /// Steps per second of the median timed round (16 batches). A round the
    /// host slowed (a timer tick, a paused vCPU, a busy neighbour on the same
    /// core) lowers the wall-clock rate but not this one, so the gap between
    /// the two is the time the machine took away; on several threads every
    /// batch waits for the slowest thread, so it is larger there.
    pub steady_steps_per_sec: f64,
    /// CPU time the process used over the timed rounds, every thread
    /// counted (`None` where the platform does not say).
    pub cpu_seconds: Option<f64>,
}

/// The CPU time this process has used so far, all threads together, where
/// the platform says (`getrusage` on Unix).
pub fn process_cpu_time() -> Option<Duration> {
    #[cfg(unix)]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: `getrusage` fills in the struct it is given, and returns 0
        // when it did.
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } == 0 {
            // SAFETY: filled in just above (and zeroed before).
            let u = unsafe { usage.assume_init() };
            let time = |t: libc::timeval| {
                Duration::from_secs(t.tv_sec.max(0) as u64)
                    + Duration::from_micros(t.tv_usec.max(0) as u64)
            };
            return Some(time(u.ru_utime) + time(u.ru_stime));
        }
    }
    None
}

/// Durations of the timed rounds, kept as a uniform sample in a buffer
/// allocated before the timing starts: once it is full, every other kept
/// round is dropped and from then on only every other new one is kept (and
/// so on), so the timing loop never allocates, however many rounds it runs.
struct RoundTimes {
    /// Kept durations, in nanoseconds.
    kept: Vec<u32>,
    /// One round in `stride` is kept.
    stride: u64,
    /// Rounds seen.
    seen: u64,
}

impl RoundTimes {
    /// Room for `capacity` rounds (at least 2).
    fn new(capacity: usize) -> RoundTimes {
        RoundTimes {
            kept: Vec::with_capacity(capacity.max(2)),
            stride: 1,
            seen: 0,
        }
    }

    /// Records one round that took `d`.
    fn push(&mut self, d: Duration) {
        let n = self.seen;
        self.seen += 1;
        if !n.is_multiple_of(self.stride) {
            return;
        }
        self.kept.push(d.as_nanos().min(u32::MAX as u128) as u32);
        if self.kept.len() == self.kept.capacity() {
            // Keep rounds 0, 2, 4, … of those kept: one in `2 × stride` of all.
            let mut i = 0;
            self.kept.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.stride *= 2;
        }
    }

    /// The median kept duration in seconds (the upper one of an even count),
    /// or `None` when no round was recorded.
    fn median_seconds(&mut self) -> Option<f64> {
        if self.kept.is_empty() {
            return None;
        }
        let mid = self.kept.len() / 2;
        let (_, m, _) = self.kept.select_nth_unstable(mid);
        Some(*m as f64 / 1e9)
    }
}

/// Calls `step` (one batched step of `envs` games of `env` writing into
/// `buf`) 20 times to warm up, then for about `seconds`, counting steps and
/// finished episodes; raising `stop` (a Ctrl-C handler) ends it sooner, after
/// at least one round of 16 batches, so the rate is always over some steps.
/// The timing loop of every environment benchmark. Besides the wall-clock
/// figures it reports the rate of the median round
/// ([`Measured::steady_steps_per_sec`]).
///
/// Episodes are counted by `finished` (the environment's running total of
/// finished episodes), read before and after the timed steps, when the
/// environment keeps one; else (`None`) from each batch's `terminated` and
/// `truncated` flags. The flags are read on the calling thread after every
/// batch, so on several threads that share no cache they cross between the
/// caches twice a batch (to the reader, and back to the thread that writes
/// them next): with a counter the timing loop reads nothing the step wrote,
/// and measures the step alone (`docs/performance-log.md`, session 46).
pub fn measure<T, E>(
    env: &mut T,
    envs: usize,
    seconds: f64,
    buf: &mut Buffers,
    stop: &AtomicBool,
    mut step: impl FnMut(&mut T, &mut Buffers) -> Result<(), E>,
    finished: Option<fn(&T) -> u64>,
) -> Result<Measured, E> {
    for _ in 0..20 {
        step(env, buf)?;
    }
    let budget = Duration::from_secs_f64(seconds.max(0.01));
    let mut rounds = RoundTimes::new(1 << 14);
    let before = finished.map(|f| f(env));
    let cpu_before = process_cpu_time();
    let start = Instant::now();
    let mut steps = 0u64;
    let mut episodes = 0u64;
    let mut stopped_early = false;
    let mut last = Duration::ZERO;
    loop {
        let now = start.elapsed();
        if steps > 0 {
            rounds.push(now - last);
        }
        last = now;
        if now >= budget {
            break;
        }
        if steps > 0 && stop.load(Ordering::Relaxed) {
            stopped_early = true;
            break;
        }
        for _ in 0..ROUND {
            step(env, buf)?;
            steps += envs as u64;
            if finished.is_none() {
                // Two separate sums: they vectorize, where a chained
                // iterator does not.
                episodes += ones(&buf.terminated) + ones(&buf.truncated);
            }
        }
    }
    let seconds = last.as_secs_f64();
    let cpu_seconds = process_cpu_time()
        .zip(cpu_before)
        .map(|(now, before)| now.saturating_sub(before).as_secs_f64());
    if let (Some(f), Some(before)) = (finished, before) {
        episodes = f(env) - before;
    }
    let wall = steps as f64 / seconds;
    let steady = rounds
        .median_seconds()
        .filter(|&t| t > 0.0)
        .map_or(wall, |t| (ROUND * envs) as f64 / t);
    Ok(Measured {
        steps,
        episodes,
        seconds,
        stopped_early,
        steady_steps_per_sec: steady,
        cpu_seconds,
    })
}

/// Batches in one timed round of [`measure`]: the clock and the stop flag
/// are read once a round.
const ROUND: usize = 16;

/// How many flags of `v` are set (each 0 or 1).
fn ones(v: &[u8]) -> u64 {
    v.iter().map(|&d| d as u32).sum::<u32>() as u64
}

/// Steps `envs` random games for about `seconds` (less if `stop` is raised)
/// and reports the rate.
pub fn run(
    config: EnvConfig,
    envs: usize,
    threads: usize,
    seconds: f64,
    obs: bool,
    seed: u64,
    stop: &AtomicBool,
) -> Result<BenchReport, ConfigError> {
    let rules = config.rules.name.clone();
    let players = config.players;
    let mut env = VecEnv::new(config, envs, seed, threads)?;
    let threads = env.threads();
    let mut buf = Buffers::new(envs);
    env.reset(buf.batch())?;
    let m = measure(
        &mut env,
        envs,
        seconds,
        &mut buf,
        stop,
        |env, b| env.step_random(b.batch(), obs),
        Some(VecEnv::episodes_finished),
    )?;
    Ok(BenchReport::new(rules, players, envs, threads, obs, m))
}

impl BenchReport {
    /// A report of `m`, measured on `threads` threads.
    pub fn new(
        rules: String,
        players: usize,
        envs: usize,
        threads: usize,
        obs: bool,
        m: Measured,
    ) -> BenchReport {
        let rate = m.steps as f64 / m.seconds;
        BenchReport {
            rules,
            players,
            envs,
            threads,
            obs,
            steps: m.steps,
            episodes: m.episodes,
            seconds: m.seconds,
            steps_per_sec: rate,
            steps_per_sec_per_thread: rate / threads.max(1) as f64,
            steady_steps_per_sec: m.steady_steps_per_sec,
            cpu_share: m
                .cpu_seconds
                .filter(|_| m.seconds > 0.0)
                .map(|cpu| cpu / (m.seconds * threads.max(1) as f64)),
            state_bytes: std::mem::size_of::<State>(),
            opponents: None,
            rules_changed: Vec::new(),
            stopped_early: m.stopped_early,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_times_give_the_median_round() {
        let mut r = RoundTimes::new(16);
        assert_eq!(r.median_seconds(), None);
        for us in [30, 10, 20, 1_000_000, 25] {
            r.push(Duration::from_micros(us));
        }
        // Sorted: 10, 20, 25, 30, 1 s: one long stall does not move the median.
        assert_eq!(r.median_seconds(), Some(25e-6));
    }

    #[test]
    fn round_times_keep_a_uniform_sample_without_growing() {
        let mut r = RoundTimes::new(8);
        let cap = r.kept.capacity();
        // Round k takes k µs: the kept rounds show which were kept.
        for k in 0..100u64 {
            r.push(Duration::from_micros(k));
            assert!(r.kept.len() <= cap, "the buffer never grows");
        }
        assert_eq!(r.kept.capacity(), cap);
        assert_eq!(r.seen, 100);
        // Every `stride`-th round from the first, no gaps and no others.
        let kept: Vec<u64> = r.kept.iter().map(|&ns| ns as u64 / 1000).collect();
        let want: Vec<u64> = (0..100).step_by(r.stride as usize).collect();
        assert_eq!(kept, want);
        assert!(r.stride > 1, "100 rounds in room for {cap} were thinned");
        // The sample's median is the median of all rounds, to within a stride.
        let m = r.median_seconds().unwrap() * 1e6;
        assert!((m - 50.0).abs() <= r.stride as f64, "{m}");
    }

    #[test]
    fn the_process_cpu_time_grows_with_work_on_a_thread() {
        let before = process_cpu_time();
        assert_eq!(before.is_some(), cfg!(unix), "Unix reports CPU time");
        let Some(before) = before else { return };
        // Busy on this thread until the process has used 10 ms more CPU
        // time: it gets there (other tests' threads only add to it), well
        // within 5 s of wall time however loaded the machine.
        let start = Instant::now();
        let mut x = 0u64;
        let used = loop {
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_add(1));
            }
            let used = process_cpu_time().unwrap().saturating_sub(before);
            if used >= Duration::from_millis(10) || start.elapsed() > Duration::from_secs(5) {
                break used;
            }
        };
        assert!(used >= Duration::from_millis(10), "{used:?}");
    }

    #[test]
    fn the_cpu_share_is_cpu_time_over_wall_time_times_threads() {
        let m = |cpu_seconds, seconds| Measured {
            steps: 1,
            episodes: 0,
            seconds,
            stopped_early: false,
            steady_steps_per_sec: 1.0,
            cpu_seconds,
        };
        let share = |m: Measured, threads| {
            BenchReport::new("classic".into(), 2, 1, threads, false, m).cpu_share
        };
        assert_eq!(share(m(Some(1.8), 1.0), 2), Some(0.9));
        assert_eq!(share(m(Some(0.5), 1.0), 1), Some(0.5));
        assert_eq!(share(m(None, 1.0), 2), None);
        assert_eq!(share(m(Some(0.1), 0.0), 1), None, "no time, no share");
    }

    #[test]
    fn measure_reports_a_steady_rate_of_its_rounds() {
        let stop = AtomicBool::new(false);
        let mut buf = Buffers::new(0);
        let mut calls = 0u64;
        // 20 warm-up batches, then rounds of 16: the third timed round
        // stalls for 40 ms, past the 20 ms budget, so it is the last.
        let stall = 20 + 2 * ROUND as u64 + 5;
        let m = measure(
            &mut calls,
            4,
            0.02,
            &mut buf,
            &stop,
            |c, _| {
                *c += 1;
                if *c == stall {
                    std::thread::sleep(Duration::from_millis(40));
                }
                Ok::<(), ()>(())
            },
            Some(|c: &u64| *c - 20),
        )
        .unwrap();
        assert_eq!(m.steps, 3 * 4 * ROUND as u64, "three whole rounds");
        assert!(m.seconds >= 0.04);
        let wall = m.steps as f64 / m.seconds;
        // The process's CPU time over the rounds, where the platform says
        // (its size depends on the other tests running in this process).
        assert_eq!(m.cpu_seconds.is_some(), cfg!(unix));
        // The median round is a fast one: the stall lowers the wall-clock
        // rate, not the steady one.
        assert!(
            m.steady_steps_per_sec > 10.0 * wall,
            "steady {} vs wall {wall}",
            m.steady_steps_per_sec
        );
    }
}
