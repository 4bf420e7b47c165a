"""Game / State: construction, legality, apply, observations, dicts, scenarios."""

import copy
import json
import shutil
import warnings

import numpy as np
import pytest

import uno_attack as ua
from conftest import PYTHON_DIR


def test_constants_and_layout():
    assert ua.NUM_ACTIONS == 98
    assert ua.OBS_VERSION >= 1
    assert ua.ORACLE_SIZE > ua.OBS_SIZE
    assert "attack-2010" in ua.PRESETS and "classic" in ua.PRESETS
    pieces = ua.obs_pieces()
    end = 0
    for p in pieces:
        assert set(p) >= {"name", "offset", "shape", "size", "doc"}
        assert p["offset"] == end
        assert p["size"] == p["shape"][0] * p["shape"][1]
        end += p["size"]
    assert end == ua.OBS_SIZE
    assert [p["name"] for p in pieces][:2] == ["hand", "top_card"]


def test_action_names_round_trip():
    names = ua.action_names()
    assert len(names) == 98
    for i, n in enumerate(names):
        assert ua.action_name(i) == n
        assert ua.action_id(n) == i
    assert ua.action_id("press") == ua.action_id("draw") == 79
    assert ua.action_name(81) == "colour:red"
    with pytest.raises(ValueError):
        ua.action_id("play:Q9")
    with pytest.raises(ValueError):
        ua.action_name(98)


@pytest.mark.parametrize("preset", ua.PRESETS)
def test_every_preset_plays_a_round(preset):
    game = ua.Game(preset, 3)
    st = game.new_state(1)
    while not st.is_round_over():
        legal = st.legal_actions()
        mask = st.legal_mask()
        assert mask.dtype == np.uint8 and mask.shape == (98,)
        assert list(np.flatnonzero(mask)) == legal
        st.apply(legal[-1])
        assert st.check_invariants() is None
    assert st.current_player is None
    assert st.legal_actions() == []
    r = st.rewards("win")
    assert len(r) == 3 and abs(sum(r)) < 1e-5


def test_rules_sources(tmp_path):
    toml = 'preset = "attack-2010"\n[options]\nmega_hit = false\n'
    path = tmp_path / "r.toml"
    path.write_text(toml)
    by_text = ua.Game(toml, 4)
    by_path = ua.Game(str(path), 4)
    by_pathlike = ua.Game(path, 4)
    by_dict = ua.Game({"preset": "attack-2010", "options": {"mega_hit": False}}, 4)
    base = ua.Game("attack-2010", 4)
    assert by_text.rules() == by_path.rules() == by_pathlike.rules() == by_dict.rules()
    assert by_dict.rules()["options"]["mega_hit"] is False
    assert base.rules()["options"]["mega_hit"] is True
    full = ua.Game(base.rules(), 4)  # a complete rules dict round-trips
    assert full.rules() == base.rules()
    assert ua.Game(base.rules_toml(), 4).rules() == base.rules()
    assert base.num_players == 4 and base.deck_size > 100 and base.num_actions == 98


def test_bad_arguments_raise_value_error():
    with pytest.raises(ValueError, match="unknown rules"):
        ua.Game("attack-3000", 4)
    with pytest.raises(ValueError, match="player count 11"):
        ua.Game("attack-2010", 11)
    with pytest.raises(ValueError, match="player count 1"):
        ua.Game("classic", 1)
    with pytest.raises(ValueError):
        ua.Game({"preset": "attack-2010", "options": {"no_such_option": 1}}, 4)
    with pytest.raises(ValueError):
        ua.Game("preset = 3\n", 4)
    with pytest.raises(ValueError):
        ua.VecEnv("attack-2010", 11, num_envs=4)
    with pytest.raises(ValueError):
        ua.VecEnv("attack-2010", 4, num_envs=4, episode="season")
    with pytest.raises(ValueError):
        ua.VecEnv("attack-2010", 4, num_envs=4, reward="money")
    with pytest.raises(ValueError):
        ua.Agent("grandmaster")


