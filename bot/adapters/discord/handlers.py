"""What the Discord client hands interactions to (the adapter), typed here so the
client needs no import of the adapter."""

from __future__ import annotations

from typing import Any, Protocol, Self, cast

import discord
from discord import app_commands

from ...hosting import Intent


class AfterHandlers(Protocol):
    """What the client hands the after-game commands to (the adapter's ``after``)."""

    async def stats(
        self, interaction: discord.Interaction[Any], player: discord.abc.Snowflake | None
    ) -> None: ...

    async def top(self, interaction: discord.Interaction[Any], period: str) -> None: ...

    async def forget(self, interaction: discord.Interaction[Any]) -> None: ...

    async def rematch(self, interaction: discord.Interaction[Any]) -> None: ...

    async def replay(self, interaction: discord.Interaction[Any]) -> None: ...

    async def record(self, interaction: discord.Interaction[Any]) -> None: ...


class CornerHandlers(Protocol):
    """What the client hands a person's corner's commands and buttons to (the adapter's
    ``corner``)."""

    async def notify(self, interaction: discord.Interaction[Any], word: str) -> None: ...

    async def games(self, interaction: discord.Interaction[Any]) -> None: ...

    async def pressed(self, interaction: discord.Interaction[Any], data: str) -> None: ...


class Handlers(Protocol):
    """What the client hands interactions to (the adapter); typed here so the
    client needs no import of the adapter."""

    @property
    def after(self) -> AfterHandlers: ...

    @property
    def corner(self) -> CornerHandlers: ...

    async def on_press(self, interaction: discord.Interaction[Any], data: str) -> None: ...

    async def open(
        self,
        interaction: discord.Interaction[Any],
        rules: str,
        options: dict[str, Any],
        timer: int | None,
        lang: str | None,
        theme: str,
        level: str,
    ) -> None: ...

    async def act(self, interaction: discord.Interaction[Any], intent: Intent) -> None: ...

    async def board(self, interaction: discord.Interaction[Any], text: bool) -> None: ...

    async def rules(self, interaction: discord.Interaction[Any], name: str | None) -> None: ...

    async def pieces(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]: ...


def handlers_of(interaction: discord.Interaction[Any]) -> Handlers:
    """What the client of ``interaction`` hands it to (its adapter)."""
    return cast(Handlers, cast(Any, interaction.client).adapter)


class PressButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"(?!)"):
    """A button whose ``custom_id`` is the presenter's button data, nothing else, so it
    keeps working after a restart: admitted by the rate limits, then handed on by
    :meth:`callback` (each kind gives its own ``template``; this one matches nothing)."""

    def __init__(
        self,
        data: str,
        label: str = "…",
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
    ) -> None:
        super().__init__(discord.ui.Button(label=label[:80], style=style, custom_id=data))

    @property
    def data(self) -> str:
        return str(self.item.custom_id)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any
    ) -> Self:
        return cls(str(getattr(item, "custom_id", "")))

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        entrance = cast(Any, interaction.client).entrance
        return bool(await entrance.admit(interaction))  # the rate limits
