"""The tests' configuration: their fixtures are those of :mod:`tests.plugin` (the
stores, ``redis_url``, ``clock``, ``store``, ``make_store``, the fake platforms and
the Discord harness: its docstring lists them all).

The helper packages' assertions are rewritten as the tests' own are, so that a
failing check in a driver of the bot says what it compared.
"""

import pytest

pytest.register_assert_rewrite("tests.helpers", "tests.fakes", "tests.browser")

pytest_plugins = ["tests.plugin"]
