"""Gymnasium single-agent env UnoAttack-v0."""

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402

import uno_attack  # noqa: E402,F401  (registers UnoAttack-v0)
from conftest import PYTHON_DIR  # noqa: E402
from uno_attack.gym import UnoAttackEnv  # noqa: E402


def play(env, seed, rng):
    obs, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        assert env.observation_space.contains(obs)
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.any()
        a = int(rng.choice(np.flatnonzero(mask)))
        obs, r, term, trunc, info = env.step(a)
        total += r
        steps += 1
        if term or trunc:
            return total, steps


def test_registered_and_make():
    env = gymnasium.make("UnoAttack-v0", rules="attack-2010", players=4, opponents="random")
    obs, info = env.reset(seed=0)
    assert obs.shape == (uno_attack.OBS_SIZE,) and "action_mask" in info
    env.close()


@pytest.mark.parametrize("kwargs", [
    {},
    {"rules": "flash", "players": 3, "seat": "random"},
    {"rules": "classic", "players": 2, "episode": "match", "reward": "points", "opponents": "greedy"},
])
def test_check_env(kwargs):
    env = gymnasium.make("UnoAttack-v0", **kwargs)
    check_env(env.unwrapped)


@pytest.mark.parametrize("opp", ["random", "greedy", "heuristic", ["random", "greedy", "heuristic"]])
def test_episodes_end_with_win_loss_rewards(opp):
    env = UnoAttackEnv(rules="attack-2010", players=4, opponents=opp)
    rng = np.random.default_rng(0)
    for seed in range(5):
        total, steps = play(env, seed, rng)
        assert total in (1.0, pytest.approx(-1 / 3), 0.0) and steps > 0


def test_seeding_is_reproducible():
    e1, e2 = UnoAttackEnv(seat="random"), UnoAttackEnv(seat="random")
    o1, i1 = e1.reset(seed=123)
    o2, i2 = e2.reset(seed=123)
    assert np.array_equal(o1, o2) and e1.seat == e2.seat
    a = int(np.flatnonzero(i1["action_mask"])[0])
    assert np.array_equal(e1.step(a)[0], e2.step(a)[0])


def test_illegal_action_modes():
    env = UnoAttackEnv()
    _, info = env.reset(seed=1)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, r, term, trunc, info = env.step(bad)
    assert term and r == -1.0 and "illegal" in info["illegal_action"]
    with pytest.raises(RuntimeError, match="the episode is over: call reset"):
        env.step(0)
    strict = UnoAttackEnv(illegal_action="raise")
    _, info = strict.reset(seed=1)
    with pytest.raises(ValueError, match="illegal action"):
        strict.step(bad)


def test_step_before_reset_and_unknown_reset_options_are_refused():
    env = UnoAttackEnv()
    with pytest.raises(RuntimeError, match=r"step\(\) before reset\(\): call reset\(\) first"):
        env.step(0)
    # Refused, not ignored, as the vector env does; an empty dict is no option.
    with pytest.raises(ValueError, match=r"reset options \['x'\] are not supported"):
        env.reset(seed=1, options={"x": 1})
    assert env.state is None
    obs, _ = env.reset(seed=1, options={})
    assert np.array_equal(obs, UnoAttackEnv().reset(seed=1)[0])


def test_bad_arguments():
    with pytest.raises(ValueError):
        UnoAttackEnv(players=11)
    with pytest.raises(ValueError):
        UnoAttackEnv(opponents="grandmaster")
    with pytest.raises(ValueError, match="2 opponent specs for 3 other seats"):
        UnoAttackEnv(players=4, opponents=["random", "random"])
    for bad in (None, 5, [None]):
        with pytest.raises(TypeError, match="opponents"):
            UnoAttackEnv(opponents=bad)
    with pytest.raises(ValueError):
        UnoAttackEnv(seat=4)
    # One spec in a list is one for all, as in VecEnv(opponents=[...]).
    assert UnoAttackEnv(players=4, opponents=["random"])._specs == ["random"] * 3


def test_render_modes(capsys):
    env = UnoAttackEnv(render_mode="ansi")
    env.reset(seed=0)
    assert "player_0" in env.render()
    env = UnoAttackEnv(render_mode="human")
    env.reset(seed=0)
    assert "player_0" in capsys.readouterr().out
    assert env.render() is None and "player_0" in capsys.readouterr().out


