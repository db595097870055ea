package search

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"lockstep/sim"
)

// Every message is in every locale's file, and each renders.
func TestMessagesComplete(t *testing.T) {
	keys := map[sim.Locale][]string{}
	for _, l := range sim.Locales {
		src, err := os.ReadFile("../catalog/search." + string(l) + ".toml")
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]map[string]string
		if err := toml.Unmarshal(src, &m); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		keys[l] = slices.Sorted(maps.Keys(m))
	}
	for _, l := range sim.Locales[1:] {
		if !slices.Equal(keys[l], keys[sim.English]) {
			t.Errorf("%s has %v, en has %v", l, keys[l], keys[sim.English])
		}
	}
	msgs, err := NewMessages()
	if err != nil {
		t.Fatal(err)
	}
	data := map[string]any{"Invariant": "stale-write", "Steps": 5, "Search": "s", "Depth": 8, "Actors": 2, "Variant": "v",
		"File": "f", "Backend": "b", "Reached": 3, "States": 1, "Transitions": 2, "Calls": 3, "Time": "1s", "Complete": false, "Path": "p",
		"Version": "7.0.15", "Addr": "127.0.0.1:6379", "Cluster": true, "TLS": false}
	for _, l := range sim.Locales {
		for _, k := range keys[sim.English] {
			if s := msgs.Say(l, k, data); s == k || strings.Contains(s, "<no value>") {
				t.Errorf("%s %s: %q", l, k, s)
			}
		}
	}
	if got := msgs.Say(sim.English, "report-none", data); got != "stale-write: none within depth 8" {
		t.Errorf("report-none: %q (the spec's words)", got)
	}
	// A backend's name in the reader's language.
	for be, want := range map[*Backend]map[sim.Locale]string{
		Embedded(): {sim.English: "embedded Redis (miniredis)", "zh-CN": "内嵌 Redis（miniredis）"},
		Model():    {sim.English: "reference model (sim/refmodel)", "zh-TW": "參考模型（sim/refmodel）"},
	} {
		for l, w := range want {
			if got := msgs.Narration(be.Msg).In(l); got != w {
				t.Errorf("%s in %s: %q, want %q", be.Name, l, got, w)
			}
		}
	}
	if got := msgs.Say(sim.English, "backend-redis", data); got != "Redis 7.0.15 at 127.0.0.1:6379 (cluster)" {
		t.Errorf("backend-redis: %q, want backend.Info's own words", got)
	}
}
