// The "Your lock" builder (Explore page, /explore/lock): for a learner with
// no variant file, it writes one from a form into the form's variant
// textarea, in the format of docs/variant-format.md: every section the
// format has (source, the lock key with a count key, other keys, owner,
// reentry, acquire, renew with its period, release with its Boolean
// reading, finish_release for a two-step release), each script's KEYS
// and ARGV by value name (a quoted entry is a literal), its array reply
// and its reply map. The server checks what it writes like any pasted
// file (sim.LoadVariant). variantYAML is pure (node --test);
// startLockBuilder wires a page.

// roles are the script sections in the order a variant file lists them;
// optional ones are written only when their section is on.
export const roles = ["acquire", "renew", "release", "finish_release"];
const optional = new Set(["renew", "finish_release"]);

// scriptFile is the script file the builder names for role.
export function scriptFile(role) {
  return role.replace(/_/g, "-") + ".lua";
}

// list splits "lock, owner" into ["lock", "owner"].
export function list(text) {
  return String(text || "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

// replyPairs reads "1: held, 0: BUSY, nil: NOT_OWNER" as [["1", "held"], ...];
// an entry without a colon is left out. A quoted pattern keeps its
// quotes ('"nil": BUSY' is the string nil).
export function replyPairs(text) {
  const out = [];
  for (const part of list(text)) {
    const i = part.search(/:(?=[^"']*$)/);
    if (i <= 0) continue;
    const reply = part.slice(0, i).trim();
    const outcome = part.slice(i + 1).trim();
    if (reply && outcome) out.push([reply, outcome]);
  }
  return out;
}

// keyLines reads the builder's other keys, one a line as "id name role
// [type]" ("count {lock_key}:count state string"), into [{id, name, role,
// type}]; a line with fewer than three words is left out.
export function keyLines(text) {
  const out = [];
  for (const line of String(text || "").split("\n")) {
    const [id, name, role, type] = line.trim().split(/\s+/);
    if (id && name && role) out.push({ id: id.replace(/:$/, ""), name, role, type: type || "" });
  }
  return out;
}

// yamlWords are plain scalars YAML reads as something else than text.
const yamlWords = /^(true|false|yes|no|on|off|null|~|y|n)$/i;

// quote writes a YAML scalar: plain when it is a word, else double-quoted.
function quote(s) {
  return /^[A-Za-z0-9_.\/-]+$/.test(s) && !yamlWords.test(s) ? s : JSON.stringify(s);
}

// unquote is the text of s written in quotes ("0" or '0'), null when
// s is not quoted.
function unquote(s) {
  const m = /^(["'])(.*)\1$/.exec(s);
  return m ? m[2] : null;
}

// replyKey writes a reply pattern: nil and false plain (Redis's nil
// reply), a quoted pattern as the string it quotes, any other as quote.
function replyKey(s) {
  if (s === "nil" || s === "false") return s;
  const text = unquote(s);
  return text !== null ? JSON.stringify(text) : quote(s);
}

// value writes a KEYS or ARGV entry: a value name, or {literal: text} for
// a quoted entry.
function value(s) {
  const text = unquote(s);
  return text !== null ? `{literal: ${JSON.stringify(text)}}` : quote(s);
}

// flow writes a YAML flow list.
function flow(items, write = quote) {
  return "[" + items.map(write).join(", ") + "]";
}

// variantYAML is the variant file of state: {name, source, lock:
// "hash:field-per-owner", count (a key id: a String lock's count key),
// keys (keyLines' text), owner, reentry, scripts: {ROLE: {on, keys, argv,
// array, replies, every (renew), boolean (release)}}}, each script named
// scriptFile(ROLE) beside the file. acquire and release are always
// written; renew and finish_release when their on is set.
export function variantYAML(state) {
  const [type, layout] = String(state.lock || "hash:field-per-owner").split(":");
  const lockFields = [`type: ${type}`, `layout: ${layout}`];
  if (type === "string" && state.count) lockFields.push(`count: ${quote(state.count)}`);
  const lines = [`name: ${quote(state.name || "my-lock")}`];
  if (state.source) lines.push(`source: ${JSON.stringify(state.source)}`);
  lines.push(`lock: {${lockFields.join(", ")}}`);
  const keys = keyLines(state.keys);
  if (keys.length > 0) {
    lines.push("keys:");
    for (const k of keys) {
      const fields = [`name: ${quote(k.name)}`, `role: ${quote(k.role)}`];
      if (k.type) fields.push(`type: ${quote(k.type)}`);
      lines.push(`  ${quote(k.id)}: {${fields.join(", ")}}`);
    }
  }
  lines.push(`owner: ${quote(state.owner || "grant-token")}`, `reentry: ${quote(state.reentry || "redis")}`);
  for (const role of roles) {
    const s = (state.scripts || {})[role] || {};
    if (optional.has(role) && !s.on) continue;
    lines.push(`${role}:`);
    lines.push(`  script: ${scriptFile(role)}`);
    if (role === "renew") lines.push(`  every: ${quote(String(s.every || "lease/3").trim())}`);
    lines.push(`  keys: ${flow(list(s.keys), value)}`);
    lines.push(`  argv: ${flow(list(s.argv), value)}`);
    const array = list(s.array);
    if (array.length > 0) lines.push(`  array_reply: ${flow(array)}`);
    const pairs = replyPairs(s.replies);
    lines.push(`  replies: {${pairs.map(([r, o]) => `${replyKey(r)}: ${quote(o)}`).join(", ")}}`);
    if (role === "release" && s.boolean) lines.push("  boolean_reading: true");
  }
  return lines.join("\n") + "\n";
}

// builderState reads the builder's fields (named b_*) under root.
export function builderState(root) {
  const field = (name) => root.querySelector(`[name="${name}"]`);
  const v = (name) => field(name)?.value || "";
  const on = (name) => !!field(name)?.checked;
  const scripts = {};
  for (const role of roles) {
    const p = `b_${role}_`;
    scripts[role] = { keys: v(p + "keys"), argv: v(p + "argv"), array: v(p + "array"), replies: v(p + "replies") };
    if (optional.has(role)) scripts[role].on = on(p + "on");
    if (role === "renew") scripts[role].every = v(p + "every");
    if (role === "release") scripts[role].boolean = on(p + "boolean");
  }
  return {
    source: v("b_source").trim(),
    lock: v("b_lock"),
    count: v("b_count").trim(),
    keys: v("b_keys"),
    owner: v("b_owner").trim(),
    reentry: v("b_reentry"),
    scripts,
  };
}

// scriptSlots are the form's script names after the builder wrote a file
// whose scripts are names: each name not yet in a slot goes to the first
// empty slot (a slot the learner named is kept; a name with no empty slot
// left is not written).
export function scriptSlots(current, names) {
  const out = [...current];
  for (const name of names) {
    if (out.includes(name)) continue;
    const i = out.findIndex((s) => !s);
    if (i < 0) break;
    out[i] = name;
  }
  return out;
}

// startLockBuilder makes each builder of doc write its file into its
// form: the variant textarea, and the scripts' names (acquire.lua,
// release.lua, and renew.lua and finish-release.lua when those sections
// are on) in slots left empty.
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
      const slots = [...card.querySelectorAll('input[name^="script_name_"]')];
      // In the order of the slots' placeholders (acquire, release, renew,
      // finish-release), not of the file's sections.
      const names = ["acquire", "release", "renew", "finish_release"]
        .filter((r) => !optional.has(r) || state.scripts[r].on)
        .map(scriptFile);
      scriptSlots(
        slots.map((f) => f.value.trim()),
        names,
      ).forEach((name, i) => {
        slots[i].value = name;
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