def test_render_without_a_render_mode_warns_and_returns_none(capsys):
    # Gymnasium's convention (and the PettingZoo env's): no text without a render_mode.
    env = gymnasium.make("UnoAttack-v0", rules="classic", players=2)
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.unwrapped.render() is None
    assert capsys.readouterr().out == ""


def test_ansi_render_shows_every_hand():
    # The debugging view: the opponents' hands are in the picture too.
    env = UnoAttackEnv(rules="classic", players=3, render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    for p in range(3):
        line = next(ln for ln in text.splitlines() if f"player_{p} score" in ln)
        assert line.split(": ", 1)[1].split() == env.state.hand(p)


SHIPPED_CLASSIC = __import__("pathlib").Path(__file__).resolve().parents[2] / "checkpoints" / "classic-2p"


def test_a_shipped_checkpoint_is_an_opponent_and_outplays_random():
    spec = f"checkpoint:{SHIPPED_CLASSIC}"
    env = gymnasium.make("UnoAttack-v0", rules="classic", players=2, opponents=spec)
    rng = np.random.default_rng(0)
    wins = sum(play(env, seed, rng)[0] > 0 for seed in range(100))
    # Uniformly random actions win about 4 % against the trained bot; a
    # random opponent would lose to them half the time.
    assert wins < 25, f"a random learner won {wins}/100 against {spec}"
    env.close()


def test_a_missing_or_corrupt_checkpoint_is_a_value_error(tmp_path):
    (tmp_path / "meta.json").write_text("{not json")
    (tmp_path / "model.bpk").write_bytes(b"junk")
    with pytest.raises(ValueError, match="meta.json"):
        uno_attack.Agent(f"checkpoint:{tmp_path}")
    with pytest.raises(ValueError, match="does not exist"):
        uno_attack.Agent("checkpoint:/no/such/dir")
    with pytest.raises(ValueError, match="does not exist"):
        gymnasium.make("UnoAttack-v0", rules="classic", players=2, opponents="checkpoint:/no/such/dir")


@pytest.mark.parametrize("illegal_action", ["lose", "raise"])
def test_non_integer_actions_raise_type_error_and_change_nothing(illegal_action):
    env = UnoAttackEnv(illegal_action=illegal_action)
    _, info = env.reset(seed=2)
    legal = int(np.flatnonzero(info["action_mask"])[0])
    before = env.state.to_json()
    for bad in (legal + 0.7, float(legal), np.float64(legal), True, str(legal), np.array([legal]), None):
        with pytest.raises(TypeError, match="an action must be an integer action id"):
            env.step(bad)
        assert env.state.to_json() == before
    env.step(np.int32(legal))  # numpy integers are accepted, and the episode went on


@pytest.mark.parametrize("illegal_action", ["lose", "raise"])
def test_ids_outside_the_action_space_raise_value_error_and_change_nothing(illegal_action):
    # Not a move a policy made but a bug in the caller: never an episode lost.
    env = UnoAttackEnv(illegal_action=illegal_action)
    env.reset(seed=2)
    before = env.state.to_json()
    for bad in (98, 200, -1, 2**70, np.int64(-5)):
        with pytest.raises(ValueError, match="out of range"):
            env.step(bad)
        assert env.state.to_json() == before


def test_numpy_integer_scalars_and_0d_arrays_are_actions():
    e1, e2 = UnoAttackEnv(), UnoAttackEnv()
    _, info = e1.reset(seed=5)
    e2.reset(seed=5)
    a = int(np.flatnonzero(info["action_mask"])[0])
    assert np.array_equal(e1.step(np.uint8(a))[0], e2.step(np.array(a))[0])


def test_a_checkpoint_for_other_rules_is_refused_at_make():
    spec = f"checkpoint:{SHIPPED_CLASSIC}"
    with pytest.raises(ValueError, match="trained for rules `classic`, not `attack-2010`"):
        gymnasium.make("UnoAttack-v0", rules="attack-2010", players=2, opponents=spec)
    with pytest.raises(ValueError, match="trained for rules `classic`, not `flash`"):
        UnoAttackEnv(rules="flash", players=3, opponents=["random", spec])


def test_an_illegal_move_pays_no_better_than_any_legal_loss():
    # reward="points": a legal round can cost a seat its hand's points / 100,
    # so the default penalty is the whole deck's (C-6); "win" keeps -1.
    rng = np.random.default_rng(0)
    env = gymnasium.make("UnoAttack-v0", reward="points", opponents="heuristic")
    worst = min(play(env, seed, rng)[0] for seed in range(40))
    assert worst < -1.0  # a legal loss can be worse than -1 in points
    deck = env.unwrapped.game.deck_points
    assert env.unwrapped.illegal_reward == -deck / 100 < worst
    _, info = env.reset(seed=0)
    _, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
    assert (r, term, trunc) == (-deck / 100, True, False) and "illegal_action" in info
    win = gymnasium.make("UnoAttack-v0", opponents="heuristic")
    assert win.unwrapped.illegal_reward == -1.0
    custom = gymnasium.make("UnoAttack-v0", reward="points", illegal_reward=-100)
    _, info = custom.reset(seed=0)
    assert custom.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))[1] == -100.0
    for bad, err in (("a", TypeError), (True, TypeError), (float("nan"), ValueError)):
        with pytest.raises(err, match="illegal_reward"):
            UnoAttackEnv(illegal_reward=bad)


