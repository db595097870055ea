import { test } from "node:test";
import assert from "node:assert/strict";
import { swipeAction, MIN_DX, MAX_MS } from "../swipe.js";

test("a quick swipe to the left steps, to the right goes back", () => {
  assert.equal(swipeAction(-120, 10, 200), "step");
  assert.equal(swipeAction(120, -10, 200), "back");
});

test("a tap, a scroll, a short or slow drag is no swipe", () => {
  assert.equal(swipeAction(0, 0, 80), null);
  assert.equal(swipeAction(-80, 300, 200), null, "mostly down: a scroll");
  assert.equal(swipeAction(-(MIN_DX - 1), 0, 100), null);
  assert.equal(swipeAction(-200, 0, MAX_MS + 1), null);
});
