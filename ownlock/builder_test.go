package ownlock

import (
	"encoding/json"
	"os/exec"
	"testing"

	"lockstep/internal/redistest"
	"lockstep/sim"
	"lockstep/templates"
)

// builderStates are states of the variant file builder (static/lockform.js,
// variantYAML) that between them use every section and field the variant
// format has: a source, a String lock whose count is in a second key,
// other keys (state, channel), an owner template, literals, an array
// reply with a fencing token, a renew section by lease/N and by a
// duration, a release read as a Boolean, and a two-step release.
const builderStates = `[
 {"name": "fenced-watchdog", "lock": "hash:field-per-owner", "owner": "grant-token", "reentry": "redis",
  "keys": "channel channel:{lock} channel",
  "scripts": {
   "acquire": {"keys": "lock, fence_key", "argv": "owner, lease_ms, fence_ttl_ms", "array": "reply, fencing_token", "replies": "1: held, 0: BUSY"},
   "renew": {"on": true, "every": "lease/3", "keys": "lock", "argv": "owner, lease_ms", "replies": "1: RENEWED, 0: GONE"},
   "release": {"keys": "lock, channel", "argv": "\"0\", owner, lease_ms", "replies": "1: RELEASED, 0: STILL_HELD, nil: NOT_OWNER", "boolean": true},
   "finish_release": {"on": false, "replies": "1: RELEASED"}}},
 {"name": "count-key-two-step", "source": "a lock with its count in a second key: KEYS[1] .. ':count'",
  "lock": "string:owner-value", "count": "count", "owner": "{process_id}:{thread_id}", "reentry": "redis",
  "keys": "count {lock_key}:count state string",
  "scripts": {
   "acquire": {"keys": "lock, count", "argv": "owner, lease_s, outermost", "replies": "1: held, 0: BUSY"},
   "renew": {"on": true, "every": "10s", "keys": "lock, count", "argv": "owner, lease_s", "replies": "1: RENEWED, 0: GONE"},
   "release": {"keys": "lock, count", "argv": "", "replies": "owner: PENDING, string: NOT_OWNER, nil: NOT_OWNER"},
   "finish_release": {"on": true, "keys": "lock, count", "argv": "owner", "replies": "1: RELEASED, 0: NOT_OWNER"}}}
]`

// builderYAML runs the builder's variantYAML (node) on each of states.
func builderYAML(t *testing.T, states string) []string {
	t.Helper()
	node := redistest.Need(t, "node", "make test")
	const script = `import { variantYAML } from "../static/lockform.js";
console.log(JSON.stringify(JSON.parse(process.argv[1]).map(variantYAML)));`
	out, err := exec.Command(node, "--input-type=module", "-e", script, states).Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var files []string
	if err := json.Unmarshal(out, &files); err != nil {
		t.Fatalf("node's output %q: %v", out, err)
	}
	return files
}

// TestBuilderWritesWhatLoads is the builder's round trip (issue 33 item
// 8): every file the builder writes, with a script under each name it
// gives (acquire.lua, renew.lua, release.lua, finish-release.lua), passes
// the checks the server runs on a lock sent by the form (sim.LoadVariant
// through lockFiles.load), with each section read back as written.
func TestBuilderWritesWhatLoads(t *testing.T) {
	t.Parallel()
	files := builderYAML(t, builderStates)
	if len(files) != 2 {
		t.Fatalf("%d files", len(files))
	}
	load := func(src string) (*sim.VariantDef, error) {
		f := lockFiles{variantName: "my-lock.variant.yaml", variant: src}
		for _, name := range []string{"acquire.lua", "renew.lua", "release.lua", "finish-release.lua"} {
			f.scripts = append(f.scripts, templates.LockScript{Name: name, Text: "return 1"})
		}
		return f.load()
	}
	fenced, err := load(files[0])
	if err != nil {
		t.Fatalf("the builder's file does not load:\n%s\n%v", files[0], err)
	}
	if fenced.Renew == nil || fenced.RenewEvery != (sim.Period{LeaseDiv: 3}) || fenced.FinishRelease != nil || !fenced.BooleanReading ||
		len(fenced.Acquire.ArrayReply) != 2 || len(fenced.Keys) != 1 || fenced.Keys[0].Role != sim.RoleChannel ||
		!fenced.Release.Args[0].IsLiteral || fenced.Release.Args[0].Literal != "0" {
		t.Errorf("the fenced watchdog read back as %+v", fenced)
	}
	two, err := load(files[1])
	if err != nil {
		t.Fatalf("the builder's file does not load:\n%s\n%v", files[1], err)
	}
	if two.Renew == nil || two.RenewEvery != (sim.Period{MS: 10000}) || two.FinishRelease == nil || two.Lock.Count != "count" ||
		two.Source == "" || two.Owner != "{process_id}:{thread_id}" || len(two.Keys) != 1 || two.Keys[0].Name != "{lock_key}:count" {
		t.Errorf("the two-step lock read back as %+v", two)
	}
}
