"""REINFORCE with a learned baseline on ``uno_attack.VecEnv``, in numpy only.

What it shows:

* the learner in seat 0 of every game of a single-agent vectorized env
  (``VecEnv(..., opponents=..., seat=0)``): a built-in agent (``random-play``
  by default) plays every other seat, stepped in Rust, so every row of a
  step is a learner decision;
* a linear softmax policy over the observation with the legal-action mask
  applied to the logits (illegal actions get probability exactly 0);
* REINFORCE on the win reward at the end of each round, with a linear state
  value as baseline and an entropy bonus, trained with Adam;
* the win rate of the untrained and the trained policy against the opponent on
  the same deals, with 95% intervals;
* with ``--save DIR``, the trained weights as a checkpoint directory
  (``uno_attack.Policy.from_parameters(...).save(DIR)``: a linear policy is a
  network with no hidden layer), which the Rust side plays:
  ``uno-attack arena --rules classic --agents checkpoint:DIR,random-play``.

One update plays exactly one round in each of ``--envs`` games, all dealt anew
(``env.reset(seed=...)``), so every trajectory comes from the current policy.
Games that finish early are auto-reset by the env and keep stepping (they must
get an action) but what happens in them is ignored until the next reset; the
update waits for the longest round.

    python python/examples/reinforce_numpy.py            # ~10 s on 2 cores
    python python/examples/reinforce_numpy.py --opponent heuristic --updates 300
    python python/examples/reinforce_numpy.py --save runs/linear   # then play it from the CLI
"""

from __future__ import annotations

import argparse
import math
import os
import time

# The matrices here are small: BLAS threads cost more time than they save (over
# twice the run time on a busy machine). Set before numpy is imported; an
# explicit setting in the environment wins.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import uno_attack  # noqa: E402


