"""The shape of the code: short modules in layers, no private imports, no import cycles.

Every module of the three packages (``engine``, ``renderer``, ``bot``) is checked
on its own, so a failure names the file and the import at fault:

* a module is at most ``SHORT`` lines long: 10% under the cap of ``MAX_LINES``, so a
  module that grows is split by concept before it is squeezed;
* no module imports a private name (``_name``, dunders are fine) from another
  project module, nor reads one as ``module._name``;
* no module is part of an import cycle among project modules.  Every import
  counts, also one inside a function; ``from pkg import name`` is an import of
  ``pkg.name`` when that is a module.  A package's ``__init__`` importing its
  own submodules is no cycle by itself: a submodule importing the package back is;
* every module belongs to one of the ``LAYERS`` and imports only from its own layer
  and those below it (the README's developer map, ``docs/architecture.md``);
* ``bot/`` holds packages only, and its face, ``bot/__init__.py``;
* the picture of the layers, ``docs/architecture.svg``, is the one
  ``docs/make_architecture.py`` draws from the code's imports now.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "renderer", "bot")
#: the cap on a module's length, and what a module is held to: 10% under it
MAX_LINES = 400
SHORT = MAX_LINES * 9 // 10
#: the layers, highest first: each imports only from itself and those after it
LAYERS = (
    "bot.app",
    "bot.adapters",
    "bot.web",
    "bot.present",
    "bot.service",
    "bot.limits",
    "bot.hosting",
    "bot.players",
    "bot.store",
    "bot.ops",
    "renderer",
    "engine",
)


def module_files() -> list[Path]:
    files = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).parts
            if not any(p.startswith(".") or p == "__pycache__" for p in parts):
                files.append(path)
    return files


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


FILES = module_files()
MODULES = {module_name(p): p for p in FILES}
#: the script that draws docs/architecture.svg
DRAWER = ROOT / "docs" / "make_architecture.py"


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def is_project(module: str) -> bool:
    return module.split(".")[0] in PACKAGES


@dataclass(frozen=True)
class Import:
    """One imported thing: ``module`` (resolved), the ``name`` taken from it, if any."""

    line: int
    module: str
    name: str | None
    #: the project module this import depends on (None: outside the project)
    target: str | None
    #: the local name it is bound to
    bound: str
    #: the module that local name stands for (None: not a module)
    binds: str | None


def _known(module: str) -> str | None:
    """The longest prefix of ``module`` that is a project module (``a.b.c`` -> ``a.b``)."""
    parts = module.split(".")
    while parts:
        name = ".".join(parts)
        if name in MODULES:
            return name
        parts.pop()
    return None


def _base(path: Path, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` reads from, relative dots resolved."""
    if node.level == 0:
        return node.module or ""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package.pop()  # a module's own package
    if node.level > 1:
        package = package[: len(package) - (node.level - 1)]
    return ".".join([*package, node.module] if node.module else package)


def imports(path: Path) -> Iterator[Import]:
    """Every import of the module at ``path``, at any depth (functions included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _known(alias.name)
                if alias.asname:  # import a.b as x: x is a.b
                    yield Import(node.lineno, alias.name, None, target, alias.asname, alias.name)
                else:  # import a.b: a is a
                    top = alias.name.split(".")[0]
                    yield Import(node.lineno, alias.name, None, target, top, top)
        elif isinstance(node, ast.ImportFrom):
            base = _base(path, node)
            for alias in node.names:
                sub = f"{base}.{alias.name}" if base else alias.name
                is_module = sub in MODULES
                target = sub if is_module else _known(base) if base else None
                bound = alias.asname or alias.name
                yield Import(
                    node.lineno, base, alias.name, target, bound, sub if is_module else None
                )


def bindings(found: list[Import]) -> dict[str, str]:
    """Local name -> the project module it stands for (``import a.b`` binds ``a``)."""
    return {imp.bound: imp.binds for imp in found if imp.binds in MODULES}


def _dotted(node: ast.expr) -> list[str] | None:
    """``a.b.c`` as ["a", "b", "c"]; None for anything but names and attributes."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


@cache
def graph() -> dict[str, dict[str, int]]:
    """module -> {project module it imports: the first line doing so}."""
    edges: dict[str, dict[str, int]] = {}
    for name, path in MODULES.items():
        try:
            found = list(imports(path))
        except SyntaxError:
            found = []  # reported by its own tests
        out = edges.setdefault(name, {})
        for imp in found:
            if imp.target is not None and imp.target != name:
                out.setdefault(imp.target, imp.line)
    return edges


