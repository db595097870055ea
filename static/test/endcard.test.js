import { test } from "node:test";
import assert from "node:assert/strict";
import { endVisible } from "../endcard.js";

test("the end card shows at the last step only", () => {
  assert.equal(endVisible(12, 12), true);
  assert.equal(endVisible(11, 12), false);
  assert.equal(endVisible(0, 0), false, "a run with no steps has no end card");
});

// A small DOM: the header's template (both headings) and the board's slot.
function endDoc() {
  const card = `<div class="end-card"><div data-when="done"><h2 id="end-title">complete</h2></div><div data-when="skipped" hidden><h2 id="end-title-skipped">end</h2></div></div>`;
  const slot = { hidden: true, dataset: {}, attrs: {}, kids: [],
    replaceChildren(...k) { this.kids = k; },
    setAttribute(n, v) { this.attrs[n] = v; },
    querySelectorAll(sel) { return sel === "[data-when]" ? this.kids.flatMap((k) => k.whens) : []; } };
  const tpl = { innerHTML: card, content: { cloneNode: () => ({ whens: [{ dataset: { when: "done" }, hidden: false }, { dataset: { when: "skipped" }, hidden: true }] }) } };
  return { slot, doc: { querySelector: (s) => (s === "[data-end-slot]" ? slot : s === "#end-card-tpl" ? tpl : null) } };
}

test("the end card says complete only for a lesson stepped through", async () => {
  const { showEnd } = await import("../endcard.js");
  const { slot, doc } = endDoc();
  showEnd(doc, 12, 12, false);
  assert.equal(slot.hidden, false);
  const shown = () => slot.querySelectorAll("[data-when]").filter((e) => !e.hidden).map((e) => e.dataset.when);
  assert.deepEqual(shown(), ["skipped"], "a jump to the end is not complete");
  assert.equal(slot.attrs["aria-labelledby"], "end-title-skipped");
  showEnd(doc, 12, 12, true);
  assert.deepEqual(shown(), ["done"]);
  assert.equal(slot.attrs["aria-labelledby"], "end-title");
  showEnd(doc, 11, 12, true);
  assert.equal(slot.hidden, true, "no card before the last step");
});
