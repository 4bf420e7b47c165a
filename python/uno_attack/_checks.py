"""Argument checks shared by the Gymnasium and PettingZoo environments."""

from typing import Any, Optional, Sequence


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
