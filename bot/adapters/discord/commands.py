"""``/ludo`` on Discord: the command group, its options and their choices (the names
and descriptions in each person's language: :mod:`.translator`).  Every command is
handed to the adapter as it comes (:func:`.handlers.handlers_of`)."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from ...hosting import Intent
from ...present import Text, find_language, say
from ...present.timer import asked_timer
from .handlers import handlers_of
from .translator import (
    asker_language,
    described,
    language_choices,
    level_choices,
    named,
    options,
    rule_choices,
    theme_choices,
    unique_name,
)
from .where import can_manage

RULE_CHOICES = rule_choices()
LANGUAGE_CHOICES = language_choices()
THEME_CHOICES = theme_choices()
LEVEL_CHOICES = level_choices()
#: ``/ludo top``: of all time, of this month, or of this week
PERIOD_CHOICES = [
    app_commands.Choice(name=described("dc.choice.all_time"), value="all"),
    app_commands.Choice(name=described("dc.choice.this_month"), value="month"),
    app_commands.Choice(name=described("dc.choice.this_week"), value="week"),
    app_commands.Choice(name=described("dc.choice.seasons"), value="seasons"),
]
#: ``/ludo notify``: the cards on or off, or a note of the games opened in this channel
NOTIFY_CHOICES = ("on", "off", "here")


class LudoCommands(app_commands.Group):
    """/ludo: play Ludo in this channel (the names and descriptions in :mod:`.translator`)."""

    def __init__(self) -> None:
        # installed to a server, or to a person (then usable in any DM, group DM or server
        # the bot is not in: a table of interactions only, see .places)
        super().__init__(
            name="ludo",
            description=described("dc.desc.ludo"),
            allowed_installs=app_commands.AppInstallationType(guild=True, user=True),
            allowed_contexts=app_commands.AppCommandContext(
                guild=True, dm_channel=True, private_channel=True
            ),
        )

    @app_commands.command(name=named("new"), description=described("dc.desc.new"))
    @options(
        "new",
        rules="rules",
        teams="teams",
        pieces_to_win="pieces_to_win",
        timer="timer",
        language="language",
        theme="theme",
        level="level",
    )
    @app_commands.choices(
        rules=RULE_CHOICES, language=LANGUAGE_CHOICES, theme=THEME_CHOICES, level=LEVEL_CHOICES
    )
    async def new(
        self,
        interaction: discord.Interaction[Any],
        rules: app_commands.Choice[str] | None = None,
        teams: bool = False,
        pieces_to_win: app_commands.Range[int, 2, 3] | None = None,
        timer: app_commands.Range[str, 1, 32] | None = None,
        language: app_commands.Choice[str] | None = None,
        theme: app_commands.Choice[str] | None = None,
        level: app_commands.Choice[str] | None = None,
    ) -> None:
        options: dict[str, Any] = {}
        if teams:
            options["teams"] = True
        if pieces_to_win is not None:
            options["pieces_to_win"] = pieces_to_win
        name = rules.value if rules else "classic"
        lang = language.value if language else None
        look = theme.value if theme else "classic"
        strength = level.value if level else "normal"
        # "12h", "3d", "90m", "45s", "60" (seconds), "off"; one that is no timer is refused
        secs = asked_timer(timer)
        await handlers_of(interaction).open(interaction, name, options, secs, lang, look, strength)

    @app_commands.command(name=named("join"), description=described("dc.desc.join"))
    async def join(self, interaction: discord.Interaction[Any]) -> None:
        await handlers_of(interaction).act(interaction, Intent("join"))

    @app_commands.command(name=named("leave"), description=described("dc.desc.leave"))
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        await handlers_of(interaction).act(interaction, Intent("leave"))

    @app_commands.command(name=named("start"), description=described("dc.desc.start"))
    async def start(self, interaction: discord.Interaction[Any]) -> None:
        await handlers_of(interaction).act(interaction, Intent("start"))

    @app_commands.command(name=named("roll"), description=described("dc.desc.roll"))
    async def roll(self, interaction: discord.Interaction[Any]) -> None:
        await handlers_of(interaction).act(interaction, Intent("roll"))

    @app_commands.command(name=named("move"), description=described("dc.desc.move"))
    @options("move", piece="piece")
    async def move(
        self, interaction: discord.Interaction[Any], piece: app_commands.Range[int, 1, 6]
    ) -> None:
        await handlers_of(interaction).act(interaction, Intent("move", piece))

    @move.autocomplete("piece")
    async def move_pieces(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        return await handlers_of(interaction).pieces(interaction, current)

    @app_commands.command(name=named("board"), description=described("dc.desc.board"))
    @options("board", text="text")
    async def board(self, interaction: discord.Interaction[Any], text: bool = False) -> None:
        await handlers_of(interaction).board(interaction, text)

    @app_commands.command(name=named("rules"), description=described("dc.desc.rules"))
    @options("rules", rules="rules")
    @app_commands.choices(rules=RULE_CHOICES)
    async def rules(
        self, interaction: discord.Interaction[Any], rules: app_commands.Choice[str] | None = None
    ) -> None:
        await handlers_of(interaction).rules(interaction, rules.value if rules else None)

    @app_commands.command(name=named("language"), description=described("dc.desc.language"))
    @options("language", language="language")
    @app_commands.choices(language=LANGUAGE_CHOICES)
    async def language(
        self, interaction: discord.Interaction[Any], language: app_commands.Choice[str]
    ) -> None:
        # a language the bot does not speak (any more) is refused by the game: ""
        intent = Intent(
            "language", lang=find_language(language.value) or "", can_manage=can_manage(interaction)
        )
        await handlers_of(interaction).act(interaction, intent)

    @app_commands.command(name=named("end"), description=described("dc.desc.end"))
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        intent = Intent("end", can_manage=can_manage(interaction))
        await handlers_of(interaction).act(interaction, intent)

    @app_commands.command(name=named("rematch"), description=described("dc.desc.rematch"))
    async def rematch(self, interaction: discord.Interaction[Any]) -> None:
        await handlers_of(interaction).after.rematch(interaction)

    @app_commands.command(name=named("stats"), description=described("dc.desc.stats"))
    @options("stats", member="member")
    async def stats(
        self, interaction: discord.Interaction[Any], member: discord.User | None = None
    ) -> None:
        await handlers_of(interaction).after.stats(interaction, member)

    @app_commands.command(name=named("top"), description=described("dc.desc.top"))
    @options("top", period="period")
    @app_commands.choices(period=PERIOD_CHOICES)
    async def top(
        self, interaction: discord.Interaction[Any], period: app_commands.Choice[str] | None = None
    ) -> None:
        await handlers_of(interaction).after.top(interaction, period.value if period else "all")

    @app_commands.command(name=named("forget"), description=described("dc.desc.forget"))
    async def forget(self, interaction: discord.Interaction[Any]) -> None:
        await handlers_of(interaction).after.forget(interaction)

    @app_commands.command(name=named("replay"), description=described("dc.desc.replay"))
    async def replay(self, interaction: discord.Interaction[Any]) -> None:
        await handlers_of(interaction).after.replay(interaction)

    @app_commands.command(name=named("record"), description=described("dc.desc.record"))
    async def record(self, interaction: discord.Interaction[Any]) -> None:
        await handlers_of(interaction).after.record(interaction)

    @app_commands.command(name=named("notify"), description=described("dc.desc.notify"))
    @options("notify", turns="turns")
    async def notify(
        self, interaction: discord.Interaction[Any], turns: app_commands.Range[str, 1, 20]
    ) -> None:
        await handlers_of(interaction).corner.notify(interaction, turns)

    @notify.autocomplete("turns")
    async def notify_words(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return notify_choices(current, asker_language(interaction))

    @app_commands.command(name=named("games"), description=described("dc.desc.games"))
    async def games(self, interaction: discord.Interaction[Any]) -> None:
        await handlers_of(interaction).corner.games(interaction)

    @app_commands.command(name=named("help"), description=described("dc.desc.help"))
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        lang = asker_language(interaction)
        # the commands as the asker's Discord shows them
        names = [c.name for c in self.commands]
        shown = {name: unique_name(name, names, lang) for name in names}
        helps = ("dc.help", "dc.help.tournament", "dc.help.corner")
        await interaction.response.send_message(
            "\n".join(say(Text(key, shown), lang=lang) for key in helps),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )


def notify_choices(current: str, lang: str) -> list[app_commands.Choice[str]]:
    """What ``/ludo notify`` offers as the asker types: on, off and here, in their
    language (those that begin with what they typed, else all three)."""
    typed = current.strip().lower()
    words = [w for w in NOTIFY_CHOICES if w.startswith(typed)] or list(NOTIFY_CHOICES)
    return [
        app_commands.Choice(name=say(Text(f"dc.notify.{w}"), lang=lang), value=w) for w in words
    ]
