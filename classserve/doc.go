// Package classserve is the classroom's transport on one server: what
// carries a class (package classroom, the domain) between the presenter's
// page, the students' pages and the other servers (package classbus, the
// bus), over the player's websocket (package web).
//
// It owns:
//
//   - the class messages of the websocket protocol (protocol.go; the wire
//     format in docs/classroom.md) and what a session does with them
//     (session.go, through a Seat per session and the Player interface the
//     session implements);
//   - the classes this server owns, whose presenter is here: their state,
//     published on the bus after each move, the answers, joins and leaves
//     counted, the end when idle (owner.go);
//   - one bus subscription per class whose students are here (feed.go),
//     which wakes each following student's connection writer (follower.go)
//     to send the class's frame and status messages, drawn and encoded once
//     for all of them (frames.go, shared.go);
//   - the bounds on classes: how many this server owns, in all and per
//     presenter's address, and the end of a class left without a presenter
//     (limits.go); the join limits, join addresses and QR code (join.go);
//     the other servers of a class (peers.go) and the bus's health
//     (health.go).
//
// The Hub holds all of it for one server; package web makes one per
// Server and gives it a Host (course lessons, texts, the player's frame
// messages). It does no HTTP routing and draws no pages: the class page
// (/class/CODE) is web's.
package classserve
