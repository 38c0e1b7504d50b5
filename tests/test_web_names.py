"""Names put into the page's sentences cannot turn the words around them."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from bot.web.names import FSI, PDI, isolated, plain

EXPLICIT = {"LRE", "RLE", "PDF", "LRO", "RLO", "LRI", "RLI", "FSI", "PDI"}


def test_an_override_and_an_open_isolate_are_dropped_the_rest_kept() -> None:
    assert plain("\u202eevil\u202c \u2067x\u2069") == "evil x"
    assert plain("مُحَمَّد Zoë 👩‍👩‍👧‍👦 a\u200bb\u200e") == "مُحَمَّد Zoë 👩‍👩‍👧‍👦 a\u200bb\u200e"
    assert isolated("\u2069Ana") == f"{FSI}Ana{PDI}"


@given(st.text(max_size=200))
def test_an_isolated_name_opens_and_closes_exactly_one_isolate(name: str) -> None:
    out = isolated(name)
    kinds = [unicodedata.bidirectional(c) for c in out]
    explicit = [k for k in kinds if k in EXPLICIT]
    assert explicit == ["FSI", "PDI"] and out[0] == FSI and out[-1] == PDI
