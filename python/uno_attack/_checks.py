"""Argument checks shared by the Gymnasium and PettingZoo environments."""

from typing import Any, Optional, Sequence

import numpy as np


def check_choice(name: str, value: Any, choices: Sequence[str]) -> None:
    """Raises ValueError unless ``value`` is one of ``choices``."""
    if value not in choices:
        options = " or ".join(f'"{c}"' for c in choices)
        raise ValueError(f"{name} must be {options}, not {value!r}")


def check_env_options(episode: str, reward: str, render_mode: Optional[str], render_modes: Sequence[str]) -> None:
    """Checks the options both environments take: episode, reward and render mode."""
    check_choice("episode", episode, ("round", "match"))
    check_choice("reward", reward, ("win", "points"))
    if render_mode is not None and render_mode not in render_modes:
        raise ValueError(f"render_mode must be one of {list(render_modes)} or None")


def action_id(action: Any) -> int:
    """The integer action id in ``action``.

    A Python int or a numpy integer (a scalar or a 0-d array) is accepted.
    Anything else raises TypeError, so a float is never truncated to an id
    (``2.7`` and even ``3.0`` are refused, as are bools and strings); the id's
    range and legality are checked by the caller.
    """
    if isinstance(action, (bool, np.bool_)):
        raise TypeError(f"an action must be an integer action id, got {type(action).__name__}")
    if isinstance(action, (int, np.integer)):
        return int(action)
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        return int(action)
    what = f"{action.dtype} array of shape {action.shape}" if isinstance(action, np.ndarray) else type(action).__name__
    raise TypeError(f"an action must be an integer action id, got {what}")


def illegal_penalty(game: Any, reward: str, illegal_reward: Optional[float]) -> float:
    """The reward for an illegal move that ends the episode: ``illegal_reward``
    when given, else no better than any legal loss of a round: -1 under
    ``reward="win"`` (a loss pays -1/(N-1)) and ``-game.deck_points / 100``
    under ``reward="points"`` (a hand holding every card of the deck)."""
    if illegal_reward is not None:
        if isinstance(illegal_reward, (bool, np.bool_)) or not isinstance(illegal_reward, (int, float, np.integer, np.floating)):
            raise TypeError(f"illegal_reward must be a number, not {type(illegal_reward).__name__}")
        if not np.isfinite(illegal_reward):
            raise ValueError(f"illegal_reward must be finite, not {illegal_reward!r}")
        return float(illegal_reward)
    return -1.0 if reward == "win" else -game.deck_points / 100.0


def is_integer(x: Any) -> bool:
    """A Python int or a numpy integer, not a bool."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def check_seed(seed: Any) -> Optional[int]:
    """``seed`` as an int, or None: as the Rust classes take a seed, an int
    0..2**64-1 (a numpy integer too); a bool, float or string raises
    TypeError and an int out of range OverflowError, naming the seed."""
    if seed is None:
        return None
    if not is_integer(seed):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    if not 0 <= int(seed) < 2**64:
        raise OverflowError(
            f"seed = {seed} is out of range: it is an unsigned 64-bit integer (0 to 2**64 - 1)"
        )
    return int(seed)


def check_seat(seat: Any, players: int, extra: str) -> Optional[int]:
    """``seat`` as a seat number (0..players-1), or None when it is ``extra``
    (``"random"`` or ``"rotate"``); anything else (a bool too) raises ValueError."""
    if seat == extra and isinstance(seat, str):
        return None
    if is_integer(seat) and 0 <= seat < players:
        return int(seat)
    raise ValueError(f"seat must be 0..{players - 1} or {extra!r}, not {seat!r}")
