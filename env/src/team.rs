//! A fork-join team of worker threads for stepping one batch on several cores
//! with low start-up latency.
//!
//! The vectorized core runs one short parallel job per step (about 50 µs for
//! 1,024 games on two threads). Handing that job to a rayon pool
//! (`ThreadPool::install`) costs a wake-up of a sleeping worker and a wake-up
//! of the blocked caller on every step; on the 2-core development VM that
//! overhead ate most of the second core (2 threads: 1.1–1.3 × one thread,
//! while two independent processes reached 2 ×; see `docs/performance.md`).
//!
//! A [`Team`] keeps `threads − 1` workers that spin briefly on a batch counter
//! before parking, and the calling thread takes part in every job, so a step
//! that follows the previous one closely starts on all cores without a system
//! call and ends without one. Work is handed out by the job itself (the
//! vectorized core gives each thread the same games every batch, so they stay
//! in its core's cache, and lets a thread take a part another has not started).
//! The step path does not allocate.

use std::cell::UnsafeCell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How long a worker spins waiting for the next job before it parks: longer
/// than a step of a tight loop takes (so the next one starts without a
/// wake-up), short enough not to burn a core for long while the caller does
/// other work. Measured in time, not in spins: the cost of a `pause`
/// instruction differs twentyfold between CPUs.
const SPIN_BEFORE_PARK: Duration = Duration::from_micros(100);
/// Spins between two looks at the clock.
const SPINS_PER_CLOCK_READ: u32 = 64;

