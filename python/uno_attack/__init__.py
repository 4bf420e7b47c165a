"""UNO Attack!, UNO Flash and classic UNO as a reinforcement-learning environment.

The rules engine and the vectorized core are Rust (``uno_attack._core``); this
package adds thin Python wrappers:

* :class:`Game` / :class:`State`: the engine, one position at a time (legal
  actions and masks, apply by id or name, observations, full state as a dict /
  JSON, hand-built scenarios, events); both pickle and deep-copy faithfully.
* :class:`VecEnv`: N games stepped in one call, writing into numpy arrays that
  are allocated once (the same objects every step), GIL released, auto-reset.
* :class:`Agent`: the built-in players (``random``, ``greedy``, ``heuristic`` …).
* :class:`Policy`: a checkpoint's network: logits and values for any batch of
  observations, and its parameters as numpy arrays.
* ``uno_attack.gym``: the single-agent Gymnasium env ``UnoAttack-v0``
  (registered when Gymnasium is installed: ``pip install ./python[gym]``).
* ``uno_attack.pettingzoo``: the PettingZoo AEC env (``env()`` / ``raw_env``).
"""

from ._core import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ACTIONS,
    OBS_SIZE,
    OBS_VERSION,
    ORACLE_SIZE,
    PRESETS,
    Agent,
    Game,
    Policy,
    State,
    VecEnv,
    __version__,
    action_id,
    action_name,
    action_names,
    describe_obs,
    obs_pieces,
)

__all__ = [
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "OBS_VERSION",
    "ORACLE_SIZE",
    "PRESETS",
    "Agent",
    "Game",
    "Policy",
    "State",
    "VecEnv",
    "__version__",
    "action_id",
    "action_name",
    "action_names",
    "describe_obs",
    "obs_pieces",
]


def _register_gymnasium() -> None:
    """Registers ``UnoAttack-v0`` with Gymnasium when it is installed."""
    try:
        import gymnasium
    except ImportError:
        return
    if "UnoAttack-v0" not in gymnasium.registry:
        gymnasium.register(
            id="UnoAttack-v0",
            entry_point="uno_attack.gym:UnoAttackEnv",
            vector_entry_point="uno_attack.gym:UnoAttackVectorEnv",
        )


_register_gymnasium()
