"""Measuring the board's page for keyboards and screen readers in Chromium: axe-core
(vendored, see vendor/README.md) run in the page, the contrast of the words drawn in
the board's SVG, what the live region said, and moving by keyboard alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext, Page

#: axe-core, injected as an init script (the page's CSP does not apply to those)
AXE = Path(__file__).parent / "vendor" / "axe-4.14.1.min.js"
#: WCAG 2.2 levels A and AA, as axe tags its rules
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
RUN_AXE = """async (tags) => {
  const result = await axe.run(document, {
    runOnly: { type: "tag", values: tags },
    resultTypes: ["violations"],
  });
  return result.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    targets: v.nodes.map((n) => n.target.join(" ")),
  }));
}"""
#: every line the live region was given: its text and the actions it told
TOLD = """
window.__told = [];
new MutationObserver((changes) => {
  for (const c of changes) {
    if (c.target.id !== "announce") continue;
    for (const node of c.addedNodes) {
      if (node.nodeType !== 1) continue;
      window.__told.push({ text: node.textContent, told: node.dataset.told });
    }
  }
}).observe(document, { subtree: true, childList: true });
"""
#: the words drawn in the board: their ink, and what they are drawn on
SVG_TEXTS = """() => [...document.querySelectorAll("svg.board text")].map((t) => {
  const piece = t.closest(".piece");
  const kind = piece ? "piece" : t.closest(".target") ? "mark"
    : t.classList.contains("yard-name") ? "yard" : "other";
  const colour = piece ? piece.dataset.colour : t.dataset.colour || null;
  return { kind, colour, fill: t.getAttribute("fill"), text: t.textContent };
})"""


async def axed(ctx: BrowserContext) -> BrowserContext:
    await ctx.add_init_script(path=str(AXE))
    await ctx.add_init_script(TOLD)
    return ctx


async def violations(page: Page) -> list[dict[str, Any]]:
    """axe's violations of WCAG 2.2 A and AA on the page as it is now."""
    return list(await page.evaluate(RUN_AXE, WCAG))


def said(found: list[dict[str, Any]]) -> str:
    return "\n".join(f"{v['id']} ({v['impact']}): {', '.join(v['targets'])}" for v in found)


def luminance(colour: str) -> float:
    h = colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    channels = []
    for k in (0, 2, 4):
        c = int(h[k : k + 2], 16) / 255
        channels.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    r, g, b = channels
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


async def svg_text_contrast(page: Page, theme: dict[str, Any]) -> tuple[set[str], list[str]]:
    """The kinds of words drawn in the board (yard names, piece numbers, landing marks),
    and those whose ink reads below 4.5:1 on what they are drawn on, from the geometry's
    ``theme`` colours (axe does not measure SVG text): none when all read."""
    poor = []
    texts = await page.evaluate(SVG_TEXTS)
    for t in texts:
        if t["kind"] in ("piece", "yard"):
            under = theme["colours"][t["colour"]]["main"]
        elif t["kind"] == "mark":
            under = theme["movable"]
        else:
            poor.append(f"unknown text {t}")
            continue
        ratio = contrast(t["fill"], under)
        if ratio < 4.5:
            poor.append(f"{t['kind']} {t['text']!r} {t['fill']} on {under}: {ratio:.2f}")
    return {t["kind"] for t in texts}, poor


FOCUSED = """() => {
  const a = document.activeElement;
  return a ? {
    tag: a.tagName.toLowerCase(), kind: a.dataset.kind || null, piece: a.dataset.piece || null,
    movable: a.classList.contains("movable"), name: a.getAttribute("aria-label") || a.textContent,
  } : null;
}"""


async def focused(page: Page) -> dict[str, Any]:
    return dict(await page.evaluate(FOCUSED) or {})


async def tab_to(page: Page, kind: str, most: int = 30) -> None:
    """Tab (only the keyboard) until the focus is on the action of ``kind``."""
    for _ in range(most):
        if (await focused(page)).get("kind") == kind:
            return
        await page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {kind}: {await focused(page)}")
