import { test } from "node:test";
import assert from "node:assert/strict";
import { columnScroll } from "../player.js";

test("a column in view leaves the timeline where it is", () => {
  assert.equal(columnScroll(100, 80, 1, 0, 400), null);
  assert.equal(columnScroll(320, 80, 1, 0, 400), null); // its right edge at the view's
});

test("a column past the view is centred", () => {
  assert.equal(columnScroll(800, 80, 1, 0, 400), 800 - 200 + 40);
  assert.equal(columnScroll(40, 80, 1, 500, 400), 0); // never before the start
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
