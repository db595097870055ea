// Package drill generates drills: short random timelines (2 or 3 actors, one
// lock, 5 to 8 steps) on which a learner predicts each reply of Redis.
//
// A drill is a function of its level and its seed alone, so it can be shared
// by its id ("drill-leases-42"). Generate draws the timeline with a PCG
// generator seeded by the seed, then runs it once on an embedded Redis to
// learn what every step comes to: the outcomes become the steps' expect and
// the narration (in every locale) says why each came out as it did. Nothing
// is guessed, so a drill played on any backend shows "as expected" at every
// step, and the package's property test checks exactly that on the embedded
// backend and on a real redis-server.
package drill

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"lockstep/backend"
	"lockstep/sim"
)

// Level is a kind of drill: the lock variant it runs and the actions its
// steps draw from.
type Level struct {
	// ID names the level in drill ids and URLs: [a-z]+.
	ID string
	// Title and Summary describe the level on the drills page: messages
	// "drill.level.<ID>.title" and ".summary" of the catalogue.
	Title   sim.Msg
	Summary sim.Msg
	Variant string
	Fencing bool
	// Instance, when set, puts every actor in this one process (the mistake
	// of the instance-owner variant needs two requests in one instance).
	Instance string
	// Actions are the actions the steps draw from.
	Actions []sim.Action
}

// Levels are the drill levels, from the easiest.
var Levels = []Level{
	{
		ID:      "reentry",
		Title:   sim.M("drill.level.reentry.title"),
		Summary: sim.M("drill.level.reentry.summary"),
		Variant: "token-count",
		Actions: []sim.Action{sim.ActAcquire, sim.ActRelease},
	},
	{
		ID:      "leases",
		Title:   sim.M("drill.level.leases.title"),
		Summary: sim.M("drill.level.leases.summary"),
		Variant: "token-count",
		Fencing: true,
		Actions: []sim.Action{sim.ActAcquire, sim.ActRelease, sim.ActWrite, sim.ActAdvance, sim.ActPause, sim.ActResume},
	},
	{
		ID:       "owners",
		Title:    sim.M("drill.level.owners.title"),
		Summary:  sim.M("drill.level.owners.summary"),
		Variant:  "instance-owner",
		Instance: "svc-1",
		Actions:  []sim.Action{sim.ActAcquire, sim.ActRelease, sim.ActWrite, sim.ActAdvance},
	},
	{
		ID:      "setnx",
		Title:   sim.M("drill.level.setnx.title"),
		Summary: sim.M("drill.level.setnx.summary"),
		Variant: "setnx-del",
		Actions: []sim.Action{sim.ActAcquire, sim.ActRelease, sim.ActAdvance},
	},
}

// Lease is the lease of every drill's acquires.
const Lease = 10 * time.Second

// Lock is the lock every drill works on.
const Lock = "order:7"

// idPrefix starts every drill id.
const idPrefix = "drill-"

// MaxSeed bounds drill seeds, so an id stays short enough to read out.
const MaxSeed = 1<<32 - 1

// LevelByID returns the level with id, or false.
func LevelByID(id string) (Level, bool) {
	for _, l := range Levels {
		if l.ID == id {
			return l, true
		}
	}
	return Level{}, false
}

// ID is the lesson id of the drill of level with seed: "drill-<level>-<seed>".
func ID(level string, seed uint64) string {
	return idPrefix + level + "-" + strconv.FormatUint(seed, 10)
}

// ParseID reads a drill id; ok is false when id is not one of a known level
// with a seed in 0..MaxSeed.
func ParseID(id string) (level string, seed uint64, ok bool) {
	rest, found := strings.CutPrefix(id, idPrefix)
	if !found {
		return "", 0, false
	}
	i := strings.LastIndexByte(rest, '-')
	if i < 0 {
		return "", 0, false
	}
	level = rest[:i]
	seed, err := strconv.ParseUint(rest[i+1:], 10, 64)
	if err != nil || seed > MaxSeed || strconv.FormatUint(seed, 10) != rest[i+1:] {
		return "", 0, false
	}
	if _, known := LevelByID(level); !known {
		return "", 0, false
	}
	return level, seed, true
}