def test_illegal_action_leaves_state_unchanged():
    game = ua.Game("attack-2010", 4)
    st = game.new_state(3)
    before = st.to_json()
    illegal = [a for a in range(98) if a not in st.legal_actions()]
    for a in illegal[:20] + ["colour:red", "challenge"]:
        with pytest.raises(ValueError, match="illegal action"):
            st.apply(a)
        assert st.to_json() == before
    with pytest.raises(ValueError, match="out of range"):
        st.apply(98)
    with pytest.raises(ValueError, match="out of range"):
        st.apply(-1)
    with pytest.raises(ValueError, match="unknown action name"):
        st.apply("fly")
    assert st.to_json() == before


def test_apply_by_name_and_events():
    game = ua.Game("attack-2010", 4)
    st = game.new_state(5)
    events = st.apply("draw")
    assert isinstance(events, list) and events
    assert all(isinstance(e, dict) and "event" in e for e in events)
    assert st.last_events() == events
    assert any(e["event"] == "pressed" for e in events)


def test_observation_and_oracle():
    game = ua.Game("attack-2010", 4)
    st = game.new_state(9)
    obs = st.observation()
    assert obs.dtype == np.float32 and obs.shape == (ua.OBS_SIZE,)
    me = st.current_player
    assert np.array_equal(obs, st.observation(me))
    hand = ua.obs_pieces()[0]
    assert obs[hand["offset"] : hand["offset"] + hand["size"]].sum() == st.hand_len(me) == 7
    oracle = st.oracle_observation(0)
    assert oracle.shape == (ua.ORACLE_SIZE,)
    assert np.array_equal(oracle[: ua.OBS_SIZE], st.observation(0))
    assert "hand" in ua.describe_obs(obs)
    with pytest.raises(IndexError):
        st.observation(4)


def test_history_piece_counts_cards_taken_since_the_deal():
    # Observation version 2: per relative seat, named colour (4), last coloured
    # card's colour (4), cards taken since the seat last played / 10 (1).
    pieces = {p["name"]: p for p in ua.obs_pieces()}
    hist = pieces["history"]
    # Followed by version 3's `edition` piece, the last one.
    assert tuple(hist["shape"]) == (10, 9) and hist["offset"] + hist["size"] == pieces["edition"]["offset"]
    assert pieces["edition"]["offset"] + pieces["edition"]["size"] == ua.OBS_SIZE
    game = ua.Game("attack-2010", 4)
    st = game.new_state(9)
    me = st.current_player
    rows = st.observation(me)[hist["offset"] : hist["offset"] + hist["size"]].reshape(10, 9)
    for k in range(4):
        seat = (me + k) % 4
        assert rows[k, :8].sum() == 0  # nothing named or played yet
        assert rows[k, 8] == pytest.approx(st.hand_len(seat) / 10)
    assert not rows[4:].any()  # padding seats


def test_history_dict_matches_the_observation():
    game = ua.Game("attack-2010", 4)
    hist = next(p for p in ua.obs_pieces() if p["name"] == "history")
    colours = ["red", "yellow", "green", "blue"]
    named_seen = False
    for seed in range(20):
        st = game.new_state(seed)
        rng = np.random.default_rng(seed)
        while not st.is_round_over() and not named_seen:
            legal = st.legal_actions()
            st.apply(int(rng.choice(legal)))
            me = st.current_player if not st.is_round_over() else 0
            rows = st.observation(me)[hist["offset"] : hist["offset"] + hist["size"]]
            rows = rows.reshape(10, 9)
            for k in range(4):
                h = st.history((me + k) % 4)
                named = [float(c == h["named_colour"]) for c in colours]
                last = [float(c == h["last_played_colour"]) for c in colours]
                assert list(rows[k, :8]) == named + last
                assert rows[k, 8] == pytest.approx(h["taken_since_play"] / 10)
                assert set(h["pressed_on"]) <= set(colours)
                named_seen |= h["named_colour"] is not None
        if named_seen:
            break
    assert named_seen, "no wild was played in 20 random rounds"
    with pytest.raises(IndexError):
        st.history(4)


