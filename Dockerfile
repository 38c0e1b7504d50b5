# ludo-bot: one worker (`ludo-bot run`). Build: docker build -t ludo-bot .
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# the package, installed from the project's own files (README, "Run the bot")
WORKDIR /src
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY renderer ./renderer
COPY bot ./bot
RUN pip install . \
    && useradd --system --uid 10001 --user-group --home-dir /data --shell /usr/sbin/nologin ludo \
    && mkdir /data \
    && chown ludo:ludo /data

# the SQLite file (without Redis) lives in the volume; the web server
# (/healthz, /metrics, the Telegram webhook) listens on every interface
ENV LUDO_DATABASE=/data/ludo.sqlite3 \
    LUDO_WEB_HOST=0.0.0.0 \
    LUDO_WEB_PORT=8080
VOLUME ["/data"]
WORKDIR /data
EXPOSE 8080
USER 10001:10001

# 200 while the store answers and every platform is connected; the slim image
# has no curl, so Python asks (urlopen raises on a 503)
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request as u; u.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('LUDO_WEB_PORT', '8080'), timeout=4)"]

STOPSIGNAL SIGTERM
CMD ["ludo-bot", "run"]
