// The "Your lock" builder (Explore page, /explore/lock): for a learner with
// no variant file, it writes one from a form (key type and layout, owner,
// where reentry is counted, each script's KEYS and ARGV by value name and
// its reply map) into the form's variant textarea, in the format of
// docs/variant-format.md. The server checks what it writes like any pasted
// file. variantYAML is pure (node --test); startLockBuilder wires a page.

// list splits "lock, owner" into ["lock", "owner"].
export function list(text) {
  return String(text || "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

// replyPairs reads "1: held, 0: BUSY, nil: NOT_OWNER" as [["1", "held"], ...];
// an entry without a colon is left out.
export function replyPairs(text) {
  const out = [];
  for (const part of list(text)) {
    const i = part.indexOf(":");
    if (i <= 0) continue;
    const reply = part.slice(0, i).trim();
    const outcome = part.slice(i + 1).trim();
    if (reply && outcome) out.push([reply, outcome]);
  }
  return out;
}

// quote writes a YAML scalar: plain when it is a word, else double-quoted.
function quote(s) {
  return /^[A-Za-z0-9_.\/-]+$/.test(s) ? s : JSON.stringify(s);
}

// flow writes a YAML flow list of names.
function flow(names) {
  return "[" + names.map(quote).join(", ") + "]";
}

// variantYAML is the variant file of state: {name, lock: "hash:field-per-owner",
// owner, reentry, scripts: {acquire: {keys, argv, replies}, release: {...}}},
// each script named ROLE.lua beside the file.
export function variantYAML(state) {
  const [type, layout] = String(state.lock || "hash:field-per-owner").split(":");
  const lines = [
    `name: ${quote(state.name || "my-lock")}`,
    `lock: {type: ${type}, layout: ${layout}}`,
    `owner: ${quote(state.owner || "grant-token")}`,
    `reentry: ${state.reentry || "redis"}`,
  ];
  for (const role of ["acquire", "release"]) {
    const s = (state.scripts || {})[role] || {};
    lines.push(`${role}:`);
    lines.push(`  script: ${role}.lua`);
    lines.push(`  keys: ${flow(list(s.keys))}`);
    lines.push(`  argv: ${flow(list(s.argv))}`);
    const pairs = replyPairs(s.replies);
    lines.push(`  replies: {${pairs.map(([r, o]) => `${quote(r)}: ${o}`).join(", ")}}`);
  }
  return lines.join("\n") + "\n";
}

// builderState reads the builder's fields (named b_*) under root.
export function builderState(root) {
  const v = (name) => root.querySelector(`[name="${name}"]`)?.value || "";
  const scripts = {};
  for (const role of ["acquire", "release"]) {
    scripts[role] = { keys: v(`b_${role}_keys`), argv: v(`b_${role}_argv`), replies: v(`b_${role}_replies`) };
  }
  return { lock: v("b_lock"), owner: v("b_owner"), reentry: v("b_reentry"), scripts };
}

// startLockBuilder makes each builder of doc write its file into its
// form: the variant textarea, and the script names acquire.lua and
// release.lua in the first two slots left empty.
export function startLockBuilder(doc) {
  for (const builder of doc.querySelectorAll("[data-lock-builder]")) {
    const card = builder.closest("section") || doc;
    const button = builder.querySelector("[data-lock-write]");
    if (!button) continue;
    button.addEventListener("click", () => {
      const nameField = card.querySelector('[name="variant_name"]');
      const file = (nameField?.value || "my-lock.variant.yaml").replace(/\.variant\.yaml$/, "");
      const state = { ...builderState(builder), name: file.replace(/[^a-z0-9-]/g, "-") || "my-lock" };
      const area = card.querySelector("[data-lock-variant]");
      if (area) area.value = variantYAML(state);
      if (nameField && !nameField.value) nameField.value = "my-lock.variant.yaml";
      ["acquire.lua", "release.lua"].forEach((name, i) => {
        const f = card.querySelector(`[name="script_name_${i + 1}"]`);
        if (f && !f.value) f.value = name;
      });
      area?.focus();
    });
  }
}

// exampleFields are the form's fields for example ex (a LockExample as the
// page's JSON has it: {ID, Label, VariantName, Variant, Scripts: [{Name,
// Text}]}) in a form of slots script slots: field name → value, every
// script slot set (the ones the example does not use emptied).
export function exampleFields(ex, slots) {
  const out = { variant_name: ex.VariantName || "", variant: ex.Variant || "" };
  const scripts = ex.Scripts || [];
  for (let i = 1; i <= slots; i++) {
    out[`script_name_${i}`] = scripts[i - 1]?.Name || "";
    out[`script_${i}`] = scripts[i - 1]?.Text || "";
  }
  return out;
}

// startLockPage wires the "Your lock" page of doc: each example button
// loads its lock (from the JSON of #lock-examples-data) into the form, and
// a page that came back with problems scrolls them into view and moves
// the focus there, so the learner lands on what to fix.
export function startLockPage(doc) {
  const data = doc.getElementById("lock-examples-data");
  const form = doc.querySelector('[data-testid="lock-form"]');
  let examples = [];
  try {
    examples = JSON.parse(data?.textContent || "[]") || [];
  } catch {
    examples = [];
  }
  for (const button of doc.querySelectorAll("[data-lock-example]")) {
    button.addEventListener("click", () => {
      const ex = examples.find((e) => e.ID === button.dataset.lockExample);
      if (!ex || !form) return;
      const slots = form.querySelectorAll('textarea[name^="script_"]').length;
      for (const [name, value] of Object.entries(exampleFields(ex, slots))) {
        const field = form.elements[name];
        if (field) field.value = value;
      }
      const area = form.querySelector("[data-lock-variant]");
      if (area) {
        area.scrollTop = 0;
        area.focus();
        area.setSelectionRange(0, 0);
      }
    });
  }
  const problems = doc.querySelector('[data-testid="lock-errors"]');
  if (problems) {
    problems.scrollIntoView({ block: "start" });
    problems.focus({ preventScroll: true });
  }
}
