// JSON and flags in localStorage that never throw: storage may be
// disabled (reading it throws; the page passes null then) or full, and what
// the page keeps there (progress, scores, answers, modes) is a convenience.

// loadJSON returns the object stored under key, or {} when storage holds
// nothing, something that is not JSON, or is disabled (it throws then).
export function loadJSON(storage, key) {
  try {
    return JSON.parse(storage.getItem(key)) || {};
  } catch {
    return {};
  }
}

// storeJSON stores v under key as JSON.
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
