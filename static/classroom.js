// The classroom (issue 20, docs/classroom.md): the presenter's class panel
// and the student's class bar. The state is a plain object made by
// newClass; onMessage and the other rules are functions of it that return
// effects ({send}, {store}, {download}, {go}, {render}), which app.js
// carries out; the render functions at the end are the DOM edge. The
// presenter key lives only in sessionStorage (CLASS_KEY), never in the
// address or the page's text: the projected page shows the join address.

import { parseSteps, questionLines } from "./predict.js";

export const CLASS_KEY = "lockstep.class"; // sessionStorage: {code, key} of the class this tab presents
export const STUDENT_KEY = "lockstep.student"; // sessionStorage: {code: student id}

// Player messages a student who follows the class does not send: the
// presenter moves the class.
const MOVES = new Set(["step", "back", "seek", "play", "first", "last", "load", "fork", "undo"]);

// newClass is the class state of a player page from its root's dataset:
// a student's page (/class/CODE) has data-class-role="student".
export function newClass(dataset) {
  const student = dataset.classRole === "student";
  return {
    role: student ? "student" : "",
    code: student ? dataset.classCode || "" : "",
    student: "",
    following: true,
    status: null, // the last class-status
    answer: "", // the student's answer to the open question
    panel: "", // the presenter's panel HTML
    joinHidden: null, // the presenter's choice: null folds the join address once students are in
    note: "", // the presenter's note (an error, a hint)
    bus: "", // the presenter's banner while the class bus is down (class-status "bus")
    confirmEnd: false, // the presenter's panel asks whether to end the class
  };
}

// readJSON reads key of storage as JSON, null when absent or broken.
function readJSON(storage, key) {
  try {
    const v = JSON.parse(storage?.getItem(key) || "null");
    return v && typeof v === "object" ? v : null;
  } catch {
    return null;
  }
}

// savedClass is the {code, key} this tab presents, or null.
export function savedClass(session) {
  const v = readJSON(session, CLASS_KEY);
  return v && typeof v.code === "string" && typeof v.key === "string" ? v : null;
}

// openMessages are what the page sends when its socket opens, after (for
// a presenter) its load: a student joins, in the page's language lang; a
// presenter resumes its class.
export function openMessages(cs, session, lang) {
  if (cs.role === "student") {
    const ids = readJSON(session, STUDENT_KEY) || {};
    const msg = { type: "class-join", code: cs.code };
    if (lang) msg.lang = lang;
    if (typeof ids[cs.code] === "string") msg.student = ids[cs.code];
    return [msg];
  }
  const saved = savedClass(session);
  return saved ? [{ type: "class-resume", code: saved.code, key: saved.key }] : [];
}

// blocks reports whether the page must not send player message type: a
// student who follows the class.
export function blocks(cs, type) {
  return cs.role === "student" && cs.following && MOVES.has(type);
}

// onMessage handles a class message m (any type starting "class-", and
// class errors); it returns the effects.
export function onMessage(cs, m) {
  switch (m.type) {
    case "class-presenter": {
      cs.role = "presenter";
      cs.code = m.code;
      cs.panel = m.panel;
      cs.status = m.status;
      cs.bus = m.status?.bus || "";
      cs.note = "";
      const fx = [{ render: true }];
      if (m.key) fx.unshift({ store: { key: CLASS_KEY, value: { code: m.code, key: m.key } } });
      return fx;
    }
    case "class-joined":
      cs.student = m.student;
      return [{ storeStudent: { code: m.code, student: m.student } }];
    case "class-status":
      return onStatus(cs, m);
    case "class-answered":
      cs.answer = m.choice;
      return [{ render: true }];
    case "class-csv":
      return [{ download: { filename: m.filename, text: m.csv } }];
    case "error":
      return onError(cs, m);
    default:
      return [];
  }
}

