//! A fork-join team of worker threads for stepping one batch on several cores
//! with low start-up latency.
//!
//! The vectorized core runs one short parallel job per step (about 50 µs for
//! 1,024 games on two threads). Handing that job to a rayon pool
//! (`ThreadPool::install`) costs a wake-up of a sleeping worker and a wake-up
//! of the blocked caller on every step; on the 2-core development VM that
//! overhead ate most of the second core (2 threads: 1.1–1.3 × one thread,
//! while two independent processes reached 2 ×; see `docs/performance-log.md`).
//!
//! A [`Team`] keeps `threads − 1` workers that spin briefly before parking,
//! and the calling thread takes part in every job, so a step that follows the
//! previous one closely starts on all cores without a system call and ends
//! without one. A job is cut into one part per thread: the caller runs part
//! 0, worker `i` part `i`, the same every batch, so that the games of a part
//! stay in its core's cache. The step path does not allocate.
//!
//! Each worker has a mailbox of its own, one cache line: the batch word (the
//! batch's number and whether it is open, joined or done) and the job. The
//! caller writes both to open a batch; a spinning worker sees the line change,
//! joins with one compare-exchange on it, and runs its part. Between two
//! cores that share no cache every cache line that crosses costs a few
//! hundred nanoseconds, so the whole hand-over is that one line: a job whose
//! parts read what they need from memory the caller rewrites only when it
//! changes (as the vectorized core's does) costs the worker no further
//! transfer (`docs/performance-log.md`, session 48).
//!
//! The caller, its own part done, closes each worker's mailbox: a worker that
//! had not joined by then (one the host has not scheduled, or one still
//! waking up) misses the batch, and the caller runs its part itself, so no
//! batch waits a time slice of the scheduler for a thread that would find
//! nothing left to do.

use std::cell::UnsafeCell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering, fence};
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

/// A job of the team: one batch cut into one part per thread.
pub(crate) trait Job: Sync {
    /// Runs part `part` (`0..threads`; 0 is the caller's).
    fn run(&self, part: usize);
}

