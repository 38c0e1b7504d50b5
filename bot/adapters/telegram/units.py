"""Lengths as Telegram counts them: in UTF-16 code units (an emoji such as 🎲 is two),
and texts cut to fit without breaking a character, an HTML entity or a tag.

Telegram measures a caption (1024), a message (4096) and a button's answer (200)
after parsing its HTML; these count the HTML as sent, which is never shorter, so
what fits here fits there.
"""

from __future__ import annotations

import re

ELLIPSIS = "…"
#: a tag of Telegram's HTML: its closing slash and its name
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)[^<>]*>")


def units(text: str) -> int:
    """How many UTF-16 code units ``text`` is."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def cut(text: str, limit: int) -> str:
    """The longest start of ``text`` of at most ``limit`` UTF-16 units (whole characters)."""
    if len(text) * 2 <= limit or units(text) <= limit:
        return text
    used = 0
    for k, c in enumerate(text):
        used += 2 if ord(c) > 0xFFFF else 1
        if used > limit:
            return text[:k]
    return text


def shorten(text: str, limit: int) -> str:
    """Plain ``text`` in at most ``limit`` UTF-16 units: cut after a whole word, ending
    in "…" (a toast)."""
    if units(text) <= limit:
        return text
    head = cut(text, limit - units(ELLIPSIS))
    words = head.rsplit(" ", 1)[0]
    return (words or head).rstrip() + ELLIPSIS


def fit_html(text: str, limit: int) -> str:
    """HTML ``text`` in at most ``limit`` UTF-16 units: cut, ending in "…", never in an
    entity or a tag, the tags left open closed again."""
    if units(text) <= limit:
        return text
    room = limit - units(ELLIPSIS)
    while room > 0:
        head = _whole(cut(text, room))
        fitted = head + ELLIPSIS + _closing(head)
        over = units(fitted) - limit
        if over <= 0:
            return fitted
        room -= over
    return ELLIPSIS if limit >= units(ELLIPSIS) else ""


def _whole(head: str) -> str:
    """``head`` without a tag or an entity cut short at its end."""
    lt = head.rfind("<")
    if lt > head.rfind(">"):
        head = head[:lt]
    amp = head.rfind("&")
    if amp > head.rfind(";"):
        head = head[:amp]
    return head


def _closing(head: str) -> str:
    """The closing tags of the tags ``head`` leaves open, innermost first."""
    open_tags: list[str] = []
    for m in _TAG.finditer(head):
        closing, name = m.group(1) == "/", m.group(2).lower()
        if not closing:
            open_tags.append(name)
        elif open_tags and open_tags[-1] == name:
            open_tags.pop()
    return "".join(f"</{name}>" for name in reversed(open_tags))
