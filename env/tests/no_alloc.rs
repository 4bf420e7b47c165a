//! The hot paths — step, legal-action mask, observation encoding, batched
//! stepping with auto-reset, on one thread or several — do not allocate
//! (checked with a counting allocator).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use uno_env::obs::{OBS_SIZE, encode, write_mask};
use uno_env::vec_env::Picker;
use uno_env::{Buffers, EnvConfig, Game, NUM_ACTIONS, PRESETS, Rules, VecEnv};

struct Counting;

thread_local! {
    // Allocations made by this thread (tests run on parallel threads).
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

/// Allocations made by any thread (the worker threads of a multi-threaded
/// `VecEnv` included). This file holds a single `#[test]`, so no other test
/// runs — and the harness thread, which allocates when a test finishes, stays
/// idle — while it counts.
static ALL_ALLOCS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALL_ALLOCS.fetch_add(1, Ordering::Relaxed);
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCS.with(Cell::get);
    f();
    ALLOCS.with(Cell::get) - before
}

#[test]
fn hot_paths_do_not_allocate() {
    step_mask_and_encode_do_not_allocate();
    for threads in [1, 2] {
        vec_env_steps_do_not_allocate(threads);
    }
}

fn step_mask_and_encode_do_not_allocate() {
    for preset in PRESETS {
        let game = Game::new(Rules::preset(preset).unwrap(), 4).unwrap();
        let mut obs = vec![0.0f32; OBS_SIZE];
        let mut mask = vec![0u8; NUM_ACTIONS];
        let mut pick = Picker::new(1, 0);
        let mut s = game.new_state(5);
        let n = allocations_during(|| {
            for i in 0..20_000u64 {
                if s.is_round_over() {
                    s = game.new_state(i);
                }
                let m = game.legal_mask(&s);
                encode(&game, &s, s.current_player().unwrap(), &mut obs).unwrap();
                write_mask(m, &mut mask).unwrap();
                game.apply(&mut s, pick.pick(m)).unwrap();
            }
        });
        assert_eq!(n, 0, "{preset}: {n} allocations in 20,000 steps");
    }
}

/// Batched steps with auto-reset on `threads` threads.
fn vec_env_steps_do_not_allocate(threads: usize) {
    let n = 64;
    let mut env = VecEnv::new(
        EnvConfig::new(Rules::preset("attack-2010").unwrap(), 3),
        n,
        1,
        threads,
    )
    .unwrap();
    let mut buf = Buffers::with_legal_ids(n);
    env.reset(buf.batch()).unwrap();
    // One warm-up step. A worker thread allocates once while it starts (the
    // standard library's per-thread set-up, its name); `VecEnv::new` returns
    // only once every worker has started, so that is over. (Before 2026-11-27
    // the first step ensured it: every worker then ran every batch, and a
    // worker now runs only the batches it is in time for.)
    env.step_random(buf.batch(), true).unwrap();
    let mut actions = vec![0u32; n];
    let mut pickers: Vec<Picker> = (0..n as u64).map(|i| Picker::new(2, i)).collect();
    let mut done = 0usize;
    let all_before = ALL_ALLOCS.load(Ordering::Relaxed);
    let allocs = allocations_during(|| {
        for _ in 0..2_000 {
            for i in 0..n {
                let mut m = 0u128;
                for (j, &b) in buf.mask[i * NUM_ACTIONS..(i + 1) * NUM_ACTIONS]
                    .iter()
                    .enumerate()
                {
                    m |= (b as u128) << j;
                }
                actions[i] = pickers[i].pick(m) as u32;
            }
            env.step(&actions, buf.batch()).unwrap();
            env.step_random(buf.batch(), true).unwrap();
            done += buf.terminated.iter().map(|&d| d as usize).sum::<usize>();
        }
    });
    let all = ALL_ALLOCS.load(Ordering::Relaxed) - all_before;
    assert!(done > 0, "episodes must finish (auto-reset exercised)");
    assert_eq!(
        allocs, 0,
        "{threads} threads: {allocs} allocations in 4,000 batched steps"
    );
    assert_eq!(
        all, 0,
        "{threads} threads: {all} allocations on any thread in 4,000 batched steps"
    );
}
