// The live board's page: who is looking, the game pushed over a websocket, the
// board drawn, taps sent as the chat's button presses. Plain ES modules, no build.

import { Announcer, focusAfter, focusBefore, readable, watchInput } from "./a11y.js";
import { Board, dieFace, reducedMotion } from "./board.js";
import { colourName, htmlLang, word } from "./i18n.js";
import { Live, geometry, openSession, whereAmI } from "./net.js";

const $ = (sel) => document.querySelector(sel);
const geometries = new Map();

const ui = {
  game: null,
  live: null,
  board: null,
  lastRoll: null,
  busy: false,
  announcer: null,
};

/** Telegram's colours as the page's CSS variables (its WebApp object when Telegram's
 * script is on the page, else the tgWebAppThemeParams of the URL's fragment). */
function telegramTheme() {
  let params = null;
  const webApp = window.Telegram && window.Telegram.WebApp;
  if (webApp && webApp.themeParams && Object.keys(webApp.themeParams).length) {
    params = webApp.themeParams;
  } else {
    const raw = new URLSearchParams(location.hash.replace(/^#/, "")).get("tgWebAppThemeParams");
    try {
      params = raw ? JSON.parse(raw) : null;
    } catch (_) {
      params = null;
    }
  }
  if (!params) return;
  const root = document.documentElement.style;
  const colour = (k, fallback) => {
    const v = params[k];
    return typeof v === "string" && /^#[0-9a-fA-F]{3,8}$/.test(v) ? v : fallback;
  };
  for (const k of Object.keys(params)) {
    const v = colour(k, null);
    if (v) root.setProperty(`--tg-${k.replace(/_/g, "-")}`, v);
  }
  // the person's colours, made darker or lighter where their text would not read
  // (WCAG's 4.5:1): Telegram's own blue button under white words does not
  const bg = colour("bg_color", "#f6f1e7");
  const panel = colour("secondary_bg_color", "#fffdf8");
  const fix = (k, against) => {
    if (colour(k, null)) root.setProperty(`--tg-${k.replace(/_/g, "-")}`, readable(params[k], against));
  };
  fix("text_color", [bg, panel]);
  fix("hint_color", [bg, panel]);
  fix("link_color", [bg]);
  fix("button_color", [colour("button_text_color", "#ffffff")]);
  document.documentElement.classList.add("telegram");
  if (webApp) {
    try {
      webApp.ready();
      webApp.expand();
    } catch (_) {
      /* an old client */
    }
  }
}

async function geometryFor(rules) {
  if (!geometries.has(rules)) geometries.set(rules, await geometry(rules));
  return geometries.get(rules);
}

function button(action, b = null) {
  if (!b) {
    b = document.createElement("button");
    b.type = "button";
    b.addEventListener("click", () => press(b.dataset.press));
  }
  if (b.textContent !== action.label) b.textContent = action.label;
  b.className = `action ${action.style || "secondary"}`;
  b.dataset.kind = action.kind;
  b.dataset.press = action.data;
  return b;
}

/** The actions as buttons, each kept from one state to the next (its label and press
 * changed in place), so that the keyboard's focus stays on it. */
function showActions(box, actions) {
  const old = new Map([...box.children].map((b) => [b.dataset.kind, b]));
  const wanted = actions.map((a) => {
    const b = button(a, old.get(a.kind));
    old.delete(a.kind);
    return b;
  });
  for (const b of old.values()) b.remove();
  wanted.forEach((b, k) => {
    if (box.children[k] !== b) box.insertBefore(b, box.children[k] || null);
  });
}

async function press(data) {
  if (!ui.live || ui.busy) return;
  const mine = (ui.busy = { version: ui.game && ui.game.version });
  document.body.classList.add("busy");
  const answer = await ui.live.press(data);
  if (ui.busy === mine) idle();
  if (!answer.ok && answer.text) toast(answer.text);
}

/** Presses welcome again: the last one answered, or the game moved on (its state may
 * come before the answer: the next press, Enter on Roll at once, is not lost). */
function idle() {
  ui.busy = false;
  document.body.classList.remove("busy");
}

let toastTimer = null;
function toast(text) {
  const t = $("#toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (t.hidden = true), 3500);
}

function rollDie(svg, value, theme) {
  if (reducedMotion()) {
    dieFace(svg, value, theme);
    return;
  }
  let k = 0;
  svg.classList.add("rolling");
  const spin = setInterval(() => {
    k += 1;
    if (k >= 7) {
      clearInterval(spin);
      svg.classList.remove("rolling");
      dieFace(svg, value, theme);
      return;
    }
    dieFace(svg, 1 + Math.floor(Math.random() * 6), theme);
  }, 55);
}

/** A player's name as text of its own direction, isolated from the words around it. */
function bdi(text) {
  const node = document.createElement("bdi");
  node.textContent = text;
  return node;
}

function seatLine(game, seat) {
  const li = document.createElement("li");
  li.className = "seat" + (seat.you ? " you" : "") + (seat.waiting ? " waiting" : "");
  if (seat.colour) li.dataset.colour = seat.colour;
  const dot = document.createElement("span");
  dot.className = "dot";
  li.appendChild(dot);
  // the name isolated (<bdi>) from the words after it: it may be written right to left
  const name = document.createElement("span");
  name.append(bdi(seat.name), seat.colour ? ` · ${colourName(game, seat.colour)}` : "");
  li.appendChild(name);
  if (game.turn && game.turn.colour === seat.colour) li.classList.add("on-turn");
  return li;
}

async function show(game) {
  const first = ui.game === null;
  const before = ui.game;
  const focused = focusBefore($("#prompt"));
  ui.game = game;
  if (ui.busy && ui.busy.version !== game.version) idle();
  document.documentElement.lang = htmlLang(game.language);
  document.body.dataset.status = game.status;
  document.body.dataset.role = game.player ? "player" : "spectator";
  const geom = await geometryFor(game.rules);
  if (ui.game !== game) return; // a newer state came while the geometry loaded
  const theme = geom.themes[game.theme] || geom.themes.classic;
  const root = document.documentElement.style;
  root.setProperty("--board-bg", theme.background);
  root.setProperty("--movable", theme.movable);
  for (const [c, pal] of Object.entries(theme.colours)) root.setProperty(`--${c}`, pal.main);
  document.body.dataset.theme = game.theme;
  // the page itself dark around the dark theme's board (Telegram's colours aside)
  document.documentElement.dataset.theme = game.theme;
  $("#title").textContent = game.rules_name || game.rules;
  const watch = $("#watch");
  watch.setAttribute("aria-label", word(game, "watch"));
  watch.title = word(game, "watch");
  ui.board.draw(geom, game, !first);
  // the board is drawn: the time to it is measured (tests/browser/phone.py)
  if (first) performance.mark("ludo:board-drawn");

  // the die: rolled on screen when a new roll comes
  const die = $("#die");
  const roll = game.last && game.last.roll;
  const value = game.die || (roll && roll.die) || 0;
  const rollKey = roll ? `${game.version}:${roll.colour}:${roll.die}` : null;
  if (rollKey && rollKey !== ui.lastRoll && !first) rollDie(die, value, theme);
  else dieFace(die, value, theme);
  ui.lastRoll = rollKey;
  die.dataset.colour = (roll && roll.colour) || (game.turn && game.turn.colour) || "";
  // the last roll, shown faded while the player on turn has still to roll
  die.dataset.stale = game.turn && game.turn.phase === "roll" ? "yes" : "no";

  $("#prompt").textContent = game.status_lines.join("\n");
  const turn = game.turn;
  $("#turn").dataset.yours = turn && turn.yours ? "yes" : "no";
  $("#turn").dataset.colour = turn ? turn.colour : "";

  const actions = $("#actions");
  showActions(actions, game.actions);

  const story = $("#story");
  story.replaceChildren(
    ...game.story.map((line) => {
      const li = document.createElement("li");
      li.textContent = line;
      return li;
    }),
  );

  $("#seats").replaceChildren(...game.seats.map((s) => seatLine(game, s)));

  const standings = $("#standings");
  standings.hidden = game.status !== "over" || !game.standings;
  if (!standings.hidden) {
    $("#standings-title").textContent = game.standings.title;
    $("#standings-rows").replaceChildren(
      ...game.standings.rows.map((row) => {
        const li = document.createElement("li");
        li.dataset.colour = row.colour;
        li.className = row.winner ? "winner" : "";
        const rating = row.rating ? ` · ${row.rating}` : "";
        li.append(`${row.place}. ${row.winner ? "★ " : ""}`, bdi(row.name), ` — ${row.detail}${rating}`);
        return li;
      }),
    );
  }
  // the keyboard's focus kept, or taken where the game goes on; the news told
  focusAfter(focused, { piece: ui.board.focusTarget(), actions, fallback: $("#prompt") });
  ui.announcer.hear(game);
  document.body.dataset.rev = String(game.rev);
  document.body.dataset.version = String(game.version);
  if (before === null) document.body.classList.add("ready");
}

function tickDeadline() {
  const game = ui.game;
  const out = $("#clock");
  if (!game || !game.deadline || game.status !== "playing") {
    out.textContent = "";
    return;
  }
  const left = Math.max(0, Math.round(game.deadline - Date.now() / 1000));
  out.textContent = `⏱ ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
}

function fail(text) {
  const box = $("#error");
  box.textContent = text || "…";
  box.hidden = false;
  document.body.classList.add("failed");
}

async function main() {
  telegramTheme();
  watchInput();
  ui.board = new Board($("#board"), press);
  ui.announcer = new Announcer($("#announce"));
  const where = whereAmI() || { kind: "nowhere" };
  let session;
  try {
    session = await openSession(where, toast);
  } catch (e) {
    fail(e.message);
    return;
  }
  document.body.dataset.platform = where.kind;
  if (session.error) toast(session.error);
  if (session.watch) {
    // the spectator link, for players to share
    const link = new URL(document.baseURI);
    link.search = `?watch=${encodeURIComponent(session.watch)}`;
    link.hash = "";
    $("#watch").href = link.href;
    $("#watch").hidden = false;
  }
  await show(session.game);
  ui.live = new Live(session.session, (game) => {
    // a newer revision of this game, or its rematch (a new game: its own revisions)
    if (!ui.game || game.id !== ui.game.id || game.rev >= ui.game.rev) show(game);
  }, (up) => {
    document.body.dataset.link = up ? "up" : "down";
  });
  setInterval(tickDeadline, 1000);
}

main();
