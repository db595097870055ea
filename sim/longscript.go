package sim

import "time"

// BusyReplyThreshold is how long a Lua script runs before Redis, while still
// running it, reads other clients' commands again and answers each with the
// BUSY error (ScriptBusyReply) instead of making it wait: Redis's setting
// busy-reply-threshold (lua-time-limit before Redis 7), at its default of
// 5 s. A long-script step uses it; before it, a call waits unread.
const BusyReplyThreshold = 5 * time.Second

// ScriptBusyReply is the text of the error Redis answers a command with
// while a script sent with EVAL that has run longer than BusyReplyThreshold
// is still running (the error code BUSY, then Redis's own message: Redis 7's
// shared.slowevalerr; a function run with FCALL gets the FUNCTION KILL
// variant instead, which a long-script step does not model). A watchdog
// renewal due during a long-script step reads it (outcome ScriptBusy).
const ScriptBusyReply = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
