import { test } from "node:test";
import assert from "node:assert/strict";
import { exampleFields, keyLines, list, replyPairs, scriptFile, scriptSlots, variantYAML } from "../lockform.js";

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

test("variantYAML writes a renew section with its period, and a two-step release", () => {
  const got = variantYAML({
    name: "two-step",
    lock: "string:owner-value",
    owner: "grant-token",
    reentry: "none",
    scripts: {
      acquire: { keys: "lock", argv: "owner, lease_ms", replies: "OK: ACQUIRED, nil: BUSY" },
      renew: { on: true, every: "10s", keys: "lock", argv: "owner, lease_ms", replies: "1: RENEWED, 0: GONE" },
      release: { keys: "lock", argv: "", replies: "owner: PENDING, string: NOT_OWNER, nil: NOT_OWNER" },
      finish_release: { on: true, keys: "lock", argv: "owner", replies: "1: RELEASED, 0: NOT_OWNER" },
    },
  });
  assert.equal(
    got,
    [
      "name: two-step",
      "lock: {type: string, layout: owner-value}",
      "owner: grant-token",
      "reentry: none",
      "acquire:",
      "  script: acquire.lua",
      "  keys: [lock]",
      "  argv: [owner, lease_ms]",
      "  replies: {OK: ACQUIRED, nil: BUSY}",
      "renew:",
      "  script: renew.lua",
      "  every: 10s",
      "  keys: [lock]",
      "  argv: [owner, lease_ms]",
      "  replies: {1: RENEWED, 0: GONE}",
      "release:",
      "  script: release.lua",
      "  keys: [lock]",
      "  argv: []",
      "  replies: {owner: PENDING, string: NOT_OWNER, nil: NOT_OWNER}",
      "finish_release:",
      "  script: finish-release.lua",
      "  keys: [lock]",
      "  argv: [owner]",
      "  replies: {1: RELEASED, 0: NOT_OWNER}",
      "",
    ].join("\n"),
  );
});

test("variantYAML leaves out a section that is off, and renews every lease/3 by default", () => {
  const off = variantYAML({ scripts: { renew: { on: false, replies: "1: RENEWED" }, finish_release: { replies: "1: RELEASED" } } });
  assert.doesNotMatch(off, /^renew:|^finish_release:/m);
  assert.match(variantYAML({ scripts: { renew: { on: true } } }), /^renew:\n {2}script: renew\.lua\n {2}every: lease\/3$/m);
});

test("variantYAML writes the source, a count key, other keys, literals, an array reply and a Boolean reading", () => {
  const got = variantYAML({
    name: "count-key",
    source: "a public lock: count in a second key",
    lock: "string:owner-value",
    count: "count",
    keys: "count {lock_key}:count state string\nchannel: channel:{lock} channel\n\nhalf-line",
    owner: "{process_id}:{thread_id}",
    reentry: "redis",
    scripts: {
      acquire: { keys: "lock, count, fence_key", argv: "owner, lease_s, fence_ttl_ms", array: "reply, fencing_token", replies: '1: held, 0: BUSY, "nil": LOST' },
      release: { keys: "lock, count, channel", argv: '"0", owner', replies: "1: RELEASED, 0: STILL_HELD, false: NOT_OWNER", boolean: true },
    },
  });
  assert.equal(
    got,
    [
      "name: count-key",
      'source: "a public lock: count in a second key"',
      "lock: {type: string, layout: owner-value, count: count}",
      "keys:",
      '  count: {name: "{lock_key}:count", role: state, type: string}',
      '  channel: {name: "channel:{lock}", role: channel}',
      'owner: "{process_id}:{thread_id}"',
      "reentry: redis",
      "acquire:",
      "  script: acquire.lua",
      "  keys: [lock, count, fence_key]",
      "  argv: [owner, lease_s, fence_ttl_ms]",
      "  array_reply: [reply, fencing_token]",
      '  replies: {1: held, 0: BUSY, "nil": LOST}',
      "release:",
      "  script: release.lua",
      "  keys: [lock, count, channel]",
      '  argv: [{literal: "0"}, owner]',
      "  replies: {1: RELEASED, 0: STILL_HELD, false: NOT_OWNER}",
      "  boolean_reading: true",
      "",
    ].join("\n"),
  );
  // A Hash lock keeps its counts in its own fields: no count key written.
  assert.match(variantYAML({ lock: "hash:field-per-owner", count: "count", scripts: {} }), /^lock: \{type: hash, layout: field-per-owner\}$/m);
});

test("variantYAML quotes what YAML would read as another type", () => {
  const got = variantYAML({ name: "yes", owner: "on", scripts: { acquire: { replies: "true: ACQUIRED" } } });
  assert.match(got, /^name: "yes"$/m);
  assert.match(got, /^owner: "on"$/m);
  assert.match(got, /replies: \{"true": ACQUIRED\}/);
});

test("keyLines reads one key a line; scriptFile and scriptSlots name the scripts", () => {
  assert.deepEqual(keyLines("latch unlock-latch:{lock}:{unlock_id} unlock-latch string\n  \nx y"), [
    { id: "latch", name: "unlock-latch:{lock}:{unlock_id}", role: "unlock-latch", type: "string" },
  ]);
  assert.equal(scriptFile("finish_release"), "finish-release.lua");
  assert.deepEqual(scriptSlots(["", "mine/acquire.lua", "release.lua", ""], ["acquire.lua", "release.lua", "renew.lua", "finish-release.lua"]), [
    "acquire.lua",
    "mine/acquire.lua",
    "release.lua",
    "renew.lua",
  ]);
});
