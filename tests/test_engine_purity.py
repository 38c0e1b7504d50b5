"""The engine stays pure: no I/O, no clock, no randomness, no platform or storage code."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parent.parent / "engine"

# what the rules may lean on: plain data structures and typing
ALLOWED = {
    "__future__",
    "collections",
    "dataclasses",
    "typing",
    "json",
    "enum",
    "functools",
    "itertools",
    "math",
}
FORBIDDEN = {
    "discord",
    "telegram",
    "redis",
    "PIL",
    "random",
    "time",
    "asyncio",
    "sqlite3",
    "os",
    "sys",
    "socket",
    "secrets",
    "datetime",
    "io",
    "pathlib",
    "subprocess",
    "threading",
    "aiohttp",
    "urllib",
    "bot",
    "renderer",
}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) in (
            "__import__",
            "open",
        ):
            found.append((node.lineno, node.func.id))  # type: ignore[attr-defined]
    return found


def engine_files() -> list[Path]:
    files = sorted(ENGINE.glob("*.py"))
    assert files, "engine/ has no modules"
    return files


@pytest.mark.parametrize("path", engine_files(), ids=lambda p: p.name)
def test_engine_imports_only_pure_modules(path: Path) -> None:
    # RULES.md 2: the die is an input, so nothing in engine/ may reach for
    # randomness, a clock, files or the network
    for line, module in _imports(path):
        assert module not in FORBIDDEN, f"{path.name}:{line} imports {module}"
        assert module in ALLOWED, (
            f"{path.name}:{line} imports {module}, which is not on the pure list"
        )


def test_the_purity_check_catches_a_forbidden_import(tmp_path: Path) -> None:
    # the check above must be able to fail
    bad = tmp_path / "bad.py"
    bad.write_text("import random\nfrom time import monotonic\nopen('x')\n")
    assert [m for _, m in _imports(bad)] == ["random", "time", "open"]
