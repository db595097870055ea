import { test } from "node:test";
import assert from "node:assert/strict";
import * as classroom from "../classroom.js";
import { brokenStorage, fakeStorage } from "./fakes.js";

const KEY = "0123456789abcdef0123456789abcdef";
const T = {
  following: "F", exploring: "E", question: "Q{step}", yourAnswer: "A:{answer}", right: "R:{guess}>{answer} ({why})", wrong: "W:{guess}>{answer} ({why})", noAnswer: "N:{answer}（{why}）",
  students: "{n} st", studentsOne: "one st", chip: "{code}·{n}", answered: "{n} ans", rightAnswer: "RA:{answer}", askHint: "hint", nothing: "one outcome",
};
const question = (over) => ({
  step: 4, open: true, revealed: false, correct: "",
  choices: [{ id: "GRANTED", label: "granted" }, { id: "BUSY", label: "busy" }],
  ...over,
});
const studentPage = () => classroom.newClass({ classRole: "student", classCode: "K7P3QX" });

test("a student's page joins (with the id it was given), a presenter's tab resumes its class", () => {
  const session = fakeStorage();
  const s = studentPage();
  assert.deepEqual(classroom.openMessages(s, session), [{ type: "class-join", code: "K7P3QX" }]);
  classroom.rememberStudent(session, "K7P3QX", KEY);
  assert.deepEqual(classroom.openMessages(s, session), [{ type: "class-join", code: "K7P3QX", student: KEY }]);
  assert.deepEqual(classroom.openMessages(s, session, "zh-TW"), [{ type: "class-join", code: "K7P3QX", lang: "zh-TW", student: KEY }]);
  const p = classroom.newClass({});
  assert.deepEqual(classroom.openMessages(p, session), []);
  classroom.storeValue(session, classroom.CLASS_KEY, { code: "K7P3QX", key: KEY });
  assert.deepEqual(classroom.openMessages(p, session), [{ type: "class-resume", code: "K7P3QX", key: KEY }]);
  session.map.set(classroom.CLASS_KEY, "{broken");
  assert.deepEqual(classroom.openMessages(p, session), []);
  assert.deepEqual(classroom.openMessages(p, brokenStorage()), []);
  assert.doesNotThrow(() => classroom.storeValue(brokenStorage(), classroom.CLASS_KEY, { code: "x" }));
});

test("the key is stored once, from class-start's answer; an ended class forgets it", () => {
  const p = classroom.newClass({});
  const fx = classroom.onMessage(p, { type: "class-presenter", code: "K7P3QX", key: KEY, panel: "<div></div>", status: { students: 0 } });
  assert.deepEqual(fx, [{ store: { key: classroom.CLASS_KEY, value: { code: "K7P3QX", key: KEY } } }, { render: true }]);
  assert.equal(p.role, "presenter");
  assert.deepEqual(classroom.onMessage(p, { type: "class-presenter", code: "K7P3QX", panel: "", status: {} }), [{ render: true }]);
  assert.deepEqual(classroom.onMessage(p, { type: "class-status", role: "presenter", ended: true }), [
    { store: { key: classroom.CLASS_KEY, value: null } },
    { render: true },
  ]);
  assert.equal(p.role, "");
  // A resume that fails (a wrong key, a class over) forgets it too.
  assert.deepEqual(classroom.onMessage(classroom.newClass({}), { type: "error", code: "class-bad-key", message: "no" }), [
    { store: { key: classroom.CLASS_KEY, value: null } },
  ]);
});

test("a student who follows sends no move; exploring on their own, they do", () => {
  const s = studentPage();
  for (const t of ["step", "back", "seek", "play", "load", "fork", "undo"]) assert.equal(classroom.blocks(s, t), true, t);
  assert.equal(classroom.blocks(s, "lang"), false);
  assert.equal(classroom.blocks(s, "class-answer"), false);
  assert.deepEqual(classroom.follow(s, false), [{ send: { type: "class-follow", follow: false } }, { render: true }]);
  assert.equal(classroom.blocks(s, "step"), false);
  assert.equal(classroom.blocks(classroom.newClass({}), "step"), false);
});

test("a student answers only the open question, with one of its choices", () => {
  const s = studentPage();
  assert.deepEqual(classroom.answer(s, "GRANTED"), []);
  classroom.onMessage(s, { type: "class-status", role: "student", following: true, question: question() });
  assert.deepEqual(classroom.answer(s, "NOPE"), []);
  assert.deepEqual(classroom.answer(s, "BUSY"), [{ send: { type: "class-answer", step: 4, choice: "BUSY" } }, { render: true }]);
  const v = classroom.studentView(s, T);
  assert.deepEqual(v.question, {
    prompt: "Q4",
    choices: [{ id: "GRANTED", label: "granted", chosen: false }, { id: "BUSY", label: "busy", chosen: true }],
    note: "A:BUSY",
  });
  classroom.onMessage(s, { type: "class-status", role: "student", following: true, question: question({ open: false, revealed: true, correct: "GRANTED", why: "free" }) });
  assert.deepEqual([classroom.studentView(s, T).verdict, classroom.studentView(s, T).verdictKind], ["W:BUSY>GRANTED (free)", "wrong"]);
  // The next question starts unanswered.
  classroom.onMessage(s, { type: "class-status", role: "student", following: true, question: question({ step: 7 }) });
  assert.equal(s.answer, "");
  classroom.onMessage(s, { type: "class-status", role: "student", following: true, question: question({ step: 7, open: false, revealed: true, correct: "BUSY" }) });
  // without a why, its brackets go too
  assert.equal(classroom.studentView(s, T).verdict, "N:BUSY");
  s.answer = "BUSY";
  assert.deepEqual([classroom.studentView(s, T).verdict, classroom.studentView(s, T).verdictKind], ["R:BUSY>BUSY", "right"]);
});

