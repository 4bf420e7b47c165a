"""PettingZoo AEC env: every seat is an agent (``player_0`` … ``player_{N-1}``).

    import numpy as np
    from uno_attack.pettingzoo import env
    e = env(rules="attack-2010", players=4)
    e.reset(seed=0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0])
        e.step(action)

Observations are dicts ``{"observation": float32[OBS_SIZE], "action_mask":
int8[98]}`` (the mask is all zeros for an agent not to act). Rewards are zero-sum
and come at the end: of the round (``episode="round"``), or of each round
(``reward="points"``) and of the match (``reward="win"``) with ``episode="match"``.
A seat eliminated from a match (C-7 challenge scoring) is terminated then, with
its match reward when ``reward="win"`` (a loss), and steps out with ``None``; if
the match is then truncated (which pays 0), the seats still in share the
eliminated seats' losses, so the rewards stay zero-sum.
``env()`` adds PettingZoo's standard wrappers (an illegal move ends the game with
reward ``illegal_reward`` for the offender: by default -1 under ``reward="win"``
and ``-deck_points / 100`` under ``"points"``, no better than any legal loss of a
round); ``raw_env`` raises ValueError on an illegal move.

``state()`` is PettingZoo's global state for centralized training: the oracle
(full-information) encoding seen from seat 0, ``float32[ORACLE_SIZE]``
(``state_space``). The game position itself is ``game_state`` (a
:class:`uno_attack.State`).
"""

from __future__ import annotations

import copy
import os
from typing import Any, Optional, Union

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ._core import NUM_ACTIONS, Game, State
from ._checks import action_id, check_env_options, check_seed, illegal_penalty

__all__ = ["env", "raw_env"]