def test_a_bool_is_not_a_seat():
    for seat in (True, np.bool_(False), 4, -1, "rotate"):
        with pytest.raises(ValueError, match="seat must be 0..3 or 'random'"):
            UnoAttackEnv(seat=seat)


def test_a_game_as_rules_keeps_its_table_size():
    g = uno_attack.Game("classic", 2)
    assert UnoAttackEnv(rules=g).game.num_players == 2
    with pytest.raises(ValueError, match="a Game for 2 players, and players = 3"):
        UnoAttackEnv(rules=g, players=3)


def test_a_checkpoint_opponents_note_is_warned_once_when_the_env_is_made(recwarn):
    # The 2-player checkpoint at a 3-player table: a note, not an error.
    spec = f"checkpoint:{PYTHON_DIR.parent / 'checkpoints' / 'attack-2010-2p'}"
    env = UnoAttackEnv(players=3, opponents=spec)
    notes = [w for w in recwarn if issubclass(w.category, UserWarning)]
    assert len(notes) == 1 and notes[0].filename == __file__
    env.reset(seed=1)
    env.reset(seed=2)
    assert len([w for w in recwarn if issubclass(w.category, UserWarning)]) == 1
    # Through gymnasium.make the note names this line too, not Gymnasium's
    # registry (a fixed stacklevel of 2 named gymnasium/envs/registration.py).
    recwarn.clear()
    gymnasium.make("UnoAttack-v0", players=3, opponents=spec)
    notes = [w for w in recwarn if issubclass(w.category, UserWarning)]
    assert len(notes) == 1 and notes[0].filename == __file__, [n.filename for n in notes]


def test_spaces_have_finite_bounds_that_hold_in_play():
    # obs::bounds: face counts up to the deck's copies, scores up to the target
    # plus the deck's points; play() asserts every observation is inside.
    env = gymnasium.make("UnoAttack-v0", rules="classic", players=3, opponents="random", episode="match")
    space = env.observation_space
    assert np.isfinite(space.high).all() and (space.low < space.high).all()
    low, high = uno_attack.Game("classic", 3).obs_bounds(oracle=True)
    assert low.shape == high.shape == (uno_attack.ORACLE_SIZE,)
    assert (high[: uno_attack.OBS_SIZE] == space.high).all()
    rng = np.random.default_rng(1)
    for seed in range(3):
        play(env, seed, rng)


def test_points_of_rounds_finished_before_the_learners_first_turn_are_paid_with_it():
    # One-card hands: the opponents may finish round 1 of a match before the
    # learner acts. That round counts in the scores, so its points reward is
    # paid with the learner's first step (it used to be lost). The expected
    # reward comes from replaying reset's draws and the step on a copy.
    from gymnasium.utils import seeding
    rules = {"preset": "classic", "options": {"hand_size": 1, "target_score": 200}}
    env = gymnasium.make("UnoAttack-v0", rules=rules, players=4, opponents="first-legal",
                         episode="match", reward="points").unwrapped
    first = uno_attack.Agent("first-legal")

    def play_out(st, acc):
        """Plays the opponents as the env does; adds the learner's points."""
        while True:
            if st.is_round_over():
                acc += st.rewards("points")[0]
                if st.is_match_over() or st.is_truncated():
                    return acc
                st.next_round()
                continue
            if st.current_player == 0:
                return acc
            st.apply(first.act(st))

    checked = 0
    for k in range(80):
        env.reset(seed=k)
        if env.state.round == 1:
            continue
        rng, _ = seeding.np_random(k)
        for _ in range(3):  # the opponents' seeds
            rng.integers(0, 2**63 - 1)
        st = env.game.new_state(int(rng.integers(0, 2**63 - 1)))
        lost = play_out(st, 0.0)
        assert st == env.state
        assert lost != 0.0
        a = int(np.flatnonzero(env.state.legal_mask())[0])
        after = env.state.clone()
        after.apply(a)
        want = lost + play_out(after, 0.0)
        _, reward, *_ = env.step(a)
        assert reward == pytest.approx(want, abs=1e-6)
        checked += 1
        if checked >= 5:
            break
    assert checked >= 5