def test_resample_hidden_keeps_what_the_seat_sees():
    game = ua.Game("attack-2010", 4)
    st = game.new_state(5)
    for _ in range(12):
        st.apply(st.legal_actions()[0])
    me = st.current_player
    other = (me + 1) % 4
    samples = [st.resample_hidden(seed=k) for k in range(10)]
    for s in samples:
        assert np.array_equal(s.observation(me), st.observation(me))
        assert s.legal_actions() == st.legal_actions()
        assert [s.hand_len(p) for p in range(4)] == [st.hand_len(p) for p in range(4)]
        assert s.check_invariants() is None
    assert len({tuple(s.hand(other)) for s in samples}) > 5
    assert st.resample_hidden(seed=3) == st.resample_hidden(seed=3)
    with pytest.raises(IndexError):
        st.resample_hidden(seed=1, seat=4)


def test_state_dict_json_round_trip():
    game = ua.Game("flash", 3)
    st = game.new_state(11)
    for _ in range(10):
        st.apply(st.legal_actions()[0])
    d = st.to_dict()
    assert isinstance(d, dict) and d["players"] == 3
    json.dumps(d)
    again = game.state_from_dict(d)
    assert again == st and again.to_json() == st.to_json()
    again2 = game.state_from_json(st.to_json())
    assert again2 == st
    # the copies continue identically (the chance generator is part of the state)
    a, b = st.clone(), copy.deepcopy(st)
    for _ in range(30):
        if a.is_round_over():
            break
        x = a.legal_actions()[-1]
        a.apply(x)
        b.apply(x)
    assert a == b
    with pytest.raises(ValueError):
        game.state_from_json("{}")
    with pytest.raises(ValueError, match="players"):
        ua.Game("flash", 4).state_from_json(st.to_json())


def test_scenario_from_dict():
    game = ua.Game("attack-2010", 4)
    sc = {
        "hands": [["R1", "R2", "Y9"], ["Y3"], ["G4", "G5"], ["B6", "B7"]],
        "top": "R5",
        "current": 0,
    }
    st = game.scenario(sc)
    assert st.phase == "play" and st.current_player == 0
    assert st.top_face == "R5" and st.active_colour == "red"
    assert st.hand(0) == ["R1", "R2", "Y9"]
    assert set(st.legal_action_names()) == {"play:R1", "play:R2", "draw"}
    assert game.scenario(json.dumps(sc)) == st
    with pytest.raises(ValueError, match="hands"):
        game.scenario({"hands": [["R1"]], "top": "R5"})
    with pytest.raises(ValueError):
        game.scenario({"hands": [[], [], [], []], "top": "Q5"})
    with pytest.raises(ValueError):
        game.scenario({"bogus": 1})


def test_match_next_round_and_render():
    game = ua.Game("classic", 2)
    st = game.new_state(2)
    with pytest.raises(ValueError):
        st.next_round()
    while not st.is_round_over():
        st.apply(st.legal_actions()[0])
    text = st.render()
    assert "player_0" in text and "player_1" in text
    if not st.is_match_over():
        st.next_round()
        assert st.round == 2 and not st.is_round_over()


def test_agents_play_legal_actions():
    game = ua.Game("attack-2010", 4)
    for spec in ["random", "random-play", "first-legal", "greedy", "heuristic", "search:samples=4"]:
        agent = ua.Agent(spec, seed=1)
        st = game.new_state(4)
        while not st.is_round_over():
            a = agent.act(st)
            assert a in st.legal_actions()
            st.apply(a)
        agent.reset(2)
        with pytest.raises(ValueError):
            agent.act(st)


