"""The words in the renderer's images: players' names (any name renders, inside its
yard, cleaned of what cannot be drawn, cut to fit), the words given by the caller
(the reader's language; English by default) in the status bar and the standings, and
the bot's pictures drawn in the game's or the reader's language.

Positions and pixels are found as in :mod:`tests.test_renderer` (the progress coordinate
of RULES.md section 1, :mod:`tests.helpers.pixels`)."""

from __future__ import annotations

import random
import subprocess
import sys
from typing import Any

import pytest
from PIL import ImageChops

import engine
from engine import COLOURS, GameState
from renderer import DEFAULT_SIZE, ENGLISH, Words, render_board, render_standings
from renderer import geometry as geo
from renderer.text import ELLIPSIS, MAX_NAME_CHARS, clean_name, fit, font, has_glyph
from tests.helpers.pixels import (
    LAY,
    ROLLS,
    Box,
    baseline,
    changed,
    decode,
    finished,
    image,
    inside,
    play,
    yard_px,
)
from tests.helpers.rules import game, run

# --------------------------------------------------------------------------
# names


WEIRD_NAMES: list[Any] = [
    "W" * 500,
    "Жанна Константиновна Ивановская-Петровская",
    "محمد عبد الرحمن",
    "שלום",
    "李小龍",
    "Ana 😀👍🏽👨‍👩‍👧🇧🇷",
    "Zoe\u0301\u0308\u0323",
    "Bad\x00Name\x07\x1b[31m",
    "\x00",
    "\ud800",
    "A\udfffB",
    "",
    "   \t\n ",
    "\u202eevil\u202c",
    "\u200b\ufeff",
    None,
    42,
    3.5,
    b"bytes",
    ["list"],
]


@pytest.mark.parametrize("name", WEIRD_NAMES, ids=range(len(WEIRD_NAMES)))
def test_any_name_renders(name: Any) -> None:
    # Names are player input: any value must give a board, a status bar and standings.
    s, _ = run(game("classic", players=4), "r6")  # red chooses: its name in the status bar
    names = dict.fromkeys(COLOURS, name)
    img = decode(render_board(s, names=names))
    assert img.size == (DEFAULT_SIZE, LAY.height)
    over = finished("classic")
    decode(render_board(over, names=names))
    st = decode(render_standings(over, names=names))
    assert st.size[0] == DEFAULT_SIZE


@pytest.mark.parametrize(
    "name", ["", "   \t\n ", None, 42, "\x00", "\ud800", "李小龍", "\u200b\ufeff"], ids=range(8)
)
def test_undrawable_names_show_the_colour_name(name: Any) -> None:
    # Nothing drawable left: the board is exactly the one with no names (colour names shown).
    s, _ = run(game("classic", players=4), "r6")
    assert image(s, names=dict.fromkeys(COLOURS, name)).tobytes() == image(s).tobytes()


def test_names_are_written_in_their_yards() -> None:
    # The name band of each seated yard shows that player's name.
    s = game("classic", players=4)
    plain = image(s)
    named = image(s, names={"green": "Ana"})
    where = changed(plain, named)
    assert where is not None and inside(where, yard_px(1))


def test_a_very_long_name_stays_inside_its_yard() -> None:
    # fit() cuts a name to the yard's width, so nothing spills on the track.
    s = game("classic", players=4)
    short = image(s, names={"yellow": "Y"})
    long = image(s, names={"yellow": "W" * 300})
    where = changed(short, long)
    assert where is not None and inside(where, yard_px(2)), where


def test_combining_marks_stay_inside_the_yard() -> None:
    # A name stacked with combining marks ("Zalgo" text) must not draw over the board.
    s = game("classic", players=4)
    zalgo = "Z" + "\u0301" * 40 + "a" + "\u0316" * 30 + "lgo"
    plain = image(s, names={"yellow": "Zalgo"})
    marked = image(s, names={"yellow": zalgo})
    where = changed(plain, marked)
    assert where is not None and inside(where, yard_px(2)), (where, yard_px(2))


def test_a_long_name_in_the_status_bar_leaves_the_die_alone() -> None:
    # The status line is cut before the die, so the die is drawn the same for any name.
    s, _ = run(game("classic", players=4), "r6")
    short = image(s, names={"red": "Al"})
    long = image(s, names={"red": "M" * 300})
    h = LAY.status
    die_box = (DEFAULT_SIZE - round(h * 0.72) - 12, LAY.board, DEFAULT_SIZE, LAY.height)
    assert ImageChops.difference(short, long).crop(die_box).getbbox() is None
    assert changed(short, long) is not None  # the name itself did change


