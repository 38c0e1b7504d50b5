"""The ``ludo-bot`` command (:mod:`.cli`): terminal play, ``simulate``, ``replay``,
``render``, ``run``, ``backup``, ``forget``; the settings, logging, the health and
metrics server, and the runner that wires the adapters, the web board and the
service together (process, signals, the turn-timer loop)."""
