"""The board made from the bot's settings (``ludo-bot run`` with ``LUDO_PUBLIC_URL``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiohttp import web

from ..limits.budget import CallBudget
from ..limits.rate import Limiter, shared_parts
from ..service.game import GameService
from ..store import RedisStore, Store
from ..store.redis.signin import RedisHolds, RedisIssued
from ..store.signin import Holds, Issued, MemoryHolds, MemoryIssued
from ..web.auth import Keys
from ..web.board import Board, Show
from ..web.discord import DiscordOAuth
from ..web.hub import Hub
from ..web.live import ws_route
from ..web.pages import page_routes
from ..web.pictures import PictureLinks

if TYPE_CHECKING:
    from ..adapters.telegram.inline_screen import Pictures
    from .config import Settings


def board_keys(settings: Settings) -> Keys:
    """The board's keys, from the bot's tokens (Telegram's, then Discord's): every
    worker, and the tables' links, agree on them."""
    return Keys([t for t in (settings.telegram_token, settings.discord_token) if t])


def make_board(
    settings: Settings, service: GameService, limiter: Limiter | None, show: Show
) -> Board:
    """The board of ``settings.board`` (which is set): its keys from the bot's tokens,
    its hub on Redis when the games are there."""
    board = settings.board
    assert board is not None
    discord = None
    # the Activity needs the bot's token (boardconfig makes sure): the bot asks Discord
    # who is in an Activity instance
    client_id, secret, bot_token = (
        board.discord_client_id,
        board.discord_client_secret,
        settings.discord_token,
    )
    store = service.store
    if client_id is not None and secret is not None and bot_token:
        holds, issued = signin_parts(store)
        # the budget's buckets are the rate limits' own (in the store beside the games)
        buckets = limiter.buckets if limiter is not None else shared_parts(store)[0]
        discord = DiscordOAuth(
            client_id,
            secret,
            settings.discord_api_base,
            bot_token=bot_token,
            budget=CallBudget(buckets, holds),
            issued=issued,
        )
    redis = store.client if isinstance(store, RedisStore) else None
    keys = board_keys(settings)
    return Board(
        service,
        keys,
        Hub(service, redis=redis, sign=keys.session),
        telegram_token=settings.telegram_token or None,
        discord=discord,
        limiter=limiter,
        show=show,
    )


def signin_parts(store: Store) -> tuple[Holds, Issued]:
    """Where the Discord sign-in keeps the waits Discord asked for and the tokens it
    issued: in Redis if the games are (every worker shares them), else in this process
    (the SQLite mode: one process)."""
    if isinstance(store, RedisStore):
        return RedisHolds.of(store), RedisIssued.of(store)
    return MemoryHolds(), MemoryIssued()


def board_routes(board: Board) -> list[web.RouteDef]:
    """Every route of the board: the API, the page and its files, the websocket."""
    return [*board.api_routes(), *page_routes(), ws_route(board)]


def picture_links(settings: Settings) -> Pictures | None:
    """Inline tables' pictures as signed URLs of the bot's web server (None: it is not
    reached from outside)."""
    from ..adapters.telegram.inline_screen import SignedPictures

    if settings.board is None:
        return None
    return SignedPictures(PictureLinks(board_keys(settings), settings.board.public_url).url)
