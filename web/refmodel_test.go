package web

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"lockstep/backend"
	"lockstep/explore"
	"lockstep/sim"
	"lockstep/sim/refmodel"
	"lockstep/view"
)

// refmodelBackend serves the player on sim/refmodel's pure-Go model of
// Redis: a Backend needs a store per run and a description, nothing of
// package backend.
type refmodelBackend struct{}

func (refmodelBackend) OpenStore() (sim.Store, func(context.Context) error, error) {
	return refmodel.Open()
}

func (refmodelBackend) Info() backend.Info { return backend.Info{Version: "refmodel"} }

// A lesson served through web on the reference model gives, message by
// message, the frames of the embedded backend, and its deep-linked page is
// drawn from the model's run.
func TestServeLessonOnRefmodel(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{Backend: refmodelBackend{}})
	l := srv.byID["stale-owner"]
	want := expectedFrames(t, l)

	if w := serveGet(srv, "/lessons/stale-owner?step=3"); w.Code != http.StatusOK {
		t.Fatalf("player page: status %d", w.Code)
	}
	if p := srv.prerender(context.Background(), tr(sim.English), explore.Course(l), 3); p[view.PanelRedis] == "" {
		t.Fatal("the player page's panels are not drawn on the reference model")
	}

	c := dial(t, hs, nil)
	if h := c.expect(MsgHello); h.Backend.Version != "refmodel" {
		t.Fatalf("hello names backend %+v", h.Backend)
	}
	c.send(map[string]any{"type": MsgLoad, "lesson": l.ID})
	for i := range want {
		if i > 0 {
			c.send(map[string]any{"type": MsgStep})
		}
		m := c.expect(MsgFrame)
		if m.Step != i {
			t.Fatalf("frame of step %d, want %d", m.Step, i)
		}
		if got, exp := jsonValue(t, m.Frame), jsonValue(t, want[i]); !reflect.DeepEqual(got, exp) {
			t.Fatalf("step %d: the reference model's frame differs from the embedded backend's:\n got %v\nwant %v", i, got, exp)
		}
	}
}

// jsonValue is v's JSON as encoding/json decodes it into an any.
func jsonValue(t *testing.T, v any) any {
	t.Helper()
	b, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if b, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
