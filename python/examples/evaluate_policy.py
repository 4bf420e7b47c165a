"""Evaluates trained networks against built-in opponents from Python, in seconds.

`uno_attack.Policy` evaluates a checkpoint's network on a whole batch of
observations in Rust; the single-agent `VecEnv` plays the other seats (any
`Agent` spec) in Rust too. So one numpy `argmax` per step is all Python does:
40,000 four-player rounds against three heuristics take about 6 s on two cores.

With several checkpoints (`--checkpoints a,b --weights 0.7,0.3`) the learner
plays the weighted mean of their logits (an ensemble). Every game of the batch
plays the same number of rounds, so short rounds are not over-counted; the
learner's seat rotates (round k of game i seats it at (i + k) % players).

The learner takes the masked argmax of the logits over the legal actions. The
`checkpoint:` agent of `uno-attack arena` also leaves out a press that can bring
no card while a card can be played, so its figures can differ slightly.

    python python/examples/evaluate_policy.py --checkpoints checkpoints/attack-2010-4p
    python python/examples/evaluate_policy.py --rules classic --players 2 \\
        --checkpoints checkpoints/classic-2p --opponent random-play --games 20000
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import numpy as np

import uno_attack as ua


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def evaluate(policies, weights, rules, players, opponent, games, envs, seed, threads):
    """Rounds played, won and cut short by the learner (greedy on the mean logits)."""
    per_env = -(-games // envs)  # every game plays this many rounds
    env = ua.VecEnv(rules, players=players, num_envs=envs, seed=seed, threads=threads, opponents=opponent)
    obs, mask, _ = env.reset()
    finished = np.zeros(envs, dtype=np.int64)
    wins = truncated = 0
    while (finished < per_env).any():
        logits = sum(w * p.forward(obs, mask)[0] for w, p in zip(weights, policies))
        obs, mask, _, reward, term, trunc = env.step(np.argmax(logits, axis=1))
        ended = (term == 1) | (trunc == 1)
        counted = ended & (finished < per_env)
        # A win pays the learner +1 (`reward="win"`); a loss -1/(N-1); a cut round 0.
        wins += int((counted & (term == 1) & (reward > 0.5)).sum())
        truncated += int((counted & (trunc == 1)).sum())
        finished += ended
    return per_env * envs, wins, truncated


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--checkpoints", required=True, help="checkpoint directories, comma-separated")
    ap.add_argument("--weights", help="one weight per checkpoint (default: equal)")
    ap.add_argument("--rules", default="attack-2010")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--opponent", default="heuristic", help="Agent spec for every other seat")
    ap.add_argument("--games", type=int, default=40000, help="at least this many rounds (a multiple of --envs)")
    ap.add_argument("--envs", type=int, default=256)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    args = ap.parse_args(argv)
    if args.games < 1 or args.envs < 1 or args.threads < 1:
        ap.error("--games, --envs and --threads must be at least 1")
    paths = [p for p in args.checkpoints.split(",") if p]
    try:
        weights = [float(w) for w in args.weights.split(",")] if args.weights else [1.0 / len(paths)] * len(paths)
    except ValueError:
        ap.error(f"--weights must be numbers, got {args.weights!r}")
    if len(weights) != len(paths):
        ap.error(f"{len(paths)} checkpoints but {len(weights)} weights")
    # The logits of illegal actions are masked to a large negative number: only
    # positive finite weights keep them below every legal action's.
    if not all(math.isfinite(w) and w > 0 for w in weights):
        ap.error(f"--weights must be finite numbers above 0, got {args.weights!r}")
    try:
        policies = [ua.Policy(p) for p in paths]
        # As `uno-attack arena` does: other rules are refused (a ValueError), another
        # table size or other settings of the same rules only noted.
        for policy in policies:
            for note in policy.check_table(args.rules, args.players):
                print(note, file=sys.stderr)
        start = time.perf_counter()
        n, wins, truncated = evaluate(
            policies, weights, args.rules, args.players, args.opponent, args.games, args.envs, args.seed, args.threads
        )
    except ValueError as e:
        ap.error(str(e))
    lo, hi = wilson(wins, n)
    result = {"rounds": n, "wins": wins, "win_rate": wins / n, "ci95": [lo, hi], "truncated": truncated}
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{','.join(paths)} vs {args.players - 1} x {args.opponent} ({args.rules}): "
            f"{100 * wins / n:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] of {n} rounds "
            f"(chance {100 / args.players:.0f}%; {truncated} cut short) in {time.perf_counter() - start:.1f} s"
        )
    return result


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
