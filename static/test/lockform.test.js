import { test } from "node:test";
import assert from "node:assert/strict";
import { list, replyPairs, variantYAML } from "../lockform.js";

test("list and replyPairs read the builder's comma lists", () => {
  assert.deepEqual(list(" lock, owner ,, lease_ms"), ["lock", "owner", "lease_ms"]);
  assert.deepEqual(replyPairs("1: held, 0: BUSY, nil: NOT_OWNER, bad"), [
    ["1", "held"],
    ["0", "BUSY"],
    ["nil", "NOT_OWNER"],
  ]);
});

test("variantYAML writes seed 001's shape of lock as a variant file", () => {
  const got = variantYAML({
    name: "my-lock",
    lock: "hash:owner-and-count",
    owner: "grant-token",
    reentry: "redis",
    scripts: {
      acquire: { keys: "lock", argv: "owner, lease_ms, outermost", replies: "1: held, 0: BUSY, -1: LOST" },
      release: { keys: "lock", argv: "owner", replies: "1: RELEASED, 0: STILL_HELD, nil: NOT_OWNER" },
    },
  });
  assert.equal(
    got,
    [
      "name: my-lock",
      "lock: {type: hash, layout: owner-and-count}",
      "owner: grant-token",
      "reentry: redis",
      "acquire:",
      "  script: acquire.lua",
      "  keys: [lock]",
      "  argv: [owner, lease_ms, outermost]",
      "  replies: {1: held, 0: BUSY, -1: LOST}",
      "release:",
      "  script: release.lua",
      "  keys: [lock]",
      "  argv: [owner]",
      "  replies: {1: RELEASED, 0: STILL_HELD, nil: NOT_OWNER}",
      "",
    ].join("\n"),
  );
});

test("variantYAML quotes an owner template", () => {
  assert.match(variantYAML({ owner: "{process_id}:{thread_id}", scripts: {} }), /^owner: "\{process_id\}:\{thread_id\}"$/m);
});
