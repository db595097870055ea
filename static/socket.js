// The player's websocket (protocol: the doc of package web): connect,
// reconnect with backoff, come back after an idle close when the learner
// does, and the load message that resumes the run at the step shown.
//
// A socket is a plain object made by newSocket; io holds what it talks to
// (the WebSocket constructor, timers, a random source and the page's
// callbacks), so tests drive it with fakes.

// Close codes with a meaning of their own (see web/doc.go).
export const CLOSE_IDLE = 4000; // idle for the server's IdleTimeout
export const CLOSE_BUSY = 1013; // too many sessions

const OPEN = 1; // WebSocket.OPEN

// newSocket returns a closed socket. io: {WebSocket, url, setTimeout,
// clearTimeout, random, onStatus(state, textKey), onOpen(), onMessage(m),
// onDown()}; onDown is called when the socket closes (play has stopped).
// url is the websocket address, or a function of the socket that returns
// the address of each connection (a student's page walks the class's
// servers, peers.js); failures counts the connections that closed since
// the server last answered (uncapped, unlike retries, which the backoff uses).
export function newSocket(io) {
  return { io, ws: null, retries: 0, failures: 0, retryTimer: 0, idle: false };
}

// socketURL is the websocket address of the page's origin.
export function socketURL(loc) {
  return `${loc.protocol === "https:" ? "wss" : "ws"}://${loc.host}/ws`;
}

// backoffDelay is the wait in ms before reconnect number retries+1:
// 300 ms doubling up to 8 s, spread by ±25% (random in [0, 1)) so that
// the pages of a restarted server do not all come back at once.
export function backoffDelay(retries, random) {
  return Math.min(8000, 300 * 2 ** retries) * (0.75 + random * 0.5);
}

// afterClose says what a close with code means for the page: the state and
// text of its connection badge, and whether to reconnect on its own.
export function afterClose(code) {
  if (code === CLOSE_IDLE) return { state: "idle", key: "tIdle", reconnect: false };
  if (code === CLOSE_BUSY) return { state: "busy", key: "tBusy", reconnect: true };
  return { state: "reconnecting", key: "tReconnecting", reconnect: true };
}

// resumeStep is the step a (re)connected page asks for: the one it shows,
// or, after a step Redis did not answer (redisFail, see player.js), the
// step that was wanted.
export function resumeStep(step, redisFail) {
  return redisFail && redisFail.target != null ? Math.max(redisFail.target, step) : step;
}

// loadMessage starts the run of run ({lesson, timeline, lang}; a shared
// timeline's code wins over the lesson) at step.
export function loadMessage(run, step) {
  if (run.timeline) return { type: "load", timeline: run.timeline, step, lang: run.lang };
  return { type: "load", lesson: run.lesson, step, lang: run.lang };
}

// parseMessage returns a server message, or null when data is not JSON.
export function parseMessage(data) {
  try {
    return JSON.parse(data);
  } catch {
    return null;
  }
}

// isOpen reports whether messages can be sent now.
export function isOpen(s) {
  return Boolean(s.ws) && s.ws.readyState === OPEN;
}

// connect opens the socket unless it is open or opening.
export function connect(s) {
  s.io.clearTimeout(s.retryTimer);
  if (s.ws) return;
  s.idle = false;
  s.io.onStatus("connecting", s.retries ? "tReconnecting" : "tConnecting");
  const ws = new s.io.WebSocket(typeof s.io.url === "function" ? s.io.url(s) : s.io.url);
  s.ws = ws;
  ws.onopen = () => s.io.onOpen();
  ws.onmessage = (ev) => {
    const m = parseMessage(ev.data);
    if (m) s.io.onMessage(m);
  };
  ws.onclose = (ev) => closed(s, ws, ev.code);
}

function closed(s, ws, code) {
  if (s.ws !== ws) return; // closed by disconnect, or an old socket
  s.ws = null;
  s.io.onDown();
  const c = afterClose(code);
  s.idle = c.state === "idle"; // closed for inactivity: come back when the learner does
  s.io.onStatus(c.state, c.key);
  if (!c.reconnect) return;
  const delay = backoffDelay(s.retries, s.io.random());
  s.retries = Math.min(s.retries + 1, 8);
  s.failures++;
  s.retryTimer = s.io.setTimeout(() => connect(s), delay);
}

// disconnect closes the socket for good: no reconnect until connect.
export function disconnect(s) {
  s.io.clearTimeout(s.retryTimer);
  const ws = s.ws;
  s.ws = null; // its close event then finds another socket and is ignored
  s.io.onDown();
  if (ws) ws.close(1000, "page left");
  s.io.onStatus("connecting", "tConnecting");
}

// answered notes that the server answered (a frame): the next close starts
// the backoff from the beginning.
export function answered(s) {
  s.retries = 0;
  s.failures = 0;
}

// send sends msg as JSON when the socket is open, calling before(msg) just
// ahead of it; it returns false, sending nothing, when it is not open.
export function send(s, msg, before) {
  if (!isOpen(s)) return false;
  if (before) before(msg);
  s.ws.send(JSON.stringify(msg));
  return true;
}
