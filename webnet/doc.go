// Package webnet is the server's net/http and websocket plumbing, below
// what any page or message means: which Host headers the server answers
// (hosts.go), the address a request is counted under and the proxies
// trusted to name it (addrs.go), the table that bounds the open sessions
// in all and per address (sessions.go), the gate that shares the busy
// server's message slots fairly (fairness.go), the compression of pages
// (httpcompress.go) and of websocket messages (compress.go), and the
// connection that sends a writer's queued messages in one write
// (batchconn.go). Package web uses it; it knows nothing of lessons,
// classes or searches, and holds no state of its own outside the values
// it returns.
package webnet
