"""Type stubs for the Rust extension ``uno_attack._core``."""

import os
import pathlib
from typing import Any, ClassVar, Dict, List, Optional, Sequence, Tuple, Union, final

import numpy as np
import numpy.typing as npt

RulesLike = Union[str, "os.PathLike[str]", Dict[str, Any], "Game"]
ActionLike = Union[int, np.integer, str]
SeatLike = Union[int, np.integer]

NUM_ACTIONS: int
"""Size of the action space (98), the same for every edition and table."""
OBS_SIZE: int
"""Length of an observation vector."""
ORACLE_SIZE: int
"""Length of an oracle (full-information) observation vector."""
OBS_VERSION: int
"""Layout version of the observation vector."""
MAX_PLAYERS: int
MIN_PLAYERS: int
PRESETS: List[str]
__version__: str

def action_name(id: int) -> str:
    """Name of action ``id`` (ValueError when out of range)."""

def action_id(name: str) -> int:
    """Id of the action with this name (aliases such as ``press``, ``color:red`` accepted)."""

def action_names() -> List[str]:
    """Every action name, indexed by id."""

def obs_pieces() -> List[Dict[str, Any]]:
    """The observation layout: dicts with ``name``, ``offset``, ``shape``, ``size``, ``doc``."""

def describe_obs(obs: npt.ArrayLike) -> str:
    """A readable dump of one observation row (any array-like of OBS_SIZE numbers, read
    as float32), piece by piece (non-zero values only)."""

def _state_from_json(game: "Game", state: str, events: Optional[str] = None) -> "State":
    """Unpickles a State: ``game.state_from_json(state)`` with its last events (JSON) restored."""

@final
class Game:
    """Compiled rules for a table of ``players``. Immutable; pickles as
    ``Game(rules_toml(), num_players)``, and copies share the compiled rules."""

    def __new__(cls, rules: Optional[RulesLike] = None, players: Optional[int] = None) -> "Game":
        """``players`` defaults to the table size of a ``Game`` passed as ``rules``, else 4."""
    @property
    def num_players(self) -> int: ...
    @property
    def deck_size(self) -> int: ...
    def obs_bounds(self, oracle: bool = False) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """``(low, high)``: the range of every observation value (``oracle=True``: of the
        oracle vector) in positions reached in play; the envs' spaces use it."""
    @property
    def deck_points(self) -> int:
        """Total points of the whole deck (C-6): ``-deck_points / 100`` bounds a round's ``points`` reward."""
    @property
    def num_actions(self) -> int: ...
    @property
    def name(self) -> str: ...
    def rules(self) -> Dict[str, Any]:
        """The rules as a dict (the TOML schema; ``None`` = absent)."""
    def rules_toml(self) -> str: ...
    def new_state(self, seed: int = 0, stream: int = 0) -> "State":
        """A new match: dealer drawn, first round dealt."""
    def scenario(self, scenario: Union[Dict[str, Any], str]) -> "State":
        """A hand-built position from a Scenario dict or JSON text."""
    def state_from_json(self, text: str) -> "State": ...
    def state_from_dict(self, d: Dict[str, Any]) -> "State": ...
    def __reduce__(self) -> Tuple[Any, Tuple[str, int]]: ...
    def __copy__(self) -> "Game": ...
    def __deepcopy__(self, memo: Any) -> "Game": ...

