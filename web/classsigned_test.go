package web

import (
	"context"
	"testing"
	"time"

	"lockstep/classbus"
	"lockstep/classroom"
)

// TestClassForgedBusMessageIgnored (issue 37, item 8): on a class bus
// shared through a real Redis, signed with the class secret, a state
// PUBLISHed or SET by someone without the secret moves no student and
// does not knock the presenter out.
func TestClassForgedBusMessageIgnored(t *testing.T) {
	t.Parallel()
	be, rs := realBackend(t)
	signed, err := classbus.NewSigned(classbus.NewRedis(be.Client(), classbus.RedisOptions{}), []byte("a class secret of the servers"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = signed.Close() })
	_, hs := newTestHTTP(t, Config{ClassBus: signed})
	p, pm := presenterAt(t, hs, 1)
	s := seatedStudent(t, hs, pm.Code, "")

	// The forger reads the class's state (it can: it shares the Redis),
	// moves it to step 7 and publishes it as the owner would, unsigned.
	rc := rs.Client(t)
	ctx := context.Background()
	forged := classroom.State{V: classroom.StateVersion, Code: pm.Code, Owner: "forger", Step: 7, Seq: 1000,
		Shown: classroom.Shown{Lesson: classLesson, Total: 8}}
	msg := classroom.StateMessage(classroom.KindStep, forged).Encode()
	if err := rc.Publish(ctx, classbus.EventsChannel(pm.Code), msg).Err(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the forged message to be dropped", func() bool { return signed.Forged() >= 1 })
	// The class goes on: the presenter's step reaches the student, who
	// never saw step 7.
	p.send(ClientMessage{Type: MsgStep})
	st := s.await(MsgClassStatus, func(m classMsg) bool { return m.Step != 1 })
	if st.Step != 2 || st.Ended {
		t.Fatalf("after a forged state and a step: student at %d (ended %v), want 2", st.Step, st.Ended)
	}
	p.await(MsgClassStatus, func(m classMsg) bool { return m.Step == 2 && !m.Ended })
	// A forged state in the key is not taken for the class's.
	if err := rc.Set(ctx, classbus.StateKey(pm.Code), forged.Encode(), time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := signed.State(ctx, pm.Code); err == nil {
		t.Fatal("a forged state read as the class's")
	}
}
