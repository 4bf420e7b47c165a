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
//!
//! A worker joins a batch through a gate that the caller closes once its own
//! share is done: the caller waits only for workers that joined. A worker the
//! host has not scheduled (the cores busy with other programs) misses the
//! batch, the caller steps its part, and no batch waits a time slice of the
//! scheduler for a thread that would find nothing left to do.

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

/// The gate word: workers inside the current batch's job (low bits), whether
/// the batch still takes workers ([`OPEN`]), and the batch's number (from
/// [`EPOCH_SHIFT`] up; it wraps after 2^47 batches).
const INSIDE: u64 = (1 << 16) - 1;
/// The gate bit: set while workers may join the current batch.
const OPEN: u64 = 1 << 16;
/// Where the batch number starts in the gate word.
const EPOCH_SHIFT: u32 = 17;

struct Shared {
    /// Batch number, open flag and workers inside (see [`INSIDE`]). A worker
    /// runs the job of a batch only if it joined while the gate was open.
    gate: AtomicU64,
    /// The current batch's job, written before the gate opens.
    job: UnsafeCell<Option<JobPtr>>,
    /// A worker's job panicked in the current batch.
    panicked: AtomicBool,
    /// Workers that have started (see [`Team::new`]).
    started: AtomicUsize,
    /// Workers should exit.
    shutdown: AtomicBool,
}

