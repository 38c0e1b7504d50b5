"""One worker of ``bench/soak.py``: ``ludo-bot run`` itself (``bot.app.cli.main(["run"])``,
configured by the environment the soak gives it), with one gauge more on its
``/metrics``: ``soak_asyncio_tasks``, the asyncio tasks of its event loop (counted in
the loop, as the web server serves ``/metrics`` there).

    python bench/soak_worker.py        (started by bench/soak.py)
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

# bench/engine.py is named like the engine package: keep this folder off the path,
# and put the repository root on it
ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from prometheus_client import Gauge  # noqa: E402

from bot.app.cli import main  # noqa: E402
from bot.ops.metrics import REGISTRY  # noqa: E402

#: the name of the gauge on /metrics
TASKS = "soak_asyncio_tasks"


def tasks() -> float:
    """The tasks of the running event loop (NaN outside one)."""
    try:
        return float(len(asyncio.all_tasks()))
    except RuntimeError:
        return float("nan")


if __name__ == "__main__":
    Gauge(TASKS, "asyncio tasks of the event loop", registry=REGISTRY).set_function(tasks)
    sys.exit(main(["run"]))
