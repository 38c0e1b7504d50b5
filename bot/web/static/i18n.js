// The page's words: all of them come with the game (bot/web/view.py), said by the
// bot from its catalogs in the viewer's language, so the page has none of its own.

export function colourName(game, colour) {
  const words = (game && game.words && game.words.colours) || {};
  return words[colour] || colour;
}

export function word(game, key, fallback = "") {
  return (game && game.words && game.words[key]) || fallback;
}

/** The page's language for the document (`pt_BR` -> `pt-BR`). */
export function htmlLang(language) {
  return (language || "en").replace("_", "-");
}
