"""Every message key the service can send has wording, and the wording fills in."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.present.messages import say, say_all
from bot.present.text import Text
from bot.present.wording import MESSAGES
from tests.helpers.languages import SAMPLE

BOT = Path(__file__).resolve().parent.parent / "bot"
#: the code that says things: the hosting domain, the service, the presenter
SOURCE = "\n".join(
    p.read_text()
    for folder in ("hosting", "present", "service")
    for p in sorted((BOT / folder).glob("*.py"))
    if p.name != "messages.py"
)


def used_keys() -> set[str]:
    keys = set(
        re.findall(
            r'"((?:lobby|game|turn|ev|timer|btn|rules|refuse|you|caption)\.[a-z_]+)"', SOURCE
        )
    )
    keys |= {f"rules.{r}" for r in ("classic", "tower", "italian", "super")}
    # internal: never shown; and refusals said by the engine's reason code (see below)
    return keys - {"timer.not_due", "refuse.illegal_move", "refuse.bad_rules"}


ENGINE = Path(__file__).resolve().parent.parent / "engine"


def test_every_reason_the_engine_gives_for_a_move_has_words() -> None:
    source = (ENGINE / "refusals.py").read_text() + (ENGINE / "moves.py").read_text()
    reasons = set(re.findall(r'IllegalAction\([^()]*?"([a-z_]+)",\s*piece', source, re.S))
    reasons |= set(re.findall(r'return "([a-z_]+)"', (ENGINE / "moves.py").read_text()))
    reasons |= set(re.findall(r'no\([^()]*?"([a-z_]+)"\)', source, re.S))
    assert {"overshoot", "blocked", "in_base", "home", "follow_up", "must_enter"} <= reasons
    assert not sorted(r for r in reasons if f"illegal.{r}" not in MESSAGES)


def test_every_reason_the_engine_gives_for_a_set_up_has_words() -> None:
    source = (ENGINE / "rules.py").read_text()
    reasons = set(re.findall(r'RulesError\(\s*(?:f?"[^"]*"\s*)+,\s*"([a-z_]+)"', source, re.S))
    assert len(reasons) >= 15
    assert not sorted(r for r in reasons if f"rules_error.{r}" not in MESSAGES)


def test_the_service_uses_keys_and_they_all_have_words() -> None:
    keys = used_keys()
    assert len(keys) > 40
    missing = sorted(k for k in keys if k not in MESSAGES)
    assert not missing


@pytest.mark.parametrize("key", sorted(MESSAGES))
def test_every_message_fills_in(key: str) -> None:
    text = say(Text(key, SAMPLE))
    assert text and "{" not in text and "}" not in text


def test_escape_is_applied_to_names() -> None:
    line = say(Text("ev.roll", {"who": "<b>Ana</b>", "die": 3}), escape=lambda s: s.upper())
    assert line == "<B>ANA</B> rolled 3."
    assert say_all([Text("btn.join"), Text("btn.roll")]) == "Join\nRoll"


def test_an_unknown_key_is_shown_as_itself() -> None:
    assert say(Text("no.such.key")) == "no.such.key"
