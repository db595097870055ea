package explore

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"lockstep/sim"
)

// FuzzDecode checks that Decode never panics, that every error wraps
// ErrBadLink, and that a code it accepts gives a valid lesson that shares
// again (Encode) and decodes to the same lesson and origin. Each input is
// tried twice: as a share code, and as the JSON inside one (packed here), so
// that the fuzzer also reaches the checks past zlib's checksum. Its seeds are
// the codes under testdata/fuzz/FuzzDecode (see TestFuzzCorpus), their JSON,
// and a few below.
func FuzzDecode(f *testing.F) {
	for _, code := range corpusLessons(f) {
		f.Add(code)
		f.Add(innerJSON(f, code))
	}
	f.Add("")
	f.Add("1.")
	f.Add("2.eNqrrgUAAXUA-Q")
	f.Add("1.eNqrrgUAAXUA-Q") // "{}"
	f.Add(`{"v":"token-count","l":1000,"k":"lock","a":[{"i":"A"}],"t":[{"a":"A","d":"crash"},{"a":"A","d":"acquire"}]}`)
	// A learner's own lock in the link (lk: its variant file and script).
	f.Add(`{"v":"mine","l":1000,"k":"lock","a":[{"i":"A"}],"t":[{"a":"A","d":"acquire"}],"lk":{"f":"m.variant.yaml","t":{"m.variant.yaml":"name: mine\nlock: {type: string}\nowner: grant-token\nreentry: none\nacquire:\n  source: return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])\n  keys: [lock]\n  argv: [owner, lease_ms]\n  replies: {OK: ACQUIRED, nil: BUSY}\nrelease:\n  script: r.lua\n  keys: [lock]\n  replies: {1: RELEASED, 0: NOT_OWNER}\n","r.lua":"return redis.call('DEL', KEYS[1])\n"}}}`)
	f.Fuzz(func(t *testing.T, s string) {
		checkDecode(t, s)
		checkDecode(t, "1."+base64.RawURLEncoding.EncodeToString(zlibOf(t, []byte(s))))
	})
}

func checkDecode(t *testing.T, code string) {
	l, o, err := Decode(code, sim.Options{})
	if err != nil {
		if !errors.Is(err, ErrBadLink) {
			t.Fatalf("Decode error %v does not wrap ErrBadLink", err)
		}
		// Every problem says itself in the reader's language too.
		var le *LinkError
		if !errors.As(err, &le) || le.Msg.ID == "" {
			t.Fatalf("Decode error %v has no message code", err)
		}
		for _, p := range le.Problems {
			if p.Problem.ID == "" || p.Pos != (sim.Pos{}) {
				t.Fatalf("problem %#v: want a message code and no position", p)
			}
		}
		return
	}
	if err := sim.Validate(l); err != nil {
		t.Fatalf("Decode gave an invalid lesson: %v", err)
	}
	again, err := Encode(l, o, sim.Options{})
	if err != nil {
		t.Fatalf("Encode of a decoded lesson: %v", err)
	}
	l2, o2, err := Decode(again, sim.Options{})
	if err != nil {
		t.Fatalf("Decode(Encode(Decode(code))): %v", err)
	}
	if !reflect.DeepEqual(l, l2) || o != o2 {
		t.Fatalf("lesson changed on re-sharing:\n got %#v %+v\nwant %#v %+v", l2, o2, l, o)
	}
}

// innerJSON returns the JSON a share code packs.
func innerJSON(t testing.TB, code string) string {
	t.Helper()
	packed, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(code, "1."))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zlib.NewReader(bytes.NewReader(packed))
	if err != nil {
		t.Fatal(err)
	}
	js, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(js)
}
