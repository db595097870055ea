import { test } from "node:test";
import assert from "node:assert/strict";
import { courseState } from "../coursestate.js";
import { LAST_KEY, PROGRESS_KEY, saveProgress } from "../course.js";
import { fakeStorage } from "./fakes.js";

const lessons = [
  { id: "a", steps: 4 },
  { id: "b", steps: 5 },
  { id: "c", steps: 6 },
];

test("courseState: a new learner starts at the first lesson", () => {
  assert.deepEqual(courseState({}, lessons, null), { done: 0, total: 3, percent: 0, next: { kind: "start", id: "a", step: null } });
  assert.deepEqual(courseState({}, [], null).next, { kind: "review", id: null, step: null });
});

test("courseState: continue the lesson opened last where it stopped, else the next not done", () => {
  const progress = { a: { best: 4, last: 4, total: 4, done: true }, b: { best: 2, last: 3, total: 5, done: false } };
  assert.deepEqual(courseState(progress, lessons, "b"), { done: 1, total: 3, percent: 33, next: { kind: "continue", id: "b", step: 3 } });
  // The last lesson is done: the next one after it that is not.
  assert.deepEqual(courseState(progress, lessons, "a").next, { kind: "continue", id: "b", step: 3 });
  // Done lessons only: the first after the last one opened, from its start.
  assert.deepEqual(courseState({ a: { best: 4, done: true } }, lessons, "a").next, { kind: "continue", id: "b", step: null });
  // Wraps round to a lesson before the last one opened.
  const late = { b: { best: 5, done: true }, c: { best: 6, done: true } };
  assert.deepEqual(courseState(late, lessons, "c").next, { kind: "continue", id: "a", step: null });
  // An unknown last lesson counts from the course's start.
  assert.deepEqual(courseState(progress, lessons, "gone").next, { kind: "continue", id: "b", step: 3 });
});

test("courseState: every lesson done is a review", () => {
  const all = { a: { best: 4 }, b: { best: 5 }, c: { best: 6, done: true } };
  assert.deepEqual(courseState(all, lessons, "c"), { done: 3, total: 3, percent: 100, next: { kind: "review", id: null, step: null } });
});

test("saveProgress remembers the lesson opened last", () => {
  const st = fakeStorage();
  saveProgress(st, "a", 1, 4, true);
  saveProgress(st, "c", 0, 6, false);
  assert.deepEqual(JSON.parse(st.map.get(LAST_KEY)), { id: "c" });
  assert.ok(JSON.parse(st.map.get(PROGRESS_KEY)).a);
});