// ErrUnknownLevel is returned by Generate for a level not in Levels.
var ErrUnknownLevel = errors.New("drill: unknown level")

// Generate returns the drill of level with seed: a lesson that sim.Validate
// accepts, whose every step that has an outcome expects the outcome the
// runner gives it, with its title, actor names and narration rendered by r
// (the message catalogue) in every locale of r. The same level and seed
// always give the same lesson.
func Generate(ctx context.Context, r sim.Renderer, level string, seed uint64) (*sim.Lesson, error) {
	lv, ok := LevelByID(level)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownLevel, level)
	}
	if seed > MaxSeed {
		return nil, fmt.Errorf("drill: seed %d over %d", seed, uint64(MaxSeed))
	}
	l := Timeline(r, lv, seed)
	if err := (sim.Options{Locales: r.Locales()}).Validate(l); err != nil {
		return nil, fmt.Errorf("drill: %s: generated an invalid lesson: %w", l.ID, err)
	}
	frames, err := run(ctx, l)
	if err != nil {
		return nil, err
	}
	narrate(r, l, frames)
	return l, nil
}

// embedded is the embedded backend every generation runs on (each run on a
// miniredis of its own).
var embedded = sync.OnceValues(func() (*backend.Backend, error) {
	return backend.Open(context.Background(), backend.Config{})
})

// run runs l once on a fresh embedded Redis and returns its frames.
func run(ctx context.Context, l *sim.Lesson) ([]sim.Frame, error) {
	be, err := embedded()
	if err != nil {
		return nil, fmt.Errorf("drill: embedded redis: %w", err)
	}
	open := func() (sim.Store, func(context.Context) error, error) {
		st, err := be.NewStore()
		if err != nil {
			return nil, nil, err
		}
		return st, st.Close, nil
	}
	frames, err := sim.RunFrames(ctx, l, open)
	if err != nil {
		return nil, fmt.Errorf("drill: %w", err)
	}
	return frames, nil
}

// Timeline draws the steps of the drill of lv with seed, before any run:
// no expectations and no narration yet (Generate adds both); its title and
// actor names are rendered by r.
func Timeline(r sim.Renderer, lv Level, seed uint64) *sim.Lesson {
	rng := rand.New(rand.NewPCG(seed, levelSalt(lv.ID)))
	id := ID(lv.ID, seed)
	l := &sim.Lesson{
		ID:      id,
		Title:   sim.TextOf(r, titleOf(lv, seed)),
		Summary: sim.TextOf(r, lv.Summary),
		Source:  "drill " + lv.ID + " #" + strconv.FormatUint(seed, 10),
		Variant: lv.Variant,
		Lease:   Lease,
		Fencing: lv.Fencing,
		Lock:    Lock,
		// Tokens come from the run's RNG: seeding it from the drill's seed
		// keeps them the same on every run of the drill.
		Seed: seed*2 + 1,
	}
	nActors := 2 + rng.IntN(2)
	for i := range nActors {
		a := string(rune('A' + i))
		l.Actors = append(l.Actors, sim.ActorSpec{ID: a, Instance: lv.Instance, Name: sim.TextOf(r, actorName(a))})
	}
	nSteps := 5 + rng.IntN(4)
	g := &gen{lv: lv, rng: rng, held: map[string]int{}, paused: map[string]bool{}}
	for _, a := range l.Actors {
		g.actors = append(g.actors, a.ID)
	}
	for i := range nSteps {
		st := g.next(i, nSteps)
		st.Pos = sim.Pos{Line: i + 1, Col: 1}
		st.ActorPos = st.Pos
		l.Steps = append(l.Steps, st)
	}
	return l
}

func levelSalt(id string) uint64 {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= 1099511628211
	}
	return h
}

