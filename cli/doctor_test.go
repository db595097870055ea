package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"lockstep/backend"
	"lockstep/internal/redistest"
	"lockstep/sim"
)

func doctorCLI(t *testing.T, args ...string) (int, string, string) { return call(Doctor, args...) }

// doctorChecks runs doctor --json and decodes its checks by id and, for
// commands, by command.
func doctorChecks(t *testing.T, args ...string) (int, map[string]backend.Check) {
	t.Helper()
	code, out, stderr := doctorCLI(t, append(args, "--json")...)
	var checks []backend.Check
	if err := json.Unmarshal([]byte(out), &checks); err != nil {
		t.Fatalf("doctor --json: %v\n%s\n%s", err, out, stderr)
	}
	by := map[string]backend.Check{}
	for _, c := range checks {
		k := string(c.ID)
		if c.ID == backend.CheckCommand {
			k += ":" + c.Params["command"]
		}
		by[k] = c
	}
	return code, by
}

// TestDoctor checks a plain server (everything passes, exit 0), a
// least-privilege user (backend.ACLRules: passes), users lacking INFO
// (a warning, exit 0), TIME and Lockstep's channels (failures naming the
// rule to add, exit 1), and a Redis that is not there (exit 2), in every
// language.
func TestDoctor(t *testing.T) {
	srv := redistest.Start(t)
	code, checks := doctorChecks(t, "--redis", srv.URL)
	if code != ExitOK {
		t.Fatalf("plain server: exit %d: %+v", code, checks)
	}
	for k, c := range checks {
		// The clock check warns when a loaded machine made the server's
		// two TIMEs straddle milliseconds; that is the machine, not Redis.
		if c.Status != backend.StatusOK && !(k == "clock" && c.Status == backend.StatusWarn) {
			t.Errorf("plain server: %s is %s: %v", k, c.Status, c.Params)
		}
	}
	if checks["clock"].Params["fit"] == "" {
		t.Errorf("clock check without its figure: %+v", checks["clock"])
	}
	for _, want := range []string{"reach", "version", "cluster", "command:TIME", "command:EVALSHA", "command:MULTI", "lua", "clock", "pair"} {
		if _, ok := checks[want]; !ok {
			t.Errorf("plain server: no %s check", want)
		}
	}
	if checks["cluster"].Params["cluster"] != "no" {
		t.Errorf("plain server reported as a cluster: %v", checks["cluster"])
	}

	least := srv.AddUser(t, "ls", "pw", strings.Fields(backend.ACLRules)...)
	if code, checks := doctorChecks(t, "--redis", least); code != ExitOK || len(checks) < 10 {
		t.Errorf("least-privilege user: exit %d, %+v", code, checks)
	}
	noInfo := srv.AddUser(t, "noinfo", "pw", strings.Fields(strings.TrimSuffix(backend.ACLRules, " +info"))...)
	if code, checks := doctorChecks(t, "--redis", noInfo); code != ExitOK || checks["version"].Status != backend.StatusWarn || checks["version"].Params["rule"] != "+info" {
		t.Errorf("user without INFO: exit %d, %+v", code, checks["version"])
	}
	rules := append([]string{"~lockstep:*", "resetchannels"}, strings.Fields(backend.ACLRules)[2:]...)
	lacking := srv.AddUser(t, "lacking", "secret", append(rules, "-time")...)
	code, checks = doctorChecks(t, "--redis", lacking)
	if code != ExitFailed {
		t.Errorf("user lacking TIME and channels: exit %d", code)
	}
	if c := checks["command:TIME"]; c.Status != backend.StatusFail || c.Params["rule"] != "+time" || c.Params["user"] != "lacking" {
		t.Errorf("TIME: %+v", c)
	}
	if c := checks["command:EVAL"]; c.Status != backend.StatusFail || c.Params["rule"] != "&lockstep:*" {
		t.Errorf("the probe script's publish: %+v", c)
	}
	for _, lang := range sim.Locales {
		code, out, _ := doctorCLI(t, "--redis", lacking, "--lang", string(lang))
		if code != ExitFailed {
			t.Errorf("%s: exit %d", lang, code)
		}
		if strings.Contains(out, "secret") {
			t.Errorf("%s: the output shows the password:\n%s", lang, out)
		}
		for _, want := range []string{"ACL SETUSER lacking +time", "ACL SETUSER lacking &lockstep:*", backend.ACLRules} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the output does not say %q:\n%s", lang, want, out)
			}
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "_fail") || strings.Contains(line, "_ok") || strings.Contains(line, "Doctor") {
				t.Errorf("%s: a message id instead of its text: %q", lang, line)
			}
		}
	}

	code, _, _ = doctorCLI(t, "--redis", "redis://127.0.0.1:1")
	if code != ExitInvalid {
		t.Errorf("unreachable: exit %d", code)
	}
	if code, _, _ := doctorCLI(t); code != ExitInvalid {
		t.Errorf("no --redis: exit %d", code)
	}
}