def test_clean_name_keeps_ordinary_names() -> None:
    # Latin, Cyrillic, Greek, Arabic and Hebrew are in DejaVu Sans: kept as written.
    for name in ("Ana", "Жанна", "Δημήτρης", "محمد", "שלום", "José", "Zoe\u0301"):
        assert clean_name(name, "Red") == name


def test_clean_name_collapses_white_space() -> None:
    # One line: runs of spaces, tabs and newlines become one space, ends trimmed.
    assert clean_name("  Ana \t\n  Bo  ", "Red") == "Ana Bo"
    assert clean_name("Ana\u3000Bo", "Red") == "Ana Bo"


def test_clean_name_drops_controls_formats_and_surrogates() -> None:
    # Cc, Cf and Cs characters draw nothing sensible (or crash encoders): dropped.
    assert clean_name("A\x00n\x07a\x1b", "Red") == "Ana"
    assert clean_name("A\ud800B\udfff", "Red") == "AB"
    assert clean_name("\u202eevil\u202c", "Red") == "evil"
    assert clean_name("Z\u200bW\ufeff", "Red") == "ZW"


def test_clean_name_drops_characters_without_a_glyph() -> None:
    # DejaVu Sans has no CJK: those characters would draw as empty boxes, so they go.
    assert not has_glyph("李")
    assert clean_name("Li 李小龍", "Red") == "Li"
    cleaned = clean_name("Ana 😀👍🏽👨‍👩‍👧🇧🇷 ok", "Red")
    assert cleaned.startswith("Ana") and cleaned.endswith("ok")
    assert all(has_glyph(ch) for ch in cleaned)


def test_clean_name_drops_marks_the_font_cannot_draw() -> None:
    # Hindi and Thai letters have no glyph and are dropped; their vowel signs must go too,
    # or the name is drawn as empty boxes instead of falling back to the colour name.
    assert clean_name("अमित", "Red") == "Red"  # Devanagari: letters + vowel sign (Mc)
    assert clean_name("สมศักดิ์", "Red") == "Red"  # Thai: letters + marks (Mn)
    assert clean_name("A\u0f71B", "Red") == "AB"  # a Tibetan mark between Latin letters


@pytest.mark.parametrize("name", ["", "   ", None, 42, b"Ana", "\x00\x01", "\ud800", "李小龍"])
def test_clean_name_falls_back_to_the_colour_name(name: Any) -> None:
    # Nothing drawable left (or not text at all): the colour's name is shown instead.
    assert clean_name(name, "Green") == "Green"


def test_clean_name_cuts_very_long_names() -> None:
    # MAX_NAME_CHARS bounds the work done on a name before it is measured.
    assert clean_name("a" * 10_000, "Red") == "a" * MAX_NAME_CHARS
    assert len(clean_name("ab " * 1000, "Red")) <= MAX_NAME_CHARS


def test_fit_keeps_text_that_fits() -> None:
    # Nothing to cut: the text comes back as it was.
    f = font(20)
    assert fit("Ana", f, f.getlength("Ana")) == "Ana"
    assert fit("Ana", f, 1000) == "Ana"


@pytest.mark.parametrize("size", [10, 21, 40])
def test_fit_never_exceeds_the_width(size: int) -> None:
    # fit cuts the text and adds an ellipsis until it fits the given width.
    f = font(size)
    ell = f.getlength(ELLIPSIS)
    # from the narrowest width that can hold anything (the ellipsis) upwards
    widths = sorted({ell, ell + 1, *(w for w in (30, 57.5, 100, 250, 1000) if w > ell)})
    for text in ("W" * 80, "Жанна Константиновна", "محمد عبد الرحمن", "i" * 200, "a b c d e"):
        last = ""
        for width in widths:
            out = fit(text, f, width)
            assert f.getlength(out) <= width, (text, width, out)
            if out != text:
                assert out.endswith(ELLIPSIS)
                assert text.startswith(out[: -len(ELLIPSIS)].rstrip())
            assert len(out) >= len(last)  # more room never shows less
            last = out


# --------------------------------------------------------------------------
# the words drawn: given by the caller (the reader's language), English by default