// Issue 38, item 12: "✗ You said BUSY; it was ACQUIRED (the lock was
// free)": what the student answered, what the step came to and why, each a
// part of its own, in the catalogue's order.
test("a student's verdict echoes the answer, names the outcome and says why, as parts", () => {
  const s = studentPage();
  const t = { ...T, wrong: "✗ You said {guess}; it was {answer} ({why}).", right: "✓ Right: it was {answer} ({why}), as you said.", noAnswer: "It was {answer} ({why}); you did not answer." };
  classroom.onMessage(s, { type: "class-status", role: "student", following: true, question: question() });
  classroom.answer(s, "BUSY");
  const reveal = (why) => classroom.onMessage(s, { type: "class-status", role: "student", following: true, question: question({ open: false, revealed: true, correct: "GRANTED", why }) });
  reveal("the lock was free: taken, lease set");
  const roles = (v) => v.verdictParts.filter((p) => p.role).map((p) => [p.role, p.text]);
  let v = classroom.studentView(s, t);
  assert.deepEqual(roles(v), [["guess", "BUSY"], ["answer", "GRANTED"], ["why", "the lock was free: taken, lease set"]]);
  assert.equal(v.verdictKind, "wrong");
  assert.equal(v.verdict, v.verdictParts.map((p) => p.text).join(""));
  assert.ok(v.verdict.startsWith("✗ You said "), v.verdict);
  s.answer = "GRANTED";
  v = classroom.studentView(s, t);
  assert.deepEqual([v.verdictKind, roles(v)], ["right", [["answer", "GRANTED"], ["why", "the lock was free: taken, lease set"]]]);
  s.answer = "";
  v = classroom.studentView(s, t);
  assert.deepEqual([v.verdictKind, roles(v)], ["none", [["answer", "GRANTED"], ["why", "the lock was free: taken, lease set"]]]);
  // a status without a why (an older server): no empty brackets
  s.answer = "BUSY";
  reveal(undefined);
  v = classroom.studentView(s, t);
  assert.deepEqual(roles(v), [["guess", "BUSY"], ["answer", "GRANTED"]]);
  assert.equal(v.verdict, "✗ You said BUSY; it was GRANTED.");
});

test("fillParts keeps the template's words and marks each filled place", () => {
  assert.deepEqual(classroom.fillParts("a {x} b {y}{z}", { x: 1, y: "Y" }), [{ text: "a " }, { role: "x", text: "1" }, { text: " b " }, { role: "y", text: "Y" }, { text: "{z}" }]);
  assert.deepEqual(classroom.fillParts("", {}), []);
});

test("an ended class, or a wrong code, takes a student to the class's page", () => {
  const s = studentPage();
  assert.deepEqual(classroom.onMessage(s, { type: "class-status", role: "student", ended: true }), [{ go: "/class/K7P3QX" }]);
  assert.deepEqual(classroom.onMessage(studentPage(), { type: "error", code: "class-unknown", message: "x" }), [{ go: "/class/K7P3QX" }]);
  assert.deepEqual(classroom.onMessage(studentPage(), { type: "error", code: "bad-json", message: "x" }), []);
});

test("the presenter's distribution: every choice, counts, shares, the right one once revealed", () => {
  const p = classroom.newClass({});
  classroom.onMessage(p, { type: "class-presenter", code: "K7P3QX", panel: "", status: { students: 1 } });
  assert.deepEqual(classroom.presenterView(p, T), { students: "one st", chip: "K7P3QX·1", canAsk: true, askReason: "", canReveal: false, rows: [], answered: "", right: "", note: "hint", bus: "" });
  classroom.onMessage(p, { type: "class-status", role: "presenter", students: 3, question: question(), counts: { GRANTED: 2 }, answered: 3 });
  const v = classroom.presenterView(p, T);
  assert.equal(v.students, "3 st");
  assert.deepEqual([v.canAsk, v.canReveal, v.answered], [false, true, "3 ans"]);
  assert.deepEqual(v.rows, [
    { id: "GRANTED", code: "GRANTED", gloss: "granted", count: 2, pct: 67, right: false },
    { id: "BUSY", code: "BUSY", gloss: "busy", count: 0, pct: 0, right: false },
  ]);
  classroom.onMessage(p, { type: "class-status", role: "presenter", question: question({ open: false, revealed: true, correct: "BUSY" }), counts: {}, answered: 0 });
  const r = classroom.presenterView(p, T);
  assert.deepEqual([r.canAsk, r.canReveal, r.right, r.rows[1].right, r.rows[1].pct], [true, false, "RA:BUSY busy", true, 0]);
  assert.deepEqual(classroom.onMessage(p, { type: "class-csv", filename: "class-K7P3QX.csv", csv: "step\n" }), [
    { download: { filename: "class-K7P3QX.csv", text: "step\n" } },
  ]);
  classroom.onMessage(p, { type: "error", code: "class-no-question", message: "nothing to ask" });
  assert.equal(classroom.presenterView(p, T).note, "nothing to ask");
});

