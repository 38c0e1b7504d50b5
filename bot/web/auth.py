"""Who is looking at the board, proved: pure functions, no I/O.

* Telegram's Mini App ``initData`` checked as Telegram documents it
  (:func:`telegram_user`): ``secret_key = HMAC_SHA256(key="WebAppData",
  msg=bot_token)``; the ``hash`` must be the hex HMAC-SHA-256, keyed with it, of
  the data-check string (every other field as ``key=value``, sorted, joined by
  newlines); compared in constant time; ``auth_date`` at most a day old (and not
  ahead of this clock by more than :data:`SKEW`); the whole at most
  :data:`MAX_INIT_DATA` bytes.
* The board's own tokens (:class:`Keys`), signed with keys derived from the bot's
  tokens and fixed labels, so every worker agrees without sharing a thing:

  - a session (:meth:`Keys.session`): ``s1.<payload>.<tag>``, the payload the
    viewer's platform, id, name, language, game, channel, role and expiry as
    base64url JSON, the tag its HMAC (24 bytes);
  - a spectator link (:meth:`Keys.watch`): ``w`` and base64url of the game id's 4
    bytes and a 20-byte HMAC tag: 33 characters, unguessable without the key,
    not the game id, the same from every worker;
  - a player's link for the Mini App (:meth:`Keys.play`, Telegram's
    ``startapp``): the same with ``p`` and another label, so a spectator link
    never lets anyone play;
  - a picture of a table posted through Telegram's inline mode (:meth:`Keys.picture`):
    ``i1.<payload>.<tag>``, the payload the game, revision, kind, language, size and
    expiry.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Sequence
from dataclasses import asdict, astuple, dataclass
from typing import Any
from urllib.parse import parse_qsl

from ..hosting import User
from ..present.catalog import language_of

#: the largest initData taken, in bytes (Telegram's are well under 2 KB)
MAX_INIT_DATA = 4096
#: initData older than this, in seconds, is refused
INIT_DATA_AGE = 24 * 3600
#: how far ahead of this clock an ``auth_date`` may be, in seconds
SKEW = 60
#: how long a session lasts, in seconds
SESSION_SECONDS = 3600
#: the longest token taken, in characters
MAX_TOKEN = 1024
#: the label the board's key is the HMAC of (keyed with the bot's tokens)
LABEL = b"ludo-bot web board v1"

PLAYER = "player"
SPECTATOR = "spectator"


class Refused(Exception):
    """The proof is refused; ``key`` names why (``web.forged``, ``web.expired``)."""

    def __init__(self, key: str, detail: str = "", lang: str | None = None) -> None:
        super().__init__(detail or key)
        self.key = key
        #: the language of the person refused, when it is known (a signed, stale initData)
        self.lang = lang


# -- Telegram's initData ---------------------------------------------------------


@dataclass(frozen=True)
class TelegramLogin:
    """What a checked initData says: the person, their language, the ``start_param``."""

    user: User
    language: str
    start_param: str | None
    auth_date: int


def telegram_user(
    init_data: str, bot_token: str, now: float | None = None, max_age: int = INIT_DATA_AGE
) -> TelegramLogin:
    """The Telegram user ``init_data`` proves, or :class:`Refused`."""
    if len(init_data.encode("utf-8", "surrogatepass")) > MAX_INIT_DATA:
        raise Refused("web.forged", "initData too long")
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise Refused("web.forged", "initData malformed") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise Refused("web.forged", "a field given twice")
    given = fields.pop("hash", "")
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()
    wanted = hmac.new(secret, check.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(wanted, given.lower().encode("ascii", "replace").decode()):
        raise Refused("web.forged", "wrong hash")
    auth = fields.get("auth_date", "")
    if not auth.isascii() or not auth.isdigit() or len(auth) > 12:
        raise Refused("web.forged", "no auth_date")
    try:
        user = json.loads(fields.get("user", ""))
    except ValueError:
        raise Refused("web.forged", "user is not JSON") from None
    if not isinstance(user, dict):
        raise Refused("web.forged", "no user")
    uid = user.get("id")
    if not isinstance(uid, int) or isinstance(uid, bool) or not 0 < uid < 2**63:
        raise Refused("web.forged", "no user id")
    name = " ".join(
        str(user[k]).strip() for k in ("first_name", "last_name") if isinstance(user.get(k), str)
    ).strip() or str(user.get("username") or uid)
    code = user.get("language_code")
    lang = language_of(code[:20] if isinstance(code, str) else None)
    now = time.time() if now is None else now
    if int(auth) < now - max_age or int(auth) > now + SKEW:
        raise Refused("web.expired", "auth_date out of range", lang)
    start = fields.get("start_param") or None
    return TelegramLogin(User("telegram", str(uid), name), lang, start, int(auth))


def sign_init_data(fields: dict[str, str], bot_token: str) -> str:
    """``fields`` as initData signed with ``bot_token``, as Telegram would (tests, benches)."""
    from urllib.parse import urlencode

    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()
    digest = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest})


# -- the board's tokens ----------------------------------------------------------


@dataclass(frozen=True)
class Session:
    """Who a page is and what it looks at: signed into its session token."""

    platform: str
    user_id: str
    name: str
    language: str
    game: str
    channel: str
    role: str
    expires: float

    @property
    def user(self) -> User | None:
        """The person (None: a spectator, who is nobody)."""
        if self.role != PLAYER:
            return None
        return User(self.platform, self.user_id, self.name)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    if not text.isascii():
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


#: the longest picture name taken, in characters
MAX_PICTURE_TOKEN = 256


@dataclass(frozen=True)
class Picture:
    """One version of a table's picture: the game, its revision, what is drawn (``board``
    or ``standings``), in which language and size, and until when it is served."""

    game_id: str
    rev: int
    kind: str
    lang: str
    size: int
    expires: float


class Keys:
    """The board's signing keys, derived from the bot's tokens (every worker agrees)."""

    def __init__(self, tokens: Sequence[str]) -> None:
        secret = "\n".join(t for t in tokens if t).encode()
        if not secret:
            raise ValueError("the board's keys need a bot token")
        root = hmac.new(secret, LABEL, hashlib.sha256).digest()
        self._session, self._watch, self._play, self._picture = (
            hmac.new(root, label, hashlib.sha256).digest()
            for label in (b"session", b"watch", b"play", b"picture")
        )

    def __repr__(self) -> str:
        return "Keys(...)"

    # sessions

    def session(self, session: Session) -> str:
        payload = _b64(json.dumps(asdict(session), separators=(",", ":")).encode())
        return f"s1.{payload}.{_b64(self._tag(self._session, payload, 24))}"

    def read_session(self, token: object, now: float | None = None) -> Session:
        """The session ``token`` carries, or :class:`Refused` (forged, expired)."""
        if not isinstance(token, str) or len(token) > MAX_TOKEN:
            raise Refused("web.forged", "no session")
        parts = token.split(".")
        if len(parts) != 3 or parts[0] != "s1":
            raise Refused("web.forged", "not a session")
        try:
            tag = _unb64(parts[2])
            if not hmac.compare_digest(tag, self._tag(self._session, parts[1], 24)):
                raise Refused("web.forged", "wrong tag")
            data: Any = json.loads(_unb64(parts[1]))
            session = Session(**data)
        except (ValueError, TypeError, binascii.Error):
            raise Refused("web.forged", "malformed session") from None
        if session.expires < (time.time() if now is None else now):
            raise Refused("web.expired", "session expired")
        return session

    # pictures

    def picture(self, picture: Picture) -> str:
        """The unguessable name of one version of a table's picture (:mod:`.pictures`):
        ``i1.<payload>.<tag>``, the payload what to draw and until when, base64url."""
        raw = json.dumps(list(astuple(picture)), separators=(",", ":")).encode()
        payload = _b64(raw)
        return f"i1.{payload}.{_b64(self._tag(self._picture, payload, 20))}"

    def read_picture(self, token: object, now: float | None = None) -> Picture:
        """The picture ``token`` names, or :class:`Refused` (forged, expired)."""
        if not isinstance(token, str) or len(token) > MAX_PICTURE_TOKEN:
            raise Refused("web.forged", "no picture")
        parts = token.split(".")
        if len(parts) != 3 or parts[0] != "i1":
            raise Refused("web.forged", "not a picture")
        try:
            if not hmac.compare_digest(_unb64(parts[2]), self._tag(self._picture, parts[1], 20)):
                raise Refused("web.forged", "wrong tag")
            picture = Picture(*json.loads(_unb64(parts[1])))
        except (ValueError, TypeError, binascii.Error):
            raise Refused("web.forged", "malformed picture") from None
        if picture.expires < (time.time() if now is None else now):
            raise Refused("web.expired", "picture expired")
        return picture

    # links

    def watch(self, game_id: str) -> str:
        """The spectator link's token of game ``game_id``."""
        return self._link("w", self._watch, game_id)

    def play(self, game_id: str) -> str:
        """The Mini App's ``startapp`` for the players of game ``game_id``."""
        return self._link("p", self._play, game_id)

    def read_watch(self, token: object) -> str:
        """The game a spectator link shows, or :class:`Refused`."""
        return self._read_link("w", self._watch, token)

    def read_play(self, token: object) -> str:
        """The game a player's link names, or :class:`Refused`."""
        return self._read_link("p", self._play, token)

    def _link(self, kind: str, key: bytes, game_id: str) -> str:
        raw = bytes.fromhex(game_id)
        return kind + _b64(raw + self._tag(key, game_id, 20))

    def _read_link(self, kind: str, key: bytes, token: object) -> str:
        if not isinstance(token, str) or len(token) != 33 or not token.startswith(kind):
            raise Refused("web.forged", "not a link")
        try:
            raw = _unb64(token[1:])
        except (ValueError, binascii.Error):
            raise Refused("web.forged", "malformed link") from None
        game_id = raw[:4].hex()
        if len(raw) != 24 or not hmac.compare_digest(raw[4:], self._tag(key, game_id, 20)):
            raise Refused("web.forged", "wrong link")
        return game_id

    @staticmethod
    def _tag(key: bytes, text: str, size: int) -> bytes:
        return hmac.new(key, text.encode(), hashlib.sha256).digest()[:size]