class LinearPolicy:
    """Masked softmax policy ``softmax(obs @ W + b)`` and value ``obs @ v + c``."""

    def __init__(self, lr: float, entropy_bonus: float):
        n_obs, n_act = uno_attack.OBS_SIZE, uno_attack.NUM_ACTIONS
        # Zeros: the untrained policy is uniform over the legal actions.
        self.params = {"W": np.zeros((n_obs, n_act)), "b": np.zeros(n_act),
                       "v": np.zeros(n_obs), "c": np.zeros(())}
        self.lr, self.entropy_bonus = lr, entropy_bonus
        self.adam = {k: (np.zeros_like(p), np.zeros_like(p)) for k, p in self.params.items()}
        self.t = 0

    def checkpoint_parameters(self) -> dict:
        """The weights in ``uno_attack.Policy``'s layout (no ``trunk.*``: no hidden layer)."""
        p = self.params
        return {"policy.weight": p["W"], "policy.bias": p["b"],
                "value.weight": p["v"][:, None], "value.bias": p["c"].reshape(1)}

    def logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Masked logits: an illegal action gets -inf, so probability exactly 0."""
        return np.where(mask, obs @ self.params["W"] + self.params["b"], -np.inf)

    def probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = self.logits(obs, mask)
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=1, keepdims=True)

    def sample(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        # Gumbel-max trick on the masked logits: a sample of probs(), always legal.
        logits = self.logits(obs, mask)
        return np.argmax(logits - np.log(-np.log(rng.random(logits.shape))), axis=1)

    def update(self, obs, mask, actions, returns) -> dict:
        """One REINFORCE step on a batch of decisions (each with its round's return)."""
        n = len(actions)
        value = obs @ self.params["v"] + self.params["c"]
        adv = returns - value  # baseline: the learned value of the decision's state
        p = self.probs(obs, mask)
        # d/dlogits of log p(a) is onehot(a) - p; weighted by the advantage.
        g_logits = -p
        g_logits[np.arange(n), actions] += 1.0
        g_logits *= adv[:, None]
        # Entropy bonus: d(entropy)/dlogits = -p (log p + entropy). Without it a
        # batch with no win (common at first: the untrained policy wins ~4%) gives
        # Adam pure noise to follow, and the policy can collapse into drawing.
        logp = np.log(np.maximum(p, 1e-300))
        entropy = -np.sum(p * logp, axis=1)
        g_logits -= self.entropy_bonus * p * (logp + entropy[:, None])
        g_logits /= n
        grads = {"W": obs.T @ g_logits, "b": g_logits.sum(axis=0),
                 # gradient ascent on -(returns - value)^2 / 2
                 "v": obs.T @ adv / n, "c": adv.mean()}
        self.t += 1
        for k, g in grads.items():  # Adam (ascent)
            m, s = self.adam[k]
            m += 0.1 * (g - m)
            s += 0.001 * (g * g - s)
            m_hat, s_hat = m / (1 - 0.9 ** self.t), s / (1 - 0.999 ** self.t)
            self.params[k] += self.lr * m_hat / (np.sqrt(s_hat) + 1e-8)
        return {"entropy": float(entropy.mean()), "value_mse": float(np.mean(adv**2))}


def play_rounds(env, policy, rng, seed):
    """Plays one round in every game of ``env`` (dealt from ``seed``).

    Returns the learner's decisions ``(obs, mask, action, game index)`` and per
    game its reward and whether it won.
    """
    n = env.num_envs
    obs, mask, _ = env.reset(seed=seed)  # the opponents are reseeded with the deals
    running = np.ones(n, dtype=bool)  # still in the first round since the reset
    reward, won = np.zeros(n), np.zeros(n, dtype=bool)
    decisions = []
    while running.any():
        # Games already finished have auto-reset into a round we ignore: any
        # legal action will do for them (here the lowest legal id).
        actions = mask.argmax(axis=1)
        mine = np.flatnonzero(running)
        # Fancy indexing copies: obs and mask are buffers the next step overwrites.
        x, m = obs[mine].astype(np.float64), mask[mine].astype(bool)
        a = policy.sample(x, m, rng)
        actions[mine] = a
        decisions.append((x, m, a, mine))
        # One learner action per game; Rust plays the opponents up to the
        # learner's next decision (or the round's end).
        obs, mask, _, step_reward, terminated, truncated = env.step(actions)
        done = running & ((terminated | truncated) == 1)
        # A round cut short by the decision cap (truncated) gives every seat 0,
        # which beats a loss: a losing learner soon learns to stall (draw and
        # pass until the cap). So here a truncated round counts as a loss
        # (-1/(N-1), what a losing seat gets).
        reward[done] = np.where(truncated[done] == 1, -1 / (env.num_players - 1),
                                step_reward[done])
        won[done] = env.winner[done] == 0
        running &= ~done
    x, m, a, idx = (np.concatenate(z) for z in zip(*decisions))
    return x, m, a, idx, reward, won


def make_env(args, num_envs):
    # The learner in seat 0; `args.opponent` in every other seat, one agent per
    # game and seat (an agent may remember its previous decision), reseeded
    # from the env's seed with every deal.
    return uno_attack.VecEnv(args.rules, players=args.players, num_envs=num_envs,
                             seed=args.seed, threads=2, episode="round", reward="win",
                             opponents=args.opponent, seat=0)


def evaluate(args, policy, seed):
    env = make_env(args, args.eval_games)
    rng = np.random.default_rng([args.seed, 1])
    won = play_rounds(env, policy, rng, seed)[-1]
    return int(won.sum()), len(won)


def interval(wins, games, z=1.96):
    """Wilson 95% interval of a win rate."""
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z / (1 + z * z / games) * math.sqrt(p * (1 - p) / games + z * z / (4 * games**2))
    return max(0.0, centre - half), min(1.0, centre + half)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("``", ""))
    ap.add_argument("--rules", default="classic",
                    help="preset, TOML path or text (default classic)")
    ap.add_argument("--players", type=int, default=2, help="table size (default 2)")
    ap.add_argument("--opponent", default="random-play",
                    help="uno_attack.Agent spec for the other seats (random-play, heuristic, ...)")
    ap.add_argument("--updates", type=int, default=150, help="policy updates (default 150)")
    ap.add_argument("--envs", type=int, default=64, help="games (rounds) per update (default 64)")
    ap.add_argument("--lr", type=float, default=0.01, help="Adam step size (default 0.01)")
    ap.add_argument("--entropy", type=float, default=0.03, help="entropy bonus (default 0.03)")
    ap.add_argument("--seed", type=int, default=0, help="seed of everything (default 0)")
    ap.add_argument("--eval-games", type=int, default=2000,
                    help="rounds per evaluation (default 2000)")
    ap.add_argument("--quiet", action="store_true", help="no per-update lines")
    ap.add_argument("--save", metavar="DIR",
                    help="write the trained policy as a checkpoint directory (checkpoint:DIR); "
                         "a new or empty one")
    args = ap.parse_args(argv)
    for name in ("lr", "entropy"):
        if not math.isfinite(getattr(args, name)) or getattr(args, name) < 0:
            ap.error(f"--{name} must be a finite number of at least 0")
    if args.lr == 0:
        ap.error("--lr must be above 0")
    for name in ("updates", "envs", "eval_games"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    if not 0 <= args.seed < 2**62:
        ap.error("--seed must be in 0 .. 2**62 - 1")
    if args.save and os.path.exists(args.save):
        # Refused before training, not after it (Policy.save refuses it too).
        if not os.path.isdir(args.save):
            ap.error(f"--save {args.save}: a file is in the way of the checkpoint directory")
        if os.listdir(args.save):
            ap.error(f"--save {args.save}: the directory already holds files; give a new one")
    try:  # bad rules, table size or agent spec: a usage error, not a traceback
        make_env(args, 1)
    except ValueError as e:
        ap.error(str(e))
    return args


def main(argv=None) -> dict:
    args = parse_args(argv)
    start = time.perf_counter()
    rng = np.random.default_rng(args.seed)
    policy = LinearPolicy(args.lr, args.entropy)
    eval_seed = args.seed + 2**62  # the same deals for both evaluations; training uses < 2**62
    before = evaluate(args, policy, eval_seed)
    env = make_env(args, args.envs)
    for u in range(1, args.updates + 1):
        seed = int(rng.integers(2**62))  # new deals for every update
        x, m, a, idx, reward, won = play_rounds(env, policy, rng, seed)
        stats = policy.update(x, m, a, reward[idx])
        if not args.quiet and (u % 10 == 0 or u == 1):
            print(f"update {u:4d}  train win rate {won.mean():.3f}"
                  f"  decisions/round {len(a) / len(won):5.1f}"
                  f"  entropy {stats['entropy']:.3f}  value mse {stats['value_mse']:.3f}"
                  f"  {time.perf_counter() - start:5.1f}s", flush=True)
    after = evaluate(args, policy, eval_seed)
    for name, (w, g) in (("untrained", before), ("trained", after)):
        lo, hi = interval(w, g)
        print(f"{name:9s} policy vs {args.opponent}: won {w}/{g} = {w / g:.3f}"
              f"  (95% CI {lo:.3f}-{hi:.3f})")
    if args.save:
        trained = uno_attack.Policy.from_parameters(
            policy.checkpoint_parameters(), rules=args.rules, players=args.players)
        trained.save(args.save, note=f"reinforce_numpy.py, {args.updates} updates of {args.envs} "
                                     f"rounds against {args.opponent}, seed {args.seed}")
        print(f"saved {args.save} (play it as checkpoint:{args.save})")
    print(f"total time {time.perf_counter() - start:.1f}s")
    return {"before": before, "after": after, "params": policy.params}


if __name__ == "__main__":
    main()
