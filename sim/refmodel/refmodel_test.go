package refmodel_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"lockstep/sim"
	"lockstep/sim/refmodel"
)

// Shorthands for key states in the tables.
func hash(name string, pttl int64, kv ...string) sim.KeyState {
	k := sim.KeyState{Name: name, Type: sim.TypeHash, PTTL: pttl}
	for i := 0; i+1 < len(kv); i += 2 {
		k.Fields = append(k.Fields, sim.Field{Name: kv[i], Value: kv[i+1]})
	}
	return k
}

func str(name string, pttl int64, v string) sim.KeyState {
	return sim.KeyState{Name: name, Type: sim.TypeString, Value: v, PTTL: pttl}
}

func absent(name string) sim.KeyState { return sim.Absent(name) }

func arr(e ...sim.Reply) sim.Reply { return sim.ArrayReply(e...) }

var (
	sReply = sim.StringReply
	iReply = sim.IntReply
	nReply = sim.NilReply()
)

const (
	lk  = "lock:L"
	fk  = "fence:L"
	rk  = "resource:L"
	ck  = "channel:L"
	uk  = "unlocks:L"
	day = int64(86_400_000)
)

// TestScriptBranches drives every branch of every script model from a given
// keyspace and checks the reply and the keys after it.
func TestScriptBranches(t *testing.T) {
	tests := []struct {
		name   string
		before []sim.KeyState
		script string
		keys   []string
		args   []string
		reply  sim.Reply
		after  []sim.KeyState // every key named in keys, in order
	}{
		// token-count/acquire
		{"token-count acquire free outermost", nil, "token-count/acquire",
			[]string{lk}, []string{"t1", "3000", "1"}, sReply("ACQUIRED"),
			[]sim.KeyState{hash(lk, 3000, "count", "1", "owner", "t1")}},
		{"token-count acquire free outermost fenced, no counter yet", nil, "token-count/acquire",
			[]string{lk, fk}, []string{"t1", "3000", "1", "90000"}, arr(sReply("ACQUIRED"), iReply(1)),
			[]sim.KeyState{hash(lk, 3000, "count", "1", "owner", "t1"), str(fk, 90000, "1")}},
		{"token-count acquire free outermost fenced, counter at 4", []sim.KeyState{str(fk, 500, "4")}, "token-count/acquire",
			[]string{lk, fk}, []string{"t1", "3000", "1", "90000"}, arr(sReply("ACQUIRED"), iReply(5)),
			[]sim.KeyState{hash(lk, 3000, "count", "1", "owner", "t1"), str(fk, 90000, "5")}},
		{"token-count nested acquire on a missing key is LOST", nil, "token-count/acquire",
			[]string{lk}, []string{"t1", "3000", "0"}, sReply("LOST"),
			[]sim.KeyState{absent(lk)}},
		{"token-count nested fenced acquire on a missing key is LOST, counter untouched", []sim.KeyState{str(fk, 500, "4")}, "token-count/acquire",
			[]string{lk, fk}, []string{"t1", "3000", "0", "90000"}, sReply("LOST"),
			[]sim.KeyState{absent(lk), str(fk, 500, "4")}},
		{"token-count reentry renews the lease", []sim.KeyState{hash(lk, 10, "count", "2", "owner", "t1")}, "token-count/acquire",
			[]string{lk}, []string{"t1", "3000", "0"}, sReply("REENTERED"),
			[]sim.KeyState{hash(lk, 3000, "count", "3", "owner", "t1")}},
		{"token-count outermost call with the owner's token re-enters", []sim.KeyState{hash(lk, 10, "count", "1", "owner", "t1")}, "token-count/acquire",
			[]string{lk, fk}, []string{"t1", "3000", "1", "90000"}, sReply("REENTERED"),
			[]sim.KeyState{hash(lk, 3000, "count", "2", "owner", "t1"), absent(fk)}},
		{"token-count acquire held by another is BUSY", []sim.KeyState{hash(lk, 10, "count", "1", "owner", "t2")}, "token-count/acquire",
			[]string{lk}, []string{"t1", "3000", "1"}, sReply("BUSY"),
			[]sim.KeyState{hash(lk, 10, "count", "1", "owner", "t2")}},
		{"token-count nested acquire held by another is BUSY", []sim.KeyState{hash(lk, 10, "count", "1", "owner", "t2")}, "token-count/acquire",
			[]string{lk}, []string{"t1", "3000", "0"}, sReply("BUSY"),
			[]sim.KeyState{hash(lk, 10, "count", "1", "owner", "t2")}},
		// token-count/release
		{"token-count release on a missing key", nil, "token-count/release",
			[]string{lk}, []string{"t1"}, sReply("NOT_OWNER"), []sim.KeyState{absent(lk)}},
		{"token-count release by another token", []sim.KeyState{hash(lk, 10, "count", "1", "owner", "t2")}, "token-count/release",
			[]string{lk}, []string{"t1"}, sReply("NOT_OWNER"), []sim.KeyState{hash(lk, 10, "count", "1", "owner", "t2")}},
		{"token-count partial release keeps the lease", []sim.KeyState{hash(lk, 10, "count", "2", "owner", "t1")}, "token-count/release",
			[]string{lk}, []string{"t1"}, sReply("STILL_HELD"), []sim.KeyState{hash(lk, 10, "count", "1", "owner", "t1")}},
		{"token-count last release deletes", []sim.KeyState{hash(lk, 10, "count", "1", "owner", "t1")}, "token-count/release",
			[]string{lk}, []string{"t1"}, sReply("RELEASED"), []sim.KeyState{absent(lk)}},
		// hash-refresh/acquire
		{"hash-refresh acquire free", nil, "hash-refresh/acquire",
			[]string{lk}, []string{"req-1", "3000"}, iReply(1), []sim.KeyState{hash(lk, 3000, "req-1", "1")}},
		{"hash-refresh reentry renews", []sim.KeyState{hash(lk, 10, "req-1", "1")}, "hash-refresh/acquire",
			[]string{lk}, []string{"req-1", "3000"}, iReply(1), []sim.KeyState{hash(lk, 3000, "req-1", "2")}},
		{"hash-refresh busy", []sim.KeyState{hash(lk, 10, "req-2", "1")}, "hash-refresh/acquire",
			[]string{lk}, []string{"req-1", "3000"}, iReply(0), []sim.KeyState{hash(lk, 10, "req-2", "1")}},
		// hash-refresh/release
		{"hash-refresh release on a missing key", nil, "hash-refresh/release",
			[]string{lk}, []string{"req-1", "3000"}, iReply(0), []sim.KeyState{absent(lk)}},
		{"hash-refresh release by another owner", []sim.KeyState{hash(lk, 10, "req-2", "1")}, "hash-refresh/release",
			[]string{lk}, []string{"req-1", "3000"}, iReply(0), []sim.KeyState{hash(lk, 10, "req-2", "1")}},
		{"hash-refresh partial release renews", []sim.KeyState{hash(lk, 10, "req-1", "2")}, "hash-refresh/release",
			[]string{lk}, []string{"req-1", "3000"}, iReply(1), []sim.KeyState{hash(lk, 3000, "req-1", "1")}},
		{"hash-refresh last release deletes", []sim.KeyState{hash(lk, 10, "req-1", "1")}, "hash-refresh/release",
			[]string{lk}, []string{"req-1", "3000"}, iReply(1), []sim.KeyState{absent(lk)}},
		// hash-nil/acquire
		{"hash-nil acquire free", nil, "hash-nil/acquire",
			[]string{lk}, []string{"t1", "3000"}, iReply(1), []sim.KeyState{hash(lk, 3000, "t1", "1")}},
		{"hash-nil reentry renews", []sim.KeyState{hash(lk, 10, "t1", "2")}, "hash-nil/acquire",
			[]string{lk}, []string{"t1", "3000"}, iReply(1), []sim.KeyState{hash(lk, 3000, "t1", "3")}},
		{"hash-nil busy", []sim.KeyState{hash(lk, 10, "t2", "1")}, "hash-nil/acquire",
			[]string{lk}, []string{"t1", "3000"}, iReply(0), []sim.KeyState{hash(lk, 10, "t2", "1")}},
		// hash-nil/release
		{"hash-nil release on a missing key is nil", nil, "hash-nil/release",
			[]string{lk}, []string{"t1"}, nReply, []sim.KeyState{absent(lk)}},
		{"hash-nil release by another token is nil", []sim.KeyState{hash(lk, 10, "t2", "1")}, "hash-nil/release",
			[]string{lk}, []string{"t1"}, nReply, []sim.KeyState{hash(lk, 10, "t2", "1")}},
		{"hash-nil partial release keeps the lease", []sim.KeyState{hash(lk, 10, "t1", "2")}, "hash-nil/release",
			[]string{lk}, []string{"t1"}, iReply(0), []sim.KeyState{hash(lk, 10, "t1", "1")}},
		{"hash-nil last release deletes", []sim.KeyState{hash(lk, 10, "t1", "1")}, "hash-nil/release",
			[]string{lk}, []string{"t1"}, iReply(1), []sim.KeyState{absent(lk)}},
		// local-count/acquire
		{"local-count acquire free", nil, "local-count/acquire",
			[]string{lk}, []string{"t1", "3000"}, sReply("OK"), []sim.KeyState{str(lk, 3000, "t1")}},
		{"local-count acquire taken by another", []sim.KeyState{str(lk, 10, "t2")}, "local-count/acquire",
			[]string{lk}, []string{"t1", "3000"}, nReply, []sim.KeyState{str(lk, 10, "t2")}},
		{"local-count acquire taken by itself is still nil (not reentrant)", []sim.KeyState{str(lk, 10, "t1")}, "local-count/acquire",
			[]string{lk}, []string{"t1", "3000"}, nReply, []sim.KeyState{str(lk, 10, "t1")}},
		// local-count/release
		{"local-count release own", []sim.KeyState{str(lk, 10, "t1")}, "local-count/release",
			[]string{lk}, []string{"t1"}, iReply(1), []sim.KeyState{absent(lk)}},
		{"local-count release another's", []sim.KeyState{str(lk, 10, "t2")}, "local-count/release",
			[]string{lk}, []string{"t1"}, iReply(0), []sim.KeyState{str(lk, 10, "t2")}},
		{"local-count release missing", nil, "local-count/release",
			[]string{lk}, []string{"t1"}, iReply(0), []sim.KeyState{absent(lk)}},
		// setnx-del/acquire and get-then-del/acquire (SET NX PX)
		{"setnx-del acquire free", nil, "setnx-del/acquire",
			[]string{lk}, []string{"t1", "3000"}, sReply("OK"), []sim.KeyState{str(lk, 3000, "t1")}},
		{"setnx-del acquire taken by another", []sim.KeyState{str(lk, 10, "t2")}, "setnx-del/acquire",
			[]string{lk}, []string{"t1", "3000"}, nReply, []sim.KeyState{str(lk, 10, "t2")}},
		{"setnx-del nested acquire is refused by its own key", []sim.KeyState{str(lk, 10, "t1")}, "setnx-del/acquire",
			[]string{lk}, []string{"t1", "3000"}, nReply, []sim.KeyState{str(lk, 10, "t1")}},
		{"get-then-del acquire free", nil, "get-then-del/acquire",
			[]string{lk}, []string{"t1", "3000"}, sReply("OK"), []sim.KeyState{str(lk, 3000, "t1")}},
		{"get-then-del acquire taken", []sim.KeyState{str(lk, 10, "t1")}, "get-then-del/acquire",
			[]string{lk}, []string{"t1", "3000"}, nReply, []sim.KeyState{str(lk, 10, "t1")}},
		// setnx-del/release: DEL, no owner check
		{"setnx-del release deletes anyone's lock", []sim.KeyState{str(lk, 10, "t2")}, "setnx-del/release",
			[]string{lk}, nil, iReply(1), []sim.KeyState{absent(lk)}},
		{"setnx-del release on a missing key", nil, "setnx-del/release",
			[]string{lk}, nil, iReply(0), []sim.KeyState{absent(lk)}},
		// get-then-del/check and /delete
		{"get-then-del check reads the owner", []sim.KeyState{str(lk, 10, "t2")}, "get-then-del/check",
			[]string{lk}, nil, sReply("t2"), []sim.KeyState{str(lk, 10, "t2")}},
		{"get-then-del check on a missing key is nil", nil, "get-then-del/check",
			[]string{lk}, nil, nReply, []sim.KeyState{absent(lk)}},
		{"get-then-del delete removes whoever holds it", []sim.KeyState{str(lk, 10, "t2")}, "get-then-del/delete",
			[]string{lk}, nil, iReply(1), []sim.KeyState{absent(lk)}},
		{"get-then-del delete on a missing key", nil, "get-then-del/delete",
			[]string{lk}, nil, iReply(0), []sim.KeyState{absent(lk)}},
		// watchdog/acquire: args lease, holder; nil on success, the PTTL when busy
		{"watchdog acquire free", nil, "watchdog/acquire",
			[]string{lk}, []string{"3000", "proc-A:A"}, nReply, []sim.KeyState{hash(lk, 3000, "proc-A:A", "1")}},
		{"watchdog reentry renews", []sim.KeyState{hash(lk, 10, "proc-A:A", "1")}, "watchdog/acquire",
			[]string{lk}, []string{"3000", "proc-A:A"}, nReply, []sim.KeyState{hash(lk, 3000, "proc-A:A", "2")}},
		{"watchdog busy answers the PTTL", []sim.KeyState{hash(lk, 1234, "proc-B:B", "1")}, "watchdog/acquire",
			[]string{lk}, []string{"3000", "proc-A:A"}, iReply(1234), []sim.KeyState{hash(lk, 1234, "proc-B:B", "1")}},
		// watchdog/renew
		{"watchdog renew own hold", []sim.KeyState{hash(lk, 10, "proc-A:A", "2")}, "watchdog/renew",
			[]string{lk}, []string{"3000", "proc-A:A"}, iReply(1), []sim.KeyState{hash(lk, 3000, "proc-A:A", "2")}},
		{"watchdog renew someone else's hold", []sim.KeyState{hash(lk, 10, "proc-B:B", "1")}, "watchdog/renew",
			[]string{lk}, []string{"3000", "proc-A:A"}, iReply(0), []sim.KeyState{hash(lk, 10, "proc-B:B", "1")}},
		{"watchdog renew a missing lock", nil, "watchdog/renew",
			[]string{lk}, []string{"3000", "proc-A:A"}, iReply(0), []sim.KeyState{absent(lk)}},
		// watchdog/release: KEYS[2] is a channel, never a key
		{"watchdog release by a stranger is nil", []sim.KeyState{hash(lk, 10, "proc-B:B", "1")}, "watchdog/release",
			[]string{lk, ck}, []string{"3000", "proc-A:A"}, nReply, []sim.KeyState{hash(lk, 10, "proc-B:B", "1"), absent(ck)}},
		{"watchdog partial release renews", []sim.KeyState{hash(lk, 10, "proc-A:A", "2")}, "watchdog/release",
			[]string{lk, ck}, []string{"3000", "proc-A:A"}, iReply(0), []sim.KeyState{hash(lk, 3000, "proc-A:A", "1"), absent(ck)}},
		{"watchdog last release deletes and publishes to no key", []sim.KeyState{hash(lk, 10, "proc-A:A", "1")}, "watchdog/release",
			[]string{lk, ck}, []string{"3000", "proc-A:A"}, iReply(1), []sim.KeyState{absent(lk), absent(ck)}},
		// idempotent-unlock/release: one latch key per unlock call
		{"idempotent unlock, first call, still held", []sim.KeyState{hash(lk, 10, "count", "2", "owner", "t1")}, "idempotent-unlock/release",
			[]string{lk, uk + ":u1"}, []string{"t1", "u1", "3000"}, sReply("STILL_HELD"),
			[]sim.KeyState{hash(lk, 10, "count", "1", "owner", "t1"), str(uk+":u1", 3000, "STILL_HELD")}},
		{"idempotent unlock, a retry gets the first answer and changes nothing", []sim.KeyState{hash(lk, 10, "count", "1", "owner", "t1"), str(uk+":u1", 500, "STILL_HELD")}, "idempotent-unlock/release",
			[]string{lk, uk + ":u1"}, []string{"t1", "u1", "3000"}, sReply("STILL_HELD"),
			[]sim.KeyState{hash(lk, 10, "count", "1", "owner", "t1"), str(uk+":u1", 500, "STILL_HELD")}},
		{"idempotent unlock, a new call releases and leaves the other latch alone", []sim.KeyState{hash(lk, 10, "count", "1", "owner", "t1"), str(uk+":u1", 500, "STILL_HELD")}, "idempotent-unlock/release",
			[]string{lk, uk + ":u2"}, []string{"t1", "u2", "3000"}, sReply("RELEASED"),
			[]sim.KeyState{absent(lk), str(uk+":u2", 3000, "RELEASED")}},
		{"idempotent unlock by another token is latched as NOT_OWNER", []sim.KeyState{hash(lk, 10, "count", "1", "owner", "t2")}, "idempotent-unlock/release",
			[]string{lk, uk + ":u1"}, []string{"t1", "u1", "3000"}, sReply("NOT_OWNER"),
			[]sim.KeyState{hash(lk, 10, "count", "1", "owner", "t2"), str(uk+":u1", 3000, "NOT_OWNER")}},
		{"idempotent unlock on a missing lock", nil, "idempotent-unlock/release",
			[]string{lk, uk + ":u1"}, []string{"t1", "u1", "3000"}, sReply("NOT_OWNER"),
			[]sim.KeyState{absent(lk), str(uk+":u1", 3000, "NOT_OWNER")}},
		// resource/write
		{"write to a new resource", nil, "resource/write",
			[]string{rk}, []string{"paid", "A", "90000"}, iReply(1), []sim.KeyState{hash(rk, 90000, "value", "paid", "writer", "A")}},
		{"write over an old value renews the TTL", []sim.KeyState{hash(rk, 5, "value", "paid", "writer", "A")}, "resource/write",
			[]string{rk}, []string{"shipped", "B", "90000"}, iReply(1), []sim.KeyState{hash(rk, 90000, "value", "shipped", "writer", "B")}},
		// resource/write_fenced
		{"fenced write to a new resource with token 0", nil, "resource/write_fenced",
			[]string{rk}, []string{"paid", "A", "0", "90000"}, iReply(1), []sim.KeyState{hash(rk, 90000, "fence", "0", "value", "paid", "writer", "A")}},
		{"fenced write with a higher token", []sim.KeyState{hash(rk, 5, "fence", "1", "value", "paid", "writer", "A")}, "resource/write_fenced",
			[]string{rk}, []string{"shipped", "B", "2", "90000"}, iReply(1), []sim.KeyState{hash(rk, 90000, "fence", "2", "value", "shipped", "writer", "B")}},
		{"fenced write with an equal token", []sim.KeyState{hash(rk, 5, "fence", "2", "value", "paid", "writer", "A")}, "resource/write_fenced",
			[]string{rk}, []string{"shipped", "B", "2", "90000"}, iReply(1), []sim.KeyState{hash(rk, 90000, "fence", "2", "value", "shipped", "writer", "B")}},
		{"fenced write with a lower token is rejected", []sim.KeyState{hash(rk, 5, "fence", "2", "value", "shipped", "writer", "B")}, "resource/write_fenced",
			[]string{rk}, []string{"paid", "A", "1", "90000"}, iReply(0), []sim.KeyState{hash(rk, 5, "fence", "2", "value", "shipped", "writer", "B")}},
		{"fenced write without a token after a fenced one is rejected", []sim.KeyState{hash(rk, 5, "fence", "1", "value", "shipped", "writer", "B")}, "resource/write_fenced",
			[]string{rk}, []string{"paid", "A", "0", "90000"}, iReply(0), []sim.KeyState{hash(rk, 5, "fence", "1", "value", "shipped", "writer", "B")}},
		{"fenced write after an unfenced write treats the missing fence as 0", []sim.KeyState{hash(rk, 5, "value", "paid", "writer", "A")}, "resource/write_fenced",
			[]string{rk}, []string{"shipped", "B", "0", "90000"}, iReply(1), []sim.KeyState{hash(rk, 90000, "fence", "0", "value", "shipped", "writer", "B")}},
		// resource/check and resource/write_unchecked (a check and a write in two round trips)
		{"check of a new resource answers 0", nil, "resource/check",
			[]string{rk}, nil, iReply(0), []sim.KeyState{absent(rk)}},
		{"check answers the highest token and changes nothing", []sim.KeyState{hash(rk, 5, "fence", "3", "value", "shipped", "writer", "B")}, "resource/check",
			[]string{rk}, nil, iReply(3), []sim.KeyState{hash(rk, 5, "fence", "3", "value", "shipped", "writer", "B")}},
		{"unchecked write with a lower token lands and moves the fence back", []sim.KeyState{hash(rk, 5, "fence", "3", "value", "shipped", "writer", "B")}, "resource/write_unchecked",
			[]string{rk}, []string{"refunded", "A", "2", "90000"}, iReply(1), []sim.KeyState{hash(rk, 90000, "fence", "2", "value", "refunded", "writer", "A")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := refmodel.New()
			for _, k := range tt.before {
				s.Put(k)
			}
			var read []sim.KeyRef
			for _, k := range tt.keys {
				typ := sim.TypeHash
				plain := strings.HasPrefix(tt.script, "local-count/") || strings.HasPrefix(tt.script, "setnx-del/") || strings.HasPrefix(tt.script, "get-then-del/")
				if (k == lk && plain) || k == fk || strings.HasPrefix(k, uk+":") {
					typ = sim.TypeString
				}
				read = append(read, sim.KeyRef{Name: k, Type: typ})
			}
			res, err := s.Exec(context.Background(), &sim.Batch{
				Calls: []sim.Call{{Script: sim.ScriptByName(tt.script), Keys: tt.keys, Args: tt.args}},
				Read:  read,
			})
			if err != nil {
				t.Fatalf("Exec: %v", err)
			}
			if !reflect.DeepEqual(res.Replies, []sim.Reply{tt.reply}) {
				t.Errorf("reply %v, want %v", res.Replies, tt.reply)
			}
			if !reflect.DeepEqual(res.Keys, tt.after) {
				t.Errorf("keys after:\n got %+v\nwant %+v", res.Keys, tt.after)
			}
		})
	}
}

