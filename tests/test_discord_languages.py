"""Discord in each person's language, end to end: the table speaks its opener's language
and each asker's own, a whole game told in the language it was opened in, the commands
named and described in each locale, a translator's mistakes never stopping the
commands, and a table's language changed or chosen."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import engine
from bot.hosting import OVER, PLAYING, Refusal
from bot.present import Text, language_name, language_of, refusal_text, say
from bot.present.catalog import translations
from bot.present.pictures import standings_png
from bot.present.view import move_label
from tests.fakes.discord import FakeDiscord, Member
from tests.helpers.discord import (
    ANA,
    EVA,
    GIA,
    IMAGE_WIDTH,
    MOD,
    RUI,
    SUBCOMMANDS,
    Harness,
    game_id_of,
    game_ids,
    is_replay,
)
from tests.helpers.languages import english_in, lobby_labels

pytestmark = pytest.mark.discord


# ----------------------------------------------------------------------
# languages


async def test_the_table_speaks_the_openers_language_and_each_asker_their_own(
    h: Harness, fake: FakeDiscord
) -> None:
    h.extra_members.extend([RUI, GIA, EVA])

    def pt(key: str, **params: Any) -> str:
        return say(Text(key, params), lang="pt_BR")

    await h.start(seed=6)
    game_id, lobby = await h.lobby(RUI)
    assert h.game(game_id).lang == "pt_BR"
    assert lobby.description.startswith(pt("lobby.opened", host="Rui", rules="classic"))
    assert lobby.labels() == [*lobby_labels("pt_BR"), pt("btn.tell_turns")]
    # Gia may not start Rui's game: told privately, in Italian
    _, new = await h.press(GIA, lobby, pt("btn.start"))
    (told,) = new
    assert told.ephemeral and told.content == say(Text("refuse.not_seated"), lang="it")
    # Eva joins by command: acknowledged in Spanish, the table says it in Portuguese
    _, new = await h.command(EVA, "join", settle=game_id)
    (told,) = new
    assert told.ephemeral and told.content == say(Text("you.joined"), lang="es")
    assert pt("lobby.joined", who="Eva") in h.table(game_id).description
    _, new = await h.press(EVA, h.table(game_id), pt("btn.start"))
    (told,) = new
    assert told.ephemeral and told.content == say(
        Text("refuse.only_host_starts", {"host": "Rui"}), lang="es"
    )
    await h.press(RUI, h.table(game_id), pt("btn.add_computer"), settle=game_id)
    await h.press(RUI, h.table(game_id), pt("btn.start"), settle=game_id)
    game = h.game(game_id)
    table = h.table(game_id)
    member = h.on_turn(game_id)
    assert member is not None and game.state is not None and game.state.phase == "roll"
    colour = next(s.colour for s in game.seats if s.user and s.user.id == str(member.id))
    assert table.labels() == [pt("btn.roll"), pt("btn.tell_turns")]
    assert table.description.endswith(pt("turn.roll", who=member.display_name, colour=colour))
    # Gia is not playing: told in Italian
    _, new = await h.press(GIA, table, pt("btn.roll"))
    (told,) = new
    assert told.ephemeral and told.content == say(Text("refuse.not_seated"), lang="it")
    h.check_clean()


@pytest.mark.parametrize(("host", "lang"), [(RUI, "pt_BR"), (EVA, "es"), (GIA, "it")])
async def test_a_whole_game_opened_in_a_language_is_told_in_it_from_start_to_end(
    h: Harness, fake: FakeDiscord, host: Member, lang: str
) -> None:
    """A whole game opened by a pt-BR (es, it) person: every text and button label the
    channel sees, and the standings picture, in that language; Ana, the other player,
    acknowledged in English."""
    h.extra_members.append(host)
    await h.start(seed=8)
    _, new = await h.command(host, "new")
    (lobby,) = [m for m in new if not m.ephemeral]
    game_id = game_id_of(lobby)

    def label(key: str) -> str:
        return say(Text(key), lang=lang)

    _, new = await h.command(ANA, "join", settle=game_id)
    assert [m.content for m in new if m.ephemeral] == [say(Text("you.joined"))]
    for _ in range(2):
        await h.press(host, h.table(game_id), label("btn.add_computer"), settle=game_id)
    await h.press(host, h.table(game_id), label("btn.start"), settle=game_id)
    rng = random.Random(4)
    for _ in range(3000):
        if h.game(game_id).status != PLAYING:
            break
        member = h.on_turn(game_id)
        assert member is not None
        table = h.table(game_id)
        await h.press(member, table, custom_id=rng.choice(game_ids(table)), settle=game_id)
    game = h.game(game_id)
    assert game.status == OVER, "the game did not end"
    public = [m for m in fake.messages.values() if not m.ephemeral]  # deleted ones too
    texts = {line for m in public for t in m.shown_texts() for line in t.splitlines() if line}
    labels = {
        str(b.get("label"))
        for m in public
        for body in m.history
        for row in body.get("components") or []
        for b in row.get("components", [])
    }
    print(f"discord, a whole game in {lang}: {len(texts)} lines, {len(labels)} labels")
    assert len(texts) > 40 and len(labels) > 10
    assert not english_in(texts | labels, lang)
    standings, replay = fake.public_messages()[-2:]
    assert standings.embed_image() == ("standings.png", standings_png(game, IMAGE_WIDTH, lang))
    assert is_replay(replay) and not english_in([replay.content], lang)
    # private answers to the host in their language
    told = [m.content for m in fake.messages.values() if m.ephemeral and m.visible_to == host.id]
    assert told and not english_in(told, lang)
    h.check_clean()


# ----------------------------------------------------------------------
# the commands in each person's language

#: Discord's locales the bot speaks, and the language it speaks to each
OUR_LOCALES = {"pt-BR": "pt_BR", "es-ES": "es", "es-419": "es", "it": "it"}
#: Discord's rule for command and option names (lower case too), in every locale
DISCORD_NAME = re.compile(r"[-_\w]{1,32}")


def capital(word: str) -> str:
    return word[:1].upper() + word[1:]


def localized(obj: dict[str, Any], key: str, english: str, said: Callable[[str], str]) -> None:
    """``obj``'s ``key`` (name, description) is ``english``; in each of our locales it is
    what the catalog says, and no localization where that is the English."""
    assert obj[key] == english, (obj[key], english)
    got = obj.get(f"{key}_localizations") or {}
    for locale, lang in OUR_LOCALES.items():
        expected = said(lang)
        if expected == english:
            assert locale not in got, (english, locale, got)
        else:
            assert got.get(locale) == expected, (english, locale, got)


def words(key: str) -> Callable[[str], str]:
    return lambda lang: say(Text(key), lang=lang)


def rule_word(name: str) -> Callable[[str], str]:
    return lambda lang: capital(translations(lang).pgettext("rules", name))


def said_all(obj: dict[str, Any], key: str, under: str = "options") -> list[str]:
    """Every ``key`` of ``obj`` and the command tree under it (its ``options``, or their
    ``choices``), in every locale."""
    out = [obj[key], *(obj.get(f"{key}_localizations") or {}).values()]
    for child in obj.get(under, []):
        out += said_all(child, key, under)
    return out


def options_of(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """Every option under a command (not its subcommands)."""
    out: list[dict[str, Any]] = []
    for o in obj.get("options", []):
        out += options_of(o) if o["type"] in (1, 2) else [o]
    return out


async def test_commands_are_named_and_described_in_each_locale(
    h: Harness, fake: FakeDiscord
) -> None:
    await h.start()
    (ludo,) = fake.commands[None]
    # the group is /ludo everywhere; all below it speaks the catalogs' words
    assert ludo["name"] == "ludo"
    assert set((ludo.get("name_localizations") or {}).values()) <= {"ludo"}
    localized(ludo, "description", say(Text("dc.desc.ludo")), words("dc.desc.ludo"))
    assert {sub["name"] for sub in ludo["options"]} == SUBCOMMANDS
    for sub in ludo["options"]:
        name = sub["name"]
        localized(sub, "name", name, words(f"dc.name.{name}"))
        localized(sub, "description", say(Text(f"dc.desc.{name}")), words(f"dc.desc.{name}"))
        for opt in sub.get("options", []):
            o = opt["name"]
            localized(opt, "name", o, words(f"dc.name.{o}"))
            desc = f"dc.desc.{name}.{o}"
            localized(opt, "description", say(Text(desc)), words(desc))
            for choice in opt.get("choices", []):
                value = choice["value"]
                if o == "rules":
                    localized(choice, "name", value.capitalize(), rule_word(value))
                elif o == "period":
                    key = {
                        "all": "dc.choice.all_time",
                        "month": "dc.choice.this_month",
                        "week": "dc.choice.this_week",
                        "seasons": "dc.choice.seasons",
                    }[value]
                    localized(choice, "name", say(Text(key)), words(key))
                elif o == "theme":
                    key = f"dc.theme.{value}"
                    localized(choice, "name", say(Text(key)), words(key))
                elif o == "level":
                    key = f"level.{value}"
                    localized(choice, "name", say(Text(key)), words(key))
                elif o in ("action", "format"):  # /ludo tournament's
                    key = f"dc.choice.tour_{value}" if o == "action" else f"dc.choice.{value}"
                    localized(choice, "name", say(Text(key)), words(key))
                else:
                    # a language is named in its own words, for every reader
                    assert o == "language"
                    assert choice["name"] == capital(language_name(value))
                    assert not choice.get("name_localizations")
    # what Discord takes, in every locale
    for name in said_all(ludo, "name"):
        assert DISCORD_NAME.fullmatch(name) and name == name.lower(), name
    for text in said_all(ludo, "description"):
        assert 1 <= len(text) <= 100, text
    for option in options_of(ludo):
        for text in said_all(option, "name", "choices")[1:]:
            assert 1 <= len(text) <= 100, text
    assert not fake.errors
    h.check_clean()


@pytest.fixture
def sloppy_italian(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The bot speaks English and an Italian whose translator made mistakes."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    import bot.present.catalog as catalog

    italian = Catalog(locale="it")
    for context, english, said in [
        ("dc.desc.ludo", say(Text("dc.desc.ludo")), "Gioca a Ludo in questo canale"),
        ("dc.name.new", "new", "Nuova Partita"),  # capitals and a space
        ("dc.desc.new", say(Text("dc.desc.new")), "Apri " + "molto " * 30),  # too long
        ("dc.name.join", "join", "entra?"),  # no name
        ("dc.desc.join", say(Text("dc.desc.join")), say(Text("dc.desc.join"))),  # English
        ("dc.name.rules", "rules", "regole"),  # two options of /ludo new alike
        ("dc.name.teams", "teams", "regole"),
        ("dc.name.timer", "timer", "pieces_to_win"),  # another option's English name
        ("rules", "classic", "classico"),
    ]:
        italian.add(english, said, context=context)
    folder = tmp_path / "locale"
    folder.mkdir()
    with (folder / "it.po").open("wb") as f:
        write_po(f, italian)
    monkeypatch.setattr(catalog, "LOCALE_DIR", folder)
    translations.cache_clear()
    yield
    translations.cache_clear()


async def test_a_translators_mistakes_never_stop_the_commands(
    h: Harness, fake: FakeDiscord, sloppy_italian: None
) -> None:
    await h.start()
    # Discord took the commands; what could be said in Italian is, the rest in English
    assert not fake.errors
    (ludo,) = fake.commands[None]
    subs = {o["name"]: o for o in ludo["options"]}
    new = {o["name"]: o for o in subs["new"]["options"]}

    def italian(obj: dict[str, Any], key: str) -> str | None:
        return (obj.get(f"{key}_localizations") or {}).get("it")

    assert italian(ludo, "description") == "Gioca a Ludo in questo canale"
    assert italian(subs["new"], "name") == "nuova_partita"
    cut = italian(subs["new"], "description")
    assert cut is not None and len(cut) == 100 and cut.startswith("Apri molto ")
    assert cut.endswith("…")
    assert italian(subs["join"], "name") is None and italian(subs["join"], "description") is None
    # "regole" cannot name two options of /ludo new, "pieces_to_win" is taken
    assert [italian(new[o], "name") for o in ("rules", "teams", "timer", "pieces_to_win")] == [
        None
    ] * 4
    # alone, as the subcommand /ludo rules and its option, "regole" is fine
    assert italian(subs["rules"], "name") == "regole"
    assert italian(subs["rules"]["options"][0], "name") == "regole"
    assert italian(new["rules"]["choices"][0], "name") == "Classico"
    # a language without a catalog is not spoken: no Portuguese, no Spanish anywhere
    for key in ("name", "description"):
        for obj in [ludo, *subs.values(), *new.values()]:
            assert set(obj.get(f"{key}_localizations") or {}) <= {"it"}, obj
    # the commands work as ever
    await h.lobby(ANA)
    h.check_clean()


async def test_the_creator_changes_the_language_of_the_table(h: Harness, fake: FakeDiscord) -> None:
    h.extra_members.extend([RUI, GIA, EVA])
    await h.start(seed=6)
    game_id, lobby = await h.lobby(ANA, RUI)
    await h.press(ANA, lobby, "Start", settle=game_id)
    assert h.game(game_id).lang == "en"
    stored = h.stored(game_id)
    table = h.table(game_id)
    edits = table.edits

    # Eva did not open the game and may not manage messages: refused in Spanish; Rui
    # plays in it but did not open it: refused in Portuguese; nothing changes
    for asker, lang in ((EVA, "es"), (RUI, "pt_BR")):
        inter, new = await h.command(asker, "language", language="it")
        (told,) = new
        assert inter.callback.type == 4 and told.ephemeral and told.visible_to == asker.id
        refusal = refusal_text(Refusal("refuse.only_creator_language", host="Ana"))
        assert told.content == say(refusal, lang=lang)
        assert h.stored(game_id) == stored
        assert h.table(game_id) is table and table.edits == edits and not table.deleted

    def it(key: str, **params: Any) -> str:
        return say(Text(key, params), lang="it")

    # Ana opened it: told privately (in English), the table speaks Italian from now on
    inter, new = await h.command(ANA, "language", language="it", settle=game_id)
    (told,) = [m for m in new if m.ephemeral]
    assert told.visible_to == ANA.id and language_name("it", "en") in told.content
    game = h.game(game_id)
    assert game.lang == "it"
    table = h.table(game_id)
    assert it("game.language", language="it") in table.description
    member = h.on_turn(game_id)
    assert member is not None and game.state is not None and game.state.phase == "roll"
    colour = next(s.colour for s in game.seats if s.user and s.user.id == str(member.id))
    assert table.labels() == [it("btn.roll"), it("btn.tell_turns")]
    assert table.description.endswith(it("turn.roll", who=member.display_name, colour=colour))
    # the Italian Roll plays on
    await h.press(member, table, it("btn.roll"), settle=game_id)
    assert h.game(game_id).rev > game.rev

    # Mo may manage messages: he changes it too, to Portuguese
    _, new = await h.command(MOD, "language", language="pt_BR", settle=game_id)
    assert h.game(game_id).lang == "pt_BR"
    table = h.table(game_id)
    assert say(Text("game.language", {"language": "pt_BR"}), lang="pt_BR") in table.description
    h.check_clean()


async def test_a_game_opened_in_a_chosen_language(h: Harness, fake: FakeDiscord) -> None:
    h.extra_members.extend([GIA])
    await h.start()
    # Ana (English) opens a Spanish table: told in English, the table in Spanish
    game_id, lobby = await h.lobby(ANA, language="es")
    assert h.game(game_id).lang == "es"

    def es(key: str, **params: Any) -> str:
        return say(Text(key, params), lang="es")

    assert lobby.description.startswith(es("lobby.opened", host="Ana", rules="classic"))
    assert lobby.labels() == [*lobby_labels("es"), say(Text("btn.tell_turns"), lang="es")]
    # Gia (Italian) opens an English one in the thread
    thread_game, thread_lobby = await h.lobby(GIA, channel_id=fake.thread_id, language="en")
    assert h.game(thread_game).lang == "en"
    assert thread_lobby.description.startswith(
        say(Text("lobby.opened", {"host": "Gia", "rules": "classic"}))
    )
    h.check_clean()


async def test_help_foreign_buttons_and_pieces_in_the_askers_language(
    h: Harness, fake: FakeDiscord
) -> None:
    h.extra_members.extend([RUI, GIA, EVA])
    await h.start(seed=3)
    _, (helped,) = await h.command(GIA, "help")
    # naming the commands as an Italian's Discord shows them
    names = {name: say(Text(f"dc.name.{name}"), lang="it") for name in SUBCOMMANDS}
    helps = [say(Text(key, names), lang="it") for key in ("dc.help", "dc.help.tournament")]
    corner = say(Text("dc.help.corner", names), lang="it")  # the turns in one's DMs
    assert helped.ephemeral
    assert helped.content == "\n".join([*helps, corner])
    alien = fake.plant_message(fake.channel_id, buttons=[[("Poll", "poll:yes")]])
    inter, (answer,) = await h.press(RUI, alien, custom_id="poll:yes")
    assert inter.callback.type == 4 and answer.ephemeral and answer.visible_to == RUI.id
    assert answer.content == say(Text("refuse.bad_button"), lang="pt_BR")

    # an Italian table; the pieces Rui and Eva may move are offered in their own words
    game_id, lobby = await h.lobby(RUI, language="it")
    await h.press(EVA, lobby, say(Text("btn.join"), lang="it"), settle=game_id)
    await h.press(RUI, lobby, say(Text("btn.start"), lang="it"), settle=game_id)
    offered: set[int] = set()
    for turn in range(300):
        if offered == {RUI.id, EVA.id} or h.game(game_id).status != PLAYING:
            break
        member = h.on_turn(game_id)
        state = h.game(game_id).state
        assert member is not None and state is not None
        if state.phase == "roll":
            await h.command(member, "roll", settle=game_id)
            continue
        moves = engine.legal_moves(state)
        ac = await fake.autocomplete(member, "move", "piece")
        await fake.answered(ac)
        lang = language_of(member.locale)
        assert {c["value"]: c["name"] for c in ac.choices} == {
            m.piece + 1: say(move_label(m), lang=lang) for m in moves
        }
        offered.add(member.id)
        piece = random.Random(turn).choice(moves).piece + 1
        await h.command(member, "move", piece=piece, settle=game_id)
    assert offered == {RUI.id, EVA.id}
    h.check_clean()