function onStatus(cs, m) {
  const prev = cs.status;
  cs.status = m;
  if (cs.role === "student") {
    cs.following = Boolean(m.following);
    // A new question: the page forgets the answer to the last one.
    if (!m.question || (prev?.question && prev.question.step !== m.question.step)) cs.answer = "";
    if (m.answer) cs.answer = m.answer;
    if (m.ended) return [{ go: `/class/${encodeURIComponent(cs.code)}` }];
    return [{ render: true }];
  }
  cs.bus = m.bus || "";
  if (m.ended) {
    cs.role = "";
    cs.panel = "";
    cs.confirmEnd = false;
    return [{ store: { key: CLASS_KEY, value: null } }, { render: true }];
  }
  return [{ render: true }];
}

function onError(cs, m) {
  const code = m.code || "";
  if (!code.startsWith("class-")) return [];
  const gone = code === "class-unknown" || code === "class-ended";
  if (cs.role === "student" && gone) return [{ go: `/class/${encodeURIComponent(cs.code)}` }];
  if (cs.role === "" && (gone || code === "class-bad-key")) {
    // The class this tab presented is over, or not this tab's: forget it.
    return [{ store: { key: CLASS_KEY, value: null } }];
  }
  cs.note = m.message;
  return [{ render: true }];
}

// action is the message of a presenter's panel button, or an effect.
// End asks first, in the panel (issue 38: a window.confirm blocked the
// page): "end" shows the question with its focus on "end-yes", which ends
// the class; "end-no" (or Escape) takes the question away, the focus back
// on End. A {focus: selector} effect moves the focus.
export function action(cs, name) {
  switch (name) {
    case "ask":
      return [{ send: { type: "class-ask" } }];
    case "reveal":
      return [{ send: { type: "class-reveal" } }];
    case "csv":
      return [{ send: { type: "class-csv" } }];
    case "end":
      cs.confirmEnd = true;
      return [{ render: true }, { focus: '[data-class-action="end-yes"]' }];
    case "end-yes":
      if (!cs.confirmEnd) return [];
      cs.confirmEnd = false;
      return [{ send: { type: "class-end" } }, { render: true }];
    case "end-no":
      if (!cs.confirmEnd) return [];
      cs.confirmEnd = false;
      return [{ render: true }, { focus: '[data-class-action="end"]' }];
    case "toggle-join":
      cs.joinHidden = !joinFolded(cs);
      return [{ render: true }];
    default:
      return [];
  }
}

// answer is a student's answer to the open question, or nothing.
export function answer(cs, choice) {
  const q = cs.status?.question;
  if (cs.role !== "student" || !q || !q.open || !q.choices.some((c) => c.id === choice)) return [];
  cs.answer = choice;
  return [{ send: { type: "class-answer", step: q.step, choice } }, { render: true }];
}

// follow is "explore on my own" (false) or "back to class" (true).
export function follow(cs, on) {
  if (cs.role !== "student") return [];
  cs.following = on;
  return [{ send: { type: "class-follow", follow: on } }, { render: true }];
}

// fill puts vars into template's {name} places.
export function fill(template, vars) {
  return String(template || "").replace(/\{(\w+)\}/g, (all, k) => (k in vars ? String(vars[k]) : all));
}

// tallyRows are the bars of the presenter's distribution: every choice
// as the students' buttons name it (the outcome's code, and its gloss
// when it says more: a fresh review of issue 38 found the tally named
// only the gloss while the students tapped "ACQUIRED …"), its count and
// share of the answers, and whether it is the right one.
export function tallyRows(status) {
  const q = status?.question;
  if (!q) return [];
  const counts = status.counts || {};
  const total = status.answered || 0;
  return q.choices.map((c) => {
    const n = counts[c.id] || 0;
    const gloss = c.label && c.label !== c.id ? c.label : "";
    return { id: c.id, code: c.id, gloss, count: n, pct: total ? Math.round((100 * n) / total) : 0, right: q.revealed && q.correct === c.id };
  });
}

