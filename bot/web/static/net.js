// The page's link to the bot: who is looking (a session from the platform's
// signature), and the game pushed over a websocket, with reconnect.
// See docs/web-protocol.md.

const API = new URL("../api/", document.baseURI);
// the close code of a socket refused for going too fast (bot/web/live.py)
const SLOW = 4429;

export function apiUrl(path) {
  return new URL(path, API);
}

/** Where the page runs: "telegram", "discord" or "watch" (a spectator link), or null. */
export function whereAmI(loc = window.location) {
  const params = new URLSearchParams(loc.search);
  if (params.get("watch")) return { kind: "watch", watch: params.get("watch") };
  const initData = telegramInitData(loc);
  if (initData) return { kind: "telegram", initData, game: params.get("game") };
  if (params.get("frame_id")) return { kind: "discord" };
  return null;
}

/** Telegram's signed initData: from window.Telegram.WebApp when Telegram's script is
 * on the page, else the tgWebAppData Telegram passes in the URL's fragment. */
export function telegramInitData(loc = window.location) {
  const webApp = window.Telegram && window.Telegram.WebApp;
  if (webApp && webApp.initData) return webApp.initData;
  const hash = new URLSearchParams(loc.hash.replace(/^#/, ""));
  return hash.get("tgWebAppData") || "";
}

async function postJson(path, body, headers = {}) {
  const res = await fetch(apiUrl(path), {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  let data = null;
  try {
    data = await res.json();
  } catch (_) {
    data = null;
  }
  // 403: not this person's game to act in, but they may watch (a session comes with it)
  if (res.status === 403 && data && data.session) return data;
  if (!res.ok) {
    const err = new Error((data && data.error) || `HTTP ${res.status}`);
    err.status = res.status;
    err.retryAfter = Number(res.headers.get("Retry-After")) || 0;
    throw err;
  }
  return data;
}

// A sign-in turned away for a while (503 with Retry-After: the bot's budget of
// requests to Discord is spent, or Discord asked it to wait): the bot's words are
// shown with `onWait`, and the same request is made again once the wait is over.
async function patiently(ask, onWait, tries = 10) {
  for (let i = 1; ; i += 1) {
    try {
      return await ask();
    } catch (err) {
      if (err.status !== 503 || !err.retryAfter || i >= tries) throw err;
      onWait(err.message);
      await new Promise((done) => setTimeout(done, Math.min(err.retryAfter, 60) * 1000));
    }
  }
}

/** A session for whoever opened the page: {session, role, language, game};
 * `onWait(text)` tells the person of a wait before the bot lets them in. */
export async function openSession(where, onWait = () => {}) {
  if (where.kind === "watch") return postJson("session", { watch: where.watch });
  if (where.kind === "telegram") {
    const body = where.game ? { game: where.game } : {};
    return postJson("session", body, { Authorization: `tma ${where.initData}` });
  }
  if (where.kind === "discord") return discordSession(onWait);
  // opened from nowhere: the bot says so, in its words
  return postJson("session", {});
}

/** The Activity's application id: Discord serves an Activity from
 * https://<application id>.discordsays.com (else the bot says it). */
async function discordClientId() {
  const meta = document.querySelector('meta[name="discord-client-id"]');
  if (meta && meta.content) return meta.content;
  const host = /^(\d{5,20})\.discordsays\.com$/.exec(location.hostname);
  if (host) return host[1];
  const res = await fetch(apiUrl("discord/config"));
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return (await res.json()).client_id;
}

// Discord's Embedded App SDK (vendored, see vendor/README.md): ready, authorize,
// the code exchanged by the bot, authenticate, then a session for the channel; the
// bot checks with Discord that this person is in the Activity's instance there. A
// code or token the bot turned away for a while (503) was not used: asked again.
async function discordSession(onWait) {
  const { DiscordSDK } = await import("./vendor/discord-embedded-app-sdk-2.5.0.mjs");
  const clientId = await discordClientId();
  const sdk = new DiscordSDK(clientId, { disableConsoleLogOverride: true });
  await sdk.ready();
  const { code } = await sdk.commands.authorize({
    client_id: clientId,
    response_type: "code",
    state: "",
    prompt: "none",
    scope: ["identify"],
  });
  const { access_token: token } = await patiently(
    () => postJson("discord/token", { code }),
    onWait,
  );
  await sdk.commands.authenticate({ access_token: token });
  const body = { channel: sdk.channelId, instance: sdk.instanceId };
  return patiently(
    () => postJson("session", body, { Authorization: `discord ${token}` }),
    onWait,
  );
}

/** The live game: `onState(game)` on every change; `press(data)` resolves to
 * {ok: true} or {ok: false, text}. Reconnects after a drop, with a growing pause. */
export class Live {
  constructor(session, onState, onLink) {
    this.session = session;
    this.onState = onState;
    this.onLink = onLink || (() => {});
    this.pending = new Map();
    this.pause = 250;
    this.retryAfter = 0;
    this.closed = false;
    // sockets in a row that closed before any state came (a session expired, the
    // game gone): after a few the page stops trying and says the link is down
    this.barren = 0;
    this.connect();
  }

  connect() {
    const url = apiUrl("ws");
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(url);
    this.ws = ws;
    let fed = false;
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: "hello", session: this.session }));
    };
    ws.onmessage = (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch (_) {
        return;
      }
      if (msg.type === "state") {
        fed = true;
        this.barren = 0;
        this.pause = 250;
        this.onLink(true);
        this.onState(msg.game);
      } else if (msg.type === "session" && typeof msg.session === "string") {
        // the table was played again: this page now follows the rematch
        this.session = msg.session;
      } else if (msg.type === "refused" && !("id" in msg)) {
        // the socket itself refused (too many from this network, or this person): when
        // to come back, the socket then closed (4429)
        if (typeof msg.retry_after === "number") this.retryAfter = msg.retry_after;
      } else if (msg.type === "ack" || msg.type === "refused") {
        const done = this.pending.get(msg.id);
        if (done) {
          this.pending.delete(msg.id);
          done(msg.type === "ack" ? { ok: true } : { ok: false, text: msg.text || "" });
        }
      }
    };
    ws.onclose = (event) => {
      this.onLink(false);
      for (const done of this.pending.values()) done({ ok: false, text: "" });
      this.pending.clear();
      // too fast (4429): back when the bot said, which is no reason to give up
      const slowed = event.code === SLOW;
      if (!fed && !slowed) this.barren += 1;
      if (this.closed || this.barren >= 4) return;
      const wait = slowed ? Math.max(this.pause, 1000 * (this.retryAfter || 1)) : this.pause;
      this.retryAfter = 0;
      setTimeout(() => this.connect(), wait);
      this.pause = Math.min(this.pause * 2, 8000);
    };
  }

  press(data) {
    const id = (crypto.randomUUID && crypto.randomUUID()) || String(Math.random()).slice(2);
    return new Promise((resolve) => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
        resolve({ ok: false, text: "" });
        return;
      }
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ type: "press", data, id }));
    });
  }

  close() {
    this.closed = true;
    if (this.ws) this.ws.close();
  }
}

export async function geometry(rules) {
  const res = await fetch(apiUrl(`geometry?rules=${encodeURIComponent(rules)}`));
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return res.json();
}