@cache
def cyclic() -> dict[str, tuple[str, ...]]:
    """Each module in an import cycle -> its strongly connected component (Tarjan)."""
    edges = graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: dict[str, tuple[str, ...]] = {}

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component: list[str] = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                for w in component:
                    out[w] = tuple(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def cycle_through(start: str, component: tuple[str, ...]) -> list[str]:
    """A shortest import path from ``start`` back to itself inside its component."""
    edges = graph()
    members = set(component)
    paths = {start: [start]}
    queue = [start]
    for v in queue:
        for w in edges[v]:
            if w == start:
                return [*paths[v], start]
            if w in members and w not in paths:
                paths[w] = [*paths[v], w]
                queue.append(w)
    raise AssertionError(f"{start} has no way back to itself")  # pragma: no cover


def layer_of(module: str) -> str | None:
    """The layer ``module`` belongs to (None: ``bot`` itself, the face of the layers)."""
    return next((x for x in LAYERS if module == x or module.startswith(x + ".")), None)


@pytest.mark.parametrize("path", FILES, ids=rel)
def test_module_is_short(path: Path) -> None:
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= SHORT, (
        f"{rel(path)} has {n} lines, more than {SHORT} (10% under the cap of {MAX_LINES}): "
        "split it by concept"
    )


@pytest.mark.parametrize("path", FILES, ids=rel)
def test_module_uses_no_private_name_of_another(path: Path) -> None:
    found = list(imports(path))
    bad = [
        f"{rel(path)}:{imp.line} imports {imp.name} from {imp.module}"
        for imp in found
        if imp.name is not None and is_private(imp.name) and is_project(imp.module or imp.name)
    ]
    # module._name on an imported project module (import engine.game, from . import geometry)
    names = bindings(found)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr):
            parts = _dotted(node.value)
            if parts is None or parts[0] not in names:
                continue
            module = ".".join([names[parts[0]], *parts[1:]])
            if module in MODULES:
                bad.append(
                    f"{rel(path)}:{node.lineno} reads {ast.unparse(node)}, "
                    f"private to module {module}"
                )
    assert not bad, "private names used across modules:\n" + "\n".join(bad)


@pytest.mark.parametrize("path", FILES, ids=rel)
def test_module_is_in_no_import_cycle(path: Path) -> None:
    list(imports(path))  # a file that does not parse fails here, by name
    name = module_name(path)
    component = cyclic().get(name)
    if component is None:
        return
    cycle = cycle_through(name, component)
    edges = graph()
    steps = [f"{rel(MODULES[a])}:{edges[a][b]} imports {b}" for a, b in pairwise(cycle)]
    pytest.fail(
        f"{rel(path)} is in an import cycle: {' -> '.join(cycle)}\n"
        + "\n".join(steps)
        + f"\n(all modules in this cycle: {', '.join(component)})"
    )


@pytest.mark.parametrize("path", FILES, ids=rel)
def test_module_imports_from_no_higher_layer(path: Path) -> None:
    name = module_name(path)
    layer = layer_of(name)
    if name == "bot":
        assert not graph()[name], "bot/__init__.py is the face of the layers: it imports none"
        return
    assert layer is not None, f"{rel(path)} is in no layer: add its package to LAYERS"
    edges = graph()[name]
    up = [
        f"{rel(path)}:{line} imports {target} (layer {layer_of(target)}, above {layer})"
        for target, line in sorted(edges.items(), key=lambda e: e[1])
        if (above := layer_of(target)) is not None and LAYERS.index(above) < LAYERS.index(layer)
    ]
    assert not up, "imports from a higher layer:\n" + "\n".join(up)


def test_bot_holds_packages_only() -> None:
    loose = sorted(p.name for p in (ROOT / "bot").glob("*.py") if p.name != "__init__.py")
    assert not loose, f"modules loose at bot/'s root (put each in its package): {loose}"
    for folder in sorted(p for p in (ROOT / "bot").iterdir() if p.is_dir()):
        if folder.name.startswith((".", "__")) or not any(folder.rglob("*.py")):
            continue  # data (bot/locale)
        assert (folder / "__init__.py").exists(), f"bot/{folder.name}/ has no __init__.py"
        assert f"bot.{folder.name}" in LAYERS, f"bot/{folder.name}/ is in no layer of LAYERS"


def test_the_architecture_picture_is_up_to_date(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("make_architecture", DRAWER)
    assert spec is not None and spec.loader is not None
    drawer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(drawer)
    drawn = tmp_path / "architecture.svg"
    drawer.main([str(drawn)])
    committed = ROOT / "docs" / "architecture.svg"
    assert drawn.read_text(encoding="utf-8") == committed.read_text(encoding="utf-8"), (
        "docs/architecture.svg is not the picture of the code's imports now: "
        "run python docs/make_architecture.py"
    )


def test_the_checks_see_every_package() -> None:
    for package in PACKAGES:
        assert package in MODULES, f"{package}/__init__.py not found"
    assert "engine.game" in graph()["engine.record"]  # from .game import new_game
    assert "engine.state" in graph()["engine"]
    assert {layer_of(m) for m in MODULES} == {*LAYERS, None}  # every layer has modules
