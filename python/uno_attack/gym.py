"""Single-agent Gymnasium env ``UnoAttack-v0``.

The learner sits in one seat; every other seat is played by a built-in agent
(:class:`uno_attack.Agent`: ``random``, ``random-play``, ``first-legal``,
``greedy``, ``heuristic`` …), seeded from the env's generator. Observations are
the learner's float32 vector (``OBS_SIZE``); the legal-action mask is in
``info["action_mask"]`` (int8, length 98) and, as a bool array, from
``env.action_masks()``, the method sb3-contrib's ``MaskablePPO`` calls. Rewards
are zero-sum and come at the end of a round (``reward="points"``) or episode
(``reward="win"``).

    import gymnasium, uno_attack
    env = gymnasium.make("UnoAttack-v0", rules="attack-2010", players=4, opponents="random")

:class:`UnoAttackVectorEnv` is the same learner in N games at once, as a
Gymnasium ``VectorEnv`` stepped in Rust (:class:`uno_attack.VecEnv` with
``opponents=``); ``gymnasium.make_vec("UnoAttack-v0", num_envs=N, ...)`` builds it.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any, Optional, Sequence, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ._core import NUM_ACTIONS, Agent, Game, VecEnv
from ._checks import (
    action_id,
    check_choice,
    check_env_options,
    check_seat,
    check_seed,
    illegal_penalty,
    is_integer,
)

__all__ = ["UnoAttackEnv", "UnoAttackVectorEnv"]



def _callers_level() -> int:
    """The ``stacklevel`` that makes a warning raised in the function calling this one
    name the user's line: the first frame outside this package and Gymnasium's (so
    ``gymnasium.make(...)`` names the line that called ``make``, not Gymnasium's
    registry)."""
    inside = (os.path.dirname(__file__), os.path.dirname(gymnasium.__file__))
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(inside):
        frame = frame.f_back
        level += 1
    return level

class UnoAttackEnv(gymnasium.Env):
    """One learner against built-in opponents.

    Args:
        rules: preset name, TOML path or text, a dict, or a :class:`uno_attack.Game`.
        players: table size, 2..10 (default: the ``Game``'s, or 4).
        opponents: an agent spec for every other seat (``random``, ``heuristic``,
            ``checkpoint:DIR``, … — see :class:`uno_attack.Agent`), or a list of
            specs, one per seat after the learner's, clockwise, as :class:`uno_attack.VecEnv`:
            spec ``k`` plays seat ``(seat + 1 + k) % players`` (a list of one is one for all).
        seat: the learner's seat, or ``"random"`` to draw it at each reset (spec ``k``
            still plays the ``k``-th seat after it).
        episode: ``"round"`` (one hand) or ``"match"`` (rounds until the match is decided).
        reward: ``"win"`` (+1 for a win, -1/(N-1) for a loss) or ``"points"``
            (points won or held / 100 at each round's end).
        illegal_action: ``"lose"`` (the episode ends with reward ``illegal_reward``
            and ``info["illegal_action"]`` holds the reason) or ``"raise"`` (ValueError);
            an id outside ``0..97`` raises ValueError in either mode.
        illegal_reward: the reward of an illegal move under ``"lose"``. The
            default is no better than any legal loss of a round: -1 under
            ``reward="win"``, ``-game.deck_points / 100`` under ``"points"`` (a
            hand holding the whole deck; in a match episode it bounds one round).
        render_mode: ``None`` (``render()`` warns and returns None), ``"ansi"``
            (``render()`` returns text, every hand shown) or ``"human"`` (prints it).

    The opponents' agents are built (and checked against the rules) when the
    env is made, and reseeded (``Agent.reset``) at every reset: no checkpoint
    is loaded again.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(
        self,
        rules: Union[str, os.PathLike, dict, Game] = "attack-2010",
        players: Optional[int] = None,
        opponents: Union[str, Sequence[str]] = "random",
        seat: Union[int, str] = 0,
        episode: str = "round",
        reward: str = "win",
        illegal_action: str = "lose",
        render_mode: Optional[str] = None,
        illegal_reward: Optional[float] = None,
    ) -> None:
        self.game = Game(rules, players)
        n = self.game.num_players
        if isinstance(opponents, str):
            self._specs = [opponents] * (n - 1)
        else:
            try:
                self._specs = list(opponents)
            except TypeError:
                raise TypeError(
                    f"opponents must be an agent spec or a list of specs, not {type(opponents).__name__}"
                ) from None
            if not all(isinstance(s, str) for s in self._specs):
                raise TypeError("opponents must be agent specs (strings)")
            # One spec for all, or one per seat after the learner's (as VecEnv).
            if len(self._specs) == 1:
                self._specs = self._specs * (n - 1)
            if len(self._specs) != n - 1:
                raise ValueError(
                    f"{len(self._specs)} opponent specs for {n - 1} other seats: "
                    "give one for all, or one per seat after the learner's"
                )
        fixed_seat = check_seat(seat, n, "random")
        check_env_options(episode, reward, render_mode, self.metadata["render_modes"])
        check_choice("illegal_action", illegal_action, ("lose", "raise"))
        self.illegal_reward = illegal_penalty(self.game, reward, illegal_reward)
        # Agent k plays spec k. Each acts once now, so a bad spec or a checkpoint
        # trained for other rules raises ValueError here, and a checkpoint's note
        # is warned once, from the caller's line (reset reseeds the agents).
        probe = self.game.new_state(0)
        with warnings.catch_warnings(record=True) as notes:
            warnings.simplefilter("always")
            self._opponents = [Agent(spec) for spec in self._specs]
            for a in self._opponents:
                a.act(probe)
        for msg, category in dict.fromkeys((str(w.message), w.category) for w in notes):
            warnings.warn(msg, category, stacklevel=_callers_level())
        self._seat_arg = seat
        self.episode = episode
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        low, high = self.game.obs_bounds()
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.state = None
        self.seat = 0 if fixed_seat is None else fixed_seat
        self._agents: dict = {}  # seat -> agent, for this episode
        self._done = True
        # Set while reset() or step() changes the game: still set afterwards, the
        # call was interrupted (Ctrl-C raises KeyboardInterrupt between any two
        # Python operations, e.g. with the opponents' turns half played).
        self._unfinished = False
        self._carry = 0.0

    # -- helpers -------------------------------------------------------------------

    def _seed63(self) -> int:
        return int(self.np_random.integers(0, 2**63 - 1))

    def _mask(self) -> np.ndarray:
        if self.state.current_player == self.seat:
            return self.state.legal_mask().astype(np.int8)
        return np.zeros(NUM_ACTIONS, dtype=np.int8)

    def _check_started(self, what: str) -> None:
        """Refuses ``what`` (``"step"``, ``"action_masks"``) before the first reset or
        after an interrupted reset/step, with the error that names the problem."""
        if self.state is None:
            raise RuntimeError(f"{what}() before reset(): call reset() first")
        if self._unfinished:
            raise RuntimeError(
                "the last reset() or step() was interrupted (by Ctrl-C, or an exception) before it "
                "finished, and left the game between two of the learner's turns: call reset()"
            )

    def _info(self) -> dict:
        return {
            "action_mask": self._mask(),
            "seat": self.seat,
            "phase": self.state.phase,
        }

    def _advance(self):
        """Plays the opponents until the learner is to act or the episode ends.

        Returns ``(reward, terminated, truncated)`` for the learner.
        """
        st = self.state
        total = 0.0
        while True:
            if st.is_round_over():
                if self.reward_mode == "points":
                    total += st.rewards("points")[self.seat]
                if self.episode == "round":
                    if self.reward_mode == "win":
                        total += st.rewards("win")[self.seat]
                    trunc = st.is_truncated()
                    return total, not trunc, trunc
                if st.is_truncated():
                    # A round cut at the decision cap ends a match episode too,
                    # as truncated (no win reward), like the VecEnv.
                    return total, False, True
                if st.is_match_over():
                    if self.reward_mode == "win":
                        total += st.rewards("win", match_end=True)[self.seat]
                    return total, True, False
                st.next_round()
                continue
            cur = st.current_player
            if cur == self.seat:
                return total, False, False
            st.apply(self._agents[cur].act(st))

    # -- Gymnasium API -----------------------------------------------------------------

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        """Deals a new episode; returns ``(observation, info)``. ``options`` take no
        keys: any is refused with ValueError rather than silently ignored."""
        if options:
            raise ValueError(f"reset options {sorted(options)} are not supported (there are none)")
        # Checked before Gymnasium reseeds the env's generator: a refused
        # seed changes nothing.
        super().reset(seed=check_seed(seed))
        self._unfinished = True
        n = self.game.num_players
        while True:
            if self._seat_arg == "random":
                self.seat = int(self.np_random.integers(0, n))
            # Spec k plays the k-th seat after the learner's (as VecEnv); the seeds
            # are drawn in seat order, and reset(seed) makes an agent play as a new
            # Agent(spec, seed) would.
            self._agents = {(self.seat + 1 + k) % n: a for k, a in enumerate(self._opponents)}
            for p in sorted(self._agents):
                self._agents[p].reset(self._seed63())
            self.state = self.game.new_state(self._seed63())
            carry, terminated, truncated = self._advance()
            if not (terminated or truncated):
                break  # the opponents finished the round before the learner's first turn: redeal
        # Rounds of a match the opponents finished before the learner's first
        # turn (``reward="points"``) are paid with its first step, as VecEnv does.
        self._carry = float(carry)
        self._done = False
        self._unfinished = False
        if self.render_mode == "human":
            self.render()
        return self.state.observation(self.seat), self._info()

    def step(self, action: Any):
        """Applies the learner's action, then the opponents' until it is the
        learner's turn again; returns ``(obs, reward, terminated, truncated, info)``.

        ``action`` is an int or a numpy integer; anything else (a float, even
        ``3.0``) raises TypeError, and an id outside the action space
        (``Discrete(98)``) raises ValueError, whatever ``illegal_action`` says:
        those are bugs in the caller, not moves a policy made."""
        self._check_started("step")
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        a = action_id(action)
        if not 0 <= a < NUM_ACTIONS:
            raise ValueError(f"action id {a} is out of range: the action space is 0..{NUM_ACTIONS - 1}")
        mask = self.state.legal_mask()
        if not mask[a]:
            if self.illegal_action == "raise":
                self.state.apply(a)  # raises ValueError with the engine's reason
            try:
                self.state.clone().apply(a)
                reason = "illegal action"
            except ValueError as e:
                reason = str(e)
            self._done = True
            info = self._info()
            info["illegal_action"] = reason
            return self.state.observation(self.seat), self.illegal_reward, True, False, info
        self._unfinished = True
        self.state.apply(a)
        reward, terminated, truncated = self._advance()
        reward += self._carry
        self._carry = 0.0
        self._done = terminated or truncated
        self._unfinished = False
        if self.render_mode == "human":
            self.render()
        return self.state.observation(self.seat), float(reward), terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now, bool ``[98]``: ``info["action_mask"] != 0``
        of the last ``reset()`` or ``step()``, as a new array each call (later steps
        do not change it).

        This is the method sb3-contrib's ``MaskablePPO`` looks for; it finds it through
        ``gymnasium.make``'s wrappers (``env.get_wrapper_attr("action_masks")``, as its
        ``DummyVecEnv`` does), so no ``ActionMasker`` wrapper is needed.

        After the episode ended it is still the last info's mask, which is not a
        decision to act on: all False once the round (or match) is over, truncated
        or not; after an illegal move under ``illegal_action="lose"``, the position's
        legal actions (the move was not played). ``step()`` then raises until
        ``reset()``. Before the first ``reset()``, or after a ``reset()`` or ``step()``
        that was interrupted, it raises RuntimeError, as ``step()`` does.
        """
        self._check_started("action_masks")
        return self._mask() != 0

    def render(self):
        """Text picture of the position: ``render_mode="ansi"`` returns it,
        ``"human"`` prints it, and ``None`` warns (``gymnasium.logger.warn``) and
        returns None, as Gymnasium's envs do. The picture shows every seat's hand,
        the opponents' included: a debugging view, not what the learner sees."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode: make the env with render_mode='ansi' or 'human'"
            )
            return None
        if self.state is None:
            return None
        text = self.state.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""

    def __copy__(self):
        # A shallow copy would share the game State and the opponents' Agents:
        # stepping either env would move the other's game under it.
        raise TypeError(
            "UnoAttackEnv does not copy (nor deep-copy or pickle: its opponents are Rust Agents): "
            "make a new env, or copy its position, env.state (a State copies and pickles)"
        )


