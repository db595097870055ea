package sim

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestBoundedGoto: the turn counter stops an endless goto too, should one
// reach gopher-lua by a way other than a variant file (whose validator
// refuses goto: lua51Only).
func TestBoundedGoto(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	if err := L.DoString(bounded("::again:: goto again", "g/acquire")); err == nil || !ScriptWasStopped(err.Error()) {
		t.Fatalf("want the script stopped, got %v", err)
	}
}
