import { test } from "node:test";
import assert from "node:assert/strict";
import * as classroom from "../classroom.js";
import * as noClass from "../noclass.js";
import { brokenStorage, fakeStorage } from "./fakes.js";

test("the stand-in has the classroom's functions that app.js calls, and its key", () => {
  assert.equal(noClass.CLASS_KEY, classroom.CLASS_KEY);
  for (const [name, f] of Object.entries(noClass)) {
    if (name === "CLASS_KEY" || name === "classAtStart") continue;
    assert.equal(typeof f, "function", name);
    assert.equal(typeof classroom[name], "function", `classroom.js has no ${name}`);
  }
});

test("with no class, the stand-in answers as the classroom does", () => {
  const none = classroom.newClass({});
  const stand = noClass.newClass({});
  assert.equal(stand.role, none.role);
  const session = fakeStorage();
  assert.deepEqual(noClass.openMessages(stand, session), classroom.openMessages(none, session));
  for (const type of ["step", "load", "seek"]) assert.equal(noClass.blocks(stand, type), classroom.blocks(none, type));
  assert.deepEqual(noClass.answer(stand, "GRANTED"), classroom.answer(none, "GRANTED"));
  assert.deepEqual(noClass.follow(stand, false), classroom.follow(none, false));
});

test("a page needs the classroom from the start on a student's page or to resume a class", () => {
  const session = fakeStorage();
  assert.equal(noClass.classAtStart({}, session), false);
  assert.equal(noClass.classAtStart({ classRole: "student", classCode: "K7P3QX" }, session), true);
  classroom.storeValue(session, classroom.CLASS_KEY, { code: "K7P3QX", key: "k" });
  assert.equal(noClass.classAtStart({}, session), true);
  assert.equal(noClass.classAtStart({}, brokenStorage()), false);
  assert.equal(noClass.classAtStart({}, null), false);
});
