"""Audit E fixes in the pure-Python layer: the Gym env's opponent seating and
agent reuse, the PettingZoo env before reset, and the type stubs."""

import ast
import inspect

import numpy as np
import pytest

import uno_attack
import uno_attack._core as core

from conftest import PYTHON_DIR

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils import seeding  # noqa: E402

import uno_attack.gym as ua_gym  # noqa: E402
from uno_attack.gym import UnoAttackEnv  # noqa: E402

CHECKPOINTS = PYTHON_DIR.parent / "checkpoints"


# -- the Gym env seats a list of opponents as VecEnv does -------------------------


def seated_specs(env):
    return {p: a.spec for p, a in env._agents.items()}


def test_opponent_list_goes_to_the_seats_after_the_learner():
    env = UnoAttackEnv(players=4, seat=2, opponents=["heuristic", "random", "greedy"])
    env.reset(seed=0)
    assert seated_specs(env) == {3: "heuristic", 0: "random", 1: "greedy"}


@pytest.mark.parametrize("players", [2, 3, 5])
def test_spec_k_plays_the_kth_seat_after_the_learner_at_every_seat(players):
    specs = ["heuristic", "random", "greedy", "first-legal"][: players - 1]
    for seat in range(players):
        env = UnoAttackEnv(players=players, seat=seat, opponents=specs)
        env.reset(seed=seat)
        assert seated_specs(env) == {(seat + 1 + k) % players: s for k, s in enumerate(specs)}
        # Its vector counterpart reports the same list for the same seat.
        assert UnoAttackEnv(players=players, seat=seat, opponents=specs)._specs == specs
        vec = uno_attack.VecEnv(players=players, num_envs=1, opponents=specs, seat=seat)
        assert vec.opponents == specs


def test_random_seat_keeps_spec_k_on_the_kth_seat_after_the_learner():
    specs = ["heuristic", "random", "greedy"]
    env = UnoAttackEnv(players=4, seat="random", opponents=specs)
    seats = set()
    for k in range(40):
        env.reset(seed=k)
        seats.add(env.seat)
        assert seated_specs(env) == {(env.seat + 1 + j) % 4: s for j, s in enumerate(specs)}
        assert env.seat not in env._agents
    assert seats == {0, 1, 2, 3}


# -- the Gym env reuses its opponents' agents, with the same episodes -------------


def reference_reset(game, specs, seat_arg, seed):
    """What reset(seed=seed) dealt when it built every opponent anew
    (Agent(spec, seed)) each episode, with spec k on the k-th seat after the learner's."""
    rng, _ = seeding.np_random(seed)
    n = game.num_players

    def seed63():
        return int(rng.integers(0, 2**63 - 1))

    while True:
        seat = int(rng.integers(0, n)) if seat_arg == "random" else seat_arg
        by_seat = {(seat + 1 + k) % n: spec for k, spec in enumerate(specs)}
        agents = {p: uno_attack.Agent(by_seat[p], seed63()) for p in sorted(by_seat)}
        state = game.new_state(seed63())
        play_opponents(state, seat, agents)
        if not state.is_round_over():
            return seat, agents, state


def play_opponents(state, seat, agents):
    while not state.is_round_over() and state.current_player != seat:
        state.apply(agents[state.current_player].act(state))


CONFIGS = [
    dict(players=4, opponents="heuristic", seat=1),
    dict(players=4, opponents=["heuristic", "random", "greedy"], seat=2),
    dict(players=3, opponents=["random-play", "heuristic"], seat="random"),
    dict(rules="classic", players=2, seat=0,
         opponents=f"checkpoint:{CHECKPOINTS / 'classic-2p'}?sample"),
]


@pytest.mark.parametrize("cfg", CONFIGS)
def test_reused_agents_play_as_agents_built_anew(cfg):
    env = UnoAttackEnv(**cfg)
    rng = np.random.default_rng(1)
    for seed in [5, 6, 5, 7]:
        obs, info = env.reset(seed=seed)
        seat, agents, ref = reference_reset(env.game, env._specs, env._seat_arg, seed)
        assert env.seat == seat and env.state == ref
        while True:
            a = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, _, term, trunc, info = env.step(a)
            ref.apply(a)
            play_opponents(ref, seat, agents)
            assert env.state == ref
            assert np.array_equal(obs, ref.observation(seat))
            if term or trunc:
                assert ref.is_round_over()
                break


def episode(env, seed, actions_rng):
    obs, info = env.reset(seed=seed)
    trace = [obs, env.seat]
    while True:
        a = int(actions_rng.choice(np.flatnonzero(info["action_mask"])))
        obs, r, term, trunc, info = env.step(a)
        trace += [a, obs, r, env.state.to_json()]
        if term or trunc:
            return trace