def env(illegal_reward: Optional[float] = None, **kwargs: Any) -> AECEnv:
    """The AEC env with PettingZoo's standard wrappers (see :class:`raw_env` for the
    other arguments). An illegal move ends the game with ``illegal_reward`` for the
    offender (default: -1 under ``reward="win"``, ``-deck_points / 100`` under
    ``"points"``)."""
    e = raw_env(**kwargs)
    penalty = illegal_penalty(e.game, e.reward_mode, illegal_reward)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=penalty)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return _OrderEnforcing(e)


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper``, except that ``step()`` and ``last()``
    after the episode raise ``RuntimeError``, as on :class:`raw_env` (PettingZoo's
    own only warns on ``step()``, and ``last()`` fails with a ``KeyError``)."""

    def _require_agents(self, call: str) -> None:
        if self._has_reset and not self.agents:
            raise RuntimeError(f"{call} after the episode is over: call reset()")

    def step(self, action: Any) -> None:
        self._require_agents("step()")
        # An action that is not an integer id is refused here, as raw_env
        # refuses it: PettingZoo's wrappers below take a bool for an int
        # (``Discrete.contains(True)``) and then index the mask with it, and
        # refuse a float with a bare AssertionError. None is a seat stepping
        # out of the game.
        if action is not None:
            action_id(action)
        super().step(action)

    def last(self, observe: bool = True):
        self._require_agents("last()")
        return super().last(observe)

    def __copy__(self):
        # A shallow copy would share the wrapped env: see raw_env.__copy__.
        return copy.deepcopy(self)


class raw_env(AECEnv):
    """UNO Attack! for PettingZoo.

    Args:
        rules: preset name, TOML path or text, a dict, or a :class:`uno_attack.Game`.
        players: table size, 2..10 (default: the ``Game``'s, or 4).
        episode: ``"round"`` or ``"match"``.
        reward: ``"win"`` or ``"points"``.
        render_mode: ``None``, ``"ansi"`` or ``"human"``.
    """

    metadata = {
        "render_modes": ["ansi", "human"],
        "name": "uno_attack_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        rules: Union[str, os.PathLike, dict, Game] = "attack-2010",
        players: Optional[int] = None,
        episode: str = "round",
        reward: str = "win",
        render_mode: Optional[str] = None,
    ) -> None:
        super().__init__()
        self.game = Game(rules, players)
        check_env_options(episode, reward, render_mode, self.metadata["render_modes"])
        self.episode = episode
        self.reward_mode = reward
        self.render_mode = render_mode
        n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(*self.game.obs_bounds(), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.state_space = spaces.Box(*self.game.obs_bounds(oracle=True), dtype=np.float32)
        self._rng = np.random.default_rng()
        self._state: Optional[State] = None
        # Set while reset() or step() changes the game: still set afterwards, the
        # call was interrupted (Ctrl-C raises KeyboardInterrupt between any two
        # Python operations, e.g. with the move played and its rewards not given).
        self._unfinished = False

    @property
    def game_state(self) -> Optional[State]:
        """The current position (a :class:`uno_attack.State`; ``None`` before ``reset()``)."""
        return self._state

    def state(self) -> np.ndarray:
        """PettingZoo's global state: the oracle (full-information) encoding from seat 0."""
        self._require_reset("state()")
        return self._state.oracle_observation(0)

    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of an agent (the same for all)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The action space of an agent (the same for all)."""
        return self.action_spaces[agent]

    def _require_reset(self, call: str) -> None:
        if self._state is None:
            raise RuntimeError(f"{call} before reset(): call reset() first")

    def _require_finished(self, call: str) -> None:
        self._require_reset(call)
        if self._unfinished:
            raise RuntimeError(
                f"{call}: the last reset() or step() was interrupted (by Ctrl-C, or an exception) "
                "before it finished, and left the game and its rewards apart: call reset()"
            )

    def _require_agent(self, call: str) -> None:
        self._require_finished(call)
        if not self.agents:
            raise RuntimeError(f"{call} after the episode is over: call reset()")

    def observe(self, agent: str) -> dict:
        """``{"observation", "action_mask"}`` for ``agent``."""
        self._require_finished("observe()")
        seat = self.agent_name_mapping[agent]
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if self._state.current_player == seat:
            mask[:] = self._state.legal_mask()
        return {"observation": self._state.observation(seat), "action_mask": mask}

    def last(self, observe: bool = True):
        """``(observation, cumulative reward, terminated, truncated, info)`` of ``agent_selection``."""
        self._require_agent("last()")
        return super().last(observe)

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        """Deals a new episode (``seed``, an int 0..2**64-1, makes it
        reproducible; a refused seed changes nothing). ``options`` are
        ignored: there are none, and PettingZoo's own ``api_test`` passes
        some that every env must take."""
        seed = check_seed(seed)
        self._unfinished = True
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._state = self.game.new_state(int(self._rng.integers(0, 2**63 - 1)))
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._state.current_player]
        self._unfinished = False
        if self.render_mode == "human":
            self.render()

    def step(self, action: Any) -> None:
        """Applies ``action`` (an int or a numpy integer: a float raises TypeError) for ``agent_selection``."""
        self._require_agent("step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        st = self._state
        # Applied first: a refused action (TypeError, ValueError) changes
        # nothing, the agent's pending reward included.
        act = action_id(action)
        self._unfinished = True
        try:
            st.apply(act)
        except (TypeError, ValueError):
            self._unfinished = False
            raise
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        while st.is_round_over():
            if self.reward_mode == "points":
                self._add_rewards(st.rewards("points"))
            # A round cut at the decision cap ends a match episode too (truncated).
            if self.episode == "round" or st.is_match_over() or st.is_truncated():
                trunc = st.is_truncated()
                if self.reward_mode == "win" and not trunc:
                    self._add_rewards(st.rewards("win", match_end=self.episode == "match"))
                elif self.reward_mode == "win":
                    # A truncated match pays 0, but seats eliminated earlier
                    # were paid their loss as they left: the seats still in
                    # share it, so the match's rewards stay zero-sum.
                    n = len(self.possible_agents)
                    still = [a for a in self.agents if st.is_active(self.agent_name_mapping[a])]
                    for a in still:
                        self.rewards[a] += (n - len(still)) / (n - 1) / len(still)
                for a in self.agents:
                    self.terminations[a] = not trunc
                    self.truncations[a] = trunc
                break
            st.next_round()
        out = []
        if not st.is_round_over():
            self.agent_selection = self.possible_agents[st.current_player]
            # C-7 challenge scoring: a seat eliminated by the round just scored is
            # out of the match (a loss: its match reward now, as it will not be
            # here at the end) and steps out before the next turn.
            out = [a for a in self.agents
                   if not self.terminations[a] and not st.is_active(self.agent_name_mapping[a])]
            for a in out:
                self.terminations[a] = True
                if self.reward_mode == "win":
                    self.rewards[a] += -1.0 / (len(self.possible_agents) - 1)
        self._accumulate_rewards()
        if out:
            self._deads_step_first()
        self._unfinished = False
        if self.render_mode == "human":
            self.render()

    def _add_rewards(self, per_seat) -> None:
        for a in self.agents:
            self.rewards[a] += float(per_seat[self.agent_name_mapping[a]])

    def render(self):
        """Text picture of the position (``ansi`` returns it, ``human`` prints it)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        if self._state is None:
            return None
        text = self._state.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""

    def __copy__(self):
        # A shallow copy would share the game State and the reward and done
        # dicts: stepping the copy would move this env's game without its
        # bookkeeping. A copy is independent, as ``copy.copy`` of a State is.
        return copy.deepcopy(self)
