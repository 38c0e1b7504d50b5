"""The web page's view of a game: the chat's words and press data, only what the viewer may do."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import engine
from bot.hosting import Game, User
from bot.present import parse_press, say
from bot.present.catalog import translations
from bot.store.sqlite.store import SqliteStore
from bot.web.geometry import board_geometry
from bot.web.names import isolated
from bot.web.view import game_json
from tests.helpers.service import ANA, BEN, CID, Table, current, person_on_turn, service

CH = "tg:-100"


def started(table: Table) -> None:
    """A game of Ana and Ben in ``CH``, started."""
    table.new_game(CH, ANA)
    table.join(CH, ANA)
    table.join(CH, BEN)
    table.start(CH, ANA)


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return service(SqliteStore(str(tmp_path / "s.sqlite3")), seed=7)


def kinds(view: dict[str, object]) -> list[str]:
    actions = view["actions"]
    assert isinstance(actions, list)
    return [a["kind"] for a in actions]


def test_the_lobby_offers_each_viewer_what_they_may_do(table: Table) -> None:
    table.new_game(CH, ANA)
    table.join(CH, ANA)
    game = current(table, CH)
    host = game_json(game, ANA, "en")
    json.dumps(host)
    assert host["status"] == "lobby" and host["player"] is True
    assert kinds(host) == ["leave", "add_computer", "start", "level"]
    assert [a["label"] for a in host["actions"]] == [
        "Leave",
        "Add computer",
        "Start",
        "Level: normal",
    ]
    other = game_json(game, BEN, "pt_BR")
    assert kinds(other) == ["join"] and other["player"] is False
    assert other["actions"][0]["label"] != "Join"  # in Portuguese
    assert game_json(game, None, "en")["actions"] == []
    # the press data are the chat's
    for a in host["actions"]:
        press = parse_press(a["data"])
        assert press is not None and press.game_id == game.id and press.version == game.version
    assert host["status_lines"] and host["seats"][0]["name"] == "Ana"
    assert (
        host["seats"][0]["you"] is True and game_json(game, BEN, "en")["seats"][0]["you"] is False
    )


@pytest.mark.parametrize("rules", engine.RULE_SETS)
def test_a_game_played_to_its_end_in_every_rule_set(table: Table, rules: str) -> None:
    table.new_game(CH, ANA, rules)
    table.join(CH, ANA)
    table.join(CH, BEN)
    if rules == "super":
        table.join(CH, CID)
        table.add_computer(CH, ANA)
    reply = table.start(CH, ANA)
    game_id = current(table, CH).id
    geometry = board_geometry(rules)
    seen_moves = 0
    for _ in range(5000):
        got = table.get(game_id)
        assert got is not None
        game = got
        if game.status != "playing":
            break
        user = person_on_turn(game)
        assert user is not None
        mine = game_json(game, user, "es")
        others = [u for u in (ANA, BEN, CID) if not u.same(user)]
        theirs = game_json(game, others[0], "es")
        spectator = game_json(game, None, "es")
        assert mine["turn"]["yours"] is True and theirs["turn"]["yours"] is False
        assert theirs["moves"] == [] and theirs["actions"] == [] and spectator["actions"] == []
        for p in mine["pieces"]:
            assert p["at"] in ("yard", "home") or p["at"] in geometry["squares"]
        if mine["turn"]["phase"] == "roll":
            assert kinds(mine) == ["roll"]
            data = mine["actions"][0]["data"]
        else:
            assert mine["moves"] and kinds(mine) == []
            move = mine["moves"][0]
            assert move["to_at"] == "home" or move["to_at"] in geometry["squares"]
            assert move["number"] in move["pieces"] and move["label"]
            data = move["data"]
            seen_moves += 1
        reply = table.press(CH, user, data)
        assert not reply.refused, reply
    assert game.status == "over" and seen_moves > 0
    over = game_json(game, ANA, "it")
    assert over["status"] == "over" and over["turn"] is None
    assert kinds(over) == ["rematch"] and kinds(game_json(game, User("t", "9", "Z"), "it")) == []
    standings = over["standings"]
    assert standings is not None and standings["rows"][0]["place"] == 1
    assert any(row["winner"] for row in standings["rows"])
    assert "Classifica" in standings["title"] or "classifica" in standings["title"].lower()
    # each person's new rating, as the chat's standings tell it (Italian: 1.040)
    people = {s.colour for s in game.seats if s.user is not None}
    assert {row["colour"] for row in standings["rows"] if row["rating"]} == people
    for row in standings["rows"]:
        if row["rating"]:
            shown, change = game.rated[row["colour"]]
            sign = "+" if change > 0 else "\u2212" if change < 0 else "\u00b1"
            assert row["rating"] == f"{shown:,} ({sign}{abs(change):,})".replace(",", ".")


def test_the_last_move_and_roll_are_there_to_animate(table: Table) -> None:
    started(table)
    for _ in range(200):
        game = current(table, CH)
        view = game_json(game, None, "en")
        if view["last"] and "move" in view["last"]:
            move = view["last"]["move"]
            assert move["to_at"] in board_geometry("classic")["squares"] or move["to_at"] == "home"
            return
        user = person_on_turn(game)
        assert user is not None
        mine = game_json(game, user, "en")
        data = mine["moves"][0]["data"] if mine["moves"] else mine["actions"][0]["data"]
        table.press(CH, user, data)
    raise AssertionError("no move in 200 presses")


def test_the_caption_tells_the_story_of_the_last_actions_in_the_viewers_language(
    table: Table,
) -> None:
    started(table)
    game = current(table, CH)
    assert game_json(game, None, "en")["story"] == []  # nothing played yet
    for _ in range(12):
        user = person_on_turn(game)
        assert user is not None
        mine = game_json(game, user, "en")
        data = mine["moves"][0]["data"] if mine["moves"] else mine["actions"][0]["data"]
        reply = table.press(CH, user, data)
        assert not reply.refused and reply.view is not None
        game = current(table, CH)
    english, italian = game_json(game, None, "en"), game_json(game, None, "it")
    assert 1 <= len(english["story"]) <= 6 and len(english["story"]) == len(italian["story"])
    assert english["story"] != italian["story"]
    # its last line is the chat's, of the last press, its names isolated (bidi isolates)
    assert reply.view is not None and reply.view.story
    assert english["story"][-1] == say(reply.view.story[-1], isolated)
    assert "\u2068Ana\u2069" in "".join(english["story"] + english["status_lines"])


def test_a_names_own_bidi_controls_never_reach_past_it(table: Table) -> None:
    """A name that overrides the direction of what follows it ("Ana rolled 5" read
    backwards) shows plain where it stands alone and isolated in a sentence."""
    evil = User("telegram", "66", "\u202eevil\u202c\u2067")
    table.new_game(CH, evil)
    table.join(CH, evil)
    table.join(CH, BEN)
    table.start(CH, evil)
    game = current(table, CH)
    view = game_json(game, None, "en")
    assert [seat["name"] for seat in view["seats"]] == ["evil", "Ben"]
    assert view["turn"]["name"] in ("evil", "Ben")
    sentences = "".join(view["status_lines"])
    assert "\u202e" not in sentences and "\u2067" not in sentences
    assert sentences.count("\u2068") == sentences.count("\u2069") >= 1


def test_a_tournament_table_offers_only_i_am_in_to_its_waiting_players(tmp_path: Path) -> None:
    """On the live board a tournament's table is seated by the tournament: its waiting
    players may say they are in, nobody may join, start, leave or add computers."""
    import random

    from bot.service.game import GameService
    from bot.service.tournaments import Tournaments

    rng = random.Random(2)
    store = SqliteStore(str(tmp_path / "t.sqlite3"))
    svc = GameService(store, dice=lambda: rng.randint(1, 6), draw=lambda n: rng.randrange(n))
    tours = Tournaments(svc)
    people = [User("test", str(k), f"P{k}") for k in range(1, 5)]
    tours.open("test:t", people[0], "classic", timer=60, size=4, rounds=1)
    for person in people[1:]:
        out = tours.act("test:t", person, "join")
    (table,) = out.tables
    game = table.game
    assert game is not None and game.tour is not None
    stranger = User("test", "99", "Zed")
    for viewer, kinds in ((people[0], ["join"]), (stranger, [])):
        seen = game_json(game, viewer, "en")
        assert [a["kind"] for a in seen["actions"]] == kinds
        assert all(a["label"] == "I'm in" for a in seen["actions"])
    store.close()


COLOURS_PT = {"red": "vermelho", "green": "verde", "yellow": "amarelo", "blue": "azul"}


def _where_pt(progress: int) -> str:
    if progress == 0:
        return "na base"
    if progress == engine.HOME:
        return "na casa final"
    return f"casa {progress - 51} da reta final" if progress > 51 else f"casa {progress}"


def _with_a_choice(table: Table) -> tuple[Game, User]:
    """A game of Ana and Ben played on until the person on turn has a choice."""
    started(table)
    for _ in range(2000):
        game = current(table, CH)
        user = person_on_turn(game)
        assert user is not None
        mine = game_json(game, user, "en")
        if len(mine["moves"]) >= 2:
            return game, user
        data = mine["moves"][0]["data"] if mine["moves"] else mine["actions"][0]["data"]
        table.press(CH, user, data)
    raise AssertionError("no choice in 2000 presses")


def test_every_piece_and_move_is_named_in_the_viewers_language(table: Table) -> None:
    """For screen readers: each piece by colour, number and place; each movable one
    with what pressing it does; each landing mark; the board and the spectator link."""
    game, user = _with_a_choice(table)
    assert game.state is not None
    view = game_json(game, user, "pt_BR")
    for p in view["pieces"]:
        colour = COLOURS_PT[p["colour"]]
        assert p["says"] == f"Peça {p['number']} do {colour}, {_where_pt(p['progress'])}"
    said = {(p["colour"], p["number"]): p["says"] for p in view["pieces"]}
    for m in view["moves"]:
        assert len(m["says"]) == len(m["pieces"])
        for n, says in zip(m["pieces"], m["says"], strict=True):
            assert says.startswith(said[m["colour"], n] + ": "), says
        assert m["mark"].startswith("Aqui "), m["mark"]
    assert view["words"]["board"] == "Tabuleiro de Ludo clássico"
    assert view["words"]["watch"] == "Link para espectadores"
    english = game_json(game, user, "en")
    assert english["words"]["board"] == "Classic Ludo board"
    assert all(
        re.fullmatch(r"(Red|Green|Yellow|Blue) \d, .+", p["says"]) for p in english["pieces"]
    )
    # a spectator is told where the pieces are too
    assert [p["says"] for p in game_json(game, None, "pt_BR")["pieces"]] == list(said.values())


@pytest.mark.parametrize("lang", ["en", "pt_BR", "es", "it"])
def test_a_move_says_what_it_does(lang: str) -> None:
    from bot.web.speech import mark_says, move_says, piece_says

    capture = engine.Move("red", 1, 23, 28, 5, captures=("green", 0))
    out = engine.Move("red", 0, 0, 1, 6, enter=True)
    home = engine.Move("red", 1, 53, engine.HOME, 4)
    tower = engine.Move("red", 1, 20, 25, 5, forms="tower")
    said = {
        "capture": move_says(capture, 2, 23, lang),
        "out": move_says(out, 3, 0, lang),
        "home": move_says(home, 2, 53, lang),
        "tower": move_says(tower, 2, 20, lang),
    }
    assert said["capture"].startswith(piece_says("red", 2, 23, lang) + ": ")
    assert said["out"].startswith(piece_says("red", 3, 0, lang) + ": ")
    assert said["home"].startswith(piece_says("red", 2, 53, lang) + ": ")
    assert said["tower"].startswith(piece_says("red", 2, 20, lang) + ": ")
    assert "28" in said["capture"] and "25" in said["tower"] and "2" in said["home"]
    words = {
        "en": ("captures a green piece", "start square", "moves home", "forms a tower"),
        "pt_BR": ("captura uma peça do verde", "casa de saída", "casa final", "forma uma torre"),
        "es": ("se come una ficha del verde", "casilla de salida", "meta", "forma una torre"),
        "it": ("mangia una pedina del verde", "casella di partenza", "a casa", "forma una torre"),
    }[lang]
    for (key, text), word in zip(said.items(), words, strict=True):
        assert word in text, (key, text)
    marks = [mark_says(m, lang) for m in (capture, out, home, tower)]
    assert len(set(marks)) == 4 and all(m[:1].isupper() and "{" not in m for m in marks)
    green = translations(lang).pgettext("colour", "green")
    assert green in marks[0] and green not in marks[3] and "28" in marks[0], marks


def test_each_action_is_told_once_numbered_by_the_record(table: Table) -> None:
    """The live region's words: each of the last actions, numbered by its place in the
    record, in the viewer's language; nothing before the game starts."""
    from bot.web.view import TOLD_ACTIONS

    table.new_game(CH, ANA)
    table.join(CH, ANA)
    table.join(CH, BEN)
    assert game_json(current(table, CH), ANA, "en")["told"] == []
    table.start(CH, ANA)
    seen: dict[int, str] = {}
    for _ in range(40):
        game = current(table, CH)
        user = person_on_turn(game)
        assert user is not None
        mine = game_json(game, user, "en")
        data = mine["moves"][0]["data"] if mine["moves"] else mine["actions"][0]["data"]
        table.press(CH, user, data)
        game = current(table, CH)
        told = game_json(game, None, "en")["told"]
        numbers = [t["n"] for t in told]
        count = len(game.record()["actions"])
        assert numbers == list(range(max(0, count - TOLD_ACTIONS), count))
        for t in told:  # an action is told in the same words each time
            assert seen.setdefault(t["n"], t["says"]) == t["says"]
    assert len(seen) > TOLD_ACTIONS
    lines = [re.sub("[\u2066-\u2069]", "", line) for line in seen.values()]  # bidi isolates
    assert any("rolled" in line for line in lines)
    assert any(re.search(r"(Ana|Ben) (moved|brought) piece \d", line) for line in lines)
    italian = game_json(game, ANA, "it")["told"]
    assert [t["n"] for t in italian] == numbers and italian[-1]["says"] != told[-1]["says"]
