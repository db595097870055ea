// The messages the page builds, checked against the protocol's own
// examples in docs/web.md (the client messages' table): every field the page
// sends is one the protocol documents for that type ("id" is optional on
// every message), and each example's type is one the page can send or
// knowingly does not.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadMessage } from "../socket.js";
import { actionMessage } from "../player.js";
import { forkMessage, undoMessage, newUndo, customAction } from "../explore.js";

// documented returns type → the set of fields the doc's examples of
// client messages give it.
function documented() {
  const doc = readFileSync(new URL("../../docs/web.md", import.meta.url), "utf8");
  const start = doc.indexOf("Client messages");
  const end = doc.indexOf("Server messages:");
  assert.ok(start >= 0 && end > start, "docs/web.md has the client and server messages");
  const out = new Map();
  for (const m of doc.slice(start, end).matchAll(/^(\{"type":"(\w+)".*?\})(?=\s)/gm)) {
    const fields = Object.keys(JSON.parse(m[1]));
    out.set(m[2], new Set([...(out.get(m[2]) || []), ...fields, "id"]));
  }
  return out;
}

// sent is every kind of message the page builds.
function sent() {
  return [
    loadMessage({ lesson: "stale-owner", timeline: "", lang: "zh-CN" }, 4),
    loadMessage({ lesson: "explore", timeline: "1.eNp", lang: "en" }, 3),
    ...["step", "back", "start", "end"].map((a) => actionMessage(a, 2, 9, false, 1)),
    actionMessage("play", 2, 9, false, 2),
    actionMessage("play", 2, 9, true, 2),
    { type: "lang", lang: "zh-TW" }, // a language link (app.js)
    forkMessage(4, 6, { actor: "A", do: "resume" }),
    forkMessage(null, 6, customAction("advance", "250")),
    undoMessage(newUndo()),
  ];
}

test("every message the page sends has only documented fields", () => {
  const doc = documented();
  for (const msg of sent()) {
    const fields = doc.get(msg.type);
    assert.ok(fields, `type ${msg.type} is not in docs/web.md`);
    for (const k of Object.keys(msg)) assert.ok(fields.has(k), `${msg.type}: field ${k} is not documented`);
  }
});

test("a fork's action has only explore.StepSpec's documented fields", () => {
  const doc = readFileSync(new URL("../../docs/web.md", import.meta.url), "utf8").replace(/\n\s*/g, " ");
  const m = doc.match(/explore\.StepSpec: ([a-z_, ]+)\)/);
  assert.ok(m, "docs/web.md lists the fields of a fork's action");
  const fields = new Set(m[1].split(/,\s*/));
  assert.ok(fields.has("by_ms") && fields.has("reply_lost"), [...fields].join(" "));
  for (const msg of sent().filter((x) => x.type === "fork")) {
    for (const k of Object.keys(msg.action)) assert.ok(fields.has(k), `action field ${k}`);
  }
});

test("the page sends every documented client message", () => {
  const types = new Set(sent().map((m) => m.type));
  for (const t of documented().keys()) assert.ok(types.has(t), `the page never sends ${t}`);
});