def at_a_challenge(game):
    """A state of `game` (classic rules) whose victim must answer a Wild Draw Four."""
    st = game.new_state(5)
    while st.phase != "challenge":
        st = game.new_state(st.decisions + 5) if st.is_round_over() else st
        legal = st.legal_actions()
        wd4 = [a for a in legal if ua.action_name(a) == "play:WD4"]
        st.apply(wd4[0] if wd4 else legal[0])
    return st


def test_state_with_out_of_range_fields_is_refused():
    # Each corrupt field used to load and then panic inside the engine.
    game = ua.Game("classic", 3)
    st = at_a_challenge(game)
    d = st.to_dict()
    for field, value, message in [
        ("offender", 255, "challenge with no `offender`"),
        ("offender", 7, "`offender` 7 is not a seat"),
        ("active", 65535, "`active` has seats outside"),
        ("dealer", 9, "dealer 9 is not a seat"),
        ("top", 200, "top card 200 is not a card"),
    ]:
        bad = dict(d, **{field: value})
        with pytest.raises(ValueError, match=message):
            game.state_from_dict(bad)
    assert game.state_from_dict(d) == st


def test_a_rules_dict_that_contains_itself_is_refused():
    d = {"preset": "classic"}
    d["options"] = d
    with pytest.raises(ValueError, match="contains itself"):
        ua.Game(d, players=2)
    deep = {"preset": "classic"}
    node = deep
    for _ in range(50_000):
        node["x"] = {}
        node = node["x"]
    with pytest.raises(ValueError, match="nested more than"):
        ua.Game(deep, players=2)


def test_rules_dict_none_is_refused_naming_the_key():
    with pytest.raises(ValueError, match=r"`options\.mega_hit` is None.*TOML has no null"):
        ua.Game({"preset": "attack-2010", "options": {"mega_hit": None}}, players=2)
    with pytest.raises(ValueError, match=r"`options\.no_such_option` is None"):
        ua.Game({"preset": "attack-2010", "options": {"no_such_option": None}}, players=2)
    with pytest.raises(ValueError, match=r"`preset` is None"):
        ua.Game({"preset": None}, players=2)
    with pytest.raises(ValueError, match=r"`name` is None"):
        ua.Game({"preset": "classic", "name": None}, players=2)
    # an optional setting left unset may be None: it means the same as leaving it out
    g = ua.Game({"preset": "attack-2010", "options": {"refill_at_discard": None}}, players=2)
    assert g.rules() == ua.Game("attack-2010", 2).rules()


@pytest.mark.parametrize("preset", ua.PRESETS)
def test_rules_dict_round_trips_with_its_none_values(preset):
    base = ua.Game(preset, 3)
    rules = base.rules()
    assert rules["options"]["refill_at_discard"] is None  # Game.rules() writes None for unset
    again = ua.Game(rules, players=3)
    assert again.rules() == rules and again.rules_toml() == base.rules_toml()


def test_rules_dict_nan_or_inf_is_refused_naming_the_key():
    for bad in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(ValueError, match=r"`options\.catch_probability` is .*not a finite number") as e:
            ua.Game({"preset": "classic", "options": {"catch_probability": bad}}, players=2)
        assert "line 1 column" not in str(e.value)


def test_apply_non_integer_or_huge_action():
    st = ua.Game("classic", 2).new_state(1)
    before = st.to_json()
    with pytest.raises(ValueError, match="action id 1180591620717411303424 is out of range"):
        st.apply(2**70)
    with pytest.raises(ValueError, match="is out of range"):
        st.apply(-(2**70))
    for bad in (float(st.legal_actions()[0]), 2.5, True, None, np.float64(1.0), [1]):
        with pytest.raises(TypeError, match="an action is an integer action id or a name string"):
            st.apply(bad)
    assert st.to_json() == before
    st.apply(np.int64(st.legal_actions()[0]))  # numpy integers are ids
    assert st.to_json() != before


