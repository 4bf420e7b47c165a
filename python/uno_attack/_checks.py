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