// fillParts is template filled with vars as parts, in order: the
// template's own words as {text}, each filled place as {role, text} (role
// its name), so that a page can draw each place as an element of its own
// and a test can read them apart. A place vars has no value for stays
// words.
export function fillParts(template, vars) {
  const src = String(template || "");
  const parts = [];
  let last = 0;
  for (const m of src.matchAll(/\{(\w+)\}/g)) {
    if (m.index > last) parts.push({ text: src.slice(last, m.index) });
    parts.push(m[1] in vars ? { role: m[1], text: String(vars[m[1]]) } : { text: m[0] });
    last = m.index + m[0].length;
  }
  if (last < src.length) parts.push({ text: src.slice(last) });
  return parts;
}

// studentView is what the class bar says: the status line, the question
// (or null) with the student's answer marked, and the verdict (or "") with
// its parts (fillParts: the guess, the answer and why) and kind (right,
// wrong, none).
// describe(n) phrases the question about step n as predict mode asks it
// ("Step 5: B — acquire order:42. What will it come to?"), or gives ""
// for the bare "What will step 5 come to?".
export function studentView(cs, t, describe = () => "") {
  const st = cs.status;
  const view = { status: cs.following ? t.following : t.exploring, question: null, verdict: "", verdictParts: [], verdictKind: "" };
  const q = st?.question;
  if (!q) return view;
  if (q.open) {
    view.question = {
      prompt: describe(q.step) || fill(t.question, { step: q.step }),
      choices: q.choices.map((c) => ({ id: c.id, label: c.label, chosen: c.id === cs.answer })),
      note: cs.answer ? fill(t.yourAnswer, { answer: cs.answer }) : "",
    };
    return view;
  }
  if (q.revealed) {
    // What the student tapped and what the step came to, by the outcome
    // codes on the buttons they tapped among (and on the lanes), and why
    // it came to that (issue 38, item 12: "✗ You said BUSY; it was
    // ACQUIRED (the lock was free: taken, lease set)."). Without a why,
    // its brackets go too.
    view.verdictKind = !cs.answer ? "none" : cs.answer === q.correct ? "right" : "wrong";
    let template = { none: t.noAnswer, right: t.right, wrong: t.wrong }[view.verdictKind] || "";
    if (!q.why) template = template.replace(/\s*[(（]\{why\}[)）]/, "");
    view.verdictParts = fillParts(template, { answer: q.correct, guess: cs.answer, why: q.why || "" });
    view.verdict = view.verdictParts.map((p) => p.text).join("");
  }
  return view;
}

// joinFolded reports whether the panel shows the join address folded to
// its chip ("K7P3QX · 2 joined"): as the presenter chose, else once a
// student is in, so the QR code leaves the projected page its room.
export function joinFolded(cs) {
  if (cs.joinHidden !== null && cs.joinHidden !== undefined) return cs.joinHidden;
  return (cs.status?.students || 0) > 0;
}

// presenterView is what the class panel says: the students line, whether
// ask and reveal are on, the tally's rows and the note. nextAskable says
// whether the step after the page's has an outcome to predict, as predict
// mode counts one (its steps: parseSteps, forgotten on a timeline made on
// the page); when it has not, Ask is off and askReason (t.nothing) says
// why (issue 38: Ask was on where the server could only refuse it).
export function presenterView(cs, t, nextAskable = true) {
  const st = cs.status || {};
  const n = st.students || 0;
  const q = st.question;
  return {
    students: n === 1 ? t.studentsOne : fill(t.students, { n }),
    chip: fill(t.chip, { code: cs.code, n }),
    canAsk: (!q || !q.open) && nextAskable,
    askReason: nextAskable ? "" : t.nothing,
    canReveal: Boolean(q && q.open),
    rows: tallyRows(st),
    answered: q ? fill(t.answered, { n: st.answered || 0 }) : "",
    // the right answer as its row names it: code and gloss
    right: q && q.revealed ? fill(t.rightAnswer, { answer: [q.correct, tallyRows(st).find((r) => r.right)?.gloss].filter(Boolean).join(" ") }) : "",
    note: cs.note || (q ? "" : nextAskable ? t.askHint : t.nothing),
    bus: cs.bus || "",
  };
}