// TestRequiredVariantsAreModeled keeps the model in step with sim/lua: every
// script of every variant (the required ones, and any in sim.Variants()) has a
// Go model, and the model knows no script that does not exist.
func TestRequiredVariantsAreModeled(t *testing.T) {
	for _, name := range requiredVariants {
		info, ok := sim.Variant(name)
		if !ok {
			t.Errorf("variant %s is gone from sim.Variants()", name)
			continue
		}
		for _, sc := range info.Scripts {
			if !slices.Contains(refmodel.Scripts(), sc.Name) {
				t.Errorf("variant %s: script %s has no model", name, sc.Name)
			}
		}
	}
	var all []string
	for _, sc := range sim.AllScripts() {
		all = append(all, sc.Name)
	}
	for _, m := range refmodel.Scripts() {
		if !slices.Contains(all, m) {
			t.Errorf("model for %s, but sim has no such script", m)
		}
	}
	for _, n := range all {
		if !slices.Contains(refmodel.Scripts(), n) {
			t.Logf("script %s has no model yet; its variants are not compared", n)
		}
	}
	for _, name := range sim.Variants() {
		if !slices.Contains(modeledVariants(), name) {
			t.Errorf("variant %s has scripts the model lacks: TestModelMatchesBackends does not generate it", name)
		}
	}
}