def spy_words(calls: list[tuple[str, Any]]) -> Words:
    """Words that are not English, recording what each counted word was asked for."""

    def said(kind: str, word: str) -> Any:
        def call(*args: Any) -> str:
            calls.append((kind, args))
            return f"{word} {' '.join(map(str, args))}"

        return call

    return Words(
        to_roll="tira il dado",
        choose="scegli",
        bonus=said("bonus", "bonus"),
        won=said("won", "vince"),
        title=said("title", "Classifica"),
        points=said("points", "punti"),
        all_home="tutte a casa",
        to_go=said("to_go", "mancano"),
        colour=said("colour", "Colore"),
    )


def bar(lay: geo.Layout = LAY) -> Box:
    return (0, lay.board, lay.size, lay.height)


def bonus_state() -> GameState:
    """A super game waiting for a bonus move (a capture earns 6: super 6)."""
    rng = random.Random(5)
    s = engine.new_game("super", 4)
    while s.phase != "bonus":
        assert s.phase != "over"
        if s.phase == "roll":
            s, _ = engine.apply(s, {"roll": rng.randint(1, 6)})
        else:
            s, _ = engine.apply(s, {"move": rng.choice(engine.legal_moves(s)).piece})
    return s


def test_default_words_are_english_and_the_same_as_no_words() -> None:
    # ENGLISH is what a caller who gives no words gets: the same bytes.
    assert Words() == ENGLISH
    s = play(engine.new_game("classic", 4), ROLLS[:30])
    assert render_board(s, words=ENGLISH) == render_board(s)
    for st in (finished("classic"), finished("tower"), s):
        assert render_standings(st, words=Words()) == render_standings(st)
    assert ENGLISH.to_go(1) == "1 square to go" and ENGLISH.to_go(12) == "12 squares to go"
    assert ENGLISH.points(1) == "1 point" and ENGLISH.points(250) == "250 points"
    assert ENGLISH.won(1) == "wins!" and ENGLISH.won(2) == "win!"
    assert ENGLISH.title(True, "classic") == "Final standings · classic"
    assert ENGLISH.title(False, "tower") == "Standings so far · tower"


@pytest.mark.parametrize("phase", ["roll", "move", "bonus", "over"])
def test_status_bar_draws_the_words_given(phase: str) -> None:
    # The bar under the board says the caller's words: only the bar changes, and the
    # counted words get their count (the bonus steps, the number of winners).
    states = {
        "roll": game("classic", players=4),
        "move": run(game("classic", players=4), "r6")[0],
        "bonus": bonus_state(),
        "over": finished("italian", teams=True),
    }
    s = states[phase]
    names = dict.fromkeys(COLOURS, "Ana")  # every seat named: the yards stay the same
    calls: list[tuple[str, Any]] = []
    english = image(s, names=names)
    other = image(s, names=names, words=spy_words(calls))
    where = changed(english, other)
    assert where is not None and inside(where, bar()), (phase, where)
    if phase == "bonus":
        assert s.bonus is not None and ("bonus", (s.bonus[0],)) in calls
    if phase == "over":
        assert ("won", (2,)) in calls  # red and yellow won as a team


def test_seats_without_a_name_show_the_colour_in_the_words_given() -> None:
    # An unnamed seat shows its colour's name, as the words say it (a translated colour).
    s = game("classic", players=4)
    calls: list[tuple[str, Any]] = []
    other = image(s, words=spy_words(calls))
    assert {args[0] for kind, args in calls if kind == "colour"} == set(COLOURS)
    where = changed(baseline(), other, blank=[bar()])
    assert where is not None  # the yards' names changed
    named = dict.fromkeys(COLOURS, "Ana")
    assert (
        changed(image(s, names=named), image(s, names=named, words=spy_words([])), [bar()]) is None
    )


def test_a_long_wording_in_the_status_bar_leaves_the_die_alone() -> None:
    # A wording far too long for the bar (another language, a small image) is drawn
    # smaller or cut before the die, so the die is drawn the same.
    s, _ = run(game("classic", players=4), "r6")
    for size in (300, 600):
        lay = geo.Layout(size)
        h = lay.status
        die_box = (size - round(h * 0.72) - 12, lay.board, size, lay.height)
        plain = image(s, size=size)
        long = image(s, size=size, words=Words(choose="scegli una pedina da muovere " * 10))
        assert ImageChops.difference(plain, long).crop(die_box).getbbox() is None, size
        assert changed(plain, long) is not None


