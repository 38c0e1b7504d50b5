// The page for keyboards and screen readers: colours read at WCAG's contrast, each
// action told once in a polite live region, and the keyboard's focus kept when the
// game is drawn again. Every word comes from the server (bot/web/speech.py).

// -- contrast (WCAG 2's relative luminance and contrast ratio) --------------------

/** "#rgb" / "#rrggbb" as [r, g, b] (0..255), or null. */
export function rgb(hex) {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})([0-9a-f]{2})?$/i.exec(String(hex || "").trim());
  if (!m) return null;
  const h = m[1].length === 3 ? m[1].replace(/./g, "$&$&") : m[1];
  return [0, 2, 4].map((k) => parseInt(h.slice(k, k + 2), 16));
}

function hex([r, g, b]) {
  return "#" + [r, g, b].map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");
}

export function luminance(colour) {
  const [r, g, b] = (rgb(colour) || [0, 0, 0]).map((v) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** Text for `bg`: `preferred` (a theme's ink) when it reads at `min` against it, else
 * the better of near-black and white. */
export function inkOn(bg, preferred, min = 4.5) {
  if (preferred && contrast(preferred, bg) >= min) return preferred;
  const dark = "#141414";
  return contrast(dark, bg) >= contrast("#ffffff", bg) ? dark : "#ffffff";
}

/** `colour` made darker or lighter, as little as needed, to read at `min` against
 * every colour of `others` (Telegram's colours are the user's: kept where they read). */
export function readable(colour, others, min = 4.5) {
  const from = rgb(colour);
  if (!from) return colour;
  const light = others.reduce((sum, o) => sum + luminance(o), 0) / others.length > 0.18;
  const to = light ? [0, 0, 0] : [255, 255, 255];
  for (let k = 0; k <= 20; k++) {
    const mixed = hex(from.map((v, i) => v + ((to[i] - v) * k) / 20));
    if (others.every((o) => contrast(mixed, o) >= min)) return mixed;
  }
  return hex(to);
}

// -- the live region ------------------------------------------------------------

/** Tells each new action of the game once, in `region` (aria-live="polite"): the
 * server's narration (`game.told`, numbered by the record), and whose turn it is when
 * that changes. A page that opens (or reconnects to) a game tells nothing of its past. */
export class Announcer {
  constructor(region, kept = 4) {
    this.region = region;
    this.kept = kept;
    this.game = null;
    this.told = -1;
    this.turn = null;
    this.lobby = null;
  }

  hear(game) {
    const told = game.told || [];
    const last = told.length ? told[told.length - 1].n : -1;
    const turn = game.status === "playing" && game.turn ? game.turn.colour : null;
    const lobby = game.status === "lobby" ? (game.status_lines || []).join(" ") : null;
    if (game.id !== this.game) {
      // the page's first game, or a rematch: what happened before is not news
      const rematch = this.game !== null;
      Object.assign(this, { game: game.id, told: last, turn, lobby });
      if (rematch && lobby) this.say([lobby], []);
      return;
    }
    const fresh = told.filter((t) => t.n > this.told);
    const lines = fresh.map((t) => t.says);
    if (turn && turn !== this.turn && game.status_lines && game.status_lines[0]) lines.push(game.status_lines[0]);
    if (lobby && lobby !== this.lobby) lines.push(lobby);
    this.told = Math.max(this.told, last);
    this.turn = turn;
    this.lobby = lobby;
    if (lines.length) this.say(lines, fresh.map((t) => t.n));
  }

  say(lines, numbers) {
    const p = document.createElement("p");
    p.textContent = lines.join(" ");
    p.dataset.told = numbers.join(" ");
    this.region.appendChild(p);
    while (this.region.childElementCount > this.kept) this.region.firstElementChild.remove();
  }
}

// -- focus ----------------------------------------------------------------------

let keyboard = false;

/** Whether the person last used the keyboard (else a pointer): focus moved for them
 * scrolls into view only then. */
export function watchInput() {
  addEventListener("keydown", () => (keyboard = true), true);
  addEventListener("pointerdown", () => (keyboard = false), true);
}

function focusable(node) {
  if (!node || node === document.body || !node.isConnected) return false;
  if (node.matches("svg .piece")) return node.classList.contains("movable");
  return !node.closest("[hidden]");
}

/** Where the focus is before the page is drawn again, if it is on one of the page's
 * controls (else the page leaves the focus alone). */
export function focusBefore(fallback) {
  const active = document.activeElement;
  if (!active || active === document.body) return null;
  if (active === fallback) return { fallback: true };
  if (active.matches("#actions button")) return { kind: active.dataset.kind };
  if (active.matches("svg .piece")) return { piece: active.dataset.piece };
  return null;
}

/** After drawing: the focus where it was if it still can be, else where the game goes
 * on: the piece to choose, the same action, the first action, or `fallback` (the turn's
 * prompt, until there is something to press). */
export function focusAfter(before, { piece, actions, fallback }) {
  if (!before) return;
  const active = document.activeElement;
  const ok = focusable(active);
  if (ok && !(before.fallback && active === fallback)) return;
  const next =
    piece ||
    (before.kind && actions.querySelector(`button[data-kind="${before.kind}"]`)) ||
    actions.querySelector("button") ||
    fallback;
  if (next && next !== active) next.focus({ preventScroll: !keyboard });
}
