// Discord's client as the Embedded App SDK sees it, at its postMessage boundary:
// the page's window.parent answers the SDK's handshake and its AUTHORIZE and
// AUTHENTICATE commands as Discord does (the shapes of the SDK's own schemas).
// The test fills in CONFIG: {code, user, application}.
(() => {
  const CONFIG = __CONFIG__;
  const seen = [];
  window.__discord = seen;
  const answer = (message) =>
    setTimeout(() => {
      window.dispatchEvent(new MessageEvent("message", { data: message, origin: location.origin }));
    }, 0);
  const parent = {
    opener: null,
    postMessage(message) {
      const [opcode, payload] = message;
      seen.push({ opcode, cmd: payload.cmd || null, payload: JSON.parse(JSON.stringify(payload)) });
      if (opcode === 0) {
        answer([1, {
          cmd: "DISPATCH", evt: "READY", nonce: null,
          data: { v: 1, config: { cdn_host: "cdn.discordapp.com", api_endpoint: "//discord.com/api", environment: "production" } },
        }]);
        return;
      }
      if (opcode !== 1) return;
      if (payload.cmd === "AUTHORIZE") {
        answer([1, { cmd: "AUTHORIZE", evt: null, nonce: payload.nonce, data: { code: CONFIG.code } }]);
      } else if (payload.cmd === "AUTHENTICATE") {
        answer([1, {
          cmd: "AUTHENTICATE", evt: null, nonce: payload.nonce,
          data: {
            access_token: payload.args.access_token,
            user: { ...CONFIG.user, public_flags: 0 },
            scopes: ["identify"],
            expires: new Date(Date.now() + 604800000).toISOString(),
            application: { ...CONFIG.application, description: "" },
          },
        }]);
      } else {
        answer([1, { cmd: payload.cmd, evt: "ERROR", nonce: payload.nonce, data: { code: 4000, message: "not in this stub" } }]);
      }
    },
  };
  Object.defineProperty(window, "parent", { get: () => parent, configurable: true });
})();
