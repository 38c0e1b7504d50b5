"""Updates pushed by Telegram to the bot's web server (python-telegram-bot's
custom-webhook pattern: the route puts ``Update.de_json(...)`` on the
application's update queue; the application handles it as a polled one).

The route trusts nothing it has not checked, in this order, each refusal at once:

* the ``X-Telegram-Bot-Api-Secret-Token`` header (compared in constant time)
  before a byte of the body is read: 403.  The secret is always set: the
  configured one, else one derived from the token (:func:`derived_secret`), so
  every worker agrees and nobody without the token can forge an update;
* a body over :data:`MAX_BODY` (a ``Content-Length`` over it at once, a chunked
  one as it streams: the web server's ``client_max_size``): 413;
* a body that is not sent within :data:`READ_SECONDS`: 408;
* a body that is not one JSON object of an update: 400, one short log line.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
from typing import Any

from aiohttp import web
from telegram import Bot, Update
from telegram.ext import Application

from .updates import WebhookSettings

log = logging.getLogger(__name__)

#: the largest update body taken (Telegram's are a few KB)
MAX_BODY = 1024 * 1024
#: seconds a client has to send the whole body
READ_SECONDS = 5.0
#: the header Telegram sends the secret in
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
#: the fixed label the derived secret is the HMAC of (keyed by the token)
LABEL = b"ludo-bot telegram webhook secret v1"
#: the update kinds the bot asks for
ALLOWED = [
    "message",
    "callback_query",
    # inline mode (BotFather's /setinline and /setinlinefeedback), and guest mode
    "inline_query",
    "chosen_inline_result",
    "guest_message",
]


def derived_secret(token: str) -> str:
    """The webhook secret made from the bot's token: HMAC-SHA-256 of a fixed label
    keyed by the token, 64 hex digits (Telegram takes 1-256 of ``[A-Za-z0-9_-]``)."""
    return hmac.new(token.encode(), LABEL, hashlib.sha256).hexdigest()


def secret_of(hook: WebhookSettings, token: str) -> str:
    """The secret Telegram must send: the configured one, else the derived one."""
    return hook.secret or derived_secret(token)


async def set_webhook(bot: Bot, hook: WebhookSettings) -> None:
    """Tell Telegram where to post the updates, with the secret it must send."""
    await bot.set_webhook(
        hook.url, secret_token=secret_of(hook, bot.token), allowed_updates=ALLOWED
    )


def webhook_route(
    application: Application[Any, Any, Any, Any, Any, Any], hook: WebhookSettings
) -> web.RouteDef:
    """``POST /<hook.path>``: the checked update onto ``application``'s queue."""
    secret = secret_of(hook, application.bot.token).encode()

    async def receive(request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER, "").encode()
        if not hmac.compare_digest(given, secret):
            return _refuse(web.HTTPForbidden, "wrong or missing secret")
        if request.content_length is not None and request.content_length > MAX_BODY:
            return _refuse(web.HTTPRequestEntityTooLarge, "body too large")
        try:
            async with asyncio.timeout(READ_SECONDS):
                body = await request.read()  # client_max_size: 413 past MAX_BODY
        except TimeoutError:
            return _refuse(web.HTTPRequestTimeout, "body not sent in time")
        except web.HTTPRequestEntityTooLarge:
            return _refuse(web.HTTPRequestEntityTooLarge, "body too large")
        try:
            data = json.loads(body)
            if not isinstance(data, dict):
                raise ValueError(f"a JSON {type(data).__name__}, not an object")
            update = Update.de_json(data, application.bot)
        except Exception as e:  # one short line: what was wrong, never a traceback
            log.warning("webhook: refused a body that is not an update (%.80s)", e)
            return _refuse(web.HTTPBadRequest, "not an update")
        if not application.running:  # stopping, or not started: Telegram tries again
            return _refuse(web.HTTPServiceUnavailable, "not running")
        await application.update_queue.put(update)
        return web.Response(text="ok")

    return web.post("/" + hook.path.strip("/"), receive)


def _refuse(kind: type[web.HTTPException], why: str) -> web.Response:
    """A refusal that closes the connection: a body not read is never read."""
    response = web.Response(status=kind.status_code, text=why + "\n")
    response.force_close()
    return response