def test_negative_sizes_and_seats():
    with pytest.raises(ValueError, match="invalid player count -1"):
        ua.Game("classic", players=-1)
    with pytest.raises(ValueError, match="invalid player count"):
        ua.Game("classic", players=2**70)
    st = ua.Game("classic", 2).new_state(0)
    for call in (
        lambda: st.observation(seat=-1),
        lambda: st.oracle_observation(seat=-1),
        lambda: st.hand(-1),
        lambda: st.hand_len(-1),
        lambda: st.history(-1),
        lambda: st.resample_hidden(seed=1, seat=-1),
        lambda: st.observation(seat=2**70),
    ):
        with pytest.raises(IndexError, match="is not at this table of 2"):
            call()
    # Seeds are unsigned 64-bit (documented): negative ones, and 2**64 or more,
    # are OverflowErrors naming the argument and its range.
    g = ua.Game("classic", 2)
    agent = ua.Agent("random")
    for name, call in (
        ("seed = -1 ", lambda: g.new_state(seed=-1)),
        ("stream = 18446744073709551616 ", lambda: g.new_state(seed=1, stream=2**64)),
        ("seed = -1 ", lambda: ua.Agent("random", seed=-1)),
        ("seed = 18446744073709551616 ", lambda: agent.reset(2**64)),
        ("seed = -5 ", lambda: st.resample_hidden(seed=-5)),
    ):
        with pytest.raises(OverflowError, match=f"^{name}is out of range: .*2\\*\\*64 - 1"):
            call()
    # Not an int at all: pyo3's TypeError, naming the argument.
    with pytest.raises(TypeError, match="seed"):
        g.new_state(seed=1.5)


CHECKPOINTS = PYTHON_DIR.parent / "checkpoints"


def test_checkpoint_agent_refuses_other_rules():
    agent = ua.Agent(f"checkpoint:{CHECKPOINTS / 'attack-2010-2p'}")
    classic = ua.Game("classic", 2).new_state(0)
    before = classic.to_json()
    with pytest.raises(ValueError, match="trained for rules `attack-2010`, not `classic`"):
        agent.act(classic)
    with pytest.raises(ValueError, match="trained for rules"):  # not cached as good
        agent.act(classic)
    assert classic.to_json() == before
    st = ua.Game("attack-2010", 2).new_state(0)
    assert agent.act(st) in st.legal_actions()
    search = ua.Agent(f"search:samples=2,base=checkpoint:{CHECKPOINTS / 'attack-2010-2p'}")
    with pytest.raises(ValueError, match="trained for rules `attack-2010`, not `classic`"):
        search.act(classic)


def test_checkpoint_check_is_made_once_per_game(tmp_path):
    ckpt = tmp_path / "ckpt"
    shutil.copytree(CHECKPOINTS / "attack-2010-2p", ckpt)
    agent = ua.Agent(f"checkpoint:{ckpt}")
    game = ua.Game("attack-2010", 2)
    st = game.new_state(3)
    agent.act(st)
    (ckpt / "meta.json").unlink()  # a second check would fail now
    agent.act(st)
    agent.act(game.new_state(4))  # same game: cached
    agent.act(ua.Game("attack-2010", 2).new_state(5))  # equal rules and table: cached
    with pytest.raises(ValueError, match="meta.json"):
        agent.act(ua.Game("attack-2010", 3).new_state(0))  # another table: checked


def test_checkpoint_at_another_table_size_warns():
    agent = ua.Agent(f"checkpoint:{CHECKPOINTS / 'attack-2010-2p'}")
    st = ua.Game("attack-2010", 4).new_state(0)
    with pytest.warns(UserWarning, match="trained with 2 players, playing with 4"):
        assert agent.act(st) in st.legal_actions()


def test_a_network_trained_on_several_tables_plays_each_of_them():
    # checkpoints/universal was trained on every preset at 2 and 4 players
    # (`uno-attack train --tables ...`): it plays each without a note.
    agent = ua.Agent(f"checkpoint:{CHECKPOINTS / 'universal'}")
    for rules in ["attack-1999", "attack-2010", "attack-modern", "flash", "classic"]:
        for n in (2, 4):
            st = ua.Game(rules, n).new_state(1)
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                assert agent.act(st) in st.legal_actions()
    st = ua.Game("flash", 3).new_state(0)
    with pytest.warns(UserWarning, match="trained with 2 and 4 players, playing with 3"):
        assert agent.act(st) in st.legal_actions()


