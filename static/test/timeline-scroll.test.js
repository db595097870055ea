import { test } from "node:test";
import assert from "node:assert/strict";
import { columnScroll } from "../player.js";

test("a column in view leaves the timeline where it is", () => {
  assert.equal(columnScroll(100, 80, 1, 0, 400), null);
  assert.equal(columnScroll(320, 80, 1, 0, 400), null); // its right edge at the view's
});

test("a column past the view is centred in a window of whole columns", () => {
  assert.equal(columnScroll(800, 80, 1, 0, 400), 800 - 200 + 40); // five fit: two on each side
  assert.equal(columnScroll(40, 80, 1, 500, 400), 0); // never before the start
});

test("a phone's four columns: the current one third, each whole", () => {
  // 305 px of columns drawn 75 px wide (100 units at 0.75): four fit; the
  // current step (700 units: 525 px) after two, one after it.
  const left = columnScroll(700, 100, 0.75, 0, 305);
  assert.equal(left, 525 - 150);
  for (const c of [5, 6, 7, 8]) assert.ok(c * 75 >= left && (c + 1) * 75 <= left + 305, `column ${c} whole in view from ${left}`);
});

test("the column is placed by the drawing's scale, not its units", () => {
  // Drawn at 1.3 px a unit (zoomed), the column at 300..380 units is at
  // 390..494 px: past a 450 px view although its units are inside it.
  assert.equal(columnScroll(300, 80, 1, 0, 450), null);
  const left = columnScroll(300, 80, 1.3, 0, 450);
  assert.ok(left !== null);
  assert.ok(390 >= left && 494 <= left + 450, `column 390..494 px in view from ${left}`);
  // Scaled down (presenter mode fits the drawing to its height), a column
  // whose units lie past the view may be in it.
  assert.equal(columnScroll(600, 80, 0.5, 0, 400), null);
});

test("a scale that is not known counts as 1", () => {
  assert.equal(columnScroll(800, 80, 0, 0, 400), columnScroll(800, 80, 1, 0, 400));
  assert.equal(columnScroll(800, 80, NaN, 0, 400), columnScroll(800, 80, 1, 0, 400));
});