@pytest.mark.parametrize("seed, error, message", [
    (-1, OverflowError, r"seed = -1 is out of range"),
    (2**64, OverflowError, r"seed = 18446744073709551616 is out of range"),
    (True, TypeError, "seed must be an int, got bool"),
    (1.5, TypeError, "seed must be an int, got float"),
])
def test_a_refused_seed_changes_nothing(seed, error, message):
    # It used to be Gymnasium's own error (or True taken as 1, 2**64
    # accepted), raised after nothing or after reseeding.
    env, twin = gymnasium.make("UnoAttack-v0"), gymnasium.make("UnoAttack-v0")
    _, info = env.reset(seed=5)
    twin.reset(seed=5)
    with pytest.raises(error, match=message):
        env.reset(seed=seed)
    # The episode goes on as the twin's, and the next unseeded deal is the twin's.
    a = int(np.flatnonzero(info["action_mask"])[0])
    assert np.array_equal(env.step(a)[0], twin.step(a)[0])
    assert np.array_equal(env.reset()[0], twin.reset()[0])


# -- action_masks(): the method sb3-contrib's MaskablePPO calls ----------------------
# sb3-contrib finds it with `env.get_wrapper_attr("action_masks")` (its DummyVecEnv's
# `env_method`, and `get_action_masks` on a plain env), so these tests call it that
# way, through gymnasium.make's wrappers, without needing stable-baselines3.

STALL = {"preset": "classic", "options": {"max_decisions": 30}}  # rounds cut at the cap


def masks_of(env):
    return env.get_wrapper_attr("action_masks")()


def check_mask(env, info):
    """action_masks() is info["action_mask"] != 0, and exactly the learner's legal actions."""
    m = masks_of(env)
    assert m.dtype == np.bool_ and m.shape == (uno_attack.NUM_ACTIONS,)
    assert np.array_equal(m, info["action_mask"] != 0)
    return m


@pytest.mark.parametrize("kwargs", [
    {"rules": "classic", "players": 2},
    {"rules": "attack-2010", "players": 4, "opponents": "heuristic"},
    {"rules": "attack-2010", "players": 4, "seat": "random", "opponents": ["random", "greedy", "heuristic"]},
    {"rules": "flash", "players": 3, "episode": "match", "reward": "points"},
    {"rules": STALL, "players": 2, "episode": "match"},
])
def test_action_masks_is_the_info_mask_and_the_legal_actions_at_every_decision(kwargs):
    env = gymnasium.make("UnoAttack-v0", **kwargs)
    u = env.unwrapped
    rng = np.random.default_rng(0)
    ends = set()
    for seed in range(4):
        _, info = env.reset(seed=seed)
        while True:
            m = check_mask(env, info)
            # The learner is to act, and True marks exactly the engine's legal actions.
            assert u.state.current_player == u.seat
            assert np.flatnonzero(m).tolist() == sorted(u.state.legal_actions())
            assert np.array_equal(m, u.state.legal_mask() != 0)
            _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(m))))
            if term or trunc:
                break
        # After the episode: still the last info's mask, all False (no decision left).
        assert not check_mask(env, info).any()
        ends.add("truncated" if trunc else "terminated")
    if kwargs["rules"] is STALL:
        assert "truncated" in ends  # the cut-off case was exercised


def test_action_masks_before_reset_is_a_runtime_error():
    for env in (UnoAttackEnv(), gymnasium.make("UnoAttack-v0")):
        with pytest.raises(RuntimeError, match=r"action_masks\(\) before reset\(\): call reset\(\) first"):
            masks_of(env)
        env.reset(seed=0)
        assert masks_of(env).any()


