"""MaskablePPO (sb3-contrib) on the Gymnasium env ``UnoAttack-v0``, out of the box.

What it shows:

* ``sb3_contrib.MaskablePPO("MlpPolicy", env)`` trains on
  ``gymnasium.make("UnoAttack-v0", ...)`` as it is: the env has the method
  ``action_masks()`` (the learner's legal actions, bool ``[98]``) that
  MaskablePPO looks for, so no ``ActionMasker`` wrapper is needed and the
  policy never samples an illegal action;
* the trained policy played greedily (``deterministic=True``) with
  ``action_masks=env.action_masks()``, and its win rate with a 95% (Wilson)
  interval, next to uniformly random legal play on the same deals and the same
  opponent seeds.

It needs the optional packages stable-baselines3 and sb3-contrib (and PyTorch;
a CPU build is enough), which the package itself does not depend on:

    pip install "./python[gym]"
    pip install torch --index-url https://download.pytorch.org/whl/cpu   # or plain `pip install torch`
    pip install stable-baselines3 sb3-contrib
    python python/examples/maskable_ppo.py                     # classic, 2 players, vs random-play
    python python/examples/maskable_ppo.py --timesteps 200000
    python python/examples/maskable_ppo.py --help

The default budget (50,000 learner decisions, rounded up to PPO's rollouts of
2,048) and evaluation (1,000 rounds per player) take two to three minutes on
two cores. The default opponent is ``random-play`` (a random card when it can
play one): against ``random`` (any legal action, drawing included) a round
lasts hundreds of decisions and random legal play already wins about half of
them, a slow and unconvincing demo. A round cut short at the decision cap pays
0, which beats a loss, so a policy can learn to stall (draw and pass); such
rounds count as not won here and are reported apart.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

try:
    import gymnasium
    import torch
    from sb3_contrib import MaskablePPO
except ImportError as e:  # the optional dependencies, named
    sys.exit(f"{e}: this example needs Gymnasium, PyTorch, stable-baselines3 and sb3-contrib:\n"
             "    pip install torch stable-baselines3 sb3-contrib gymnasium")

import uno_attack  # noqa: F401  (registers UnoAttack-v0)


def make_env(args):
    """The env exactly as a user makes it: MaskablePPO finds ``action_masks()``
    through Gymnasium's wrappers (``env.get_wrapper_attr``)."""
    return gymnasium.make("UnoAttack-v0", rules=args.rules, players=args.players,
                          opponents=args.opponent, seat=0, episode="round", reward="win")


def play(env, choose, episodes, seed):
    """Plays ``episodes`` rounds; episode ``k`` is dealt by ``reset(seed=seed + k)``
    (the deal and the opponents' seeds), so two players meet the same rounds.
    Returns ``(wins, truncated, decisions)``."""
    wins = truncated = decisions = 0
    for k in range(episodes):
        obs, info = env.reset(seed=seed + k)
        while True:
            mask = env.get_wrapper_attr("action_masks")()
            obs, reward, term, trunc, info = env.step(choose(obs, mask))
            decisions += 1
            if term or trunc:
                wins += reward > 0
                truncated += bool(trunc)
                break
    return wins, truncated, decisions


def interval(wins, games, z=1.96):
    """Wilson 95% interval of a win rate."""
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z / (1 + z * z / games) * math.sqrt(p * (1 - p) / games + z * z / (4 * games**2))
    return max(0.0, centre - half), min(1.0, centre + half)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("``", ""))
    ap.add_argument("--rules", default="classic", help="preset, TOML path or text (default classic)")
    ap.add_argument("--players", type=int, default=2, help="table size (default 2)")
    ap.add_argument("--opponent", default="random-play",
                    help="uno_attack.Agent spec for the other seats (default random-play)")
    ap.add_argument("--timesteps", type=int, default=50_000,
                    help="training budget in learner decisions (default 50000)")
    ap.add_argument("--eval-episodes", type=int, default=1000,
                    help="rounds per evaluation (default 1000)")
    ap.add_argument("--seed", type=int, default=0, help="seed of training and evaluation (default 0)")
    ap.add_argument("--threads", type=int, default=1,
                    help="PyTorch threads (default 1: faster than 2 for this small network)")
    args = ap.parse_args(argv)
    for name in ("timesteps", "eval_episodes", "threads"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    if not 0 <= args.seed < 2**31:
        ap.error("--seed must be in 0 .. 2**31 - 1")
    try:  # bad rules, table size or agent spec: a usage error, not a traceback
        make_env(args)
    except ValueError as e:
        ap.error(str(e))
    return args


def main(argv=None) -> dict:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    start = time.perf_counter()
    env = make_env(args)
    model = MaskablePPO("MlpPolicy", env, seed=args.seed, device="cpu", verbose=0)
    model.learn(total_timesteps=args.timesteps)
    trained_s = time.perf_counter() - start
    print(f"trained {model.num_timesteps} steps in {trained_s:.0f}s "
          f"({args.rules}, {args.players} players, vs {args.opponent}, seed {args.seed})")

    eval_env = make_env(args)
    # Rounds reset(seed=2**32 + k): a seed training never passed (it resets once with
    # --seed, below 2**31, then from the env's generator); the same for every --seed.
    eval_seed = 2**32

    def greedy(obs, mask):
        return int(model.predict(obs, action_masks=mask, deterministic=True)[0])

    rng = np.random.default_rng(args.seed)

    def random_legal(obs, mask):
        return int(rng.choice(np.flatnonzero(mask)))

    results = {}
    for name, choose in (("MaskablePPO (greedy)", greedy), ("random legal", random_legal)):
        wins, trunc, decisions = play(eval_env, choose, args.eval_episodes, eval_seed)
        lo, hi = interval(wins, args.eval_episodes)
        results[name] = {"wins": int(wins), "episodes": args.eval_episodes, "truncated": trunc,
                         "win_rate": wins / args.eval_episodes, "ci95": (lo, hi),
                         "decisions_per_round": decisions / args.eval_episodes}
        print(f"{name:20s} vs {args.opponent}: won {wins}/{args.eval_episodes} = "
              f"{wins / args.eval_episodes:.3f}  (95% CI {lo:.3f}-{hi:.3f}), "
              f"{trunc} truncated, {decisions / args.eval_episodes:.1f} decisions/round")
    print(f"total time {time.perf_counter() - start:.0f}s")
    return results


if __name__ == "__main__":
    main()
