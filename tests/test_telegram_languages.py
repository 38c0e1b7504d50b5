"""Telegram in each person's language, end to end: the table speaks its opener's
language and each asker's own, a whole game told in the language it was opened in,
the command menu set in every language, help, the rules chooser, typos and refused
arguments in the asker's words, ``/ludo lang`` and changing a table's language."""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from bot.adapters.telegram import COMMANDS
from bot.hosting import OVER, PLAYING, Refusal, User
from bot.present import Text, language_name, languages, refusal_text, say
from bot.present.catalog import translations
from bot.present.narrate import one_of
from bot.present.pictures import standings_png
from bot.store import Store
from tests.fakes.telegram import FakeTelegram
from tests.helpers.languages import english_in
from tests.helpers.telegram import (
    ANA,
    BEN,
    CID,
    EVA,
    GIA,
    IMAGE_SIZE,
    RUI,
    answer,
    full_name,
    game_id_of,
    plain,
    running,
)

pytestmark = [pytest.mark.telegram, pytest.mark.usefixtures("no_logged_errors")]


async def test_the_table_speaks_the_openers_language_and_each_asker_their_own(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """Rui (pt-br) opens a game: the table is in Portuguese; Gia (it) and Eva (es) are
    answered in Italian and Spanish."""

    def pt(key: str, **params: Any) -> str:
        return say(Text(key, params), lang="pt_BR")

    group = fake.group("Mesa de sábado")
    people = {RUI["id"]: RUI, EVA["id"]: EVA}
    async with running(fake, db, clock, seed=17) as bot:
        await bot.say(group, RUI, "/ludo classic")
        lobby = fake.latest(group["id"], buttons=True)
        game_id = game_id_of(lobby)
        assert bot.game(game_id).lang == "pt_BR"
        opened = pt("lobby.opened", host="Rui", rules="classic")
        assert opened != say(Text("lobby.opened", {"host": "Rui", "rules": "classic"}))
        assert (lobby.text or "").startswith(opened)
        assert [b["text"] for b in lobby.buttons] == [
            pt(k) for k in ("btn.join", "btn.leave", "btn.add_computer", "btn.remove_computer")
        ] + [pt("btn.start"), pt("btn.level", level=Text("level.normal"))]
        # Gia may not start Rui's game: told why, in Italian
        click = await bot.click(lobby, GIA, label=pt("btn.start"))
        assert click.toast == say(Text("refuse.not_seated"), lang="it")
        # Eva joins: her toast in Spanish, the table tells it in Portuguese
        click = await bot.click(lobby, EVA, label=pt("btn.join"))
        assert click.toast == say(Text("you.joined"), lang="es")
        assert pt("lobby.joined", who="Eva") in (
            fake.message(group["id"], lobby.message_id).text or ""
        )
        click = await bot.click(lobby, EVA, label=pt("btn.start"))
        assert click.toast == say(Text("refuse.only_host_starts", {"host": "Rui"}), lang="es")
        for _ in range(2):
            await bot.click(lobby, RUI, label=pt("btn.add_computer"))
        await bot.click(lobby, RUI, label=pt("btn.start"))
        # a few turns: the captions' prompts and the buttons in Portuguese
        for _ in range(12):
            game = bot.game(game_id)
            if game.status != PLAYING:
                break
            turn = bot.on_turn(game_id)
            assert turn is not None and game.state is not None
            board = fake.latest(group["id"], buttons=True, photo=True)
            who = people[int(turn)]
            name = full_name(who)
            colour = next(s.colour for s in game.seats if s.user and s.user.id == turn)
            if game.state.phase == "roll":
                assert [b["text"] for b in board.buttons] == [pt("btn.roll")]
                assert plain(board.caption_html or "").endswith(
                    pt("turn.roll", who=name, colour=colour)
                )
            # Gia is not playing: told in Italian, whatever the table's language
            click = await bot.click(board, GIA, board.buttons[0]["callback_data"])
            assert click.toast == say(Text("refuse.not_seated"), lang="it")
            click = await bot.click(board, who, board.buttons[0]["callback_data"])
            # what they did, in their own language (Portuguese for Rui, Spanish for Eva)
            assert click.toast and not click.toast.startswith("You "), click.toast
        # a refused command in the group: answered in the asker's language
        calls = await bot.say(group, GIA, "/roll")
        (said,) = [c for c in calls if c.method == "sendMessage" and c.ok]
        assert plain(said.params["text"]) == say(Text("refuse.not_seated"), lang="it")


def everything_shown(fake: FakeTelegram, chat_id: int) -> tuple[set[str], set[str]]:
    """Every line of text and every button label the bot ever showed in a chat, in
    every version of every message (deleted ones too)."""
    lines: set[str] = set()
    labels: set[str] = set()
    for (c, _), m in fake.messages.items():
        if c != chat_id or not m.from_bot:
            continue
        for v in [*m.history, m.snapshot()]:
            lines.update(line for line in (v.text or v.caption or "").splitlines() if line)
            labels.update(b["text"] for row in v.keyboard for b in row)
    return lines, labels


@pytest.mark.parametrize(("host", "lang"), [(RUI, "pt_BR"), (EVA, "es"), (GIA, "it")])
async def test_a_whole_game_opened_in_a_language_is_told_in_it_from_start_to_end(
    fake: FakeTelegram, db: Store, clock: Any, host: dict[str, Any], lang: str
) -> None:
    """A whole game opened by a pt-br (es, it) person: every text and button label the
    group sees, and the standings picture, in that language; the other player's
    toasts in their own language."""
    group = fake.group("Ludo")
    guest = ANA  # English
    people = {host["id"]: host, guest["id"]: guest}
    rng = random.Random(3)
    async with running(fake, db, clock, seed=23) as bot:
        await bot.say(group, host, "/ludo classic")
        lobby = fake.latest(group["id"], buttons=True)
        game_id = game_id_of(lobby)
        label = {k: say(Text(k, LOBBY_LEVEL), lang=lang) for k in LOBBY_BUTTONS}
        await bot.click(lobby, guest, label=label["btn.join"])
        for _ in range(2):
            await bot.click(lobby, host, label=label["btn.add_computer"])
        await bot.click(lobby, host, label=label["btn.start"])
        toasts: dict[int, list[str]] = {host["id"]: [], guest["id"]: []}
        for _ in range(1500):
            game = bot.game(game_id)
            if game.status != PLAYING:
                break
            turn = bot.on_turn(game_id)
            assert turn is not None
            board = fake.latest(group["id"], buttons=True, photo=True)
            data = [b["callback_data"] for b in board.buttons]
            click = await bot.click(board, people[int(turn)], rng.choice(data))
            toasts[int(turn)].append(click.toast or "")
        game = bot.game(game_id)
        assert game.status == OVER, "the game did not end"
        lines, labels = everything_shown(fake, group["id"])
        english = english_in(lines | labels, lang)
        print(f"telegram, a whole game in {lang}: {len(lines)} lines, {len(labels)} labels")
        assert len(lines) > 40 and len(labels) > 10
        assert not english, english
        last = [m for m in fake.chat_messages(group["id"]) if m.photo is not None][-1]
        assert last.photo == standings_png(game, IMAGE_SIZE, lang)
        assert last.photo != standings_png(game, IMAGE_SIZE, "en")
        # each presser was answered in their own language
        assert toasts[host["id"]] and not english_in(toasts[host["id"]], lang)
        assert any(t.startswith("You rolled") for t in toasts[guest["id"]])


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


#: the lobby's buttons, by message id
LOBBY_BUTTONS = (
    "btn.join",
    "btn.leave",
    "btn.add_computer",
    "btn.remove_computer",
    "btn.start",
    "btn.level",
)
#: the parameters of the lobby's buttons: the level button shows the table's level
LOBBY_LEVEL = {"level": Text("level.normal")}


def menu_code(lang: str) -> str:
    """The language_code of a language's command menu ("" the default: English)."""
    return "" if lang == "en" else lang.split("_")[0]


async def test_the_command_menu_is_set_in_every_language(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    async with running(fake, db, clock):
        pass
    assert {menu_code(lang) for lang in languages()} == {"", "pt", "es", "it"}
    # one menu per language: the default (English, no language_code), then pt, es, it
    sets = fake.calls_of("setMyCommands", ok=True)
    assert sorted(str(c.params.get("language_code") or "") for c in sets) == ["", "es", "it", "pt"]
    assert set(fake.command_menus) == {"", "pt", "es", "it"}
    assert fake.commands == fake.command_menus[""]
    assert fake.command_menus["it"] != fake.command_menus[""], "the Italian menu is Italian"
    assert "language" in COMMANDS
    for lang in languages():
        menu = fake.command_menus[menu_code(lang)]
        assert [c["command"] for c in menu] == list(COMMANDS), lang
        assert [c["description"] for c in menu] == [
            say(Text(f"tg.cmd.{name}"), lang=lang) for name in COMMANDS
        ], lang


async def test_help_the_chooser_and_typos_speak_the_askers_language(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    group = fake.group("Babele")
    async with running(fake, db, clock, seed=3) as bot:
        for user, lang in ((GIA, "it"), (RUI, "pt_BR"), (EVA, "es"), (ANA, "en")):
            helped = answer(await bot.say(group, user, "/help"))
            parts = ("tg.help", "tg.help.corner", "tg.help.tournament")
            assert helped == "\n\n".join(say(Text(key), lang=lang) for key in parts)
        private = fake.private(RUI)
        greeting = answer(await bot.say(private, RUI, "/start"))
        assert greeting == say(Text("tg.greeting"), lang="pt_BR")
        text = answer(await bot.say(group, GIA, "/move x"))
        assert text == say(Text("tg.say_piece"), lang="it")

        # the rule chooser, in Spanish for Eva: the rule sets' names in Spanish
        calls = await bot.say(group, EVA, "/ludo")
        assert answer(calls) == say(Text("tg.chooser"), lang="es")
        sent = next(c for c in calls if c.method == "sendMessage" and c.ok)
        assert sent.message_id is not None
        chooser = fake.message(group["id"], sent.message_id)
        spanish = translations("es")
        names = [capitalised(spanish.pgettext("rules", r)) for r in engine.RULE_SETS]
        teams = capitalised(say(Text("tg.chooser.teams", {"rules": "italian"}), lang="es"))
        labels = [b["text"] for b in chooser.buttons]
        assert labels == [*names[:3], teams, names[3]]
        assert engine.RULE_SETS == ("classic", "tower", "italian", "super")
        assert labels[0] != "Classic", "the rule sets' names are translated"
        # Eva chooses the Italian rules in teams: a Spanish table
        click = await bot.click(chooser, EVA, label=teams)
        assert click.toast == say(Text("you.opened", {"rules": "italian"}), lang="es")
        game = bot.game(game_id_of(fake.message(group["id"], chooser.message_id)))
        assert (game.rules, game.options, game.lang) == ("italian", {"teams": True}, "es")


async def test_bad_ludo_arguments_are_refused_in_the_askers_language(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    group = fake.group("Typos")
    nobody = User("telegram", "1", "Nobody")
    async with running(fake, db, clock) as bot:
        text = answer(await bot.say(group, GIA, "/ludo classic timer=abc"))
        assert text == say(Text("tg.bad_timer", {"value": "abc"}), lang="it")
        # what the service refuses (an unknown rule set or option, a bad value), the
        # presenter says, in the asker's language
        for user, lang, typed, rules, options, timer in (
            (EVA, "es", "/ludo chess", "chess", {}, None),
            (RUI, "pt_BR", "/ludo classic chess=1", "classic", {"chess": 1}, None),
            (GIA, "it", "/ludo tower pieces=9", "tower", {"pieces": 9}, None),
            (EVA, "es", "/ludo classic timer=5", "classic", {}, 5),
        ):
            refused = bot.service.open("tg:nowhere", nobody, rules, options, timer=timer)
            assert refused.refusal is not None, typed
            expected = say(refusal_text(refused.refusal), lang=lang)
            text = plain(answer(await bot.say(group, user, typed)))
            assert text == expected, typed
            assert "chess" in text or rules != "chess", "the refusal names the rule set"
        # a language the bot does not speak
        text = answer(await bot.say(group, RUI, "/ludo classic lang=klingon"))
        assert plain(text) == say(refusal_text(Refusal("refuse.bad_language")), lang="pt_BR")
        assert all(language_name(lang) in plain(text) for lang in languages())
        # nothing was opened
        assert db.channel_game(f"tg:{group['id']}") is None
        assert not [m for m in fake.chat_messages(group["id"]) if m.keyboard]


async def test_ludo_lang_opens_a_table_in_that_language(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    group, other = fake.group("Mesa"), fake.group("Tavolo")
    async with running(fake, db, clock) as bot:
        calls = await bot.say(group, ANA, "/ludo italian teams lang=es")
        assert not [
            c for c in calls if c.method == "sendMessage" and not c.params.get("reply_markup")
        ]
        lobby = fake.latest(group["id"], buttons=True)
        game = bot.game(game_id_of(lobby))
        assert (game.rules, game.options, game.lang) == ("italian", {"teams": True}, "es")
        opened = say(Text("lobby.opened", {"host": "Ana Silva", "rules": "italian"}), lang="es")
        assert opened != say(Text("lobby.opened", {"host": "Ana Silva", "rules": "italian"}))
        assert (lobby.text or "").startswith(opened)
        assert [b["text"] for b in lobby.buttons] == [
            say(Text(k, LOBBY_LEVEL), lang="es") for k in LOBBY_BUTTONS
        ]
        # a language by its name; without lang=, the opener's language (English for Ana)
        await bot.say(other, ANA, "/ludo lang=Italiano")
        assert bot.game(game_id_of(fake.latest(other["id"], buttons=True))).lang == "it"


async def test_the_creator_or_an_admin_changes_the_tables_language(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    group = fake.group("Poliglotti")
    fake.set_member(group, CID, "administrator")
    async with running(fake, db, clock, seed=5) as bot:
        await bot.say(group, ANA, "/ludo classic")
        lobby = fake.latest(group["id"], buttons=True)
        game_id = game_id_of(lobby)
        assert bot.game(game_id).lang == "en"
        await bot.click(lobby, BEN, label="Join")

        # how to ask, and a language the bot does not speak
        text = plain(answer(await bot.say(group, GIA, "/language")))
        names = one_of([language_name(lang) for lang in languages()])
        asked = Text("tg.say_language", {"example": "pt", "languages": names})
        assert text == plain(say(asked, lang="it"))
        assert "/language pt" in text and all(language_name(x) in text for x in languages())
        before = bot.stored(game_id)
        text = answer(await bot.say(group, ANA, "/language klingon"))
        assert plain(text) == say(refusal_text(Refusal("refuse.bad_language")), lang="en")
        # Rui is neither the creator nor an admin: told in Portuguese, nothing changes
        mark = fake.mark()
        text = answer(await bot.say(group, RUI, "/language it"))
        refused = Text("refuse.only_creator_language", {"host": "Ana Silva"})
        assert plain(text) == say(refused, lang="pt_BR")
        assert bot.stored(game_id) == before
        assert not fake.calls_of("editMessageText", since=mark)

        # Ana, the creator, switches the table to Italian: the lobby says so, in Italian
        calls = await bot.say(group, ANA, "/language it")
        assert not [c for c in calls if c.method == "sendMessage"], "the table tells it"
        assert bot.game(game_id).lang == "it"
        lobby = fake.message(group["id"], lobby.message_id)
        said = say(Text("game.language", {"language": "it"}), lang="it")
        assert said in (lobby.text or ""), lobby.text
        italian = [say(Text(k, LOBBY_LEVEL), lang="it") for k in LOBBY_BUTTONS]
        assert [b["text"] for b in lobby.buttons] == italian
        assert italian != [say(Text(k, LOBBY_LEVEL)) for k in LOBBY_BUTTONS]
        assert italian[-1] == "Livello: normale"

        # the next table captions are Italian
        await bot.click(lobby, ANA, label=say(Text("btn.start"), lang="it"))
        game = bot.game(game_id)
        assert game.status == PLAYING and game.state is not None and game.state.phase == "roll"

        def prompt(lang: str) -> str:
            seat = bot.game(game_id).on_turn()
            assert seat is not None and seat.user is not None
            params = {"who": seat.user.name, "colour": seat.colour}
            return say(Text("turn.roll", params), lang=lang)

        board = fake.latest(group["id"], buttons=True, photo=True)
        assert plain(board.caption_html or "").endswith(prompt("it"))
        assert [b["text"] for b in board.buttons] == [say(Text("btn.roll"), lang="it")]

        # an admin of the chat may too (/ludo language), and a language by its name
        calls = await bot.say(group, CID, "/ludo language es")
        assert not [c for c in calls if c.method == "sendMessage"]
        assert bot.game(game_id).lang == "es"
        board = fake.latest(group["id"], buttons=True, photo=True)
        caption = plain(board.caption_html or "")
        assert say(Text("game.language", {"language": "es"}), lang="es") in caption
        assert caption.endswith(prompt("es"))
        await bot.say(group, BEN, "/language italiano")
        assert bot.game(game_id).lang == "es", "Ben may not"
        await bot.say(group, ANA, "/language italiano")
        assert bot.game(game_id).lang == "it"
        board = fake.latest(group["id"], buttons=True, photo=True)
        assert plain(board.caption_html or "").endswith(prompt("it"))
