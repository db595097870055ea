package explore

import (
	"lockstep/drill"
	"lockstep/sim"
)

// Narrate returns the narration of a step the learner added (which has no
// say of its own) as a message code ("narration.*" of the catalogue), from
// the frames before (prev) and after (cur) it. Acquire, release, write,
// advance, pause and resume are explained as drills explain them
// (drill.Explain); the other actions and outcomes have messages of their
// own, and any other falls back to "narration.generic". In a lesson on
// independent nodes a restart, an acquire and a release are narrated per
// node (narrateNodes).
func Narrate(l *sim.Lesson, st *sim.Step, prev, cur sim.Frame) sim.Msg {
	if cur.Nodes != nil {
		if m, ok := narrateNodes(st, cur); ok {
			return m
		}
	}
	actor := st.Actor
	key := ""
	switch {
	case st.Do == sim.ActAdvance && len(cur.Lost) > 0:
		// A renewal answered that the lock is lost: its holder was told
		// (issue 33, item 4).
		key, actor = "renew-lost", cur.Lost[0].Actor
	case len(cur.Calls) == 0 && (cur.Outcome == sim.Reentered || cur.Outcome == sim.StillHeld):
		key = "local-" + string(cur.Outcome) // local-count: no round trip at all
	case cur.Outcome == sim.NoContext:
		key = "no-context"
	case cur.Outcome == sim.TimedOut && st.Do == sim.ActAcquire:
		key = "timed-out-acquire"
	case cur.Outcome == sim.TimedOut:
		key = "timed-out"
	case cur.Outcome == sim.NotOwner && st.Do == sim.ActAcquire:
		key = "nested-no-token" // seed 001's nested_acquire, no Redis call
	case st.Do == sim.ActWrite && cur.Outcome == sim.Pending:
		key = "write-pending"
	case st.Do == sim.ActFinishWrite && len(cur.Calls) == 0:
		key = "finish-write-nothing"
	case st.Do == sim.ActFinishWrite:
		key = "finish-write"
	case cur.Outcome == sim.Pending:
		key = "pending"
	case st.Do == sim.ActFinishRelease && cur.Outcome == sim.NotOwner && len(cur.Calls) == 0:
		key = "finish-nothing"
	case st.Do == sim.ActFinishRelease:
		key = "finish-" + string(cur.Outcome)
	case st.Do == sim.ActCrash, st.Do == sim.ActExit, st.Do == sim.ActClockJump, st.Do == sim.ActFailover, st.Do == sim.ActLongScript:
		key = string(st.Do)
	case st.Do == sim.ActFork:
		key = "fork-" + st.Context
	}
	if key == "" {
		if m, ok := drill.Explain(l, st, prev, cur); ok {
			return m
		}
		key = "generic"
	}
	if !narrated[key] {
		key = "generic"
	}
	return sim.M("narration."+key, "Actor", actor, "Child", st.Child, "Do", string(st.Do), "Outcome", string(cur.Outcome))
}

// narrated are the keys of Narrate's own messages.
var narrated = map[string]bool{
	"local-REENTERED": true, "local-STILL_HELD": true, "no-context": true, "timed-out": true, "timed-out-acquire": true, "nested-no-token": true,
	"pending": true, "finish-nothing": true, "write-pending": true, "finish-write": true, "finish-write-nothing": true, "finish-RELEASED": true, "finish-NOT_OWNER": true,
	"crash": true, "exit": true, "clock-jump": true, "failover": true, "long-script": true,
	"fork-inherit": true, "fork-lost": true, "generic": true, "renew-lost": true,
}

// narration holds the phrases of Narrate: en, zh-CN, zh-TW.
