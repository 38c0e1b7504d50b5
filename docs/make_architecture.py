"""Draw ``docs/architecture.svg``: the packages of ludo-bot as boxes in their layers,
and the imports between them, from the code as it is (every module parsed with ``ast``).

    python docs/make_architecture.py [OUT]      (OUT: docs/architecture.svg)

A package is a first-level package of ``bot/`` (``bot/service/``, ``bot/store/``...),
or ``renderer/`` or ``engine/``; ``bot/__init__.py``, the face, is none.  A package's
row is the longest chain of imports below it, so each box stands above every package
it imports, and packages that do not import each other share a row.  An arrow is an
import that no chain of other arrows already says (a -> b -> c leaves a -> c out); a
box lists in small print the packages it imports directly that no arrow of its own
points to.  ``tests/test_structure.py`` checks that the picture in the repository is
what this script draws from the code now (and that no import runs up a layer).
"""

from __future__ import annotations

import ast
import sys
from html import escape
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bot", "engine", "renderer")
OUT = ROOT / "docs" / "architecture.svg"

BOX_W, BOX_H, LINE_H = 190, 40, 14
GAP_X, GAP_Y, MARGIN, TITLE_H = 36, 64, 24, 40
#: characters of small print on one line of a box
WIDTH_CHARS = 34


def package_of(module: str) -> str | None:
    """The package drawn for ``module`` (None: ``bot`` itself, or not the project's)."""
    parts = module.split(".")
    if parts[0] not in PACKAGES:
        return None
    if parts[0] == "bot":
        return f"bot.{parts[1]}" if len(parts) > 1 else None
    return parts[0]


def modules() -> dict[str, Path]:
    """Every module of the project: its dotted name -> its file."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if any(p.startswith(".") or p == "__pycache__" for p in parts):
                continue
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imported(module: str, path: Path) -> set[str]:
    """The modules (or their packages) ``module`` imports, relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    here = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            out.add(name)
            out.update(f"{name}.{alias.name}" for alias in node.names)
    return out


def graph() -> dict[str, set[str]]:
    """package -> the packages it imports (every module's imports, at any depth)."""
    edges: dict[str, set[str]] = {}
    for module, path in modules().items():
        source = package_of(module)
        if source is None:
            continue
        edges.setdefault(source, set())
        for name in imported(module, path):
            target = package_of(name)
            if target is not None and target != source:
                edges[source].add(target)
    return edges


def rows(edges: dict[str, set[str]]) -> dict[str, int]:
    """Each package's row: 0 imports no other package, else one above its highest import."""
    row: dict[str, int] = {}

    def depth(p: str, path: tuple[str, ...]) -> int:
        if p in path:
            raise SystemExit(f"the packages import each other: {' -> '.join([*path, p])}")
        if p not in row:
            row[p] = 1 + max((depth(q, (*path, p)) for q in edges.get(p, ())), default=-1)
        return row[p]

    for p in sorted(edges):
        depth(p, ())
    return row


def reduced(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """The imports no chain of two or more other imports says already."""

    def reach(p: str) -> set[str]:
        seen, todo = set(), list(edges.get(p, ()))
        while todo:
            q = todo.pop()
            if q not in seen:
                seen.add(q)
                todo.extend(edges.get(q, ()))
        return seen

    out = {}
    for p, targets in edges.items():
        implied = set().union(*(reach(q) for q in targets)) if targets else set()
        out[p] = {q for q in targets if q not in implied}
    return out


def shown(package: str) -> str:
    return package.replace(".", "/") + "/"


def short(package: str) -> str:
    return package.removeprefix("bot.")


def small_print(also: list[str]) -> list[str]:
    """``also imports: a, b, ...`` in lines a box holds."""
    lines, line = [], "also imports:"
    for k, name in enumerate(also):
        word = short(name) + ("," if k < len(also) - 1 else "")
        if len(line) + 1 + len(word) > WIDTH_CHARS:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}"
    return [*lines, line] if also else []


def chains(row: dict[str, int], arrows: dict[str, set[str]]) -> dict[tuple[str, str], list[str]]:
    """Each arrow as the boxes it passes: its ends and, in every row between them, a
    point of its own (``p>q@row``), so that no arrow crosses a box."""
    out = {}
    for p in sorted(arrows):
        for q in sorted(arrows[p]):
            out[(p, q)] = [p, *(f"{p}>{q}@{r}" for r in range(row[p] - 1, row[q], -1)), q]
    return out


