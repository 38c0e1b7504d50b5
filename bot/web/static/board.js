// The board as SVG, from the geometry the bot serves (bot/web/geometry.py, the
// renderer's own): the same squares, stars, yards and colours as the pictures in
// the chat. Units are the grid's cells (15 x 15).
//
// For keyboards and screen readers the board is a labelled group: each piece an image
// named in words ("Red 2, square 23"), each piece that can move a button saying what
// pressing it does; the arrow keys go from one of those to the next (one Tab stop for
// them all), Enter or Space moves it. The words are the server's (bot/web/speech.py).

import { inkOn } from "./a11y.js";

const NS = "http://www.w3.org/2000/svg";
const STEP_MS = 90;
// a piece home is drawn this much smaller, so that all of a colour's fit in its triangle
const HOME_SCALE = 0.55;

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

export function reducedMotion() {
  return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

function centre(geom, name) {
  const [x, y] = geom.squares[name];
  return [x + 0.5, y + 0.5];
}

/** The outline of a piece: disc, square, triangle or diamond (the colourblind
 * theme's shapes), centred on 0,0 with half-size r. */
function shape(kind, r, attrs, parent) {
  if (kind === "square") return el("rect", { x: -r * 0.86, y: -r * 0.86, width: r * 1.72, height: r * 1.72, rx: r * 0.15, ...attrs }, parent);
  if (kind === "triangle") return el("polygon", { points: `0,${-r * 1.05} ${r * 1.05},${r * 0.8} ${-r * 1.05},${r * 0.8}`, ...attrs }, parent);
  if (kind === "diamond") return el("polygon", { points: `0,${-r * 1.1} ${r * 1.1},0 0,${r * 1.1} ${-r * 1.1},0`, ...attrs }, parent);
  return el("circle", { r, ...attrs }, parent);
}

function starPoints(cx, cy, outer) {
  const inner = outer * 0.45;
  const pts = [];
  for (let k = 0; k < 10; k++) {
    const r = k % 2 === 0 ? outer : inner;
    const a = -Math.PI / 2 + (k * Math.PI) / 5;
    pts.push(`${(cx + r * Math.cos(a)).toFixed(3)},${(cy + r * Math.sin(a)).toFixed(3)}`);
  }
  return pts.join(" ");
}

function arrowPoints(cx, cy, dx, dy) {
  const s = 0.3;
  const local = [[-0.9, -0.22], [0.1, -0.22], [0.1, -0.55], [0.9, 0], [0.1, 0.55], [0.1, 0.22], [-0.9, 0.22]];
  return local.map(([a, b]) => `${(cx + s * (a * dx - b * dy)).toFixed(3)},${(cy + s * (a * dy + b * dx)).toFixed(3)}`).join(" ");
}

export class Board {
  constructor(container, onPress) {
    this.onPress = onPress;
    this.svg = el("svg", { viewBox: "0 0 15 15", class: "board", role: "group", "data-testid": "board" });
    container.appendChild(this.svg);
    // the squares and the last move's marks are pictures only: the pieces say it all
    this.ground = el("g", { class: "ground", "aria-hidden": "true" }, this.svg);
    this.marks = el("g", { class: "marks", "aria-hidden": "true" }, this.svg);
    this.targets = el("g", { class: "targets" }, this.svg);
    this.layer = el("g", { class: "pieces" }, this.svg);
    this.pieces = new Map();
    this.groundKey = "";
    this.where = new Map();
    // the movable pieces in the arrow keys' order, and the one of them Tab reaches
    this.order = [];
    this.current = null;
    this.choice = null;
    this.svg.addEventListener("keydown", (e) => this.key(e));
  }

  /** The movable piece the keyboard is on (null: none can move). */
  focusTarget() {
    return (this.current && this.pieces.get(this.current)) || null;
  }

  /** Arrows: the next or previous movable piece (Home, End: the first, the last);
   * Enter or Space: move it. */
  key(e) {
    const node = e.target.closest && e.target.closest(".piece.movable");
    if (!node || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      if (!e.repeat && node.dataset.press) this.onPress(node.dataset.press);
      return;
    }
    const n = this.order.length;
    const i = this.order.indexOf(node.dataset.piece);
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
    let j = null;
    if (step) j = (i + step + n) % n;
    else if (e.key === "Home") j = 0;
    else if (e.key === "End") j = n - 1;
    if (j === null || !n) return;
    e.preventDefault();
    this.current = this.order[j];
    this.roving();
    this.focusTarget().focus();
  }

  /** One Tab stop for the movable pieces: the current one. */
  roving() {
    for (const id of this.order) this.pieces.get(id).setAttribute("tabindex", id === this.current ? "0" : "-1");
  }

  /** Draw `game` on the board of `geom`; animate what changed (unless reduced motion). */
  draw(geom, game, animate = true) {
    const theme = geom.themes[game.theme] || geom.themes.classic;
    const seated = new Set(game.seats.map((s) => s.colour).filter(Boolean));
    const names = {};
    for (const s of game.seats) if (s.colour) names[s.colour] = s.name;
    const key = JSON.stringify([geom.rules, game.theme, [...seated].sort(), names]);
    if (key !== this.groundKey) {
      this.groundKey = key;
      this.drawGround(geom, theme, seated, names, game.words);
    }
    this.svg.dataset.theme = game.theme;
    this.svg.dataset.rules = geom.rules;
    this.svg.setAttribute("aria-label", (game.words && game.words.board) || "Ludo");
    this.drawMarks(geom, theme, game);
    this.drawPieces(geom, theme, game, animate && !reducedMotion());
    this.drawTargets(geom, theme, game);
  }

  drawGround(geom, t, seated, names, words) {
    const g = this.ground;
    g.replaceChildren();
    el("rect", { x: 0, y: 0, width: 15, height: 15, fill: t.background }, g);
    const line = 0.04;
    for (const colour of geom.colours) {
      const y = geom.yards[colour];
      const pal = t.colours[colour];
      const on = seated.has(colour);
      const [bx, by, bw, bh] = y.box;
      el("rect", { x: bx, y: by, width: bw, height: bh, fill: on ? pal.main : t.inactive, stroke: t.grid, "stroke-width": line, class: `yard yard-${colour}` }, g);
      const [px, py, pw, ph] = y.panel;
      el("rect", { x: px, y: py, width: pw, height: ph, rx: 0.33, fill: on ? t.square : t.background }, g);
      if (t.marks) {
        const [mx, my] = y.mark;
        const mark = el("g", { transform: `translate(${mx} ${my})` }, g);
        shape(pal.shape, geom.yard_mark_size, { fill: "none", stroke: on ? pal.dark : t.inactive, "stroke-width": 0.09 }, mark);
      }
      if (on && names[colour]) {
        const [nx, ny] = y.name;
        const ink = inkOn(pal.main, pal.ink);
        const text = el("text", { x: nx, y: ny, "font-size": 0.62, fill: ink, "text-anchor": "middle", "dominant-baseline": "central", class: "yard-name", "data-colour": colour }, g);
        text.textContent = names[colour];
        fitText(text, bw - 0.4);
      }
    }
    const starSet = new Set(geom.stars);
    const startOf = {};
    for (const [colour, sq] of Object.entries(geom.starts)) startOf[sq] = colour;
    for (const sq of geom.track) {
      const [x, y] = geom.squares[sq];
      let fill = t.square;
      if (startOf[sq]) fill = t.colours[startOf[sq]].main;
      else if (starSet.has(sq) && geom.star_style === "shelter") fill = t.shelter;
      el("rect", { x, y, width: 1, height: 1, fill, stroke: t.grid, "stroke-width": line, "data-square": sq }, g);
      if (starSet.has(sq) && geom.star_style !== "none") {
        const fillStar = geom.star_style === "shelter" ? t.square : t.star;
        el("polygon", { points: starPoints(x + 0.5, y + 0.5, 0.38), fill: fillStar, class: "star" }, g);
      }
    }
    for (const colour of geom.colours) {
      for (const sq of geom.paths[colour].slice(-5)) {
        const [x, y] = geom.squares[sq];
        el("rect", { x, y, width: 1, height: 1, fill: t.colours[colour].main, stroke: t.grid, "stroke-width": line, "data-square": sq }, g);
      }
      const [cx, cy] = centre(geom, geom.starts[colour]);
      const [dx, dy] = geom.arrows[colour];
      el("polygon", { points: arrowPoints(cx, cy, dx, dy), fill: t.square }, g);
    }
    for (const colour of geom.colours) {
      const pts = geom.home[colour].triangle.map(([x, y]) => `${x},${y}`).join(" ");
      el("polygon", { points: pts, fill: t.colours[colour].main, stroke: t.grid, "stroke-width": line }, g);
    }
  }

  /** Where each piece is drawn: [x, y] in cells. */
  places(geom, game) {
    const counts = {};
    for (const p of game.pieces) counts[p.colour] = (counts[p.colour] || 0) + 1;
    const stacks = {};
    const out = new Map();
    for (const p of game.pieces) {
      let xy;
      if (p.at === "yard") {
        const n = Math.min(6, Math.max(4, counts[p.colour]));
        xy = geom.yards[p.colour].slots[String(n)][p.number - 1];
      } else if (p.at === "home") {
        // home: small, two by two in the colour's triangle
        const [hx, hy] = geom.home[p.colour].centre;
        const k = (stacks[`home-${p.colour}`] = (stacks[`home-${p.colour}`] || 0) + 1) - 1;
        const rows = Math.ceil(counts[p.colour] / 2);
        xy = [hx + ((k % 2) - 0.5) * 0.42, hy + (Math.floor(k / 2) - (rows - 1) / 2) * 0.42, HOME_SCALE];
      } else {
        const [cx, cy] = centre(geom, p.at);
        const k = (stacks[p.at] = (stacks[p.at] || 0) + 1) - 1;
        xy = [cx + k * 0.16, cy - k * 0.16];
      }
      out.set(`${p.colour}-${p.number}`, xy);
    }
    return out;
  }

  pieceNode(t, colour, number) {
    const id = `${colour}-${number}`;
    let node = this.pieces.get(id);
    if (node && node.dataset.theme === t.name) return node;
    if (node) node.remove();
    const pal = t.colours[colour];
    node = el("g", { class: "piece", "data-piece": id, "data-colour": colour, "data-number": number }, this.layer);
    node.dataset.theme = t.name;
    // what a tap on a movable piece reaches: its whole square (24 CSS px on a phone)
    el("circle", { r: 0.5, class: "hit", fill: "transparent" }, node);
    el("circle", { r: 0.5, class: "ring", fill: "none", stroke: t.movable, "stroke-width": 0.12 }, node);
    // the keyboard's focus: a dark and a light ring, seen on any square
    const focus = el("g", { class: "focus" }, node);
    el("circle", { r: 0.64, fill: "none", stroke: "#111", "stroke-width": 0.16 }, focus);
    el("circle", { r: 0.64, fill: "none", stroke: "#fff", "stroke-width": 0.06 }, focus);
    shape(pal.shape, 0.36, { fill: pal.main, stroke: pal.dark, "stroke-width": 0.07 }, node);
    const ink = inkOn(pal.main, pal.ink);
    const label = el("text", { "font-size": 0.42, fill: ink, "text-anchor": "middle", "dominant-baseline": "central", "font-weight": "bold", y: pal.shape === "triangle" ? 0.12 : 0.01 }, node);
    label.textContent = String(number);
    node.addEventListener("click", () => {
      if (node.dataset.press) this.onPress(node.dataset.press);
    });
    this.pieces.set(id, node);
    return node;
  }

  drawPieces(geom, theme, game, animate) {
    const t = { ...theme, name: game.theme };
    const places = this.places(geom, game);
    const seen = new Set();
    const moved = game.last && game.last.move;
    const movedId = moved ? `${moved.colour}-${moved.number}` : null;
    const capturedId = moved && moved.captures ? `${moved.captures.colour}-${moved.captures.number}` : null;
    for (const p of game.pieces) {
      const id = `${p.colour}-${p.number}`;
      seen.add(id);
      const node = this.pieceNode(t, p.colour, p.number);
      const [x, y, scale] = places.get(id);
      const before = this.where.get(id);
      const to = `translate(${x}px, ${y}px)` + (scale ? ` scale(${scale})` : "");
      node.dataset.at = p.at;
      node.style.transform = to;
      if (animate && before && before.at !== p.at) {
        let frames;
        if (id === movedId && moved.to > moved.from) {
          frames = [before.transform, ...this.path(geom, p.colour, moved), to];
        } else {
          frames = [before.transform, to];
        }
        const slow = id === capturedId;
        node.getAnimations().forEach((a) => a.cancel());
        const delay = slow ? Math.max(0, (moved.to - moved.from)) * STEP_MS : 0;
        node.animate(
          frames.map((transform, k) => (slow && k === frames.length - 1 ? { transform: `${transform} scale(1)` } : slow ? { transform: `${transform} scale(1.4)` } : { transform })),
          { duration: slow ? 450 : Math.min(1600, STEP_MS * frames.length), delay, easing: "ease-in-out", fill: "backwards" },
        );
        node.classList.add(slow ? "captured" : "moving");
        setTimeout(() => node.classList.remove("captured", "moving"), delay + 1700);
      }
      this.where.set(id, { at: p.at, transform: to });
    }
    for (const [id, node] of this.pieces) {
      if (!seen.has(id)) {
        node.remove();
        this.pieces.delete(id);
        this.where.delete(id);
      }
    }
    // the piece that moved last on top
    const last = movedId && this.pieces.get(movedId);
    if (last && last !== document.activeElement) this.layer.appendChild(last);
    // the pieces the viewer can move: ringed, and a tap (or Enter) moves them; each
    // named in words, with its move when it can make one
    const press = {};
    const says = {};
    for (const p of game.pieces) says[`${p.colour}-${p.number}`] = p.says || "";
    for (const m of game.moves || []) {
      m.pieces.forEach((n, k) => {
        press[`${m.colour}-${n}`] = m.data;
        if (m.says && m.says[k]) says[`${m.colour}-${n}`] = m.says[k];
      });
    }
    const number = (id) => Number(this.pieces.get(id).dataset.number);
    this.order = Object.keys(press).sort((a, b) => number(a) - number(b));
    // a new choice (a new roll) starts at its first piece; the same one keeps its place
    if (game.version !== this.choice || !this.order.includes(this.current)) this.current = this.order[0] || null;
    this.choice = game.version;
    for (const [id, node] of this.pieces) {
      node.setAttribute("aria-label", says[id] || id);
      if (press[id]) {
        node.dataset.press = press[id];
        node.classList.add("movable");
        node.setAttribute("role", "button");
        // on top (but not the focused one: moving it would drop the focus)
        if (node !== document.activeElement) this.layer.appendChild(node);
      } else {
        delete node.dataset.press;
        node.classList.remove("movable");
        node.setAttribute("role", "img");
        node.removeAttribute("tabindex");
      }
    }
    this.roving();
  }

  /** The squares a move passes, as transforms, from the one after its start. */
  path(geom, colour, move) {
    const path = geom.paths[colour];
    const out = [];
    const first = Math.max(1, move.from + 1);
    const last = Math.min(move.to, path.length);
    for (let p = first; p <= last; p++) {
      const [x, y] = centre(geom, path[p - 1]);
      out.push(`translate(${x}px, ${y}px)`);
    }
    return out.slice(0, -1);
  }

  drawMarks(geom, t, game) {
    this.marks.replaceChildren();
    const m = game.last && game.last.move;
    if (!m) return;
    if (m.from_at in geom.squares) {
      const [x, y] = geom.squares[m.from_at];
      el("rect", { x: x + 0.08, y: y + 0.08, width: 0.84, height: 0.84, fill: "none", stroke: t.last, "stroke-width": 0.05, class: "last-from" }, this.marks);
    }
    if (m.to_at in geom.squares) {
      const [x, y] = geom.squares[m.to_at];
      el("rect", { x: x + 0.04, y: y + 0.04, width: 0.92, height: 0.92, fill: "none", stroke: t.last, "stroke-width": 0.09, class: "last-to" }, this.marks);
    }
  }

  /** Each movable piece's landing square: a dashed ring with the piece's number. */
  drawTargets(geom, t, game) {
    this.targets.replaceChildren();
    for (const m of game.moves || []) {
      let x;
      let y;
      if (m.to_at in geom.squares) [x, y] = centre(geom, m.to_at);
      else [x, y] = geom.home[m.colour].centre;
      const g = el("g", { class: "target", role: "img", "aria-label": m.mark || m.label, "data-target": m.to_at, "data-press": m.data }, this.targets);
      el("circle", { cx: x, cy: y, r: 0.42, fill: t.movable, "fill-opacity": 0.35, stroke: t.movable, "stroke-width": 0.08, "stroke-dasharray": "0.15 0.1" }, g);
      // the number on a solid disc, in an ink that reads on it
      el("circle", { cx: x, cy: y, r: 0.25, fill: t.movable }, g);
      const label = el("text", { x, y, "font-size": 0.36, fill: inkOn(t.movable, t.text), "text-anchor": "middle", "dominant-baseline": "central", "font-weight": "bold" }, g);
      label.textContent = m.enter ? "↗" : String(m.number);
      g.addEventListener("click", () => this.onPress(m.data));
    }
  }
}

function fitText(text, width) {
  try {
    const w = text.getComputedTextLength();
    if (w > width) text.setAttribute("textLength", String(width)), text.setAttribute("lengthAdjust", "spacingAndGlyphs");
  } catch (_) {
    /* not laid out yet */
  }
}

/** The die's face as SVG: `value` 1..6 (0: blank). */
export function dieFace(svg, value, t) {
  svg.replaceChildren();
  el("rect", { x: 0.05, y: 0.05, width: 0.9, height: 0.9, rx: 0.16, fill: t.die, stroke: t.pip, "stroke-width": 0.04 }, svg);
  const spots = {
    1: [[0.5, 0.5]],
    2: [[0.28, 0.28], [0.72, 0.72]],
    3: [[0.28, 0.28], [0.5, 0.5], [0.72, 0.72]],
    4: [[0.28, 0.28], [0.72, 0.28], [0.28, 0.72], [0.72, 0.72]],
    5: [[0.28, 0.28], [0.72, 0.28], [0.5, 0.5], [0.28, 0.72], [0.72, 0.72]],
    6: [[0.28, 0.25], [0.72, 0.25], [0.28, 0.5], [0.72, 0.5], [0.28, 0.75], [0.72, 0.75]],
  }[value] || [];
  for (const [x, y] of spots) el("circle", { cx: x, cy: y, r: 0.085, fill: t.pip }, svg);
  svg.dataset.value = String(value);
}