/// The current batch's job, with its lifetime erased (see [`Team::run`] for
/// why that is sound).
type JobPtr = *const (dyn Job + 'static);

/// The low bits of a mailbox word: the state of the batch for its worker
/// (the batch's number is above [`STATE_BITS`]).
const STATE: u64 = (1 << STATE_BITS) - 1;
/// Bits of a mailbox word that hold its state.
const STATE_BITS: u32 = 3;
/// No batch for this worker: none opened yet, or the caller closed the
/// batch before the worker joined it (the caller ran its part).
const CLOSED: u64 = 0;
/// The batch is open: the worker may join it.
const OPEN: u64 = 1;
/// The worker joined the batch and runs its part.
const JOINED: u64 = 2;
/// The worker ran its part.
const DONE: u64 = 3;
/// The worker's part panicked.
const PANICKED: u64 = 4;
/// The team is being dropped: the worker exits.
const SHUTDOWN: u64 = 5;

/// One worker's mailbox. Aligned to 128 bytes so that no other data shares its
/// line, nor the neighbouring line some cores fetch in pairs with it.
#[repr(C, align(128))]
struct Mailbox {
    /// The batch's number and its state for this worker (see [`STATE`]).
    word: AtomicU64,
    /// The batch's job, written by the caller before it opens the batch.
    job: UnsafeCell<Option<JobPtr>>,
    /// The worker is parked, or about to park (see [`worker`]).
    asleep: AtomicBool,
}

// SAFETY: `job` is written only by the caller of `Team::run` while the
// mailbox is not open (no worker reads it: it joined no batch, or has left
// the last one, which the caller saw with acquire ordering), and read by the
// worker only after it joined the batch with an acquire compare-exchange on
// the word the caller opened with release ordering after the write. The job
// it points to is `Sync`.
unsafe impl Sync for Mailbox {}
// SAFETY: as above; the raw pointer is only dereferenced under that protocol.
unsafe impl Send for Mailbox {}

struct Shared {
    /// One mailbox per worker (worker `i` has `boxes[i - 1]`).
    boxes: Box<[Mailbox]>,
    /// Workers that have started (see [`Team::new`]).
    started: AtomicUsize,
}

/// `threads − 1` parked-or-spinning workers plus the calling thread.
pub(crate) struct Team {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl Team {
    /// A team running jobs on `threads` threads (the caller and `threads − 1` workers).
    pub(crate) fn new(threads: usize) -> std::io::Result<Team> {
        let workers = threads.saturating_sub(1);
        let shared = Arc::new(Shared {
            boxes: (0..workers)
                .map(|_| Mailbox {
                    word: AtomicU64::new(CLOSED),
                    job: UnsafeCell::new(None),
                    asleep: AtomicBool::new(false),
                })
                .collect(),
            started: AtomicUsize::new(0),
        });
        let mut team = Team {
            shared,
            workers: Vec::with_capacity(workers),
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

    /// Runs every part of `job` once (`0..threads`) and returns when all have
    /// finished. The caller runs part 0 and worker `i` part `i`, the same in
    /// every batch (so a part's data stays in its core's cache); a worker that
    /// has not joined by the time the caller's part is done misses the batch,
    /// and the caller runs that part too. A panic in any part is resumed here
    /// after all have finished. (`&mut self`: one batch at a time, so a
    /// mailbox's job is never written while its worker reads it.)
    pub(crate) fn run(&mut self, job: &dyn Job) {
        let s = &*self.shared;
        // SAFETY: the lifetime is erased for storage only: this function does
        // not return (or unwind) before every worker that joined this batch
        // has left it (seen with acquire ordering), and a worker that did not
        // join never reads the job.
        let ptr = unsafe { std::mem::transmute::<*const (dyn Job + '_), JobPtr>(job) };
        // The batch's number: one more than the last (every mailbox holds it).
        let epoch = s.boxes.first().map_or(0, |b| {
            (b.word.load(Ordering::Relaxed) >> STATE_BITS).wrapping_add(1)
                & (u64::MAX >> STATE_BITS)
        });
        let open = epoch << STATE_BITS | OPEN;
        for b in s.boxes.iter() {
            // SAFETY: the mailbox is not open (the last batch's worker left it
            // or never joined), so its worker does not read `job` now.
            unsafe { *b.job.get() = Some(ptr) };
            b.word.store(open, Ordering::Release);
        }
        // A worker seen asleep is woken now so that it can join this batch
        // (a stale look may miss one that just fell asleep: the look after
        // the caller's part, behind a fence, does not).
        for (b, w) in s.boxes.iter().zip(&self.workers) {
            if b.asleep.load(Ordering::Relaxed) {
                w.thread().unpark();
            }
        }
        let mut panic = catch_unwind(AssertUnwindSafe(|| job.run(0))).err();
        // Pairs with the fence of a worker going to sleep: either it sees this
        // batch open (and does not sleep), or this look sees it asleep.
        fence(Ordering::SeqCst);
        // Close the batch for a worker that has not joined it, and run its part.
        let closed = epoch << STATE_BITS | CLOSED;
        for (i, (b, w)) in s.boxes.iter().zip(&self.workers).enumerate() {
            if b.asleep.load(Ordering::Relaxed) {
                w.thread().unpark();
            }
            if b.word
                .compare_exchange(open, closed, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
                && let Err(e) = catch_unwind(AssertUnwindSafe(|| job.run(i + 1)))
            {
                panic.get_or_insert(e);
            }
        }
        // Wait for the workers that joined.
        let mut worker_panicked = false;
        for b in s.boxes.iter() {
            let mut wait = Spin::new();
            loop {
                match b.word.load(Ordering::Acquire) & STATE {
                    JOINED => {
                        if !wait.spin() {
                            thread::yield_now();
                        }
                    }
                    PANICKED => {
                        worker_panicked = true;
                        break;
                    }
                    _ => break,
                }
            }
        }
        if let Some(e) = panic {
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
    let b = &s.boxes[index - 1];
    // Read before the start is announced: `Team::new` returns (and the
    // first batch opens) only after it, so the first batch is new to this
    // worker.
    let mut seen = b.word.load(Ordering::Relaxed) >> STATE_BITS;
    s.started.fetch_add(1, Ordering::Release);
    loop {
        // Wait for a new batch.
        let mut wait = Spin::new();
        let word = loop {
            let w = b.word.load(Ordering::Relaxed);
            if w & STATE == SHUTDOWN {
                return;
            }
            if w >> STATE_BITS != seen {
                break w;
            }
            if !wait.spin() {
                // Pairs with the caller's fence after its part: either the
                // caller sees this flag (and wakes the worker), or the look
                // below sees the batch it opened. An `unpark` before `park`
                // leaves a token, so `park` then returns at once.
                b.asleep.store(true, Ordering::Relaxed);
                fence(Ordering::SeqCst);
                if b.word.load(Ordering::Relaxed) == w {
                    thread::park();
                }
                b.asleep.store(false, Ordering::Relaxed);
                wait = Spin::new();
            }
        };
        seen = word >> STATE_BITS;
        if word & STATE != OPEN {
            // Closed before this worker saw it: the caller ran the part.
            continue;
        }
        #[cfg(test)]
        {
            // The hold is set before the batch opens. The relaxed load above
            // does not order it: this acquire load does (without it a worker
            // may see the new batch and an old, clear hold; Miri's
            // weak-memory emulation does that).
            let _ = b.word.load(Ordering::Acquire);
            while tests::HOLD_WORKERS.load(Ordering::Relaxed) {
                thread::yield_now();
            }
        }
        // Join the batch while it is open (the caller closes it once its own
        // part is done, and then runs this worker's part itself).
        let joined = seen << STATE_BITS | JOINED;
        if b.word
            .compare_exchange(word, joined, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            // SAFETY: `job` was written before the release store that opened
            // this batch, which the acquire exchange above observed, and stays
            // valid until this worker leaves (see `Team::run`).
            let job = unsafe { &*(*b.job.get()).expect("job set before the batch opens") };
            let end = match catch_unwind(AssertUnwindSafe(|| job.run(index))) {
                Ok(()) => DONE,
                Err(_) => PANICKED,
            };
            b.word.store(seen << STATE_BITS | end, Ordering::Release);
        }
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        for b in self.shared.boxes.iter() {
            b.word.store(SHUTDOWN, Ordering::Release);
        }
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
    use std::sync::Mutex;

    /// While set, workers that saw a new batch wait before joining it, as
    /// threads the host has not scheduled would.
    pub(super) static HOLD_WORKERS: AtomicBool = AtomicBool::new(false);
    /// Serializes the tests that depend on [`HOLD_WORKERS`] being clear or set.
    static HOLD: Mutex<()> = Mutex::new(());
    /// How long a test's job waits for the workers to join it. Generous, so
    /// that a loaded machine that leaves a worker unscheduled for a while
    /// does not fail the test; a passing run waits only until they join.
    const JOIN_WAIT: Duration = Duration::from_secs(30);

    /// A closure as a job (the env's job is its plan of parts).
    impl<F: Fn(usize) + Sync> Job for F {
        fn run(&self, part: usize) {
            self(part)
        }
    }

    /// The caller's part waits (up to [`JOIN_WAIT`]) until `count` has
    /// reached `threads`, so that every worker surely joins the batch.
    fn wait_for_all(count: &AtomicUsize, threads: usize) {
        let start = Instant::now();
        while count.load(Ordering::Relaxed) < threads && start.elapsed() < JOIN_WAIT {
            std::hint::spin_loop();
        }
    }

    #[test]
    fn every_part_runs_once_a_batch_and_each_worker_keeps_its_part() {
        let _hold = HOLD.lock().unwrap_or_else(|e| e.into_inner());
        for threads in 1..=4 {
            let mut team = Team::new(threads).unwrap();
            assert_eq!(team.threads(), threads);
            let mut owner = vec![None; threads];
            for round in 0..200 {
                let runs: Vec<AtomicUsize> = (0..threads).map(|_| AtomicUsize::new(0)).collect();
                let by: Vec<Mutex<Option<thread::ThreadId>>> =
                    (0..threads).map(|_| Mutex::new(None)).collect();
                let sum = AtomicUsize::new(0);
                team.run(&|p: usize| {
                    runs[p].fetch_add(1, Ordering::Relaxed);
                    *by[p].lock().unwrap() = Some(thread::current().id());
                    sum.fetch_add(p + round, Ordering::Relaxed);
                });
                // Every part ran exactly once, whichever thread ran it.
                for r in &runs {
                    assert_eq!(r.load(Ordering::Relaxed), 1);
                }
                assert_eq!(
                    sum.load(Ordering::Relaxed),
                    (0..threads).map(|p| p + round).sum::<usize>()
                );
                // Part 0 is always the caller's.
                assert_eq!(*by[0].lock().unwrap(), Some(thread::current().id()));
                // A worker runs its own part (or the caller runs it); no
                // worker runs another worker's part.
                for (p, b) in by.iter().enumerate().skip(1) {
                    let t = b.lock().unwrap().unwrap();
                    if t != thread::current().id() {
                        assert_eq!(*owner[p].get_or_insert(t), t, "part {p}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_worker_that_cannot_run_does_not_hold_up_the_batch() {
        let _hold = HOLD.lock().unwrap_or_else(|e| e.into_inner());
        let (done, finished) = std::sync::mpsc::channel();
        let driver = thread::spawn(move || {
            let mut team = Team::new(3).unwrap();
            let me = thread::current().id();
            let runs = |team: &mut Team, batches: usize| {
                let mut by_workers = 0;
                for _ in 0..batches {
                    let parts = AtomicUsize::new(0);
                    let workers = AtomicUsize::new(0);
                    team.run(&|_| {
                        parts.fetch_add(1, Ordering::Relaxed);
                        if thread::current().id() != me {
                            workers.fetch_add(1, Ordering::Relaxed);
                        }
                    });
                    // Every part ran, by whichever thread.
                    assert_eq!(parts.load(Ordering::Relaxed), 3);
                    by_workers += workers.load(Ordering::Relaxed);
                }
                by_workers
            };
            // Workers held off every batch: the caller runs every part alone
            // (it used to wait for each worker to run the batch, so this hung).
            HOLD_WORKERS.store(true, Ordering::Relaxed);
            let alone = runs(&mut team, 1_000);
            HOLD_WORKERS.store(false, Ordering::Relaxed);
            // Released, the workers join batches again: one whose caller
            // waits (up to `JOIN_WAIT`) for them is run by all three.
            let entered = AtomicUsize::new(0);
            team.run(&|_| {
                entered.fetch_add(1, Ordering::Relaxed);
                wait_for_all(&entered, 3);
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
    fn a_parked_worker_is_woken_and_joins_again() {
        let _hold = HOLD.lock().unwrap_or_else(|e| e.into_inner());
        let mut team = Team::new(2).unwrap();
        for _ in 0..3 {
            // Long enough for the worker to park (it spins 100 µs).
            thread::sleep(Duration::from_millis(20));
            let entered = AtomicUsize::new(0);
            team.run(&|_| {
                entered.fetch_add(1, Ordering::Relaxed);
                wait_for_all(&entered, 2);
            });
            assert_eq!(
                entered.load(Ordering::Relaxed),
                2,
                "the worker woke and joined"
            );
        }
    }

    #[test]
    fn a_panicking_job_is_reported_and_the_team_keeps_working() {
        let _hold = HOLD.lock().unwrap_or_else(|e| e.into_inner());
        let mut team = Team::new(2).unwrap();
        for worker_only in [false, true] {
            let entered = AtomicUsize::new(0);
            let caught = catch_unwind(AssertUnwindSafe(|| {
                team.run(&|p: usize| {
                    entered.fetch_add(1, Ordering::Relaxed);
                    if p == 0 {
                        wait_for_all(&entered, 2);
                    }
                    if p != 0 || !worker_only {
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
        team.run(&|_| {
            count.fetch_add(1, Ordering::Relaxed);
            wait_for_all(&count, 2);
        });
        assert_eq!(count.load(Ordering::Relaxed), 2);
    }
}
