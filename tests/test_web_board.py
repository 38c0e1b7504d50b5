"""The board's server in one process (SQLite, the hub told directly): sessions for
Telegram players and spectators, the websocket's states and presses, and every
refusal leaving the game as it was."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.hosting import Intent
from bot.present.buttons import game_button
from bot.service.game import GameService
from bot.store import SqliteStore
from bot.web.auth import SPECTATOR, Session
from bot.web.words import WORDS, words
from tests.helpers.service import Dice, playing
from tests.helpers.telegram import init_data
from tests.helpers.web_server import (
    ANA,
    BEN,
    CID,
    Served,
    connect,
    post_session,
    receive,
    serve_board,
    state_at,
)


@pytest.fixture
def service(tmp_path: Path) -> GameService:
    return GameService(SqliteStore(str(tmp_path / "games.sqlite3")), dice=Dice(3))


@pytest.fixture
async def served(service: GameService) -> AsyncIterator[Served]:
    s = await serve_board(service)
    try:
        yield s
    finally:
        await s.close()


async def test_a_player_presses_and_every_viewer_sees_the_move(
    service: GameService, served: Served, http: aiohttp.ClientSession
) -> None:
    game = playing(service, "tg:-100", ANA, BEN)
    on_turn = game.on_turn()
    assert on_turn is not None and on_turn.user is not None
    player = on_turn.user
    status, body = await post_session(
        http, served.url, auth="tma " + init_data(player, served.keys.play(game.id), lang="it")
    )
    assert status == 200 and body["role"] == "player" and body["language"] == "it"
    assert body["game"]["id"] == game.id and len(body["watch"]) == 33
    status, watching = await post_session(http, served.url, {"watch": body["watch"]})
    assert status == 200 and watching["role"] == "spectator" and "watch" not in watching

    ws, first = await connect(http, served.url, body["session"])
    spectator, seen = await connect(http, served.url, watching["session"])
    assert first["type"] == seen["type"] == "state" and first["game"]["rev"] == game.rev
    roll = game_button(game.id, game.version, "roll")
    await ws.send_json({"type": "press", "data": roll, "id": "n1"})
    assert (await receive(ws))["type"] in ("ack", "state")
    after = await state_at(spectator, game.rev + 1)
    saved = service.get(game.id)
    assert saved is not None and after["game"]["rev"] == saved.rev > game.rev
    # the chat is shown the outcome, as a timer's is
    assert served.shown and served.shown[0].game is not None
    assert served.shown[0].game.id == game.id

    await ws.close()
    await spectator.close()


async def test_what_the_chat_does_reaches_the_page(
    service: GameService, served: Served, http: aiohttp.ClientSession
) -> None:
    lobby = service.open("tg:-300", ANA).game
    assert lobby is not None
    _, body = await post_session(http, served.url, {"watch": served.keys.watch(lobby.id)})
    ws, first = await connect(http, served.url, body["session"])
    assert first["game"]["status"] == "lobby" and len(first["game"]["seats"]) == 1
    assert not service.act("tg:-300", BEN, Intent("join")).refused  # a chat button
    joined = await state_at(ws, lobby.rev + 1)
    assert [s["name"] for s in joined["game"]["seats"]] == ["Ana", "Ben"]
    assert not service.act("tg:-300", ANA, Intent("start")).refused
    assert (await state_at(ws, lobby.rev + 2))["game"]["status"] == "playing"


async def test_refusals_change_nothing(
    service: GameService, served: Served, http: aiohttp.ClientSession
) -> None:
    game = playing(service, "tg:-100", ANA, BEN)
    other = playing(service, "tg:-200", CID, BEN)
    on_turn = game.on_turn()
    assert on_turn is not None and on_turn.user is not None
    waiting = BEN if on_turn.user.same(ANA) else ANA
    _, mine = await post_session(
        http, served.url, auth="tma " + init_data(waiting, served.keys.play(game.id))
    )
    _, watching = await post_session(http, served.url, {"watch": served.keys.watch(game.id)})
    ws, _ = await connect(http, served.url, mine["session"])
    roll = game_button(game.id, game.version, "roll")

    # another person's seat: not this player's turn
    await ws.send_json({"type": "press", "data": roll, "id": "a"})
    refused = await receive(ws)
    assert refused["type"] == "refused" and refused["id"] == "a" and refused["text"]
    # another chat's game: the session is of tg:-100
    theirs = game_button(other.id, other.version, "roll")
    await ws.send_json({"type": "press", "data": theirs, "id": "b"})
    assert (await receive(ws))["type"] == "refused"
    # a nonce seen before
    await ws.send_json({"type": "press", "data": roll, "id": "a"})
    assert (await receive(ws))["text"] == WORDS["web.replayed"]
    # forged press data
    await ws.send_json({"type": "press", "data": "g:zz", "id": "c"})
    assert (await receive(ws))["text"] == WORDS["web.bad_request"]
    # a spectator's press
    spectator, _ = await connect(http, served.url, watching["session"])
    await spectator.send_json({"type": "press", "data": roll, "id": "d"})
    assert (await receive(spectator))["text"] == WORDS["web.only_players"]
    for g in (game, other):
        now = service.get(g.id)
        assert now is not None and now.rev == g.rev
    assert not served.shown

    # garbage, and a message too big, close the socket
    await ws.send_str("not json")
    assert (await ws.receive()).type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
    assert ws.close_code == 4400
    await spectator.send_str("x" * 5000)
    msg = await spectator.receive()
    assert msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
    assert spectator.close_code == 1009


async def test_sessions_refused(
    service: GameService, served: Served, http: aiohttp.ClientSession
) -> None:
    game = playing(service, "tg:-100", ANA, BEN)
    play = served.keys.play(game.id)
    forged = init_data(ANA, play).replace("Ana", "Cid")
    for auth in ("tma " + forged, "tma " + init_data(ANA, play, age=86_500), "tma x", "Basic x"):
        status, body = await post_session(http, served.url, auth=auth)
        assert status == 401 and body["error"] in WORDS.values() and "session" not in body
    status, body = await post_session(
        http, served.url, auth="tma " + init_data(ANA, play, age=86_500, lang="es")
    )
    assert body["error"].startswith("Este enlace")
    # a spectator link that is the game id, or made up
    for watch in (game.id, "w" + "A" * 32, served.keys.play(game.id)):
        assert (await post_session(http, served.url, {"watch": watch}))[0] == 401
    # someone not seated, naming the game: they may watch
    status, body = await post_session(http, served.url, {"game": game.id}, "tma " + init_data(CID))
    assert status == 403 and body["role"] == "spectator" and body["error"]
    status, body = await post_session(http, served.url, {"game": game.id}, "tma " + init_data(ANA))
    assert status == 200 and body["role"] == "player"
    # no such game
    ghost = served.keys.watch("00000000")
    assert (await post_session(http, served.url, {"watch": ghost}))[0] == 404
    # malformed and oversized bodies
    assert (await post_session(http, served.url, b"{not json"))[0] == 400
    assert (await post_session(http, served.url, b"[1, 2]"))[0] == 400
    assert (await post_session(http, served.url, b"{" + b" " * 17_000 + b"}"))[0] == 413
    # no Activity configured
    async with http.post(f"{served.url}/api/discord/token", json={"code": "x"}) as r:
        assert r.status == 404
    status, _ = await post_session(http, served.url, {"channel": "5"}, "discord abc")
    assert status == 404


async def test_a_socket_without_a_valid_hello_is_closed(
    service: GameService, served: Served, http: aiohttp.ClientSession
) -> None:
    game = playing(service, "tg:-100", ANA, BEN)
    _, body = await post_session(http, served.url, {"watch": served.keys.watch(game.id)})
    ws = await http.ws_connect(f"{served.url}/api/ws")
    await ws.send_json({"type": "hello", "session": body["session"] + "x"})
    assert (await receive(ws))["text"] == WORDS["web.forged"]
    assert (await ws.receive()).type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
    assert ws.close_code == 4401
    ws = await http.ws_connect(f"{served.url}/api/ws")
    await ws.send_json({"type": "press", "data": "x", "id": "1"})
    await ws.receive()
    assert ws.close_code == 4400
    # an expired session
    served.board.clock = lambda: 10**12
    ws = await http.ws_connect(f"{served.url}/api/ws")
    await ws.send_json({"type": "hello", "session": body["session"]})
    assert (await receive(ws))["text"] == WORDS["web.expired"]


async def test_an_idle_socket_is_closed_when_its_session_expires(
    service: GameService, served: Served, http: aiohttp.ClientSession
) -> None:
    game = playing(service, "tg:-100", ANA, BEN)
    short = Session("", "", "", "it", game.id, game.channel, SPECTATOR, time.time() + 0.5)
    ws, first = await connect(http, served.url, served.keys.session(short))
    assert first["type"] == "state"
    told = await receive(ws)  # nothing sent by the page: the server ends it
    assert told == {"type": "refused", "text": words("web.expired", "it")}
    await ws.receive()
    assert ws.close_code == 4401


async def test_a_rematch_takes_the_tables_viewers_along(
    service: GameService, served: Served, http: aiohttp.ClientSession
) -> None:
    from bot.web.auth import PLAYER
    from tests.helpers.chat_scenarios import finished_game

    channel = "tg:-500"
    old = finished_game(service.store, channel)
    ana = ANA.__class__("telegram", "301", "Ana")  # the finished game's player
    _, player = await post_session(
        http, served.url, auth="tma " + init_data(ana, served.keys.play(old))
    )
    _, watcher = await post_session(http, served.url, {"watch": served.keys.watch(old)})
    ws, first = await connect(http, served.url, player["session"])
    spectator, _ = await connect(http, served.url, watcher["session"])
    assert first["game"]["status"] == "over"
    rematch = next(a for a in first["game"]["actions"] if a["kind"] == "rematch")
    await ws.send_json({"type": "press", "data": rematch["data"], "id": "again"})
    for socket, role in ((ws, PLAYER), (spectator, SPECTATOR)):
        moved = await receive(socket)
        while moved["type"] != "session":  # the ack, or the finished game's last word
            moved = await receive(socket)
        session = served.keys.read_session(moved["session"])
        assert session.role == role and session.game != old and session.channel == channel
        state = await receive(socket)
        while state["type"] != "state" or state["game"]["id"] == old:
            state = await receive(socket)
        assert state["game"]["id"] == session.game
        assert state["game"]["status"] in ("lobby", "playing")  # computers' seats: it starts
    # the new session works on a new socket, and the rematch's next change arrives
    again, seen = await connect(http, served.url, moved["session"])
    assert seen["game"]["id"] == session.game
    lobby = seen["game"]["status"] == "lobby"
    who, step = (BEN, Intent("join")) if lobby else (ana, Intent("roll"))
    assert not service.act(channel, who, step).refused
    after = await state_at(again, seen["game"]["rev"] + 1)
    assert after["game"]["id"] == session.game
    for socket in (ws, spectator, again):
        await socket.close()
