// A player page with no class in it: what app.js uses of the classroom
// (classroom.js) until a class is there, so that the classroom's module is
// loaded only where a class is (issue 34): on a student's page
// (/class/CODE), in a tab that presents a class (its key in
// sessionStorage) and once the presenter starts one. Each function is
// classroom.js's for a page with no class: no messages, nothing to
// render (the page's markup has the class panel hidden and empty), no
// effects.

// CLASS_KEY is classroom.js's (a test keeps them equal): the
// sessionStorage key of the class this tab presents.
export const CLASS_KEY = "lockstep.class";

// classAtStart reports whether a player page needs the classroom from the
// start: a student's page (data-class-role="student"), or a tab that
// presents a class, to resume it.
export function classAtStart(dataset, session) {
  if (dataset.classRole === "student") return true;
  try {
    return Boolean(session?.getItem(CLASS_KEY));
  } catch {
    return false; // storage disabled: no class to resume
  }
}

export function newClass() {
  return { role: "", code: "", following: true };
}

export const openMessages = () => [];
export const blocks = () => false;
export const onMessage = () => [];
export const render = () => {};
export const action = () => [];
export const answer = () => [];
export const follow = () => [];