@pytest.mark.parametrize("rules", ["classic", "tower"])
def test_standings_draw_the_words_given(rules: str) -> None:
    # The title, the scores (classic) or squares to go come from the words: other words
    # give another picture of the same size; the counted words get the numbers drawn.
    s = finished(rules)
    calls: list[tuple[str, Any]] = []
    english = render_standings(s)
    other = render_standings(s, words=spy_words(calls))
    assert other != english
    assert decode(other).size == decode(english).size
    assert ("title", (True, rules)) in calls
    if rules == "classic":
        assert s.scores is not None
        assert {args[0] for kind, args in calls if kind == "points"} == set(s.scores.values())
    else:
        left = {s.distance(c) for c in s.players} - {0}
        assert {args[0] for kind, args in calls if kind == "to_go"} == left
    running = play(engine.new_game("italian", 3), ROLLS[:20])
    calls.clear()
    render_standings(running, words=spy_words(calls))
    assert ("title", (False, "italian")) in calls


def test_renderer_imports_nothing_of_the_bot() -> None:
    # The renderer stays pure: the words come in as data, not from the bot's catalogs.
    code = "import renderer, sys; print(sorted(m for m in sys.modules if m.split('.')[0] == 'bot'))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# --------------------------------------------------------------------------
# the bot's pictures: the words from its catalogs, in the game's or the reader's language


def finished_game(lang: str) -> Any:
    from bot.hosting import OVER, Game, Seat, User

    ana = User("telegram", "1", "Ana")
    seats = [Seat(ana, "red"), *(Seat(None, c) for c in ("green", "yellow", "blue"))]
    state = finished("tower")
    return Game("g1", "chat", "tower", {}, ana, 0, lang=lang, status=OVER, seats=seats, state=state)


def test_the_bots_english_words_are_the_renderers() -> None:
    # In English the pictures are drawn just as the renderer's default draws them.
    from bot.present.pictures import board_png, picture_words, standings_png

    game = finished_game("en")
    names = {"red": "Ana", "green": "Computer", "yellow": "Computer", "blue": "Computer"}
    assert standings_png(game) == render_standings(game.state, names=names)
    assert board_png(game) == render_board(game.state, names=names)
    for s in (game.state, bonus_state(), run(game_of("classic"), "r6")[0], game_of("tower")):
        assert render_board(s, words=picture_words("en")) == render_board(s), s.phase
    for s in (finished("classic"), play(engine.new_game("italian", 3), ROLLS[:20])):
        assert render_standings(s, words=picture_words("en")) == render_standings(s)


def game_of(rules: str) -> GameState:
    return game(rules, players=4)


@pytest.mark.parametrize("lang", ["it", "es", "pt_BR"])
def test_the_bots_pictures_speak_the_games_language(lang: str) -> None:
    # Every word drawn comes from the catalog of the game's language (the counted ones
    # with their count), the computer players' name too; another language, another picture.
    from bot.present import Text, say
    from bot.present.catalog import translations
    from bot.present.pictures import picture_words, standings_png

    w = picture_words(lang)

    def said(key: str, **params: Any) -> str:
        return say(Text(key, params), lang=lang)

    assert w.to_roll == said("pic.to_roll") and w.choose == said("pic.choose")
    assert w.bonus(6) == said("pic.bonus", steps=6)
    assert (w.won(1), w.won(2)) == (said("pic.won", count=1), said("pic.won", count=2))
    title = said("pic.title", title=Text("pic.final"), rules="tower")
    assert w.title(True, "tower") == title
    assert w.title(False, "super") == said("pic.title", title=Text("pic.so_far"), rules="super")
    assert w.points(1) == said("pic.points", count=1)
    assert w.points(250) == said("pic.points", count=250)
    assert w.all_home == said("pic.all_home")
    assert (w.to_go(1), w.to_go(12)) == (said("pic.to_go", count=1), said("pic.to_go", count=12))
    red = translations(lang).pgettext("colour", "red")
    assert w.colour("red") == red[:1].upper() + red[1:]
    game = finished_game(lang)
    computer = said("who.a_computer")
    names = {"red": "Ana", "green": computer, "yellow": computer, "blue": computer}
    png = standings_png(game)
    assert png == standings_png(game, lang=lang)
    assert png == render_standings(game.state, names=names, words=w)
    assert png != standings_png(game, lang="en")


def test_the_table_view_draws_in_its_language() -> None:
    # A view in another language than the game's (a private answer) draws in its own.
    from bot.present import table_view
    from bot.present.pictures import standings_png

    game = finished_game("en")
    assert table_view(game).image == standings_png(game, lang="en")
    assert table_view(game, lang="pt_BR").image == standings_png(game, lang="pt_BR")
    assert table_view(game, lang="pt_BR").image != table_view(game).image
