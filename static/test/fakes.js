// Fakes of what the modules are given in the browser: a WebSocket, timers,
// localStorage, History and Location. Imported by the *.test.js files; not
// a test itself.

// FakeSocket records what the page sends; the test opens, answers and
// closes it as the server would.
export class FakeSocket {
  static OPEN = 1;
  static made = [];
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    this.closedWith = null;
    FakeSocket.made.push(this);
  }
  send(data) {
    this.sent.push(JSON.parse(data));
  }
  close(code, reason) {
    this.closedWith = { code, reason };
    this.readyState = 3;
  }
  // Server side:
  open() {
    this.readyState = 1;
    this.onopen();
  }
  message(data) {
    this.onmessage({ data: typeof data === "string" ? data : JSON.stringify(data) });
  }
  drop(code) {
    this.readyState = 3;
    this.onclose({ code });
  }
}

// fakeTimers runs timeouts when the test says so.
export function fakeTimers() {
  const t = { next: 1, pending: new Map(), delays: [] };
  t.setTimeout = (f, ms) => {
    const id = t.next++;
    t.pending.set(id, f);
    t.delays.push(ms);
    return id;
  };
  t.clearTimeout = (id) => t.pending.delete(id);
  t.runAll = () => {
    const fs = [...t.pending.values()];
    t.pending.clear();
    for (const f of fs) f();
  };
  return t;
}

// fakeStorage is localStorage over a Map; broken() one that throws, as a
// disabled or full storage does.
export function fakeStorage() {
  const m = new Map();
  return {
    getItem: (k) => (m.has(k) ? m.get(k) : null),
    setItem: (k, v) => m.set(k, String(v)),
    removeItem: (k) => m.delete(k),
    map: m,
  };
}

export function brokenStorage() {
  const fail = () => {
    throw new Error("SecurityError");
  };
  return { getItem: fail, setItem: fail };
}

// fakeBrowser is a History and its Location over a list of entries, as a
// browser keeps them: pushState drops the entries after the current one.
export function fakeBrowser(start) {
  const b = { entries: [start], index: 0, reloads: 0 };
  const at = () => new URL(b.entries[b.index], "http://lockstep.test");
  b.location = {
    get pathname() {
      return at().pathname;
    },
    get search() {
      return at().search;
    },
    get href() {
      return at().href;
    },
  };
  b.history = {
    pushState: (_s, _t, u) => {
      b.entries.splice(b.index + 1, Infinity, u);
      b.index++;
    },
    replaceState: (_s, _t, u) => {
      b.entries[b.index] = u;
    },
  };
  b.back = () => b.index--;
  b.forward = () => b.index++;
  b.current = () => b.entries[b.index];
  return b;
}

// fakeButton is what the undo rules touch of a button.
export function fakeButton() {
  return { disabled: false, isConnected: true };
}