def same_trace(t1, t2):
    return len(t1) == len(t2) and all(
        np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y for x, y in zip(t1, t2)
    )


@pytest.mark.parametrize("cfg", CONFIGS)
def test_an_env_reset_many_times_replays_a_fresh_env(cfg):
    used = UnoAttackEnv(**cfg)
    for k in range(4):
        episode(used, 100 + k, np.random.default_rng(k))
    for seed in [100, 103, 9]:
        fresh = episode(UnoAttackEnv(**cfg), seed, np.random.default_rng(seed))
        assert same_trace(episode(used, seed, np.random.default_rng(seed)), fresh)


def test_opponents_are_built_once(monkeypatch):
    built = []

    def counting_agent(*args, **kwargs):
        built.append(args)
        return core.Agent(*args, **kwargs)

    spec = f"checkpoint:{CHECKPOINTS / 'attack-2010-4p'}"
    monkeypatch.setattr(ua_gym, "Agent", counting_agent)
    # One agent per seat, built (and checked against the rules) when the env is made.
    env = UnoAttackEnv(players=4, seat="random", opponents=[spec, "heuristic", "random"])
    assert len(built) == 3
    env.reset(seed=0)
    first = set(map(id, env._agents.values()))
    assert len(built) == 3
    for k in range(1, 10):
        env.reset(seed=k)
        assert set(map(id, env._agents.values())) == first
    assert len(built) == 3


# -- PettingZoo before reset ------------------------------------------------------


def test_pettingzoo_raw_env_before_reset_raises_runtime_error():
    pytest.importorskip("pettingzoo")
    from uno_attack.pettingzoo import raw_env

    e = raw_env(players=3)
    with pytest.raises(RuntimeError, match=r"observe\(\) before reset\(\): call reset\(\) first"):
        e.observe("player_0")
    with pytest.raises(RuntimeError, match=r"last\(\) before reset\(\): call reset\(\) first"):
        e.last()
    with pytest.raises(RuntimeError, match=r"step\(\) before reset\(\): call reset\(\) first"):
        e.step(0)
    e.reset(seed=0)
    obs, reward, terminated, truncated, _ = e.last()
    assert obs["action_mask"].any() and reward == 0.0 and not (terminated or truncated)
    assert np.array_equal(e.observe(e.agent_selection)["observation"], obs["observation"])


# -- the type stubs declare everything _core has ----------------------------------


def stub_tree():
    return ast.parse((PYTHON_DIR / "uno_attack" / "_core.pyi").read_text())


def stub_members(node):
    names = {}
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names[item.name] = item
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            names[item.target.id] = item
        elif isinstance(item, ast.Assign):
            names.update({t.id: item for t in item.targets if isinstance(t, ast.Name)})
        elif isinstance(item, ast.ClassDef):
            names[item.name] = item
    return names


def core_classes():
    return {n: c for n, c in vars(core).items() if isinstance(c, type)}


def test_every_public_core_name_is_in_the_stub():
    module = stub_members(stub_tree())
    public = {n for n in dir(core) if not n.startswith("__")} | {"__version__"}
    assert sorted(public - set(module)) == []
    # ... and the stub names nothing the extension lacks (but its type aliases).
    aliases = {"RulesLike", "ActionLike", "SeatLike", "StepResult"}
    assert sorted(n for n in set(module) - aliases if not hasattr(core, n)) == []


@pytest.mark.parametrize("name", sorted(core_classes()))
def test_every_public_attribute_of_a_core_class_is_in_the_stub(name):
    classes = {n.name: n for n in stub_tree().body if isinstance(n, ast.ClassDef)}
    assert name in classes
    declared = stub_members(classes[name])
    cls = core_classes()[name]
    public = {m for m in dir(cls) if not m.startswith("_")}
    assert sorted(public - set(declared)) == []
    assert sorted(m for m in declared if not hasattr(cls, m)) == []


@pytest.mark.parametrize("name", sorted(core_classes()))
def test_stub_signatures_match_the_extension(name):
    classes = {n.name: n for n in stub_tree().body if isinstance(n, ast.ClassDef)}
    cls = core_classes()[name]
    for member, node in stub_members(classes[name]).items():
        if not isinstance(node, ast.FunctionDef) or (member.startswith("__") and member != "__init__"):
            continue
        if any(isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list):
            assert inspect.isdatadescriptor(getattr(cls, member, None)), f"{name}.{member}"
            continue
        runtime = inspect.signature(cls if member == "__init__" else getattr(cls, member))
        got = [(p.name, p.default is not inspect.Parameter.empty)
               for p in runtime.parameters.values() if p.name != "self"]
        static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
        args = node.args.args[0 if static else 1:]
        n_defaults = len(node.args.defaults)
        want = [(a.arg, i >= len(args) - n_defaults) for i, a in enumerate(args)]
        assert got == want, f"{name}.{member}"
