"""A tournament in words: its sign-up message, and what it tells the chat as it goes
(each round's tables, the standings between rounds, the winner and the podium).

:func:`tour_view` is pure, like the table view: the adapters post or edit what it says.
Points and ratings are written the reader's way (Babel).
"""

from __future__ import annotations

from dataclasses import dataclass

from babel.numbers import format_decimal

from ..hosting import Happened, Note
from ..hosting import tournament as tour
from ..hosting.tournament import Standing, Tournament
from .after import locale_of
from .buttons import tour_button
from .messages import say
from .text import Button, Text

#: the medals of the podium
MEDALS = ("🥇", "🥈", "🥉")
#: standings show this many rows at most (the rest: "…")
ROWS = 16


@dataclass(frozen=True)
class TourView:
    """What the chat should be told of a tournament now."""

    tour_id: str
    channel: str
    version: int
    lines: tuple[Text, ...]
    buttons: tuple[tuple[Button, ...], ...]
    #: the sign-up message (a press edits it in place); else an announcement, posted
    signup: bool
    lang: str


def tour_view(t: Tournament, happened: Happened | None, lang: str | None = None) -> TourView | None:
    """The message to show after ``happened`` (None: nothing worth a message, such as a
    table of a round done while the next table of the same round opens)."""
    lang = lang or t.lang
    notes = {f.key: f.params for f in (happened.facts if happened else []) if isinstance(f, Note)}
    lines: list[Text] = []
    if t.status == tour.SIGNUP:
        return signup_message(t, lang)
    if "tour.ended_by" in notes:
        lines.append(Text("tour.ended_by", notes["tour.ended_by"]))
    elif "tour.won" in notes or "tour.won_shared" in notes:
        won = "tour.won" if "tour.won" in notes else "tour.won_shared"
        lines.append(Text(won, notes[won]))
        lines.append(podium(t))
        swiss = t.fmt == tour.SWISS
        lines.append(Text("tour.final_standings.swiss" if swiss else "tour.final_standings"))
        lines += standing_rows(t, lang)
    elif "tour.round" in notes:
        if "tour.started" in notes:
            lines += [header(t), Text("tour.started", notes["tour.started"])]
        else:
            lines.append(Text("tour.standings_after", {"round": t.round - 1}))
            lines += standing_rows(t, lang)
        lines += round_lines(t)
    elif "tour.rooms" in notes:
        lines.append(Text("tour.in_rooms" if t.rooms else "tour.one_by_one"))
    elif not notes:  # just looking
        lines += [header(t), *round_lines(t)] if t.status == tour.RUNNING else [header(t)]
        if t.status == tour.RUNNING and t.round > 1:
            lines.append(Text("tour.standings_after", {"round": t.round - 1}))
            lines += standing_rows(t, lang)
    else:
        return None
    return TourView(t.id, t.channel, t.version, tuple(lines), (), False, lang)


def header(t: Tournament) -> Text:
    facts = {"rules": t.rules, "host": t.host.name, "rounds": t.rounds, "size": t.size}
    return Text(f"tour.header.{t.fmt}", {**facts, "timer": t.timer})


def signup_lines(t: Tournament) -> list[Text]:
    names = tuple(e.user.name for e in t.entrants)
    count = len(t.entrants)
    return [
        Text("tour.signed_up", {"count": count, "size": t.size, "players": names}),
        Text("tour.signup_help", {"need": tour.SIZE_RANGE[0]}),
    ]


def signup_buttons(t: Tournament) -> tuple[tuple[Button, ...], ...]:
    def button(what: str, style: str = "secondary") -> Button:
        return Button(Text(f"btn.tour_{what}"), tour_button(t.id, t.version, what), style)

    return ((button("join", "primary"), button("leave"), button("start")),)


def round_lines(t: Tournament) -> list[Text]:
    """The tables of the round being played."""
    tables = t.current()
    final = t.fmt == tour.KNOCKOUT and len(tables) == 1
    lines = [Text("tour.final") if final else Text("tour.round", {"round": t.round})]
    for table in tables:
        names = tuple(t.name(k) for k in table.players)
        lines.append(Text("tour.table", {"table": table.number, "players": names}))
    if len(tables) > 1 and not t.awaiting_rooms:  # rooms being made: told in them
        lines.append(Text("tour.in_rooms" if t.rooms else "tour.one_by_one"))
    return lines


def room_name(t: Tournament, number: int) -> str:
    """The name of the room (thread, forum topic) of table ``number``."""
    return say(Text("tour.room", {"table": number}), lang=t.lang)


def points_text(points: float, lang: str | None) -> str:
    """Points the reader's way: 3, 1.5 (or 1,5)."""
    return format_decimal(round(points, 1), format="0.#", locale=locale_of(lang))


def row(t: Tournament, s: Standing, lang: str | None) -> Text:
    if t.fmt == tour.SWISS:
        facts = {"points": points_text(s.points, lang), "tiebreak": points_text(s.tiebreak, lang)}
        return Text("tour.row.swiss", {"place": s.place, "name": s.name, **facts})
    return Text("tour.row.knockout", {"place": s.place, "name": s.name, "round": int(s.points)})


def standing_rows(t: Tournament, lang: str | None) -> list[Text]:
    rows = [row(t, s, lang) for s in tour.standings(t)]
    return rows[:ROWS] + ([Text("caption.more")] if len(rows) > ROWS else [])


def podium(t: Tournament) -> Text:
    """The first three: "🥇 Ana, 🥈 Ben, 🥉 Cy"."""
    top = tour.standings(t)[: len(MEDALS)]
    places = tuple(
        Text("tour.podium.place", {"medal": MEDALS[min(s.place, len(MEDALS)) - 1], "name": s.name})
        for s in top
    )
    return Text("tour.podium", {"places": places})


def signup_message(t: Tournament, lang: str | None = None) -> TourView:
    """The sign-up message as it should be now: open, with its buttons; or, once the
    sign-up is over, who signed up, without buttons."""
    if t.status == tour.SIGNUP:
        lines = (header(t), *signup_lines(t))
        return TourView(t.id, t.channel, t.version, lines, signup_buttons(t), True, lang or t.lang)
    lines = (header(t), signup_lines(t)[0])
    return TourView(t.id, t.channel, t.version, lines, (), True, lang or t.lang)
