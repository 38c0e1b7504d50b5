"""The live board's settings: off unless LUDO_PUBLIC_URL is set; each wrong value
refused at start with the setting's name; the client secret never shown."""

from __future__ import annotations

import pytest

from bot.app.config import ConfigError, load_settings

BASE = {
    "TELEGRAM_TOKEN": "123:tg",
    "DISCORD_TOKEN": "dc.token",
    "LUDO_WEB_PORT": "8080",
    "LUDO_PUBLIC_URL": "https://ludo.example.org/",
}


def test_off_without_a_public_address() -> None:
    assert load_settings({}).board is None
    assert load_settings({"LUDO_WEB_PORT": "8080"}).board is None


def test_every_board_setting_is_read() -> None:
    env = {
        **BASE,
        "LUDO_MINIAPP": "board",
        "DISCORD_CLIENT_ID": "1234567890",
        "DISCORD_CLIENT_SECRET": "s3cret-Value_xyz",
    }
    board = load_settings(env).board
    assert board is not None
    assert board.public_url == "https://ludo.example.org"  # no trailing slash
    assert board.board_url == "https://ludo.example.org/board/"
    assert board.miniapp == "board"
    assert board.discord_client_id == 1234567890 and board.activity
    assert "s3cret" not in repr(load_settings(env))


def test_a_path_and_a_port_are_kept_and_http_only_on_this_machine() -> None:
    board = load_settings({**BASE, "LUDO_PUBLIC_URL": "https://h.example:8443/ludo"}).board
    assert board is not None and board.board_url == "https://h.example:8443/ludo/board/"
    board = load_settings({**BASE, "LUDO_PUBLIC_URL": "http://127.0.0.1:9000"}).board
    assert board is not None and board.public_url == "http://127.0.0.1:9000"
    assert board.miniapp is None and not board.activity


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({"LUDO_PUBLIC_URL": "http://ludo.example.org"}, "must be an https:// address"),
        ({"LUDO_PUBLIC_URL": "ludo.example.org"}, "must be an https:// address"),
        ({"LUDO_PUBLIC_URL": "https://"}, "https://host[:port][/path], nothing more"),
        ({"LUDO_PUBLIC_URL": "https://h.example/?x=1"}, "nothing more"),
        ({"LUDO_PUBLIC_URL": "https://u:p@h.example"}, "nothing more"),
        ({"LUDO_PUBLIC_URL": "https://h.example:99999"}, "not a web address"),
        ({"LUDO_MINIAPP": "a b"}, "LUDO_MINIAPP must be the Mini App's short name"),
        ({"LUDO_MINIAPP": "ab"}, "LUDO_MINIAPP must be the Mini App's short name"),
        ({"DISCORD_CLIENT_ID": "123"}, "DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET go together"),
        ({"DISCORD_CLIENT_SECRET": "abcdefgh"}, "go together"),
        (
            {"DISCORD_CLIENT_ID": "12ab", "DISCORD_CLIENT_SECRET": "abcdefgh"},
            "DISCORD_CLIENT_ID must be the application's id",
        ),
        (
            {"DISCORD_CLIENT_ID": "12", "DISCORD_CLIENT_SECRET": "short"},
            "DISCORD_CLIENT_SECRET must be the application's client secret",
        ),
    ],
)
def test_a_broken_board_setting_is_named(env: dict[str, str], words: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_settings({**BASE, **env})
    assert words in str(err.value)
    assert "abcdefgh" not in str(err.value)  # a secret is never repeated


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({"LUDO_MINIAPP": "board"}, "LUDO_MINIAPP needs LUDO_PUBLIC_URL"),
        ({"DISCORD_CLIENT_ID": "12"}, "DISCORD_CLIENT_ID needs LUDO_PUBLIC_URL"),
        ({"LUDO_PUBLIC_URL": "https://h.example"}, "LUDO_PUBLIC_URL needs LUDO_WEB_PORT"),
        (
            {"LUDO_PUBLIC_URL": "https://h.example", "LUDO_WEB_PORT": "80", "LUDO_MINIAPP": "app"},
            "LUDO_MINIAPP needs TELEGRAM_TOKEN",
        ),
        (
            {
                "LUDO_PUBLIC_URL": "https://h.example",
                "LUDO_WEB_PORT": "80",
                "DISCORD_CLIENT_ID": "12",
                "DISCORD_CLIENT_SECRET": "abcdefgh",
            },
            "DISCORD_CLIENT_ID needs DISCORD_TOKEN",
        ),
    ],
)
def test_a_board_setting_needs_what_it_works_with(env: dict[str, str], words: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_settings(env)
    assert words in str(err.value)


def test_the_webhook_mode_serves_the_board_too() -> None:
    env = {
        "TELEGRAM_TOKEN": "1:x",
        "TELEGRAM_WEBHOOK_URL": "https://h.example/telegram",
        "LUDO_PUBLIC_URL": "https://h.example",
    }
    board = load_settings(env).board
    assert board is not None and board.public_url == "https://h.example"


def test_the_media_chat_of_inline_tables_is_an_id_or_a_channel_name() -> None:
    assert load_settings({}).telegram_media_chat is None
    assert load_settings({"TELEGRAM_TOKEN": "1:t"}).telegram_media_chat is None
    chat = load_settings({"TELEGRAM_TOKEN": "1:t", "TELEGRAM_MEDIA_CHAT": " -1001234567890 "})
    assert chat.telegram_media_chat == -1001234567890
    named = load_settings({"TELEGRAM_TOKEN": "1:t", "TELEGRAM_MEDIA_CHAT": "@ludo_pictures"})
    assert named.telegram_media_chat == "@ludo_pictures"


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({"TELEGRAM_MEDIA_CHAT": "-100"}, "TELEGRAM_MEDIA_CHAT needs TELEGRAM_TOKEN"),
        ({"TELEGRAM_TOKEN": "1:t", "TELEGRAM_MEDIA_CHAT": "my chat"}, "a chat's id"),
        ({"TELEGRAM_TOKEN": "1:t", "TELEGRAM_MEDIA_CHAT": "@ab"}, "a chat's id"),
        ({"TELEGRAM_TOKEN": "1:t", "TELEGRAM_MEDIA_CHAT": "1" * 21}, "a chat's id"),
    ],
)
def test_a_wrong_media_chat_is_refused_by_name(env: dict[str, str], words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        load_settings(env)
