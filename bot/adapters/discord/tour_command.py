"""``/ludo tournament`` on Discord, and the sign-up message's buttons (their
``custom_id`` is the presenter's tournament button data, ``t:<id>:<version>:<action>``,
so they keep working after a restart)."""

from __future__ import annotations

import re
from typing import Any, Protocol, cast

import discord
from discord import app_commands

from .handlers import PressButton
from .translator import described, level_choices, named, options, rule_choices

#: every custom_id of a tournament's button starts so
TOUR_TEMPLATE = re.compile(r"t:(?P<rest>.{0,98})", re.DOTALL)

ACTION_CHOICES = [
    app_commands.Choice(name=described(f"dc.choice.tour_{a}"), value=a)
    for a in ("open", "join", "leave", "start", "end", "show")
]
FORMAT_CHOICES = [
    app_commands.Choice(name=described("dc.choice.swiss"), value="swiss"),
    app_commands.Choice(name=described("dc.choice.knockout"), value="knockout"),
]


class TourHandlers(Protocol):
    """What the client hands tournaments to (the adapter's ``tours``)."""

    async def command(
        self,
        interaction: discord.Interaction[Any],
        action: str | None,
        fmt: str,
        rules: str,
        options: dict[str, Any],
        size: int,
        rounds: int,
        timer: int,
        level: str,
    ) -> None: ...

    async def on_press(self, interaction: discord.Interaction[Any], data: str) -> None: ...


def tours_of(interaction: discord.Interaction[Any]) -> TourHandlers:
    return cast(TourHandlers, cast(Any, interaction.client).adapter.tours)


class TourButton(PressButton, template=TOUR_TEMPLATE):
    """A button of a tournament's sign-up message."""

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await tours_of(interaction).on_press(interaction, self.data)


@app_commands.command(name=named("tournament"), description=described("dc.desc.tournament"))
@options(
    "tournament",
    action="action",
    fmt="format",
    rules="rules",
    teams="teams",
    size="size",
    rounds="rounds",
    timer="timer",
    level="level",
)
@app_commands.choices(
    action=ACTION_CHOICES, fmt=FORMAT_CHOICES, rules=rule_choices(), level=level_choices()
)
async def tournament(
    interaction: discord.Interaction[Any],
    action: app_commands.Choice[str] | None = None,
    fmt: app_commands.Choice[str] | None = None,
    rules: app_commands.Choice[str] | None = None,
    teams: bool = False,
    size: app_commands.Range[int, 4, 32] = 8,
    rounds: app_commands.Range[int, 1, 6] = 3,
    timer: app_commands.Range[int, 10, 3600] = 120,
    level: app_commands.Choice[str] | None = None,
) -> None:
    await tours_of(interaction).command(
        interaction,
        action.value if action else None,
        fmt.value if fmt else "swiss",
        rules.value if rules else "classic",
        {"teams": True} if teams else {},
        size,
        rounds,
        timer,
        level.value if level else "normal",
    )