// TestAdvanceExpires checks the clock: TTLs drop by whole milliseconds, a key
// at exactly 0 is gone, a key without a TTL stays.
func TestAdvanceExpires(t *testing.T) {
	ctx := context.Background()
	s := refmodel.New()
	s.Put(hash("a", 100, "f", "1"))
	s.Put(str("b", 250, "x"))
	s.Put(str("forever", -1, "y"))
	if err := s.Advance(ctx, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if got := s.Get("a"); got.Exists() {
		t.Errorf("a at PTTL 0 still there: %+v", got)
	}
	if got := s.Get("b"); got.PTTL != 150 {
		t.Errorf("b PTTL %d, want 150", got.PTTL)
	}
	if err := s.Advance(ctx, 149*time.Millisecond+999*time.Microsecond); err != nil {
		t.Fatal(err)
	}
	if got := s.Get("b"); got.PTTL != 1 {
		t.Errorf("b PTTL %d after 149.999ms, want 1 (whole milliseconds)", got.PTTL)
	}
	if err := s.Advance(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	if got := s.Names(); !slices.Equal(got, []string{"forever"}) {
		t.Errorf("keys after an hour %v, want [forever]", got)
	}
	if got := s.Get("forever"); got.PTTL != -1 {
		t.Errorf("forever PTTL %d, want -1", got.PTTL)
	}
}

// TestExecReads checks Exec's reads and batch rules: absent keys, sorted
// hash fields, WRONGTYPE reads, calls in order within one batch, errors as
// replies, unknown scripts and a done context as errors.
func TestExecReads(t *testing.T) {
	ctx := context.Background()
	s := refmodel.New()
	s.Put(hash(lk, 700, "zeta", "1", "alpha", "2", "mid", "3"))
	res, err := s.Exec(ctx, &sim.Batch{
		Prior: []sim.KeyState{hash(lk, 1, "ignored", "1")}, // the model ignores Prior
		Read:  []sim.KeyRef{{Name: lk, Type: sim.TypeHash}, {Name: "nothing", Type: sim.TypeString}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []sim.KeyState{hash(lk, 700, "alpha", "2", "mid", "3", "zeta", "1"), absent("nothing")}
	if !reflect.DeepEqual(res.Keys, want) || len(res.Replies) != 0 {
		t.Errorf("read %+v, want %+v", res, want)
	}

	if _, err := s.Exec(ctx, &sim.Batch{Read: []sim.KeyRef{{Name: lk, Type: sim.TypeString}}}); err == nil {
		t.Errorf("GET of a hash: no error")
	}

	// Two calls in one batch run in order: the second sees the first's hold.
	res, err = s.Exec(ctx, &sim.Batch{Calls: []sim.Call{
		{Script: sim.ScriptByName("hash-nil/acquire"), Keys: []string{"lock:M"}, Args: []string{"t1", "100"}},
		{Script: sim.ScriptByName("hash-nil/acquire"), Keys: []string{"lock:M"}, Args: []string{"t1", "200"}},
		{Script: sim.ScriptByName("local-count/release"), Keys: []string{"lock:M"}, Args: []string{"t1"}},
		{Script: sim.ScriptByName("hash-nil/release"), Keys: []string{"lock:M"}, Args: []string{"t1"}},
	}, Read: []sim.KeyRef{{Name: "lock:M", Type: sim.TypeHash}}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Replies[0].IsInt(1) || !res.Replies[1].IsInt(1) || !res.Replies[3].IsInt(0) {
		t.Errorf("replies %v, want 1, 1, (error), 0", res.Replies)
	}
	if res.Replies[2].Kind != sim.ReplyError {
		t.Errorf("GET on a hash inside a script: %v, want an error reply", res.Replies[2])
	}
	if want := hash("lock:M", 200, "t1", "1"); !reflect.DeepEqual(res.Keys[0], want) {
		t.Errorf("after the batch %+v, want %+v", res.Keys[0], want)
	}

	bad := []sim.Call{
		{Script: sim.ScriptByName("hash-nil/acquire"), Keys: []string{"lock:N"}, Args: []string{"t1", "soon"}},
		{Script: sim.ScriptByName("token-count/acquire"), Keys: []string{"lock:N"}, Args: []string{"t1"}},
	}
	res, err = s.Exec(ctx, &sim.Batch{Calls: bad, Read: []sim.KeyRef{{Name: "lock:N", Type: sim.TypeHash}}})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res.Replies {
		if r.Kind != sim.ReplyError {
			t.Errorf("malformed call %d: reply %v, want an error", i, r)
		}
	}
	if res.Keys[0].Exists() {
		t.Errorf("malformed calls changed lock:N: %+v", res.Keys[0])
	}

	if _, err := s.Exec(ctx, &sim.Batch{Calls: []sim.Call{{Script: &sim.Script{Name: "no/such"}}}}); err == nil {
		t.Errorf("unknown script: no error")
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Exec(done, &sim.Batch{}); err == nil {
		t.Errorf("done context: no error")
	}
}
