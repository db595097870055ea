package catalog_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/BurntSushi/toml"

	"lockstep/sim"
)

// busyWord is each "BUSY" with what follows or precedes it: Redis's BUSY
// error must read as an error ("BUSY error", "BUSY 错误", "BUSY 錯誤"), the
// acquire outcome as an outcome ("outcome BUSY", "结果 BUSY", "結果 BUSY").
var (
	busyWord  = regexp.MustCompile(`BUSY`)
	busyError = regexp.MustCompile(`BUSY( error| ?错误| ?錯誤)`)
	busyOut   = regexp.MustCompile(`(outcome |结果 ?|結果 ?)BUSY`)
)

// checkBusy fails the test when a BUSY of s names neither Redis's error nor
// the acquire outcome in words.
func checkBusy(t *testing.T, where, s string) {
	t.Helper()
	named := len(busyError.FindAllStringIndex(s, -1)) + len(busyOut.FindAllStringIndex(s, -1))
	if n := len(busyWord.FindAllStringIndex(s, -1)); n != named {
		t.Errorf("%s: %d of its %d BUSY name neither Redis's BUSY error nor the acquire outcome BUSY: %q", where, n-named, n, s)
	}
}

// TestBusyErrorNamed: where a text speaks of a long script, Redis's BUSY
// error, which the acquire's outcome BUSY (another owner holds the lock)
// could be taken for, is called an error, in every language: every text of
// the lessons long-script-blocks and renewal-timeout-silent, and the
// catalogue's messages of a long script.
func TestBusyErrorNamed(t *testing.T) {
	for _, f := range []string{"16c-long-script-blocks.yaml", "16b-renewal-timeout-silent.yaml"} {
		l, err := sim.LoadFile(filepath.Join("..", "lessons", f))
		if err != nil {
			t.Fatal(err)
		}
		texts := map[string]sim.Text{"title": l.Title, "summary": l.Summary, "takeaway": l.Takeaway, "note": l.Note}
		for i, st := range l.Steps {
			texts[fmt.Sprintf("steps[%d].say", i+1)] = st.Say
			texts[fmt.Sprintf("steps[%d].why", i+1)] = st.Why
			texts[fmt.Sprintf("steps[%d].misconception", i+1)] = st.Misconception
			for j, b := range st.Because {
				texts[fmt.Sprintf("steps[%d].because[%d]", i+1, j+1)] = b
			}
		}
		for where, tx := range texts {
			for loc, s := range tx {
				checkBusy(t, fmt.Sprintf("%s %s %s", f, where, loc), s)
			}
		}
	}
	files, err := filepath.Glob("*.toml")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("testdata", "jbo", "all.jbo.toml"))
	seen := 0
	for _, f := range files {
		var m map[string]any
		if _, err := toml.DecodeFile(f, &m); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, key := range []string{"narration.long-script", "OutcomeSCRIPT_BUSY", "mermaid.long-script", "HeadLongScript"} {
			if s, ok := m[key].(string); ok {
				seen++
				checkBusy(t, f+" "+key, s)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no catalogue file holds the long script's messages")
	}
}