// TestDoctorCatalogue: every message of the English catalogue is in each
// language's, and every check and status Diagnose can report has one.
func TestDoctorCatalogue(t *testing.T) {
	t.Parallel()
	read := func(name string) map[string]string {
		b, err := os.ReadFile("../catalog/doctor." + name + ".toml")
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		if err := toml.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return m
	}
	en := read("en")
	for _, lang := range []string{"zh-CN", "zh-TW"} {
		m := read(lang)
		for id := range en {
			if m[id] == "" {
				t.Errorf("%s lacks %s", lang, id)
			}
		}
		for id := range m {
			if _, ok := en[id]; !ok {
				t.Errorf("%s has %s, which English lacks", lang, id)
			}
		}
	}
	for _, id := range []string{"reach_ok", "reach_fail", "version_ok", "version_warn", "version_fail", "cluster_ok_yes", "cluster_ok_no",
		"cluster_fail", "command_ok", "command_fail", "command_fail_norule", "lua_ok", "lua_fail", "clock_ok", "clock_warn", "pair_ok", "pair_warn"} {
		if en[id] == "" {
			t.Errorf("no message %s", id)
		}
	}
}

// TestTeamRedis runs `doctor` and `run` on a three-node Redis Cluster (by
// one node's URL) and `run` over TLS with --redis-ca: the frames are the
// embedded run's.
func TestTeamRedis(t *testing.T) {
	files := []string{"../lessons/01-nested-reentry.yaml", "../lessons/15-watchdog-renewal.yaml"}
	code, emb, stderr := runCLI(t, append([]string{"--json"}, files...)...)
	if code != ExitOK {
		t.Fatalf("embedded: exit %d\n%s", code, stderr)
	}
	frames := func(jsonl string) []string {
		var out []string
		for _, line := range strings.Split(strings.TrimSpace(jsonl), "\n") {
			var l struct {
				Frames json.RawMessage `json:"frames"`
			}
			if err := json.Unmarshal([]byte(line), &l); err != nil {
				t.Fatalf("%v: %s", err, line)
			}
			out = append(out, string(l.Frames))
		}
		return out
	}
	want := frames(emb)

	cl := redistest.StartCluster(t)
	if code, checks := doctorChecks(t, "--redis", cl.URL); code != ExitOK || checks["cluster"].Params["cluster"] != "yes" || checks["cluster"].Params["state"] != "ok" {
		t.Errorf("doctor on the cluster: exit %d, %+v", code, checks["cluster"])
	}
	tls := redistest.StartTLS(t)
	for _, args := range [][]string{{"--redis", cl.URL}, {"--redis", tls.URL, "--redis-ca", tls.CAFile}} {
		code, out, stderr := runCLI(t, append(append(args, "--json"), files...)...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		if got := frames(out); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%v: frames differ from the embedded run's", args)
		}
	}
	if code, _, stderr := runCLI(t, "--redis", tls.URL, files[0]); code != ExitInvalid || !strings.Contains(stderr, "certificate") {
		t.Errorf("TLS without --redis-ca: exit %d, %s", code, stderr)
	}
}
