// Small helpers shared by the page's modules: filling a translated
// template, and JSON in localStorage that never throws. No module here
// touches the DOM or a global at import time, so node --test can load them.

// fill replaces each {name} of template with values[name], leaving a
// placeholder it has no value for as it is.
export function fill(template, values) {
  return (template || "").replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
}

// loadJSON returns the object stored under key, or {} when storage holds
// nothing, something that is not JSON, or is disabled (it throws then).
export function loadJSON(storage, key) {
  try {
    return JSON.parse(storage.getItem(key)) || {};
  } catch {
    return {};
  }
}

// storeJSON stores v under key as JSON. Storage may be full or disabled:
// what the page keeps there (progress, scores, answers) is a convenience.
export function storeJSON(storage, key, v) {
  try {
    storage.setItem(key, JSON.stringify(v));
  } catch {
    // ignore
  }
}

// loadFlag returns the string stored under key, or null (also when storage
// is disabled); storeFlag stores on as "1" or "0".
export function loadFlag(storage, key) {
  try {
    return storage.getItem(key);
  } catch {
    return null;
  }
}

export function storeFlag(storage, key, on) {
  try {
    storage.setItem(key, on ? "1" : "0");
  } catch {
    // ignore
  }
}
