"""Game and State pickle and copy faithfully: a loaded State continues identically."""

import copy
import pickle

import numpy as np
import pytest

import uno_attack as ua

PROTOCOLS = range(pickle.HIGHEST_PROTOCOL + 1)
CUSTOM = {
    "preset": "attack-2010",
    "name": "my attack",
    "options": {"mega_hit": False, "hand_size": 5},
}


def roundtrip(obj, protocol=pickle.HIGHEST_PROTOCOL):
    return pickle.loads(pickle.dumps(obj, protocol=protocol))


def same_game(a, b):
    assert type(b) is ua.Game
    assert b.num_players == a.num_players and b.name == a.name
    assert b.rules() == a.rules() and b.rules_toml() == a.rules_toml()
    assert b.deck_size == a.deck_size
    assert b.new_state(11, stream=3) == a.new_state(11, stream=3)


@pytest.mark.parametrize("preset", ua.PRESETS)
def test_preset_games_round_trip(preset):
    g = ua.Game(preset, players=3)
    for protocol in PROTOCOLS:
        same_game(g, roundtrip(g, protocol))
    same_game(g, copy.copy(g))
    same_game(g, copy.deepcopy(g))


def test_a_game_from_a_custom_rules_dict_round_trips():
    g = ua.Game(CUSTOM, players=5)
    h = roundtrip(g)
    same_game(g, h)
    assert h.name == "my attack"
    assert h.rules()["options"]["mega_hit"] is False and h.rules()["options"]["hand_size"] == 5
    # ... and is not the preset: the options survived.
    assert h.rules() != ua.Game("attack-2010", players=5).rules()
    assert roundtrip(g.new_state(4)).game.rules() == g.rules()


def play_random(a, b, rng, steps):
    """Plays the same random legal actions on `a` and `b`, checking they stay equal."""
    played = 0
    while played < steps and not a.is_match_over():
        if a.is_round_over():
            assert a.next_round() == b.next_round()
        else:
            legal = a.legal_actions()
            assert b.legal_actions() == legal
            action = legal[int(rng.integers(len(legal)))]
            assert a.apply(action) == b.apply(action)
            played += 1
        assert a == b and a.to_json() == b.to_json()
        assert np.array_equal(a.observation(), b.observation())
    return played


@pytest.mark.parametrize("rules,players", [("attack-2010", 4), ("flash", 3), (CUSTOM, 2)])
def test_a_loaded_state_continues_identically(rules, players):
    game = ua.Game(rules, players=players)
    st = game.new_state(seed=21, stream=5)
    rng = np.random.default_rng(0)
    # Mid-round, with the chance generator advanced.
    for _ in range(15):
        st.apply(st.legal_actions()[int(rng.integers(len(st.legal_actions())))])
    for protocol in PROTOCOLS:
        loaded = roundtrip(st, protocol)
        assert type(loaded) is ua.State
        assert loaded == st and loaded.to_dict() == st.to_dict()
        assert loaded.last_events() == st.last_events()
        assert loaded.game.rules() == game.rules()
    a, b = st.clone(), roundtrip(st)
    assert play_random(a, b, np.random.default_rng(1), 200) > 0


def test_continuation_includes_chance_events():
    # attack-2010: presses fire the launcher at random, the chance draws come from the state.
    st = ua.Game("attack-2010", players=4).new_state(seed=3)
    a, b = st.clone(), roundtrip(st)
    fired = misses = 0
    rng = np.random.default_rng(2)
    for _ in range(2000):
        if a.is_match_over():
            break
        if a.is_round_over():
            a.next_round(), b.next_round()
            continue
        legal = a.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        ev = a.apply(action)
        assert b.apply(action) == ev
        presses = [e["fired"] for e in ev if e["event"] == "pressed"]
        fired += sum(f > 0 for f in presses)
        misses += sum(f == 0 for f in presses)
    assert a == b
    assert fired > 0 and misses > 0  # the launcher's chance outcomes replayed, both kinds


def test_deepcopy_of_a_state_continues_identically():
    st = ua.Game("flash", players=4).new_state(seed=8)
    a, b = copy.deepcopy(st), roundtrip(st)
    assert play_random(a, b, np.random.default_rng(3), 200) > 0


def test_a_damaged_pickle_is_a_value_error():
    st = ua.Game("classic", players=2).new_state(1)
    with pytest.raises(ValueError, match="invalid state JSON"):
        ua._core._state_from_json(st.game, "{}")
    with pytest.raises(ValueError, match="players"):
        ua._core._state_from_json(ua.Game("classic", players=3), st.to_json())


def test_a_reset_gym_env_does_not_pickle_but_its_state_does():
    # Documented: the opponents are Rust Agents, which do not pickle
    # (AsyncVectorEnv pickles the env factory instead).
    pytest.importorskip("gymnasium")
    from uno_attack.gym import UnoAttackEnv

    env = UnoAttackEnv(rules="classic", players=2)
    env.reset(seed=0)
    with pytest.raises(TypeError, match="Agent"):
        pickle.dumps(env)
    assert roundtrip(env.state) == env.state
