"""The board's proofs: Telegram's initData as Telegram documents it, and the board's
own session and link tokens."""

from __future__ import annotations

import hashlib
import hmac
import json
from urllib.parse import parse_qsl, urlencode

import pytest

from bot.web.auth import (
    MAX_INIT_DATA,
    PLAYER,
    SPECTATOR,
    Keys,
    Refused,
    Session,
    sign_init_data,
    telegram_user,
)

TOKEN = "123456:ABC-telegram-token"
NOW = 1_800_000_000.0


def init_data(token: str = TOKEN, auth_date: float = NOW - 60, **extra: str) -> str:
    user = {"id": 101, "first_name": "Ana", "last_name": "Lima", "language_code": "pt-br"}
    fields = {
        "query_id": "AAH",
        "user": json.dumps(user, separators=(",", ":"), ensure_ascii=False),
        "auth_date": str(int(auth_date)),
        **extra,
    }
    return sign_init_data(fields, token)


def test_documented_example_by_hand() -> None:
    """The check computed here exactly as Telegram's docs spell it out."""
    data = init_data(start_param="abc")
    fields = dict(parse_qsl(data))
    given = fields.pop("hash")
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    assert hmac.new(secret, check.encode(), hashlib.sha256).hexdigest() == given
    login = telegram_user(data, TOKEN, NOW)
    assert (login.user.platform, login.user.id, login.user.name) == ("telegram", "101", "Ana Lima")
    assert login.language == "pt_BR" and login.start_param == "abc"


def test_another_bots_token_is_refused() -> None:
    with pytest.raises(Refused) as e:
        telegram_user(init_data(token="999:other"), TOKEN, NOW)
    assert e.value.key == "web.forged"


@pytest.mark.parametrize(
    "change",
    [
        lambda f: f | {"user": f["user"].replace("101", "102")},  # another person
        lambda f: f | {"auth_date": str(int(NOW))},  # a fresher date
        lambda f: f | {"hash": "0" * 64},
        lambda f: {k: v for k, v in f.items() if k != "hash"},
        lambda f: f | {"start_param": "other"},  # a field added
    ],
)
def test_any_change_breaks_the_signature(change: object) -> None:
    fields = dict(parse_qsl(init_data()))
    forged = urlencode(change(fields))  # type: ignore[operator]
    with pytest.raises(Refused) as e:
        telegram_user(forged, TOKEN, NOW)
    assert e.value.key == "web.forged"


def test_older_than_a_day_or_from_the_future_is_expired() -> None:
    assert telegram_user(init_data(auth_date=NOW - 86_000), TOKEN, NOW)
    for when in (NOW - 86_401, NOW + 3600):
        with pytest.raises(Refused) as e:
            telegram_user(init_data(auth_date=when), TOKEN, NOW)
        assert e.value.key == "web.expired"


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "garbage",
        "a=1&a=2",
        "x" * (MAX_INIT_DATA + 1),
        "hash=\u00e9\u00e9&auth_date=1",
    ],
)
def test_malformed_init_data_is_refused(raw: str) -> None:
    with pytest.raises(Refused):
        telegram_user(raw, TOKEN, NOW)


@pytest.mark.parametrize(
    "user",
    ["[1]", '{"id": "101"}', '{"id": true}', '{"id": -5}', "{", '{"first_name": "x"}'],
)
def test_a_signed_but_odd_user_is_refused(user: str) -> None:
    data = sign_init_data({"user": user, "auth_date": str(int(NOW))}, TOKEN)
    with pytest.raises(Refused):
        telegram_user(data, TOKEN, NOW)


def test_a_user_without_names_and_an_unknown_language() -> None:
    user = json.dumps({"id": 7, "username": "zed", "language_code": "xx"})
    login = telegram_user(
        sign_init_data({"user": user, "auth_date": str(int(NOW))}, TOKEN), TOKEN, NOW
    )
    assert login.user.name == "zed" and login.language == "en" and login.start_param is None


def session(expires: float = NOW + 3600, role: str = PLAYER) -> Session:
    return Session("telegram", "101", "Ana", "es", "0a1b2c3d", "tg:-100", role, expires)


def test_a_session_round_trips_on_every_worker_and_expires() -> None:
    one, two = Keys([TOKEN, "discord-token"]), Keys([TOKEN, "discord-token"])
    token = one.session(session())
    assert two.read_session(token, NOW) == session()
    assert two.read_session(token, NOW).user is not None
    with pytest.raises(Refused) as e:
        two.read_session(token, NOW + 3601)
    assert e.value.key == "web.expired"
    assert session(role=SPECTATOR).user is None


@pytest.mark.parametrize(
    "mangle",
    [
        lambda t: t[:-2] + ("AA" if not t.endswith("AA") else "BB"),
        lambda t: t.replace("s1.", "s2."),
        lambda t: t + ".x",
        lambda t: "s1.e30." + t.split(".")[2],  # another payload, the old tag
        lambda t: None,
        lambda t: 5,
        lambda t: "s1.\u00e9.\u00e9",
        lambda t: "x" * 5000,
    ],
)
def test_a_forged_session_is_refused(mangle: object) -> None:
    keys = Keys([TOKEN])
    with pytest.raises(Refused) as e:
        keys.read_session(mangle(keys.session(session())), NOW)  # type: ignore[operator]
    assert e.value.key == "web.forged"
    with pytest.raises(Refused):
        Keys(["another"]).read_session(keys.session(session()), NOW)


def test_links_are_long_unguessable_and_not_interchangeable() -> None:
    keys = Keys([TOKEN])
    watch, play = keys.watch("0a1b2c3d"), keys.play("0a1b2c3d")
    assert len(watch) == len(play) == 33 and "0a1b2c3d" not in watch + play
    assert keys.read_watch(watch) == keys.read_play(play) == "0a1b2c3d"
    assert Keys([TOKEN]).read_watch(watch) == "0a1b2c3d"  # any worker
    for token, read in ((play, keys.read_watch), (watch, keys.read_play)):
        with pytest.raises(Refused):
            read(token)
    with pytest.raises(Refused):
        Keys(["another"]).read_watch(watch)
    for bad in ("w" + "A" * 32, watch[:-1], watch + "A", "w" + "\u00e9" * 32, None, 12):
        with pytest.raises(Refused):
            keys.read_watch(bad)
    assert "telegram" not in repr(keys) and TOKEN not in repr(keys)
