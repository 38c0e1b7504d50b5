"""The shape of the test tree itself, so that it stays easy to change: every module
under ``tests/`` says what it is for and is at most ``MAX_LINES`` lines long, and no
module imports a test module (what tests share is in ``tests/helpers``, ``tests/fakes``
and ``tests/browser``, their fixtures in ``tests/plugin.py``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
MAX_LINES = 800
MODULES = sorted(
    p for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts and p.read_text().strip()
)


def rel(path: Path) -> str:
    return path.relative_to(TESTS).as_posix()


@pytest.mark.parametrize("path", MODULES, ids=rel)
def test_module_says_what_it_is_for(path: Path) -> None:
    assert ast.get_docstring(ast.parse(path.read_text())), f"{rel(path)} has no docstring"


@pytest.mark.parametrize("path", MODULES, ids=rel)
def test_module_is_short(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"{rel(path)} has {lines} lines: split it by what it tests"


@pytest.mark.parametrize("path", MODULES, ids=rel)
def test_module_imports_no_test_module(path: Path) -> None:
    found = [
        node.module
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom)
        and node.module is not None
        and node.module.split(".")[-1].startswith("test_")
    ]
    assert not found, f"{rel(path)} imports from test modules {found}: share it in tests/helpers"