def test_a_scenario_the_engine_cannot_play_is_refused():
    game = ua.Game("attack-2010", 3)
    with pytest.raises(ValueError, match="holds no cards while the round goes on"):
        game.scenario({"hands": [[], [], []], "top": "R5"})
    with pytest.raises(ValueError, match="only challenge scoring eliminates"):
        game.scenario({"hands": [["R1"], [], []], "top": "R5", "eliminated": [1]})
    challenge = ua.Game({"preset": "attack-2010", "options": {"scoring": "challenge"}}, 3)
    with pytest.raises(ValueError, match="two seats"):
        challenge.scenario({"hands": [["R1"], [], []], "top": "R5", "eliminated": [1, 2]})


def test_a_rules_path_with_an_equals_sign_is_a_path(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        ua.Game(str(tmp_path / "rules=v2.toml"), 2)
    (tmp_path / "rules=v2.toml").write_text('preset = "classic"\n[options]\nhand_size = 5\n')
    assert ua.Game(str(tmp_path / "rules=v2.toml"), 2).rules()["options"]["hand_size"] == 5


def test_size_arguments_refuse_bools_and_huge_ints():
    with pytest.raises(ValueError, match="players = .* is out of range"):
        ua.Game("classic", 2**200)
    with pytest.raises(TypeError, match="players must be an int, got bool"):
        ua.Game("classic", True)
    with pytest.raises(TypeError, match="num_envs must be an int"):
        ua.VecEnv("classic", 2, num_envs=True)
    with pytest.raises(TypeError, match="threads must be an int"):
        ua.VecEnv("classic", 2, num_envs=2, threads=1.0)
    with pytest.raises(ValueError, match="num_envs = .* is out of range"):
        ua.VecEnv("classic", 2, num_envs=2**130)
    # Left out, they take their defaults.
    assert ua.Game("classic").num_players == 4
    assert ua.VecEnv("classic").num_envs == 1024


def test_a_challenge_event_shows_the_offenders_hand():
    """F-6: the offender shows their hand to the challenger; the event carries it."""
    game = ua.Game("classic", 3)
    st = at_a_challenge(game)
    offender = st.to_dict()["offender"]
    held = sorted(st.hand(offender))
    st.apply("challenge")
    (ev,) = [e for e in st.last_events() if e["event"] == "challenge"]
    assert ev["offender"] == offender
    assert sorted(ev["shown"]) == held


def test_deck_points_is_the_whole_decks_score():
    # C-6, classic: numbers at face value (one 0 and two each of 1-9 per colour:
    # 4 * 90), 24 action cards at 20, 8 wilds at 50.
    assert ua.Game("classic", 2).deck_points == 4 * 90 + 24 * 20 + 8 * 50 == 1240
    # The same for every table size.
    assert ua.Game("attack-2010", 2).deck_points == ua.Game("attack-2010", 10).deck_points


def test_a_finished_round_with_nobody_left_in_the_match_is_refused():
    # Found by fuzzing: such a state passed the check, and `next_round` then
    # dealt to no one (under Flash's random unit it raised a PanicException).
    game = ua.Game("flash", 2)
    for seed in range(50):
        st = game.new_state(seed)
        while not st.is_round_over():
            st.apply(st.legal_actions()[0])
        if not st.is_match_over():
            break
    d = st.to_dict()
    d["active"] = 0
    with pytest.raises(ValueError, match="eliminated"):
        game.state_from_dict(d)
    with pytest.raises(ValueError, match="eliminated"):
        game.state_from_json(json.dumps(d))
    # The state as it was still loads and deals its next round.
    again = game.state_from_json(st.to_json())
    again.next_round()
    assert not again.is_round_over()