/// The job of the current batch: a pointer to the caller's closure, with its
/// lifetime erased (see [`Team::run`] for why that is sound).
type JobPtr = *const (dyn Fn(usize) + Sync + 'static);

struct Shared {
    /// Number of the current batch; a worker runs the job when it changes.
    epoch: AtomicU64,
    /// The current batch's job, written before `epoch` is bumped.
    job: UnsafeCell<Option<JobPtr>>,
    /// Workers that have not finished the current batch.
    busy: AtomicUsize,
    /// A worker's job panicked in the current batch.
    panicked: AtomicBool,
    /// Workers should exit.
    shutdown: AtomicBool,
}

// SAFETY: `job` is written only by the caller of `Team::run` while no worker
// reads it (all workers have finished the previous batch: `busy == 0`), and
// read by workers only after an acquire load of the `epoch` the caller bumped
// with release ordering after the write. The closure it points to is `Sync`.
unsafe impl Sync for Shared {}
// SAFETY: as above; the raw pointer is only dereferenced under that protocol.
unsafe impl Send for Shared {}

/// `threads − 1` parked-or-spinning workers plus the calling thread.
pub(crate) struct Team {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl Team {
    /// A team running jobs on `threads` threads (the caller and `threads − 1` workers).
    pub(crate) fn new(threads: usize) -> std::io::Result<Team> {
        let shared = Arc::new(Shared {
            epoch: AtomicU64::new(0),
            job: UnsafeCell::new(None),
            busy: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
            shutdown: AtomicBool::new(false),
        });
        let mut team = Team {
            shared,
            workers: Vec::with_capacity(threads.saturating_sub(1)),
        };
        for i in 1..threads {
            let shared = Arc::clone(&team.shared);
            let handle = thread::Builder::new()
                .name(format!("uno-env-{i}"))
                .spawn(move || worker(&shared, i))?;
            team.workers.push(handle);
        }
        Ok(team)
    }

    /// Threads that run a job (workers and the caller).
    pub(crate) fn threads(&self) -> usize {
        self.workers.len() + 1
    }

    /// Runs `job` once on every thread of the team (the caller included) and
    /// returns when all have finished. Each thread passes its own index (0 for
    /// the caller, `1..threads` for the workers, the same in every batch), so
    /// the job can give a thread the same games batch after batch (they stay in
    /// its core's cache). The job divides the work itself.
    /// A panic in any thread's job is resumed here after all have finished.
    /// (`&mut self`: one batch at a time, so `job` is never written while a
    /// worker reads it.)
    pub(crate) fn run(&mut self, job: &(dyn Fn(usize) + Sync)) {
        let s = &*self.shared;
        // SAFETY: every worker finished the previous batch (`busy` reached 0
        // before the last `run` returned), so none reads `job` now. The
        // lifetime is erased for storage only: this function does not return
        // (or unwind) before `busy` is 0 again, i.e. before every worker is
        // done with the closure, and workers never touch `job` between batches.
        unsafe {
            *s.job.get() = Some(std::mem::transmute::<&(dyn Fn(usize) + Sync), JobPtr>(job));
        }
        s.busy.store(self.workers.len(), Ordering::Relaxed);
        s.epoch.fetch_add(1, Ordering::Release);
        for w in &self.workers {
            // Cheap when the worker is spinning; wakes it when parked.
            w.thread().unpark();
        }
        let mine = catch_unwind(AssertUnwindSafe(|| job(0)));
        let mut wait = Spin::new();
        while s.busy.load(Ordering::Acquire) != 0 {
            if !wait.spin() {
                thread::yield_now();
            }
        }
        let worker_panicked = s.panicked.swap(false, Ordering::Relaxed);
        if let Err(e) = mine {
            resume_unwind(e);
        }
        if worker_panicked {
            panic!("a worker thread of the vectorized core panicked");
        }
    }
}

/// A bounded spin: `spin` pauses briefly and says whether to keep spinning.
struct Spin {
    spins: u32,
    start: Option<Instant>,
}

impl Spin {
    fn new() -> Spin {
        Spin {
            spins: 0,
            start: None,
        }
    }

    /// One short pause; `false` once [`SPIN_BEFORE_PARK`] has passed.
    fn spin(&mut self) -> bool {
        self.spins = self.spins.wrapping_add(1);
        if self.spins.is_multiple_of(SPINS_PER_CLOCK_READ) {
            let start = *self.start.get_or_insert_with(Instant::now);
            if start.elapsed() >= SPIN_BEFORE_PARK {
                return false;
            }
        }
        std::hint::spin_loop();
        true
    }
}

fn worker(s: &Shared, index: usize) {
    let mut seen = 0u64;
    loop {
        let mut wait = Spin::new();
        loop {
            if s.shutdown.load(Ordering::Acquire) {
                return;
            }
            let e = s.epoch.load(Ordering::Acquire);
            if e != seen {
                seen = e;
                break;
            }
            if !wait.spin() {
                // An `unpark` between the check above and this call leaves a
                // token, so `park` returns at once: no wake-up is lost.
                thread::park();
            }
        }
        // SAFETY: `job` was written before the release bump of `epoch` that
        // the acquire load above observed, and stays valid until this worker
        // decrements `busy` (see `Team::run`).
        let job = unsafe { &*(*s.job.get()).expect("job set before the epoch") };
        if catch_unwind(AssertUnwindSafe(|| job(index))).is_err() {
            s.panicked.store(true, Ordering::Relaxed);
        }
        s.busy.fetch_sub(1, Ordering::Release);
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, Ordering::Release);
        for w in &self.workers {
            w.thread().unpark();
        }
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_thread_runs_each_job_and_work_is_shared() {
        for threads in 1..=4 {
            let mut team = Team::new(threads).unwrap();
            assert_eq!(team.threads(), threads);
            for round in 0..200 {
                let next = AtomicUsize::new(0);
                let sum = AtomicUsize::new(0);
                let entered = AtomicUsize::new(0);
                let indices = AtomicUsize::new(0);
                let parts = 37;
                team.run(&|t| {
                    entered.fetch_add(1, Ordering::Relaxed);
                    indices.fetch_or(1 << t, Ordering::Relaxed);
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        if k >= parts {
                            break;
                        }
                        sum.fetch_add(k + round, Ordering::Relaxed);
                    }
                });
                assert_eq!(entered.load(Ordering::Relaxed), threads);
                // Each thread passes its own index: 0..threads, each once.
                assert_eq!(indices.load(Ordering::Relaxed), (1 << threads) - 1);
                assert_eq!(
                    sum.load(Ordering::Relaxed),
                    (0..parts).map(|k| k + round).sum::<usize>()
                );
            }
        }
    }

    #[test]
    fn a_panicking_job_is_reported_and_the_team_keeps_working() {
        let mut team = Team::new(2).unwrap();
        let caught = catch_unwind(AssertUnwindSafe(|| {
            team.run(&|_| panic!("boom"));
        }));
        assert!(caught.is_err());
        let count = AtomicUsize::new(0);
        team.run(&|_| {
            count.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(count.load(Ordering::Relaxed), 2);
    }
}
