// Where a student's page reconnects (issue 20, docs/classroom.md: servers
// of a class): its own server, then the class's other servers
// (data-class-peers, web.Config.ClassPeers) in order. Pure functions; the
// socket (socket.js) asks the page's url function (app.js) for each
// connection it opens, and that function asks pickServer.

// OWN_TRIES is how many attempts go to the server the page was on before
// the walk moves on: a blip, or a restart, comes back there.
export const OWN_TRIES = 2;

// serverList is the bases a page tries: origin (its own, e.g.
// location.origin) first, then each of peers (a space-separated list of
// base URLs) not yet in the list, without a trailing "/".
export function serverList(origin, peers) {
  const out = [];
  for (const b of [origin, ...String(peers || "").split(/\s+/)]) {
    const base = String(b || "").replace(/\/+$/, "").toLowerCase();
    if (/^https?:\/\/[^/]+$/.test(base) && !out.includes(base)) out.push(base);
  }
  return out;
}

// pickServer is the index in a list of count servers of the connection
// opened after failures closes since the page was last answered (0: the
// first connection), the last answer having come from server current:
// current again for the first OWN_TRIES reconnections, then the next ones
// in order, round and round (back to current too: a restarted server).
export function pickServer(count, current, failures) {
  if (count <= 1) return 0;
  if (failures <= OWN_TRIES) return current % count;
  return (current + failures - OWN_TRIES) % count;
}

// wsURL is the websocket address of base ("https://host" → "wss://host/ws").
export function wsURL(base) {
  return base.replace(/^http/, "ws") + "/ws";
}
