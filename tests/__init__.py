"""The tests of ludo-bot: modules ``test_*.py`` by what they test, their fixtures in
:mod:`tests.plugin`, the local fakes of the platforms in :mod:`tests.fakes`, what they
share in :mod:`tests.helpers` (and :mod:`tests.browser` for the browser tests)."""
