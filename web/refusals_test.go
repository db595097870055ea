package web

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"lockstep/backend"
	"lockstep/catalog"
	"lockstep/explore"
	"lockstep/internal/redistest"
	"lockstep/sim"
)

// renewalFlood is a timeline whose second step would renew a 30 ms
// watchdog lease every 10 ms for 7 days (hardening finding 2).
const renewalFlood = "title: renewal flood\nvariant: watchdog\nlease: 30ms\nlock: order:42\nactors:\n  - id: A\nsteps:\n  - actor: A\n    do: acquire\n  - do: advance\n    by: 168h\n"

// compareError is the error a compare page shows.
func compareError(t *testing.T, body string) string {
	t.Helper()
	return textsOf(t, body, "p", "div")
}

// TestStepTooLargeReachesThePage: a step refused by the renewal bound
// (sim.LimitError) reaches the page in its language, naming the limit, as
// an error of code step-too-large (not "redis"), and the export and
// compare of the timeline say the same.
func TestStepTooLargeReachesThePage(t *testing.T) {
	t.Parallel()
	le, code := renewalFloodCode(t)
	_, hs := newTestHTTP(t, Config{})
	reason := func(loc sim.Locale) string {
		return tr(loc).Msg(le.Message())
	}
	for _, loc := range sim.Locales {
		if r := reason(loc); !strings.Contains(r, "1000") || strings.Contains(r, "limit.") {
			t.Fatalf("%s: reason %q does not name the limit", loc, r)
		}
	}
	c := dial(t, hs, nil)
	c.expect(MsgHello)
	c.send(ClientMessage{Type: MsgLoad, Timeline: code, Lang: "zh-CN"})
	c.expect(MsgFrame)
	c.send(ClientMessage{Type: MsgStep, ID: 1})
	c.expect(MsgFrame)
	c.send(ClientMessage{Type: MsgStep, ID: 2})
	m := c.expect(MsgError)
	want := tr(sim.SimplifiedChinese).T("StepRefused", "Step", 2, "Reason", reason(sim.SimplifiedChinese))
	if m.Code != ErrCodeStepTooLarge || m.Re != 2 || m.Message != want {
		t.Fatalf("refused step: %+v, want code %s message %q", m, ErrCodeStepTooLarge, want)
	}
	if f := c.expect(MsgFrame); f.Step != 1 || f.Re != 2 {
		t.Fatalf("after the refusal the run is at step %d (re %d), want 1", f.Step, f.Re)
	}

	resp, body := get(t, hs.URL+"/explore/export.svg?lang=zh-TW&t="+code, nil)
	if want := tr(sim.TraditionalChinese).T("TimelineRefused", "Reason", reason(sim.TraditionalChinese)); resp.StatusCode != http.StatusUnprocessableEntity || strings.TrimSpace(body) != want {
		t.Errorf("export: %d %q, want 422 %q", resp.StatusCode, body, want)
	}
	resp, body = get(t, hs.URL+"/explore/compare?lang=en&b=token-count&t="+code, nil)
	if want := tr(sim.English).T("TimelineRefused", "Reason", reason(sim.English)); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(compareError(t, body), want) {
		t.Errorf("compare: %d, page does not say %q:\n%s", resp.StatusCode, want, compareError(t, body))
	}
}

// TestACLRefusalReachesThePage: on a real Redis whose ACL refuses TIME to
// Lockstep's user, a step's error (code redis-acl), the export and the
// compare name the command and the rule to add, in the page's language.
func TestACLRefusalReachesThePage(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	be, err := backend.Open(context.Background(), backend.Config{URL: rs.AddUser(t, "ls", "pw", append(strings.Fields(backend.ACLRules), "-time")...)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	_, hs := newTestHTTP(t, Config{Backend: RedisBackend(be)})
	// names says whether a message names the refused command, the user and
	// the rule to add, as backend.PermissionError's message does.
	names := func(msg string) bool {
		return strings.Contains(msg, "TIME") && strings.Contains(msg, "ACL SETUSER ls +time") && !strings.Contains(msg, catalog.Missing)
	}
	c := dial(t, hs, nil)
	c.expect(MsgHello)
	c.send(ClientMessage{Type: MsgLoad, Lesson: "nested-reentry", Lang: "zh-TW"})
	c.expect(MsgFrame)
	c.send(ClientMessage{Type: MsgStep, ID: 1})
	m := c.expect(MsgError)
	prefix, _, _ := strings.Cut(tr(sim.TraditionalChinese).T("StepRefused", "Step", 1, "Reason", "\x00"), "\x00")
	if m.Code != ErrCodeRedisACL || !strings.HasPrefix(m.Message, prefix) || !names(m.Message) {
		t.Fatalf("refused step: %+v, want code %s, a message in zh-TW naming the command and the rule", m, ErrCodeRedisACL)
	}
	c.expect(MsgFrame)

	resp, body := get(t, hs.URL+"/explore/export.mmd?lang=zh-CN&lesson=nested-reentry", nil)
	if prefix, _, _ := strings.Cut(tr(sim.SimplifiedChinese).T("TimelineRefused", "Reason", "\x00"), "\x00"); resp.StatusCode != http.StatusBadGateway || !strings.HasPrefix(strings.TrimSpace(body), prefix) || !names(body) {
		t.Errorf("export: %d %q, want 502 and the refusal in zh-CN", resp.StatusCode, body)
	}
	resp, body = get(t, hs.URL+"/explore/compare?lang=en&lesson=nested-reentry", nil)
	if msg := compareError(t, body); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(msg, "cannot run to its end") || !names(msg) {
		t.Errorf("compare: %d, page does not give the refusal:\n%s", resp.StatusCode, msg)
	}
}

// renewalFloodCode is the share code of the renewalFlood timeline and the
// error that refuses it, from a run of its own: what the bound says.
func renewalFloodCode(t *testing.T) (*sim.LimitError, string) {
	t.Helper()
	l, err := sim.Load("flood.yaml", []byte(renewalFlood))
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.NewRunner(l, mustStore(t))
	if err != nil {
		t.Fatal(err)
	}
	var le *sim.LimitError
	if _, err := r.Run(context.Background()); !errors.As(err, &le) {
		t.Fatalf("the timeline is not refused by a bound: %v", err)
	}
	code, err := explore.Encode(l, explore.Origin{}, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return le, code
}

// mustStore is a fresh embedded store, closed when the test ends.
func mustStore(t *testing.T) sim.Store {
	t.Helper()
	st, end, err := embedded(t).OpenStore()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = end(context.Background()) })
	return st
}