test("fill leaves unknown places alone", () => {
  assert.equal(classroom.fill("{n} of {total}", { n: 2 }), "2 of {total}");
  assert.equal(classroom.fill(undefined, {}), "");
});

test("the presenter's banner while the class bus is down, gone once it is back", () => {
  const p = classroom.newClass({});
  classroom.onMessage(p, { type: "class-presenter", code: "K7P3QX", panel: "", status: { students: 1, bus: "lost Redis" } });
  assert.equal(classroom.presenterView(p, T).bus, "lost Redis");
  classroom.onMessage(p, { type: "class-status", role: "presenter", students: 1 });
  assert.equal(classroom.presenterView(p, T).bus, "");
  classroom.onMessage(p, { type: "class-status", role: "presenter", students: 1, bus: "lost Redis" });
  assert.equal(classroom.presenterView(p, T).bus, "lost Redis");
});

test("the student's question names the step as predict mode does", () => {
  const steps = [null, { actor: "B", do: "acquire", lock: "order:42", outcomes: ["ACQUIRED", "BUSY"] }];
  const tpl = "Step {step}: {actor} — {action} {lock}. What will it come to?";
  assert.equal(classroom.stepQuestion(steps, 2, tpl, { "act:acquire": "acquires" }), "Step 2: B — acquires order:42. What will it come to?");
  assert.equal(classroom.stepQuestion(steps, 1, tpl, {}), "");
  assert.equal(classroom.stepQuestion(steps, 9, tpl, {}), "");
  const s = studentPage();
  classroom.onMessage(s, { type: "class-status", role: "student", following: true, question: question() });
  assert.equal(classroom.studentView(s, T, (n) => `D${n}`).question.prompt, "D4");
  assert.equal(classroom.studentView(s, T, () => "").question.prompt, "Q4");
});

test("the join address folds to its chip once a student is in, unless the presenter chose", () => {
  const p = classroom.newClass({});
  classroom.onMessage(p, { type: "class-presenter", code: "K7P3QX", key: KEY, panel: "<div></div>", status: { students: 0 } });
  assert.equal(classroom.joinFolded(p), false);
  classroom.onMessage(p, { type: "class-status", role: "presenter", students: 2 });
  assert.equal(classroom.joinFolded(p), true);
  assert.equal(classroom.presenterView(p, { ...T, chip: "{code} · {n} joined" }).chip, "K7P3QX · 2 joined");
  classroom.action(p, "toggle-join", () => true);
  assert.equal(classroom.joinFolded(p), false);
  classroom.action(p, "toggle-join", () => true);
  assert.equal(classroom.joinFolded(p), true);
});

test("End asks in the panel, not with window.confirm: Yes ends the class, Keep (or Escape) does not", () => {
  const p = classroom.newClass({});
  classroom.onMessage(p, { type: "class-presenter", code: "K7P3QX", panel: "", status: { students: 1 } });
  assert.deepEqual(classroom.action(p, "end-yes"), [], "Yes before End does nothing");
  assert.deepEqual(classroom.action(p, "end"), [{ render: true }, { focus: '[data-class-action="end-yes"]' }]);
  assert.equal(p.confirmEnd, true);
  assert.deepEqual(classroom.action(p, "end-no"), [{ render: true }, { focus: '[data-class-action="end"]' }]);
  assert.equal(p.confirmEnd, false);
  classroom.action(p, "end");
  assert.deepEqual(classroom.action(p, "end-yes"), [{ send: { type: "class-end" } }, { render: true }]);
  assert.equal(p.confirmEnd, false);
  classroom.action(p, "end");
  classroom.onMessage(p, { type: "class-status", role: "presenter", ended: true });
  assert.equal(p.confirmEnd, false, "an ended class asks nothing");
});

test("Ask is off, saying why, before a step with nothing to predict", () => {
  const p = classroom.newClass({});
  classroom.onMessage(p, { type: "class-presenter", code: "K7P3QX", panel: "", status: { students: 1 } });
  const off = classroom.presenterView(p, T, false);
  assert.deepEqual([off.canAsk, off.askReason, off.note], [false, "one outcome", "one outcome"]);
  const on = classroom.presenterView(p, T, true);
  assert.deepEqual([on.canAsk, on.askReason, on.note], [true, "", "hint"]);
  // A question open on a step: Ask stays off, the tally speaks.
  classroom.onMessage(p, { type: "class-status", role: "presenter", students: 1, question: question(), counts: {}, answered: 0 });
  assert.equal(classroom.presenterView(p, T, true).canAsk, false);
});
