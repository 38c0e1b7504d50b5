"""The hosting domain as functions on a Game value: no store, no platform."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from typing import Any

import pytest

import engine
from bot.hosting import (
    ENDED,
    LOBBY,
    MAX_TIMEOUTS,
    OVER,
    PLAYING,
    Game,
    Happened,
    Intent,
    Luck,
    Note,
    Refusal,
    User,
    open_game,
    perform,
    timeout,
)
from bot.players import RandomPlayer
from tests.helpers.service import ANA, BEN, CID, DEE


def luck(dice: Iterator[int], now: float = 100.0, first: int = 0) -> Luck:
    import random

    player = RandomPlayer(random.Random(1))
    return Luck(lambda: next(dice), lambda n: first % n, lambda level: player, now)


def two_player_game(timer: int = 0) -> Game:
    game = open_game("0123abcd", "chan", ANA, "classic", {}, timer=timer, auto_move=True, now=0)
    perform(game, BEN, Intent("join"), luck(iter(())))
    perform(game, ANA, Intent("start"), luck(iter(())))
    return game


def test_a_lobby_fills_and_starts_without_any_store() -> None:
    game = open_game("0123abcd", "chan", ANA, "classic", {}, timer=0, auto_move=True, now=0)
    assert game.status == LOBBY and [s.user for s in game.seats] == [ANA]
    happened = perform(game, BEN, Intent("join"), luck(iter(())))
    assert happened.facts == [Note("lobby.joined", {"who": "Ben"})]
    assert happened.by == BEN
    version = game.version
    perform(game, ANA, Intent("start"), luck(iter(())))
    assert game.status == PLAYING and game.version > version
    assert [s.colour for s in game.seats] == ["red", "yellow"]
    assert game.state is not None and game.state.turn == "red"  # the draw picked seat 0


def test_refusals_name_the_reason() -> None:
    game = two_player_game()
    with pytest.raises(Refusal) as no:
        perform(game, BEN, Intent("roll"), luck(iter(())))
    assert no.value.key == "refuse.not_your_turn" and no.value.params["who"] == "Ana"
    with pytest.raises(Refusal) as no:
        perform(game, ANA, Intent("move", 1), luck(iter(())))
    assert no.value.key == "refuse.roll_first"
    with pytest.raises(Refusal) as no:
        open_game("x", "c", ANA, "chess", {}, timer=0, auto_move=True, now=0)
    assert no.value.key == "refuse.bad_rules"


def test_a_roll_with_no_move_passes_and_a_six_enters_by_itself() -> None:
    game = two_player_game()
    happened = perform(game, ANA, Intent("roll"), luck(iter([3])))
    kinds = [f.kind for f in happened.facts if isinstance(f, engine.Event)]
    assert kinds == ["roll", "pass", "turn"]
    assert game.state is not None and game.state.turn == "yellow"
    assert game.actions == "3"
    # yellow rolls a 6: the only legal move (out) is made by itself, then rolls again
    perform(game, BEN, Intent("roll"), luck(iter([6])))
    assert game.actions == "36a" and game.state.phase == "roll"
    assert game.last["move"][:4] == ["yellow", 0, 0, 1]
    assert game.last["roll"] == ["yellow", 6]


def test_computer_seats_play_until_a_person_must_act() -> None:
    game = open_game("0123abcd", "chan", ANA, "classic", {}, timer=0, auto_move=True, now=0)
    perform(game, ANA, Intent("add_computer"), luck(iter(())))
    dice = itertools.cycle([1, 2, 3, 4, 5])  # never a 6: every turn passes
    perform(game, ANA, Intent("start"), luck(dice, first=1))  # the computer starts
    assert game.state is not None and game.state.turn == "red"
    assert game.actions == "1"  # the computer's pass, then Ana must roll


def test_the_timer_plays_a_turn_then_hands_the_seat_to_a_computer() -> None:
    game = two_player_game(timer=30)
    assert game.deadline == 130.0  # started at 100 with a 30 s timer
    dice = itertools.cycle([2])  # nothing ever leaves the base: each turn passes
    ana = game.seat_of(ANA)
    assert ana is not None
    notes: list[str] = []
    # Ana and Ben let the timer run out in turn; Ana's third time is the 5th
    for _ in range(2 * MAX_TIMEOUTS - 1):
        seat = game.on_turn()
        assert seat is not None and seat.user is not None and game.deadline is not None
        happened = Happened()
        timeout(game, luck(dice, now=game.deadline + 1), happened)
        notes = [f.key for f in happened.facts if isinstance(f, Note)]
        assert notes[0] == "timer.expired"
        assert game.on_turn() is not seat  # the computer played the turn for them
    assert notes == ["timer.expired", "timer.took_over"]
    assert ana.computer and ana.took_over
    assert game.seat_of(BEN) is not None  # Ben timed out twice: still his seat


def test_a_timer_not_yet_due_is_refused() -> None:
    game = two_player_game(timer=30)
    with pytest.raises(Refusal) as no:
        timeout(game, luck(iter(()), now=0.0), Happened())
    assert no.value.key == "timer.not_due"


def test_a_game_played_out_ends_over_with_its_record_replaying() -> None:
    import random

    game = open_game("0123abcd", "chan", ANA, "tower", {}, timer=0, auto_move=True, now=0)
    perform(game, ANA, Intent("add_computer"), luck(iter(())))
    rng = random.Random(5)
    dice = iter(lambda: rng.randint(1, 6), 0)
    perform(game, ANA, Intent("start"), luck(dice))
    for _ in range(5000):
        if game.status != PLAYING:
            break
        assert game.state is not None
        if game.state.phase == "roll":
            perform(game, ANA, Intent("roll"), luck(dice))
        else:
            piece = engine.legal_moves(game.state)[0].piece + 1
            perform(game, ANA, Intent("move", piece), luck(dice))
    assert game.status == OVER and game.deadline is None
    assert engine.replay(game.record()) == game.state


def test_the_creator_or_a_moderator_changes_the_tables_language() -> None:
    game = two_player_game()
    version = game.version
    happened = perform(game, ANA, Intent("language", lang="pt_BR"), luck(iter(())))
    assert game.lang == "pt_BR" and happened.facts == [Note("game.language", {"language": "pt_BR"})]
    assert game.version == version  # the buttons stay good
    assert Game.from_bytes(game.to_bytes(), game.rev).lang == "pt_BR"  # kept with the game
    with pytest.raises(Refusal) as no:
        perform(game, BEN, Intent("language", lang="it"), luck(iter(())))
    assert no.value.key == "refuse.only_creator_language" and game.lang == "pt_BR"
    perform(game, BEN, Intent("language", lang="it", can_manage=True), luck(iter(())))
    assert game.lang == "it"
    with pytest.raises(Refusal) as no:
        perform(game, ANA, Intent("language", lang=""), luck(iter(())))
    assert no.value.key == "refuse.bad_language" and game.lang == "it"


def test_a_creator_who_left_a_running_game_hands_the_host_to_the_next_seated_person() -> None:
    game = open_game("0123abcd", "chan", BEN, "classic", {}, timer=0, auto_move=True, now=0)
    for user in (CID, ANA):
        perform(game, user, Intent("join"), luck(iter(())))
    perform(game, BEN, Intent("add_computer"), luck(iter(())))
    perform(game, BEN, Intent("start"), luck(iter(())))
    perform(game, BEN, Intent("leave"), luck(itertools.cycle([2])))
    assert game.status == PLAYING and game.creator == CID  # the seat after Ben's
    for intent in (Intent("end"), Intent("language", lang="it")):
        with pytest.raises(Refusal) as no:
            perform(game, BEN, intent, luck(iter(())))
        assert no.value.key in ("refuse.only_creator_ends", "refuse.only_creator_language")
        assert no.value.params["host"] == "Cid"
    assert game.lang == "en" and game.status == PLAYING
    assert Game.from_bytes(game.to_bytes()).creator == CID  # kept with the game
    perform(game, CID, Intent("end"), luck(iter(())))
    assert game.status == ENDED


def test_the_host_passes_in_seat_order_after_the_creator() -> None:
    game = open_game("0123abcd", "chan", ANA, "classic", {}, timer=0, auto_move=True, now=0)
    for user in (BEN, CID, DEE):
        perform(game, user, Intent("join"), luck(iter(())))
    perform(game, CID, Intent("leave"), luck(iter(())))
    perform(game, ANA, Intent("leave"), luck(iter(())))
    assert game.creator == BEN  # the lobby: the next seat after Ana's
    perform(game, DEE, Intent("leave"), luck(iter(())))
    perform(game, BEN, Intent("leave"), luck(iter(())))
    assert game.status == ENDED  # nobody left


def test_a_creator_timed_out_of_their_seat_hands_the_host_on() -> None:
    game = two_player_game(timer=30)
    dice = itertools.cycle([2])
    while game.creator == ANA:
        assert game.deadline is not None
        timeout(game, luck(dice, now=game.deadline + 1), Happened())
    assert game.creator == BEN and game.seat_of(ANA) is None


def test_only_the_host_or_a_seated_moderator_adds_or_removes_computers() -> None:
    game = open_game("0123abcd", "chan", ANA, "classic", {}, timer=0, auto_move=True, now=0)
    perform(game, BEN, Intent("join"), luck(iter(())))
    for kind in ("add_computer", "remove_computer"):
        with pytest.raises(Refusal) as no:
            perform(game, BEN, Intent(kind), luck(iter(())))
        assert no.value.key == "refuse.only_host_computers" and no.value.params["host"] == "Ana"
        with pytest.raises(Refusal) as no:  # a moderator not at the table neither
            perform(game, CID, Intent(kind, can_manage=True), luck(iter(())))
        assert no.value.key == "refuse.not_seated"
    assert len(game.seats) == 2
    perform(game, BEN, Intent("add_computer", can_manage=True), luck(iter(())))
    perform(game, ANA, Intent("add_computer"), luck(iter(())))
    perform(game, ANA, Intent("remove_computer"), luck(iter(())))
    assert [s.computer for s in game.seats] == [False, False, True]
    perform(game, ANA, Intent("leave"), luck(iter(())))
    perform(game, BEN, Intent("remove_computer"), luck(iter(())))  # Ben hosts now
    assert [s.user for s in game.seats] == [BEN]


# --------------------------------------------------------------------------
# lobbies nobody starts


def test_a_lobby_nobody_starts_closes_at_its_deadline() -> None:
    game = open_game("0123abcd", "chan", ANA, "classic", {}, timer=0, auto_move=True, now=100.0)
    assert game.deadline is None  # no lobby_minutes: it waits for ever
    game = open_game(
        "0123abcd", "chan", ANA, "classic", {}, timer=0, auto_move=True, now=100.0, lobby_minutes=30
    )
    assert game.deadline == 100.0 + 30 * 60
    perform(game, BEN, Intent("join"), luck(iter(())))
    assert game.deadline == 100.0 + 30 * 60  # joining does not push it back
    with pytest.raises(Refusal) as no:
        timeout(game, luck(iter(()), now=100.0 + 30 * 60 - 1), Happened())
    assert no.value.key == "timer.not_due" and game.status == LOBBY
    version = game.version
    happened = Happened()
    timeout(game, luck(iter(()), now=100.0 + 30 * 60), happened)
    assert game.status == ENDED and game.deadline is None and game.version > version
    assert happened.facts == [Note("lobby.expired", {"count": 30})]
    assert happened.by is None
    # a closed lobby takes no more presses
    with pytest.raises(Refusal) as no:
        perform(game, CID, Intent("join"), luck(iter(())))
    assert no.value.key == "refuse.game_over"


def test_starting_replaces_the_lobbys_deadline_with_the_turn_timer() -> None:
    game = open_game(
        "0123abcd", "chan", ANA, "classic", {}, timer=0, auto_move=True, now=0, lobby_minutes=5
    )
    perform(game, BEN, Intent("join"), luck(iter(())))
    perform(game, ANA, Intent("start"), luck(iter(()), now=60.0))
    assert game.status == PLAYING and game.deadline is None  # no turn timer
    with pytest.raises(Refusal):
        timeout(game, luck(iter(()), now=10_000.0), Happened())
    timed = open_game(
        "0123abcd", "chan", ANA, "classic", {}, timer=30, auto_move=True, now=0, lobby_minutes=5
    )
    perform(timed, BEN, Intent("join"), luck(iter(())))
    perform(timed, ANA, Intent("start"), luck(iter(()), now=60.0))
    assert timed.deadline == 90.0
    # a lobby left by everybody closes at once, and its deadline with it
    empty = open_game(
        "0123abcd", "chan", ANA, "classic", {}, timer=0, auto_move=True, now=0, lobby_minutes=5
    )
    perform(empty, ANA, Intent("leave"), luck(iter(())))
    assert empty.status == ENDED and empty.deadline is None


def test_a_lobbys_deadline_is_kept_with_the_game() -> None:
    game = open_game(
        "0123abcd", "chan", ANA, "classic", {}, timer=0, auto_move=True, now=50.0, lobby_minutes=1
    )
    again = Game.from_bytes(game.to_bytes())
    assert again.deadline == 110.0 and again.status == LOBBY
    happened = Happened()
    timeout(again, luck(iter(()), now=200.0), happened)
    assert happened.facts == [Note("lobby.expired", {"count": 1})]


# --------------------------------------------------------------------------
# damaged stored games: anything malformed is DamagedGame, nothing else


def _saved_games() -> list[Game]:
    """Real games as the store keeps them: a lobby, a game being played, one over."""
    import random

    lobby = open_game(
        "0123abcd", "tg:-100", ANA, "classic", {}, timer=60, auto_move=True, now=1e9, lang="pt_BR"
    )
    perform(lobby, ANA, Intent("add_computer"), luck(iter(())))
    lobby.deadline = 1e9 + 1800
    rng = random.Random(3)
    dice = iter(lambda: rng.randint(1, 6), 0)
    playing = open_game("89abcdef", "dc:7", ANA, "italian", {}, timer=60, auto_move=True, now=1e9)
    perform(playing, BEN, Intent("join"), luck(iter(())))
    perform(playing, ANA, Intent("add_computer"), luck(iter(())))
    perform(playing, ANA, Intent("start"), luck(dice, now=1e9))
    while "move" not in playing.last or len(playing.last["move"]) < 6:
        seat = playing.on_turn()
        assert seat is not None and seat.user is not None and playing.state is not None
        if playing.state.phase == "roll":
            perform(playing, seat.user, Intent("roll"), luck(dice, now=1e9))
        else:
            piece = engine.legal_moves(playing.state)[-1].piece + 1
            perform(playing, seat.user, Intent("move", piece), luck(dice, now=1e9))
    over = open_game("fedcba98", "chan", ANA, "tower", {}, timer=0, auto_move=True, now=0)
    perform(over, ANA, Intent("add_computer"), luck(iter(())))
    perform(over, ANA, Intent("start"), luck(dice))
    while over.status == PLAYING:
        assert over.state is not None
        if over.state.phase == "roll":
            perform(over, ANA, Intent("roll"), luck(dice))
        else:
            piece = engine.legal_moves(over.state)[0].piece + 1
            perform(over, ANA, Intent("move", piece), luck(dice))
    return [lobby, playing, over]


#: a stand-in for a value nested far deeper than any parser or printer recurses
DEEP = "\x00deep\x00"
REPLACEMENTS: list[Any] = [
    None, True, False, 0, 1, -1, 7, 10**40, 1.5, -0.5, "", "x", "red", "playing", "over",
    "lobby", "ended", [], [1], ["a", "b", "c"], [[]], {}, {"a": 1}, {"u": [1, 2, 3]}, DEEP,
]  # fmt: skip


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*path, k))
    elif isinstance(value, list):
        for k, v in enumerate(value):
            yield from _paths(v, (*path, k))


def _mutated(doc: dict[str, Any], path: tuple[Any, ...], new: Any, *, delete: bool) -> bytes:
    import copy
    import json

    doc = copy.deepcopy(doc)
    if not path:
        data = json.dumps(new)
    else:
        parent = doc
        for k in path[:-1]:
            parent = parent[k]
        if delete:
            del parent[path[-1]]
        else:
            parent[path[-1]] = new
        data = json.dumps(doc)
    deep = "[" * 100_000 + "]" * 100_000
    return data.replace(json.dumps(DEEP), deep).encode()


def _byte_damage(data: bytes) -> Iterator[bytes]:
    import random

    rng = random.Random(7)
    for cut in range(0, len(data), max(1, len(data) // 60)):
        yield data[:cut]
    for _ in range(300):
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        yield bytes(b)
    yield b"[" * 200_000
    yield b'{"a":' * 100_000
    yield b"\xff\xfe\x00"
    yield from (b"", b"null", b"[]", b"1e999", b"NaN", b'"x"', b'{"schema":1}', b'{"schema":true}')
    yield data.replace(b'"due":', b'"due":NaN,"x":')
    yield data.replace(b'"t0":', b'"t0":Infinity,"x":')


def _usable(game: Game) -> None:
    """Every step of hosting on ``game`` works or refuses; it saves and reads back."""
    from bot.hosting import KINDS
    from bot.present import status_lines, table_view

    again = Game.from_bytes(game.to_bytes(), game.rev)
    assert again.to_bytes() == game.to_bytes()
    table_view(again)
    status_lines(again)
    stranger = User("test", "9", "Zed")
    users = [*[s.user for s in game.seats if s.user is not None][:2], game.creator, stranger]
    for kind in KINDS:
        for user in users:
            copy = Game.from_bytes(game.to_bytes())
            dice = itertools.cycle([6, 1, 3, 5, 2, 4])
            try:
                perform(copy, user, Intent(kind, piece=1, lang="it"), luck(dice, now=2e9))
            except Refusal:
                continue
            Game.from_bytes(copy.to_bytes())
    copy = Game.from_bytes(game.to_bytes())
    with contextlib.suppress(Refusal):
        timeout(copy, luck(itertools.cycle([2, 6, 4]), now=2e9), Happened())
    Game.from_bytes(copy.to_bytes())


def test_any_malformed_stored_game_is_damaged_and_nothing_else() -> None:
    import json

    from bot.hosting import DamagedGame

    accepted = damaged = 0
    for game in _saved_games():
        data = game.to_bytes()
        doc = json.loads(data)
        candidates: list[bytes] = list(_byte_damage(data))
        for path in _paths(doc):
            if path:
                candidates.append(_mutated(doc, path, None, delete=True))
            candidates += [_mutated(doc, path, new, delete=False) for new in REPLACEMENTS]
        for bad in candidates:
            try:
                read = Game.from_bytes(bad, 3)
            except DamagedGame as e:
                damaged += 1
                assert str(e) and len(str(e)) <= 300
                continue
            accepted += 1
            _usable(read)
    # most damage is caught (the rest is harmless: a name, a value still in range)
    assert damaged > 5 * accepted > 0, (damaged, accepted)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"seats": [1]}, "seat"),
        ({"rev": "abc", "ver": "abc"}, "ver"),
        ({"st": "playing", "state": None}, "without a board"),
        ({"due": "soon"}, "due"),
        ({"lang": "../../etc"}, "lang"),
        ({"by": ["test", "1"]}, "by"),
        ({"opts": {"bogus": 1}}, "bogus"),
    ],
)
def test_typical_damage_names_what_is_wrong_and_what_is_left(
    change: dict[str, Any], why: str
) -> None:
    import json

    from bot.hosting import DamagedGame

    game = two_player_game(timer=30)
    doc = json.loads(game.to_bytes()) | change
    with pytest.raises(DamagedGame) as bad:
        Game.from_bytes(json.dumps(doc).encode())
    assert why in str(bad.value)
    # the id and channel are still known, so its channel can be freed
    assert (bad.value.game_id, bad.value.channel) == ("0123abcd", "chan")
    assert not bad.value.newer


def test_a_game_from_a_newer_ludo_bot_is_not_damaged_only_unreadable() -> None:
    import json

    from bot.hosting import SCHEMA, DamagedGame

    doc = json.loads(two_player_game().to_bytes()) | {"schema": SCHEMA + 1, "new": [1]}
    with pytest.raises(DamagedGame) as bad:
        Game.from_bytes(json.dumps(doc).encode())
    assert bad.value.newer and "newer" in str(bad.value)
    with pytest.raises(DamagedGame) as bad:
        Game.from_bytes(b"\x00not json")
    assert not bad.value.newer and bad.value.game_id is None and bad.value.channel is None