@final
class State:
    """One position of a match, bound to its game. Pickles (and copies) with its
    game, its last events and its chance generator: a loaded state continues identically."""

    @property
    def game(self) -> Game: ...
    @property
    def num_players(self) -> int: ...
    @property
    def phase(self) -> str: ...
    @property
    def current_player(self) -> Optional[int]: ...
    @property
    def round_winner(self) -> Optional[int]: ...
    @property
    def match_winner(self) -> Optional[int]: ...
    @property
    def scores(self) -> List[int]: ...
    @property
    def round_points(self) -> List[int]: ...
    @property
    def decisions(self) -> int: ...
    @property
    def round(self) -> int: ...
    @property
    def dealer(self) -> int: ...
    @property
    def direction(self) -> int: ...
    @property
    def pile_len(self) -> int: ...
    @property
    def top_face(self) -> str: ...
    @property
    def active_colour(self) -> Optional[str]: ...
    def is_round_over(self) -> bool: ...
    def is_match_over(self) -> bool: ...
    def is_truncated(self) -> bool: ...
    def hand(self, seat: SeatLike) -> List[str]: ...
    def hand_len(self, seat: SeatLike) -> int: ...
    def is_active(self, seat: SeatLike) -> bool:
        """False once ``seat`` is eliminated from the match (C-7 challenge scoring)."""
    def history(self, seat: SeatLike) -> Dict[str, Any]:
        """What ``seat`` has shown of its hand this round (public): ``named_colour``
        (``Optional[str]``), ``last_played_colour`` (``Optional[str]``),
        ``taken_since_play`` (int, up to 31) and ``pressed_on`` (``List[str]``)."""
    def legal_actions(self) -> List[int]: ...
    def legal_action_names(self) -> List[str]: ...
    def legal_mask(self) -> npt.NDArray[np.uint8]:
        """uint8[98], 1 = legal."""
    def apply(self, action: ActionLike) -> List[Dict[str, Any]]:
        """Applies an action (an int id or a name); returns the events. Illegal or out of
        range → ValueError, not an int or a str (a float, a bool) → TypeError; state unchanged."""
    def next_round(self) -> List[Dict[str, Any]]: ...
    def timeout(self) -> List[Dict[str, Any]]: ...
    def last_events(self) -> List[Dict[str, Any]]: ...
    def observation(self, seat: Optional[SeatLike] = None) -> npt.NDArray[np.float32]:
        """What ``seat`` may see, float32[OBS_SIZE]; ``seat`` defaults to the seat to act,
        and to seat 0 once the round is over (no seat acts then)."""
    def oracle_observation(self, seat: Optional[SeatLike] = None) -> npt.NDArray[np.float32]:
        """The observation plus every hidden part, float32[ORACLE_SIZE] (the same default seat)."""
    def rewards(self, reward: str = "win", match_end: bool = False) -> List[float]: ...
    def check_invariants(self) -> Optional[str]: ...
    def resample_hidden(self, seed: int, seat: Optional[SeatLike] = None) -> "State":
        """A state ``seat`` (default: the seat to act; seat 0 once the round is over) cannot
        tell from this one: its hand and every public fact kept, the cards it cannot see dealt
        anew. Deterministic in ``seed``."""
    def to_dict(self) -> Dict[str, Any]: ...
    def to_json(self) -> str: ...
    def clone(self) -> "State": ...
    def __copy__(self) -> "State": ...
    def __deepcopy__(self, memo: Any) -> "State": ...
    def __reduce__(self) -> Tuple[Any, Tuple["Game", str, str]]: ...
    def __eq__(self, other: object, /) -> bool:
        """The same position, chance generator included (the games are not compared)."""
    __hash__: ClassVar[None]  # type: ignore[assignment]
    def render(self) -> str:
        """A text picture of the whole position (every hand shown)."""

@final
class Agent:
    """A built-in agent: ``random``, ``random-play``, ``first-legal``, ``greedy``, ``heuristic[:k=v,...]``, ``search[:samples=N,z=Z,base=SPEC]``, ``checkpoint:DIR[?sample]``."""

    def __new__(cls, spec: str, seed: int = 0) -> "Agent": ...
    @property
    def spec(self) -> str: ...
    def act(self, state: State) -> int:
        """The action of the seat to act. A checkpoint agent checks (once per game) that it
        was trained for these rules: ValueError when not, a UserWarning for a note."""
    def act_batch(self, env: "VecEnv") -> npt.NDArray[np.int64]:
        """The action of the seat to act in every game of ``env`` (one batched forward pass
        for a checkpoint). Not for ``heuristic`` or ``search``, which remember their decisions
        (ValueError): use one Agent per game for those."""
    def reset(self, seed: int) -> None: ...