// SAFETY: `job` is written only by the caller of `Team::run` while no worker
// reads it (the previous batch's gate is closed with no worker inside), and
// read by a worker only after it joined the batch with an acquire
// compare-exchange on the gate the caller opened with release ordering after
// the write. The closure it points to is `Sync`.
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
        // The gate counts the workers inside a batch in its low bits.
        assert!(threads as u64 <= INSIDE, "a team of {threads} threads");
        let shared = Arc::new(Shared {
            gate: AtomicU64::new(0),
            job: UnsafeCell::new(None),
            panicked: AtomicBool::new(false),
            started: AtomicUsize::new(0),
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
        // A worker joins only the batches it is in time for: wait until each
        // has started, so that the first batches have them, and so that their
        // start (which allocates: the thread's name) is over before any step.
        while team.shared.started.load(Ordering::Acquire) < team.workers.len() {
            thread::yield_now();
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
    /// A worker that has not joined by the time the caller's own share is done
    /// does not run this batch: the job must let any thread take work another
    /// has not started (as the vectorized core's does), so that the caller
    /// alone finishes whatever the absent workers would have done.
    /// A panic in any thread's job is resumed here after all have finished.
    /// (`&mut self`: one batch at a time, so `job` is never written while a
    /// worker reads it.)
    pub(crate) fn run(&mut self, job: &(dyn Fn(usize) + Sync)) {
        let s = &*self.shared;
        // SAFETY: the previous batch's gate was closed with no worker inside
        // before the last `run` returned, so none reads `job` now. The
        // lifetime is erased for storage only: this function does not return
        // (or unwind) before this batch's gate is closed with no worker inside,
        // i.e. before every worker that joined is done with the closure; a
        // worker that did not join never reads it.
        unsafe {
            *s.job.get() = Some(std::mem::transmute::<&(dyn Fn(usize) + Sync), JobPtr>(job));
        }
        let epoch = (s.gate.load(Ordering::Relaxed) >> EPOCH_SHIFT).wrapping_add(1);
        s.gate.store(epoch << EPOCH_SHIFT | OPEN, Ordering::Release);
        for w in &self.workers {
            // Cheap when the worker is spinning; wakes it when parked.
            w.thread().unpark();
        }
        let mine = catch_unwind(AssertUnwindSafe(|| job(0)));
        // Close the gate, then wait for the workers that joined.
        let mut inside = s.gate.fetch_and(!OPEN, Ordering::Acquire) & INSIDE;
        let mut wait = Spin::new();
        while inside != 0 {
            if !wait.spin() {
                thread::yield_now();
            }
            inside = s.gate.load(Ordering::Acquire) & INSIDE;
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
    s.started.fetch_add(1, Ordering::Release);
    let mut seen = 0u64;
    loop {
        let mut wait = Spin::new();
        let mut gate;
        loop {
            if s.shutdown.load(Ordering::Acquire) {
                return;
            }
            gate = s.gate.load(Ordering::Relaxed);
            if gate >> EPOCH_SHIFT != seen {
                seen = gate >> EPOCH_SHIFT;
                break;
            }
            if !wait.spin() {
                // An `unpark` between the check above and this call leaves a
                // token, so `park` returns at once: no wake-up is lost.
                thread::park();
            }
        }
        #[cfg(test)]
        {
            // The hold is set before the batch opens. The relaxed gate load
            // above does not order it: this acquire load does (without it a
            // worker may see the new batch and an old, clear hold; Miri's
            // weak-memory emulation does that).
            let _ = s.gate.load(Ordering::Acquire);
            while tests::HOLD_WORKERS.load(Ordering::Relaxed) {
                thread::yield_now();
            }
        }
        // Join batch `seen` while its gate is open; once it has closed (the
        // caller finished without this worker) or a later batch has begun,
        // this batch is over for this worker.
        while gate >> EPOCH_SHIFT == seen && gate & OPEN != 0 {
            match s
                .gate
                .compare_exchange_weak(gate, gate + 1, Ordering::Acquire, Ordering::Relaxed)
            {
                Ok(_) => {
                    // SAFETY: `job` was written before the release store that
                    // opened this gate, which the acquire exchange above
                    // observed, and stays valid until this worker leaves
                    // (see `Team::run`).
                    let job = unsafe { &*(*s.job.get()).expect("job set before the gate opens") };
                    if catch_unwind(AssertUnwindSafe(|| job(index))).is_err() {
                        s.panicked.store(true, Ordering::Relaxed);
                    }
                    s.gate.fetch_sub(1, Ordering::Release);
                    break;
                }
                Err(now) => gate = now,
            }
        }
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
    use std::sync::mpsc;

    /// While set, workers that saw a new batch wait before joining it, as
    /// threads the host has not scheduled would.
    pub(super) static HOLD_WORKERS: AtomicBool = AtomicBool::new(false);
    /// Serializes the tests that depend on [`HOLD_WORKERS`] being clear or set.
    static HOLD: std::sync::Mutex<()> = std::sync::Mutex::new(());
    /// How long a test's job waits for the workers to join it. Generous, so
    /// that a loaded machine that leaves a worker unscheduled for a while
    /// does not fail the test; a passing run waits only until they join.
    const JOIN_WAIT: Duration = Duration::from_secs(30);

    #[test]
    fn every_thread_runs_each_job_and_work_is_shared() {
        let _hold = HOLD.lock().unwrap_or_else(|e| e.into_inner());
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
                // The caller always runs the job; a worker that had not
                // joined when the caller's share was done misses the batch.
                let entered = entered.load(Ordering::Relaxed);
                assert!((1..=threads).contains(&entered), "{entered}");
                // Each thread passes its own index, 0..threads, at most once.
                let indices = indices.load(Ordering::Relaxed);
                assert_eq!(indices & 1, 1);
                assert_eq!(indices.count_ones() as usize, entered);
                assert!(indices < 1 << threads);
                assert_eq!(
                    sum.load(Ordering::Relaxed),
                    (0..parts).map(|k| k + round).sum::<usize>()
                );
            }
        }
    }

    #[test]
    fn a_worker_that_cannot_run_does_not_hold_up_the_batch() {
        let _hold = HOLD.lock().unwrap_or_else(|e| e.into_inner());
        let (done, finished) = mpsc::channel();
        let driver = thread::spawn(move || {
            let mut team = Team::new(3).unwrap();
            let runs = |team: &mut Team, batches: usize| {
                let mut by_workers = 0;
                for _ in 0..batches {
                    let next = AtomicUsize::new(0);
                    let workers = AtomicUsize::new(0);
                    team.run(&|t| {
                        while next.fetch_add(1, Ordering::Relaxed) < 8 {
                            if t != 0 {
                                workers.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    });
                    // Every part was taken, by whichever thread.
                    assert!(next.load(Ordering::Relaxed) >= 8);
                    by_workers += workers.load(Ordering::Relaxed);
                }
                by_workers
            };
            // Workers held off every batch: the caller steps them all alone
            // (it used to wait for each worker to run the batch, so this hung).
            HOLD_WORKERS.store(true, Ordering::Relaxed);
            let alone = runs(&mut team, 1_000);
            HOLD_WORKERS.store(false, Ordering::Relaxed);
            // Released, the workers join batches again: one whose caller
            // waits (up to `JOIN_WAIT`) for them is run by all three.
            let entered = AtomicUsize::new(0);
            team.run(&|_| {
                entered.fetch_add(1, Ordering::Relaxed);
                let start = Instant::now();
                while entered.load(Ordering::Relaxed) < 3 && start.elapsed() < JOIN_WAIT {
                    std::hint::spin_loop();
                }
            });
            done.send((alone, entered.load(Ordering::Relaxed))).unwrap();
        });
        let (alone, joined) = finished
            .recv_timeout(Duration::from_secs(60))
            .expect("the batches finished while the workers were held");
        driver.join().unwrap();
        assert_eq!(alone, 0, "no held worker ran a part");
        assert_eq!(joined, 3, "released workers join batches again");
    }

    #[test]
    fn a_panicking_job_is_reported_and_the_team_keeps_working() {
        let _hold = HOLD.lock().unwrap_or_else(|e| e.into_inner());
        let mut team = Team::new(2).unwrap();
        // The caller waits (up to `JOIN_WAIT`) for the worker to join, so that
        // the worker surely runs the batch.
        let both = |entered: &AtomicUsize, t: usize| {
            entered.fetch_add(1, Ordering::Relaxed);
            let start = Instant::now();
            while t == 0 && entered.load(Ordering::Relaxed) < 2 && start.elapsed() < JOIN_WAIT {
                std::hint::spin_loop();
            }
        };
        for worker_only in [false, true] {
            let entered = AtomicUsize::new(0);
            let caught = catch_unwind(AssertUnwindSafe(|| {
                team.run(&|t| {
                    both(&entered, t);
                    if t != 0 || !worker_only {
                        panic!("boom");
                    }
                });
            }));
            let e = caught.expect_err("the panic is resumed in the caller");
            if worker_only {
                let msg = e
                    .downcast_ref::<&str>()
                    .map(|m| m.to_string())
                    .or_else(|| e.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                assert!(msg.contains("a worker thread"), "{msg}");
            }
        }
        let count = AtomicUsize::new(0);
        team.run(&|t| both(&count, t));
        assert_eq!(count.load(Ordering::Relaxed), 2);
    }
}