def test_action_masks_returns_a_new_array_that_later_steps_do_not_change():
    env = gymnasium.make("UnoAttack-v0", rules="classic", players=2)
    _, info = env.reset(seed=3)
    first = masks_of(env)
    kept = first.copy()
    assert first is not masks_of(env) and not np.shares_memory(first, info["action_mask"])
    first[:] = False  # writing into a returned mask changes nothing in the env
    assert np.array_equal(masks_of(env), kept)
    rng = np.random.default_rng(3)
    changed = False
    for _ in range(10):
        _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        changed |= not np.array_equal(masks_of(env), kept)
        if term or trunc:
            break
    assert changed  # the decisions moved on; the mask kept from reset did not
    assert not first.any()


def test_action_masks_after_an_illegal_move_is_the_final_info_mask():
    # illegal_action="lose": the move is not played, so the final info's mask is
    # still the position's legal actions; step() is refused until reset().
    env = UnoAttackEnv(rules="classic", players=2)
    _, info = env.reset(seed=1)
    legal = env.action_masks()
    bad = int(np.flatnonzero(~legal)[0])
    _, _, term, _, info = env.step(bad)
    assert term and "illegal_action" in info
    assert np.array_equal(env.action_masks(), info["action_mask"] != 0)
    assert np.array_equal(env.action_masks(), legal)
    with pytest.raises(RuntimeError, match="the episode is over"):
        env.step(int(np.flatnonzero(legal)[0]))


def test_action_masks_after_an_interrupted_step_is_refused_as_step_is():
    class Interrupting:
        def act(self, state):
            raise KeyboardInterrupt

    env = UnoAttackEnv("attack-2010", 4, opponents="random")
    _, info = env.reset(seed=1)
    for seat in env._agents:
        env._agents[seat] = Interrupting()
    with pytest.raises(KeyboardInterrupt):
        env.step(int(np.flatnonzero(info["action_mask"])[0]))
    with pytest.raises(RuntimeError, match="interrupted"):
        env.action_masks()
    env = UnoAttackEnv("attack-2010", 4, opponents="random")
    _, info = env.reset(seed=1)
    assert np.array_equal(env.action_masks(), info["action_mask"] != 0)


def test_action_masks_as_sb3_contribs_dummy_vec_env_stacks_them():
    # sb3-contrib: np.stack(vec_env.env_method("action_masks")), one row per env,
    # each through env.get_wrapper_attr; a missing method would be AttributeError.
    envs = [gymnasium.make("UnoAttack-v0", rules="classic", players=2) for _ in range(3)]
    infos = [e.reset(seed=k)[1] for k, e in enumerate(envs)]
    stacked = np.stack([e.get_wrapper_attr("action_masks")() for e in envs])
    assert stacked.shape == (3, uno_attack.NUM_ACTIONS) and stacked.dtype == np.bool_
    assert np.array_equal(stacked, np.stack([i["action_mask"] for i in infos]) != 0)


def test_vector_env_action_masks_is_the_info_mask_of_every_game():
    from uno_attack.gym import UnoAttackVectorEnv

    env = gymnasium.make_vec("UnoAttack-v0", num_envs=6, rules="attack-2010", players=4,
                             opponents="heuristic", seat="rotate")
    assert isinstance(env, UnoAttackVectorEnv)
    with pytest.raises(RuntimeError, match=r"action_masks\(\) before reset\(\): call reset\(\) first"):
        env.action_masks()
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(300):
        m = env.action_masks()
        assert m.dtype == np.bool_ and m.shape == (6, uno_attack.NUM_ACTIONS)
        assert np.array_equal(m, info["action_mask"] != 0) and m.any(axis=1).all()
        for i in range(6):  # the learner's legal actions in game i
            assert np.array_equal(m[i], env._env.state(i).legal_mask() != 0)
        kept = m.copy()
        actions = np.argmax(rng.random(m.shape) * m, axis=1)
        _, _, term, trunc, info = env.step(actions)
        ended += int((term | trunc).sum())
        assert np.array_equal(m, kept)  # not a view of the Rust buffer
    assert ended > 6  # autoreset rows were exercised
    env.close()
    with pytest.raises(gymnasium.error.ClosedEnvironmentError, match="action_masks"):
        env.action_masks()
