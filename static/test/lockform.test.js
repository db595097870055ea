import { test } from "node:test";
import assert from "node:assert/strict";
import { exampleFields, list, replyPairs, variantYAML } from "../lockform.js";

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

test("exampleFields fills every slot of the form from an example", () => {
  const ex = { ID: "x", VariantName: "x.variant.yaml", Variant: "name: x\n", Scripts: [{ Name: "x/acquire.lua", Text: "return 1" }, { Name: "x/release.lua", Text: "return 0" }] };
  assert.deepEqual(exampleFields(ex, 3), {
    variant_name: "x.variant.yaml",
    variant: "name: x\n",
    script_name_1: "x/acquire.lua",
    script_1: "return 1",
    script_name_2: "x/release.lua",
    script_2: "return 0",
    script_name_3: "",
    script_3: "",
  });
});