// stepQuestion phrases the question about step n as predict mode does
// (questionLines): steps are the page's parseSteps, template its
// PredictPrompt, glosses its actions' names. It returns "" for a step with
// nothing to predict.
export function stepQuestion(steps, n, template, glosses) {
  const s = steps[n - 1];
  if (!s || !template) return "";
  return questionLines(n, s, (k) => (k === "tPredictPrompt" ? template : ""), glosses)[0][1];
}

// ---------- the DOM edge ----------

// pageDescriber is describe for studentView from the player page's
// predict-mode data (its steps, prompt and glosses).
function pageDescriber(doc) {
  const controls = doc.querySelector(".controls");
  const steps = parseSteps(doc.getElementById("player")?.dataset.predictSteps);
  let glosses = {};
  try {
    glosses = JSON.parse(controls?.dataset.glosses || "{}");
  } catch {
    // no glosses: the action's id
  }
  return (n) => stepQuestion(steps, n, controls?.dataset.tPredictPrompt || "", glosses);
}

const texts = (el, names) => Object.fromEntries(names.map((n) => [n, el?.dataset["t" + n[0].toUpperCase() + n.slice(1)] || ""]));

// render shows the class state on the page: the presenter's panel or the
// student's bar. at is where the page is: {nextAskable} (presenterView).
export function render(doc, cs, at = {}) {
  if (cs.role === "student") renderStudent(doc, cs);
  else renderPresenter(doc, cs, at.nextAskable !== false);
}

function renderPresenter(doc, cs, nextAskable) {
  // A running class is shown by its panel; the header offers a new one
  // only when none runs.
  for (const b of doc.querySelectorAll("[data-class-start]")) b.hidden = cs.role === "presenter";
  const aside = doc.querySelector("[data-class-panel]");
  if (!aside) return;
  if (cs.role !== "presenter") {
    aside.hidden = true;
    aside.replaceChildren();
    doc.body.classList.remove("in-class");
    return;
  }
  if (aside.dataset.code !== cs.code || !aside.firstElementChild) {
    aside.innerHTML = cs.panel;
    aside.dataset.code = cs.code;
  }
  aside.hidden = false;
  doc.body.classList.add("in-class");
  const inner = aside.firstElementChild;
  const t = texts(inner, ["students", "studentsOne", "answered", "rightAnswer", "askHint", "nothing", "hide", "show", "chip"]);
  const v = presenterView(cs, t, nextAskable);
  const q = (sel) => aside.querySelector(sel);
  q("[data-class-students]").textContent = v.students;
  const ask = q('[data-class-action="ask"]');
  ask.disabled = !v.canAsk;
  // Why Ask is off, as its tooltip and its description (the note says it).
  if (v.askReason) {
    ask.title = v.askReason;
    ask.setAttribute("aria-describedby", "class-note");
  } else {
    ask.removeAttribute("title");
    ask.removeAttribute("aria-describedby");
  }
  const confirm = q("[data-class-end-confirm]");
  if (confirm) confirm.hidden = !cs.confirmEnd;
  q('[data-class-action="end"]').setAttribute("aria-expanded", String(cs.confirmEnd));
  q('[data-class-action="reveal"]').disabled = !v.canReveal;
  const join = q("[data-class-join]");
  const folded = joinFolded(cs);
  join.hidden = folded;
  const chip = q("[data-class-chip]");
  if (chip) {
    chip.hidden = !folded;
    chip.textContent = v.chip;
  }
  q('[data-class-action="toggle-join"]').textContent = folded ? t.show : t.hide;
  q("[data-class-note]").textContent = [v.answered, v.right, v.note].filter(Boolean).join(" · ");
  let bus = q("[data-class-bus]");
  if (!bus) {
    bus = doc.createElement("p");
    bus.className = "class-bus";
    bus.dataset.classBus = "";
    bus.setAttribute("role", "alert");
    q("[data-class-note]").before(bus);
  }
  bus.textContent = v.bus;
  bus.hidden = !v.bus;
  const list = q("[data-class-tally]");
  list.replaceChildren(
    ...v.rows.map((r) => {
      const li = doc.createElement("li");
      li.className = r.right ? "right" : "";
      li.dataset.choice = r.id;
      li.dataset.count = String(r.count);
      li.style.setProperty("--pct", `${r.pct}%`);
      // the code and its gloss as on the students' buttons, the count,
      // and the share as a bar in a track of its own under them (it was
      // the row's background, under the words)
      const name = doc.createElement("span");
      name.className = "tally-label";
      const code = doc.createElement("code");
      code.textContent = r.code;
      name.append(code);
      if (r.gloss) {
        const gloss = doc.createElement("span");
        gloss.className = "gloss";
        gloss.textContent = r.gloss;
        name.append(" ", gloss);
      }
      const count = doc.createElement("span");
      count.className = "tally-count";
      count.textContent = `${r.count} (${r.pct}%)`;
      const bar = doc.createElement("span");
      bar.className = "tally-bar";
      bar.setAttribute("aria-hidden", "true");
      const fill = doc.createElement("span");
      fill.className = "tally-fill";
      bar.append(fill);
      li.append(name, count, bar);
      return li;
    }),
  );
}