class UnoAttackVectorEnv(VectorEnv):
    """One learner against built-in opponents in ``num_envs`` games, stepped in Rust.

    A Gymnasium ``VectorEnv`` over :class:`uno_attack.VecEnv` with ``opponents=``:
    every row of every step is a decision of the learner; the opponents' moves
    in between are played in Rust (hand-written agents on ``threads`` threads, a
    ``checkpoint:`` network batched across games). Autoreset is same-step
    (``AutoresetMode.SAME_STEP``): a finished game is dealt anew within the step,
    the returned observation is the new episode's first, and the episode's last
    observation is in ``info["final_obs"]`` (an object array, ``None`` where no
    episode ended; ``info["_final_obs"]`` marks the games), and its info in
    ``info["final_info"]``, laid out as Gymnasium's own vector envs do: a dict
    of arrays, each with its ``_key`` mask (``final_info["seat"]``, the learner's
    seat, ``final_info["winner"]``, -1 when truncated, ``final_info["episode_len"]``
    in decisions of every seat; ``info["_final_info"]`` marks the games).
    ``info["action_mask"]``
    (int8 [n, 98]) and ``info["seat"]`` (the learner's seat per game) come with
    every reset and step; ``action_masks()`` gives the same mask as bool [n, 98].
    Observations and infos are fresh arrays (copies of the Rust buffers), safe to keep.

    Args:
        num_envs: games stepped together.
        rules, players, opponents, episode, reward: as :class:`UnoAttackEnv`.
        seat: the learner's seat in every game, or ``"rotate"`` (episode k of game
            i seats it at ``(i + k) % players``).
        threads: Rust threads stepping the opponents.
        illegal_action: only ``"raise"``: an illegal action raises ValueError
            naming the game, and no game changes.

    ``reset(seed=s)`` deals every game from ``s`` (the same deals for the same
    seed, in Rust and here); ``reset()`` without a seed deals new games from the
    env's generator. A round cut at the decision cap is ``truncated`` and pays 0.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 16,
        rules: Union[str, os.PathLike, dict, Game] = "attack-2010",
        players: Optional[int] = None,
        opponents: Union[str, Sequence[str]] = "random",
        seat: Union[int, str] = 0,
        episode: str = "round",
        reward: str = "win",
        threads: int = 1,
        illegal_action: str = "raise",
        render_mode: Optional[str] = None,
    ) -> None:
        check_env_options(episode, reward, None, [])
        check_choice("illegal_action", illegal_action, ("raise",))
        if render_mode is not None:
            raise ValueError("the vector env does not render: make it with render_mode=None")
        if seat == "rotate":
            learner = None
        elif is_integer(seat):
            learner = int(seat)  # its range is checked by VecEnv
        else:
            raise ValueError(f"seat must be a seat number or 'rotate', not {seat!r}")
        self._env = VecEnv(rules, players, num_envs, seed=0, threads=threads, episode=episode,
                           reward=reward, opponents=opponents, seat=learner)
        self.num_envs = num_envs
        self.game = self._env.game
        self.render_mode = None
        low, high = self.game.obs_bounds()
        self.single_observation_space = spaces.Box(low, high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._dealt = False  # set by reset(): the Rust VecEnv steps only after one

    @property
    def opponents(self):
        """The opponents' specs, one per seat after the learner's."""
        return self._env.opponents

    def _info(self) -> dict:
        n = self.num_envs
        return {
            "action_mask": self._env.mask.astype(np.int8),
            "_action_mask": np.ones(n, dtype=bool),
            "seat": self._env.seat.copy(),
            "_seat": np.ones(n, dtype=bool),
        }

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        """Deals every game (from ``seed`` when given); returns ``(observations, infos)``.

        ``seed`` is one int: game ``i``'s deals derive from it (a list of
        per-game seeds is refused). Every game is dealt anew: ``options`` take
        no keys (a partial reset, ``options["reset_mask"]``, is refused with
        ValueError rather than resetting every game)."""
        self._check_open("reset")
        if seed is not None and not is_integer(seed):
            raise ValueError(
                f"seed must be one int (every game's deals derive from it), not {type(seed).__name__}"
            )
        if options:
            raise ValueError(
                f"reset options {sorted(options)} are not supported: every game is dealt anew"
                " (no partial reset)"
            )
        # Checked before Gymnasium reseeds the env's generator: a refused
        # seed changes nothing.
        super().reset(seed=check_seed(seed))
        if seed is None:
            seed = int(self.np_random.integers(0, 2**63 - 1))
        obs, _, _ = self._env.reset(seed=int(seed))
        self._dealt = True
        return obs.copy(), self._info()

    def step(self, actions):
        """One learner action per game; returns ``(obs, rewards, terminations,
        truncations, infos)`` after the opponents have played up to the learner's
        next decision (or the episode's end and the next deal)."""
        self._check_open("step")
        # The learner's seat in each game's episode, read now rather than kept
        # from the last step: a step interrupted (Ctrl-C) after the games moved
        # on cannot leave it stale.
        seat = self._env.seat.copy()
        obs, _, _, reward, terminated, truncated = self._env.step(actions)
        done = (terminated | truncated).astype(bool)
        info = self._info()
        # Gymnasium's own same-step layout (`VectorEnv._add_info`, as
        # `make_vec(..., vectorization_mode="sync")` gives): `final_obs` an
        # object array, `final_info` a dict of arrays with `_key` masks.
        for i in np.flatnonzero(done):
            info = self._add_info(info, {
                "final_obs": self._env.final_obs[i].copy(),
                "final_info": {
                    "seat": int(seat[i]),
                    "winner": int(self._env.winner[i]),
                    "episode_len": int(self._env.episode_len[i]),
                },
            }, int(i))
        return (obs.copy(), reward.copy(), terminated.astype(bool), truncated.astype(bool), info)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game now, bool ``[num_envs, 98]``:
        ``infos["action_mask"] != 0`` of the last ``reset()`` or ``step()``, as a new
        array each call (later steps do not change it). With same-step autoreset a
        game whose episode just ended shows its next episode's first decision, so
        every row has a legal action. Before the first ``reset()`` it raises
        RuntimeError (``step()`` raises ValueError there); on a closed env,
        ``ClosedEnvironmentError``."""
        self._check_open("action_masks")
        if not self._dealt:
            raise RuntimeError("action_masks() before reset(): call reset() first")
        return self._env.mask.astype(bool)

    def _check_open(self, what: str) -> None:
        if self.closed:
            raise gymnasium.error.ClosedEnvironmentError(
                f"{what}() on a closed UnoAttackVectorEnv: make a new one"
            )

    def close_extras(self, **kwargs) -> None:
        """Nothing to release."""

    def __copy__(self):
        # A shallow copy would share the Rust VecEnv and its buffers: stepping
        # either env would step the other's games.
        raise TypeError(
            "UnoAttackVectorEnv does not copy (nor deep-copy or pickle: its games are a Rust VecEnv): "
            "make a new env"
        )
