import { test } from "node:test";
import assert from "node:assert/strict";
import { endVisible } from "../endcard.js";

test("the end card shows at the last step only", () => {
  assert.equal(endVisible(12, 12), true);
  assert.equal(endVisible(11, 12), false);
  assert.equal(endVisible(0, 0), false, "a run with no steps has no end card");
});