// gen draws steps, tracking only what validity and interest need: who is
// paused (only resume may follow) and how deep each actor believes it holds
// (releases are drawn mostly for actors that hold something).
type gen struct {
	lv     Level
	rng    *rand.Rand
	actors []string
	held   map[string]int
	paused map[string]bool
}

func (g *gen) has(a sim.Action) bool { return slices.Contains(g.lv.Actions, a) }

func (g *gen) running() []string {
	var out []string
	for _, a := range g.actors {
		if !g.paused[a] {
			out = append(out, a)
		}
	}
	return out
}

func (g *gen) pick(from []string) string { return from[g.rng.IntN(len(from))] }

// next draws step i of n.
func (g *gen) next(i, n int) sim.Step {
	run := g.running()
	var pausedActors []string
	for _, a := range g.actors {
		if g.paused[a] {
			pausedActors = append(pausedActors, a)
		}
	}
	// The first step always takes the lock, so every drill starts with a hold.
	if i == 0 {
		a := g.pick(run)
		g.held[a]++
		return sim.Step{Actor: a, Do: sim.ActAcquire, Lock: Lock}
	}
	type choice struct {
		do     sim.Action
		weight int
	}
	var holders []string
	for _, a := range run {
		if g.held[a] > 0 {
			holders = append(holders, a)
		}
	}
	choices := []choice{{sim.ActAcquire, 5}}
	if g.has(sim.ActRelease) {
		w := 1
		if len(holders) > 0 {
			w = 5
		}
		choices = append(choices, choice{sim.ActRelease, w})
	}
	if g.has(sim.ActWrite) && len(holders) > 0 {
		choices = append(choices, choice{sim.ActWrite, 3})
	}
	if g.has(sim.ActAdvance) {
		w := 1
		if len(holders) > 0 || len(pausedActors) > 0 {
			w = 3
		}
		choices = append(choices, choice{sim.ActAdvance, w})
	}
	// A pause leaves at least one actor running and is drawn early enough
	// for its resume to follow.
	if g.has(sim.ActPause) && len(holders) > 0 && len(run) > 1 && i < n-2 {
		choices = append(choices, choice{sim.ActPause, 2})
	}
	if g.has(sim.ActResume) && len(pausedActors) > 0 {
		w := 2
		if i >= n-2 {
			w = 6
		}
		choices = append(choices, choice{sim.ActResume, w})
	}
	total := 0
	for _, c := range choices {
		total += c.weight
	}
	r := g.rng.IntN(total)
	do := choices[0].do
	for _, c := range choices {
		if r < c.weight {
			do = c.do
			break
		}
		r -= c.weight
	}
	st := sim.Step{Do: do, Lock: Lock}
	switch do {
	case sim.ActAcquire:
		st.Actor = g.pick(run)
		g.held[st.Actor]++
	case sim.ActRelease:
		from := holders
		if len(from) == 0 || g.rng.IntN(6) == 0 {
			from = run
		}
		st.Actor = g.pick(from)
		if g.held[st.Actor] > 0 {
			g.held[st.Actor]--
		}
	case sim.ActWrite:
		st.Actor = g.pick(holders)
		st.Value = []string{"paid", "packed", "shipped"}[g.rng.IntN(3)]
	case sim.ActAdvance:
		st.Lock = ""
		st.By = []time.Duration{3 * time.Second, 6 * time.Second, 8 * time.Second, 11 * time.Second}[g.rng.IntN(4)]
	case sim.ActPause:
		st.Actor = g.pick(holders)
		g.paused[st.Actor] = true
	case sim.ActResume:
		st.Actor = g.pick(pausedActors)
		g.paused[st.Actor] = false
	}
	return st
}

func titleOf(lv Level, seed uint64) sim.Msg {
	return sim.M("drill.title", "Level", lv.Title, "Seed", strconv.FormatUint(seed, 10))
}

func actorName(id string) sim.Msg { return sim.M("drill.actor", "Actor", id) }