function renderStudent(doc, cs) {
  const bar = doc.querySelector("[data-class-bar]");
  if (!bar) return;
  const t = texts(bar, ["following", "exploring", "question", "yourAnswer", "right", "wrong", "noAnswer"]);
  const v = studentView(cs, t, pageDescriber(doc));
  doc.getElementById("player")?.setAttribute("data-class-following", String(cs.following));
  bar.querySelector("[data-class-status]").textContent = v.status;
  bar.querySelector('[data-class-follow="false"]').hidden = !cs.following;
  bar.querySelector('[data-class-follow="true"]').hidden = cs.following;
  const qEl = bar.querySelector("[data-class-question]");
  qEl.hidden = !v.question;
  qEl.replaceChildren();
  if (v.question) {
    const p = doc.createElement("p");
    p.className = "class-prompt";
    p.textContent = v.question.prompt;
    const row = doc.createElement("div");
    row.className = "class-choices";
    for (const c of v.question.choices) {
      // the outcome's code, as predict mode and the lanes show it, and
      // its gloss
      const b = doc.createElement("button");
      b.type = "button";
      b.dataset.classChoice = c.id;
      b.setAttribute("aria-pressed", String(c.chosen));
      const code = doc.createElement("code");
      code.textContent = c.id;
      b.append(code);
      if (c.label && c.label !== c.id) {
        const gloss = doc.createElement("span");
        gloss.className = "gloss";
        gloss.textContent = c.label;
        b.append(" ", gloss);
      }
      row.append(b);
    }
    qEl.append(p, row);
    if (v.question.note) {
      const n = doc.createElement("p");
      n.className = "class-answer-note";
      n.textContent = v.question.note;
      qEl.append(n);
    }
  }
  const verdict = bar.querySelector("[data-class-verdict]");
  verdict.hidden = !v.verdict;
  // each filled place an element of its own: the codes in code font
  verdict.replaceChildren(
    ...v.verdictParts.map((p) => {
      if (!p.role) return p.text;
      const el = doc.createElement(p.role === "why" ? "span" : "code");
      el.dataset.part = p.role;
      el.textContent = p.text;
      return el;
    }),
  );
  verdict.dataset.verdict = v.verdictKind;
}

// ---------- storage (sessionStorage: this tab only) ----------

// storeValue keeps value under key of session as JSON (null removes it);
// a storage that throws keeps nothing.
export function storeValue(session, key, value) {
  try {
    if (value === null) session?.removeItem(key);
    else session?.setItem(key, JSON.stringify(value));
  } catch {
    // storage disabled: the class lasts as long as the socket
  }
}

// rememberStudent keeps the student id the server gave this tab for class
// code, so that a reload answers as the same student.
export function rememberStudent(session, code, student) {
  const ids = readJSON(session, STUDENT_KEY) || {};
  ids[code] = student;
  storeValue(session, STUDENT_KEY, ids);
}

// download saves text as a file named filename.
export function download(doc, url, filename, text) {
  const href = url.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
  const a = doc.createElement("a");
  a.href = href;
  a.download = filename;
  a.hidden = true;
  doc.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => url.revokeObjectURL(href), 1000);
}