def order(row: dict[str, int], paths: dict[tuple[str, str], list[str]]) -> list[list[str]]:
    """The boxes and points of each row, highest row first, each under and over what it
    is joined to (a few sweeps of the barycentre heuristic, down and up)."""
    at = dict(row)
    for path in paths.values():
        for point in path[1:-1]:
            at[point] = int(point.rsplit("@", 1)[1])
    top = max(at.values())
    layers = [sorted(p for p in at if at[p] == r) for r in range(top, -1, -1)]
    joined: dict[str, set[str]] = {p: set() for p in at}
    for path in paths.values():
        for a, b in pairwise(path):
            joined[a].add(b)
            joined[b].add(a)
    for sweep in range(6):
        down = sweep % 2 == 0
        indices = range(1, len(layers)) if down else range(len(layers) - 2, -1, -1)
        for k in indices:
            near = layers[k - 1] if down else layers[k + 1]
            place = {p: i for i, p in enumerate(near)}
            current = {p: i for i, p in enumerate(layers[k])}

            def key(
                p: str, place: dict[str, int] = place, current: dict[str, int] = current
            ) -> tuple[float, str]:
                xs = [place[q] for q in joined[p] if q in place]
                return (sum(xs) / len(xs) if xs else current[p], p)

            layers[k].sort(key=key)
    return layers


POINT_W = 14


def draw(edges: dict[str, set[str]]) -> str:
    row = rows(edges)
    arrows = reduced(edges)
    paths = chains(row, arrows)
    layers = order(row, paths)
    also = {p: sorted(edges[p] - arrows[p]) for p in edges}
    lines_of = {p: small_print(also[p]) for p in edges}
    height_of = {p: BOX_H + LINE_H * len(lines_of[p]) for p in edges}

    def wide(p: str) -> int:
        return BOX_W if p in edges else POINT_W

    def used(layer: list[str]) -> int:
        return sum(wide(p) for p in layer) + (len(layer) - 1) * GAP_X

    width = 2 * MARGIN + max(used(layer) for layer in layers)
    row_h = max(height_of.values())
    height = TITLE_H + 2 * MARGIN + len(layers) * row_h + (len(layers) - 1) * GAP_Y
    box: dict[str, tuple[int, int]] = {}  # a box's top left corner; a point's top centre
    for k, layer in enumerate(layers):
        x = (width - used(layer)) // 2
        y = TITLE_H + MARGIN + k * (row_h + GAP_Y)
        for p in layer:
            if p in edges:
                box[p] = (x, y + (row_h - height_of[p]) // 2)
            else:
                box[p] = (x + POINT_W // 2, y)
            x += wide(p) + GAP_X

    def centre(p: str) -> int:
        return box[p][0] + (BOX_W // 2 if p in edges else 0)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Verdana, sans-serif">',
        "<title>ludo-bot: the packages in their layers, and their imports</title>",
        '<defs><marker id="head" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
        'fill="#4a5566"/></marker></defs>',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{MARGIN}" y="{MARGIN + 8}" font-size="15" font-weight="bold" '
        'fill="#1d2733">ludo-bot: each package imports only those below it</text>',
        f'<text x="{MARGIN}" y="{MARGIN + 26}" font-size="11" fill="#4a5566">'
        "an arrow: imports (one that a chain of other arrows says is left out); "
        "drawn by docs/make_architecture.py</text>",
    ]
    leaving = {
        p: sorted((pth[1] for pth in paths.values() if pth[0] == p), key=centre) for p in edges
    }
    coming = {
        p: sorted((pth[-2] for pth in paths.values() if pth[-1] == p), key=centre) for p in edges
    }
    for (p, q), path in sorted(paths.items()):  # arrows first: the boxes cover their ends
        first, last = path[1], path[-2]
        out_at = leaving[p].index(first) + 1
        in_at = coming[q].index(last) + 1
        points = [(box[p][0] + BOX_W * out_at // (len(leaving[p]) + 1), box[p][1] + height_of[p])]
        for point in path[1:-1]:
            x, y = box[point]
            points += [(x, y), (x, y + row_h)]
        points.append((box[q][0] + BOX_W * in_at // (len(coming[q]) + 1), box[q][1]))
        drawn = " ".join(f"{x},{y}" for x, y in points)
        out.append(
            f'<polyline points="{drawn}" fill="none" stroke="#4a5566" stroke-width="1.4" '
            'marker-end="url(#head)"/>'
        )
    for p in sorted(edges):
        x, y = box[p]
        fill = "#e8f0fb" if p.startswith("bot.") else "#eef6ea"
        out.append(
            f'<rect x="{x}" y="{y}" width="{BOX_W}" height="{height_of[p]}" rx="7" '
            f'fill="{fill}" stroke="#3b5b8c" stroke-width="1.2"/>'
        )
        out.append(
            f'<text x="{x + BOX_W // 2}" y="{y + 25}" font-size="14" font-weight="bold" '
            f'text-anchor="middle" fill="#1d2733">{escape(shown(p))}</text>'
        )
        for k, line in enumerate(lines_of[p]):
            out.append(
                f'<text x="{x + BOX_W // 2}" y="{y + BOX_H + 2 + k * LINE_H}" font-size="10" '
                f'text-anchor="middle" fill="#4a5566">{escape(line)}</text>'
            )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    target = Path(args[0]) if args else OUT
    target.write_text(draw(graph()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
