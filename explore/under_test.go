package explore_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"lockstep/explore"
	"lockstep/internal/catalogtest"
	"lockstep/internal/lessontest"
	"lockstep/sim"
)

// mineVariant is a learner's lock: a plain SET NX, its release in a script
// file of its own.
const mineVariant = `name: mine
lock: {type: string}
owner: grant-token
reentry: none
acquire:
  source: return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
  keys: [lock]
  argv: [owner, lease_ms]
  replies: {OK: ACQUIRED, nil: BUSY}
release:
  script: r.lua
  keys: [lock]
  replies: {1: RELEASED, 0: NOT_OWNER}
`

func loadMine(t *testing.T, release string) (*sim.VariantDef, error) {
	t.Helper()
	return sim.LoadVariant("mine.variant.yaml", []byte(mineVariant), func(p string) ([]byte, error) {
		if p == "r.lua" {
			return []byte(release), nil
		}
		return nil, errors.New("no such file")
	})
}

// TestUnderRetellsWhenAnOutcomeDiffers: lesson 12 under hash-refresh
// differs first at step 6, so every step's narration, "why" question and
// misconception callout is dropped (steps 1-5 speak of a grant token that
// hash-refresh has not), with the takeaway; the title names the variant.
// Under its own variant nothing is dropped.
func TestUnderRetellsWhenAnOutcomeDiffers(t *testing.T) {
	t.Parallel()
	be := embedded(t)
	var l *sim.Lesson
	for _, c := range lessontest.Course(t) {
		if c.ID == "nested-after-expiry-lost" {
			l = c
		}
	}
	own := run(t, be, l)
	lv, err := explore.AsVariant(l, "hash-refresh")
	if err != nil {
		t.Fatal(err)
	}
	u, first := explore.Under(catalogtest.New(t), l, lv, run(t, be, lv), own)
	if first != 6 {
		t.Fatalf("first diff %d, want 6", first)
	}
	teaches := 0
	for _, st := range l.Steps {
		if st.Why != nil || st.Misconception != nil {
			teaches++
		}
	}
	if teaches == 0 {
		t.Fatal("lesson 12 has no why question or misconception callout to drop")
	}
	for i, st := range u.Steps {
		if st.Say != nil || st.Why != nil || st.Because != nil || st.Misconception != nil {
			t.Errorf("step %d: kept say %v, why %v, because %v, misconception %v", i+1, st.Say != nil, st.Why != nil, st.Because != nil, st.Misconception != nil)
		}
	}
	if u.Takeaway != nil || !strings.Contains(u.Title.In(sim.English), "hash-refresh") || !strings.Contains(u.Summary.In(sim.English), "step 6") {
		t.Errorf("takeaway %v, title %q, summary %q", u.Takeaway, u.Title.In(sim.English), u.Summary.In(sim.English))
	}
	same, _ := explore.AsVariant(l, l.Variant)
	if u2, first := explore.Under(catalogtest.New(t), l, same, own, own); first != 0 || slices.IndexFunc(u2.Steps, func(s sim.Step) bool { return len(s.Say) == 0 }) >= 0 {
		t.Error("under its own variant a lesson keeps its narration")
	}
	if explore.FirstDiff(own, own[:3]) != 3 {
		t.Error("a shorter run differs at its end")
	}
}

// TestShareCarriesOwnLock: a sandbox under a learner's lock shares with
// its files and decodes to the same lock (its own kind, the same frames);
// a link whose script does not compile is refused with the script's line.
func TestShareCarriesOwnLock(t *testing.T) {
	t.Parallel()
	def, err := loadMine(t, "return redis.call('DEL', KEYS[1])\n")
	if err != nil {
		t.Fatal(err)
	}
	sb, err := explore.Sandbox(catalogtest.New(t), explore.SandboxConfig{Def: def, LeaseMS: 5000, Actors: 2})
	if err != nil {
		t.Fatal(err)
	}
	l, err := explore.Fork(sb, 0, sim.Step{Actor: "A", Do: sim.ActAcquire, Lock: sb.Lock})
	if err != nil {
		t.Fatal(err)
	}
	code, err := explore.Encode(l, explore.Origin{}, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	back, o, err := explore.Decode(code, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if explore.Shared(back, o).Kind != explore.KindOwnLock || back.Variant != "mine" || back.VariantDef.Texts["r.lua"] != def.Texts["r.lua"] {
		t.Fatalf("decoded %s under %s", explore.Shared(back, o).Kind, back.Variant)
	}
	be := embedded(t)
	a, b := run(t, be, l), run(t, be, back)
	if len(a) != len(b) || a[1].Outcome != sim.Acquired || b[1].Outcome != a[1].Outcome {
		t.Fatalf("frames differ: %v / %v", a[1].Outcome, b[1].Outcome)
	}
	// The same link with a release that does not compile.
	bad := *def
	bad.Texts = map[string]string{"mine.variant.yaml": def.Texts["mine.variant.yaml"], "r.lua": "if then\n"}
	badLesson := *l
	badLesson.VariantDef = &bad
	badCode, err := explore.Encode(&badLesson, explore.Origin{}, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = explore.Decode(badCode, sim.Options{})
	var le *explore.LinkError
	if !errors.As(err, &le) || le.Problem != explore.LinkRules || len(le.Problems) == 0 || le.Problems[0].File != "r.lua" || le.Problems[0].Pos.Line != 1 {
		t.Fatalf("a link with a broken script: %v", err)
	}
}
