"""Batch-env throughput from Python: steps/s of ``uno_attack.VecEnv``.

Each step picks a uniformly random legal action per game in numpy and calls
``env.step``; the Rust core writes observations and masks into the same numpy
arrays every step with the GIL released. Two numpy samplers, both vectorized
(no per-env Python loop):

- ``mask argmax``: random scores times the mask, argmax over each row;
- ``legal-id pick``: with ``VecEnv(..., legal_ids=True)`` Rust also writes each
  game's legal action ids and their count, and numpy picks one with a single
  index per game: ``ids[rows, (u * count).astype(intp)]``.

Also shown: ``step_random`` (actions picked in Rust) with and without
observations.

    python python/bench.py [--seconds 2] [--rules attack-2010] [--players 4]
                           [--envs 1024 4096] [--threads 1 2]
"""

import argparse
import math
import os
import sys
import time

import numpy as np

# Import the installed package, not the source folder next to this script
# (which lacks the compiled extension).
_here = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != _here]
import uno_attack as ua  # noqa: E402


def measure(fn, seconds):
    fn()  # warm up
    n = 0
    t0 = time.perf_counter()
    while True:
        fn()
        n += 1
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return n / dt


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="attack-2010")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--envs", type=int, nargs="+", default=[1024, 4096])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args()
    if not (math.isfinite(args.seconds) and args.seconds > 0):
        ap.error(f"--seconds must be a positive number of seconds, got {args.seconds:g}")
    for flag, values in (("--envs", args.envs), ("--threads", args.threads)):
        if min(values) < 1:
            ap.error(f"{flag} must be at least 1, got {min(values)}")
    try:
        ua.VecEnv(args.rules, args.players, num_envs=1)  # bad rules or players: one line, before the table
    except ValueError as e:
        ap.error(str(e))
    # Too many envs or threads: also before the table. Each env is dropped at
    # once and made again for its cell (a multi-threaded env's worker team
    # would otherwise take cores from the cells measured after it).
    for n in args.envs:
        for t in args.threads:
            try:
                ua.VecEnv(args.rules, args.players, num_envs=n, seed=0, threads=t, legal_ids=True)
            except ValueError as e:
                ap.error(f"--envs {n} --threads {t}: {e}")

    print(f"{args.rules}, {args.players} players, {args.seconds:g} s per cell; steps/s (M)")
    print(f"{'envs':>6} {'threads':>7} {'mask argmax':>12} {'legal-id pick':>14} {'step_random':>12} {'step_random no-obs':>19}")
    for n in args.envs:
        for t in args.threads:
            env = ua.VecEnv(args.rules, args.players, num_envs=n, seed=0, threads=t, legal_ids=True)
            _, mask, _ = env.reset()
            rng = np.random.default_rng(0)
            # Random uint8 scores, drawn once into a pool of 16 tables and cycled:
            # a byte multiply and argmax per step instead of 400k fresh floats.
            pool = rng.integers(1, 256, size=(16,) + mask.shape, dtype=np.uint8)
            scores = np.empty(mask.shape, dtype=np.uint8)
            k = [0]

            def numpy_step():
                k[0] = (k[0] + 1) & 15
                np.multiply(pool[k[0]], mask, out=scores)  # the env's mask array, updated in place
                env.step(scores.argmax(axis=1))

            ids, count, rows = env.legal_ids, env.legal_count, np.arange(n)
            u = np.empty(n, dtype=np.float32)

            def legal_id_step():
                rng.random(dtype=np.float32, out=u)
                env.step(ids[rows, (u * count).astype(np.intp)])

            a = measure(numpy_step, args.seconds) * n / 1e6
            p = measure(legal_id_step, args.seconds) * n / 1e6
            b = measure(lambda: env.step_random(), args.seconds) * n / 1e6
            c = measure(lambda: env.step_random(write_obs=False), args.seconds) * n / 1e6
            print(f"{n:>6} {t:>7} {a:>12.2f} {p:>14.2f} {b:>12.2f} {c:>19.2f}", flush=True)


if __name__ == "__main__":
    main()