@final
class Policy:
    """A checkpoint's policy/value network, evaluated in Rust: ``Policy(path)``."""

    def __new__(cls, path: Union[str, "os.PathLike[str]"]) -> "Policy": ...
    @property
    def path(self) -> Optional[pathlib.Path]:
        """The checkpoint it was loaded from (``None`` when built by ``from_parameters``)."""
    @property
    def obs_dim(self) -> int: ...
    @property
    def num_actions(self) -> int: ...
    @property
    def hidden(self) -> List[int]: ...
    @property
    def layer_norm(self) -> bool: ...
    @property
    def meta(self) -> Dict[str, Any]:
        """The checkpoint's ``meta.json`` as loaded (an older observation version migrated)."""
    def forward(
        self, obs: npt.ArrayLike, mask: Optional[npt.ArrayLike] = None
    ) -> Tuple[npt.NDArray[np.float32], Any]:
        """``(logits [n, NUM_ACTIONS], values [n])`` for ``obs [n, OBS_SIZE]`` (one row in: one
        row of logits and a float, hence ``Any``). With ``mask`` (non-zero = legal) illegal
        logits are -1e9. Ctrl-C stops a large batch between pieces of 4,096 rows."""
    def parameters(self) -> Dict[str, npt.NDArray[np.float32]]:
        """``{name: array}`` in forward order: ``trunk.{i}.weight`` ``[in, out]``,
        ``trunk.{i}.bias`` (``norms.{i}.gamma``/``beta`` with LayerNorm), ReLU, then
        ``policy.*`` and ``value.*``; a layer computes ``x @ weight + bias``."""
    # ``Dict[str, Any]``: dict is invariant, so ``Dict[str, ArrayLike]`` would refuse
    # the ``Dict[str, NDArray[float32]]`` that ``parameters()`` returns.
    def with_parameters(self, params: Dict[str, Any]) -> "Policy":
        """A new ``Policy`` with the weights ``params`` (the layout of ``parameters()``:
        every name, each of its shape, finite values within ±1e6); ``ValueError``
        otherwise."""
    @staticmethod
    def from_parameters(
        params: Dict[str, Any],
        rules: Any = None,
        players: Optional[int] = None,
    ) -> "Policy":
        """A ``Policy`` from weights alone (any MLP in the layout of ``parameters()``)
        for the table ``rules`` / ``players``."""
    def check_table(
        self,
        rules: Any = None,
        players: Optional[int] = None,
    ) -> List[str]:
        """Checks that the network was trained for these rules (``ValueError`` if not,
        as ``arena`` refuses it); returns notes such as another table size."""
    def save(
        self,
        path: Union[str, "os.PathLike[str]"],
        note: Optional[str] = None,
        overwrite: bool = False,
    ) -> None:
        """Writes the network as a checkpoint directory (``model.bpk``, ``meta.json``);
        a directory that already holds files is a ``FileExistsError`` unless
        ``overwrite=True``."""

StepResult = Tuple[
    npt.NDArray[np.float32],  # obs [n, OBS_SIZE]
    npt.NDArray[np.uint8],  # mask [n, 98]
    npt.NDArray[np.int32],  # seat [n]
    npt.NDArray[np.float32],  # reward [n]
    npt.NDArray[np.uint8],  # terminated [n]
    npt.NDArray[np.uint8],  # truncated [n]
]

@final
class VecEnv:
    """N games stepped in Rust; the returned arrays are the same objects every call. With
    ``opponents`` it is single-agent: built-in agents play the other seats in Rust."""

    def __new__(
        cls,
        rules: Optional[RulesLike] = None,
        players: Optional[int] = None,
        num_envs: int = 1024,
        seed: int = 0,
        threads: int = 1,
        episode: str = "round",
        reward: str = "win",
        legal_ids: bool = False,
        opponents: Optional[Union[str, Sequence[str]]] = None,
        seat: Optional[int] = None,
    ) -> "VecEnv":
        """With ``opponents`` (an Agent spec, or one per seat after the learner's) the env is
        single-agent: built-in agents play the other seats in Rust and every row is a decision
        of the learner, in ``seat`` (``None``: rotating, ``(i + k) % players`` in episode k of
        game i)."""
    def reset(
        self, seed: Optional[int] = None
    ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.uint8], npt.NDArray[np.int32]]:
        """Restarts every game at episode 0; with ``seed``, first makes it the base seed.
        Without one, the same deals as the previous reset (deterministic)."""
    def step(self, actions: Union[npt.NDArray[np.integer], Sequence[int]]) -> StepResult:
        """One integer action id per game (any integer dtype). A non-integer dtype (float,
        even with whole values, bool, str, complex) → TypeError; a wrong length or shape or an
        illegal or out-of-range id → ValueError; either way no game is changed."""
    def step_random(self, write_obs: bool = True) -> StepResult:
        """A uniformly random legal action per game (seeded per game). ``write_obs=False``
        (benchmark mode) writes neither ``obs``, ``mask`` nor ``final_obs``: they go stale
        (``seat``, rewards, done flags, ``episode_len``, ``winner``, ``legal_ids`` stay
        current). Step with ``write_obs=True`` before sampling from ``mask`` again."""
    def state(self, i: int) -> State: ...
    def __len__(self) -> int: ...
    @property
    def game(self) -> Game: ...
    @property
    def num_envs(self) -> int: ...
    @property
    def seed(self) -> int:
        """The base seed (read-only; ``reset(seed=...)`` replaces it). Episode k of game i is
        ``game.new_state(seed ^ (k * 0x9E3779B97F4A7C15 % 2**64), stream=i)``."""
    @property
    def threads(self) -> int: ...
    @property
    def opponents(self) -> Optional[List[str]]:
        """The opponents' specs, one per seat after the learner's (None: multi-agent)."""
    @property
    def num_players(self) -> int: ...
    @property
    def obs(self) -> npt.NDArray[np.float32]: ...
    @property
    def mask(self) -> npt.NDArray[np.uint8]: ...
    @property
    def seat(self) -> npt.NDArray[np.int32]: ...
    @property
    def reward(self) -> npt.NDArray[np.float32]: ...
    @property
    def rewards(self) -> npt.NDArray[np.float32]: ...
    @property
    def terminated(self) -> npt.NDArray[np.uint8]:
        """0/1 per game: use ``.astype(bool)`` or ``== 1``, not ``~`` (``~1`` is 254)."""
    @property
    def truncated(self) -> npt.NDArray[np.uint8]:
        """0/1 per game (cut at ``max_decisions``): ``.astype(bool)``, not ``~``."""
    @property
    def final_obs(self) -> npt.NDArray[np.float32]:
        """Observation at the end of a finished episode, of the seat that made the last
        move (the previous step's ``seat``); rows of unfinished games are stale."""
    @property
    def episode_len(self) -> npt.NDArray[np.uint32]:
        """Decisions in the episode that ended at this step; 0 in rows where none did."""
    @property
    def winner(self) -> npt.NDArray[np.int32]:
        """Winner of the episode that ended at this step; -1 where it had none or none ended."""
    @property
    def legal_ids(self) -> npt.NDArray[np.uint8]:
        """Legal action ids, ascending, [n, 98]; first legal_count[i] of row i valid ([0, 98] unless legal_ids=True)."""
    @property
    def legal_count(self) -> npt.NDArray[np.uint8]:
        """Number of legal actions [n] ([0] unless legal_ids=True)."""
