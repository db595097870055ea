package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"lockstep/backend"
	"lockstep/explore"
	"lockstep/internal/redistest"
	"lockstep/sim"
)

// ownLessonCode is the share code of examples/testdata/own/<name>, a
// lesson under a lock of issue 33's tests.
func ownLessonCode(t *testing.T, name string) string {
	t.Helper()
	l, err := sim.LoadFile(filepath.Join("..", "examples", "testdata", "own", name))
	if err != nil {
		t.Fatal(err)
	}
	code, err := explore.Encode(l, explore.Origin{}, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// lowerAfterStop is a sentence that starts in lower case, or with a
// relative path, after a full stop (English) or a Chinese full stop.
var lowerAfterStop = regexp.MustCompile(`(\. |。)[a-z./]`)

// stepScriptPrefix is the text StepScriptError gives step in loc before
// its reason.
func stepScriptPrefix(loc sim.Locale, step int) string {
	p, _, _ := strings.Cut(tr(loc).T("StepScriptError", "Step", step, "Reason", "\x00"), "\x00")
	return p
}

// TestLuaErrorInPlayerIsTheScripts: a learner's acquire that compares a
// missing count with a number (examples/testdata/own/lua-error, line 7)
// stops step 1 in the player. The page is told it is the script's error
// (code script-error, not redis: no "Redis did not answer" alert, no
// backend marked down), in its language, naming the script's file and
// line and the Lua error, and the run stays at step 0.
func TestLuaErrorInPlayerIsTheScripts(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	code := ownLessonCode(t, "lua-error.lesson.yaml")
	for _, loc := range sim.Locales {
		c, _ := loadedSession(t, hs, ClientMessage{Timeline: code, Lang: string(loc)})
		c.send(ClientMessage{Type: MsgStep, ID: 1})
		m := c.expect(MsgError)
		if m.Code != ErrCodeScriptError || m.Re != 1 {
			t.Fatalf("%s: %+v, want code %s", loc, m, ErrCodeScriptError)
		}
		prefix := stepScriptPrefix(loc, 1)
		if reason, ok := strings.CutPrefix(m.Message, prefix); !ok || !strings.Contains(reason, "lua-error/acquire.lua:7: ") && !strings.Contains(reason, "lua-error/acquire.lua:7：") || !strings.Contains(reason, "attempt to compare") {
			t.Errorf("%s: message %q, want %q then the error at lua-error/acquire.lua:7", loc, m.Message, prefix)
		}
		// The reason (a Lua error, a file path, a refusal's words) starts
		// in lower case: it follows a colon, not a full stop (a fresh
		// review of issue 33).
		if w := lowerAfterStop.FindString(m.Message); w != "" {
			t.Errorf("%s: message %q: a sentence starts in lower case at %q", loc, m.Message, w)
		}
		if f := c.expect(MsgFrame); f.Step != 0 || f.Re != 1 {
			t.Errorf("%s: after the error the run is at step %d, want 0", loc, f.Step)
		}
		c.conn.Close()
	}
}

// TestOwnerInKeysACLAdvice: on a redis-server whose ACL gives Lockstep's
// user exactly what it needs (backend.ACLRules: ~lockstep:* and the
// rest), the count-key lock (examples/testdata/own), which passes the
// owner id as KEYS[2], is refused at its first acquire: Redis checks the
// owner id as a key, outside lockstep:*. The player says so as the
// script's error, naming the variant file's KEYS list that passes the
// owner, and does not advise the ACL rule ~lockstep:* the user already has.
func TestOwnerInKeysACLAdvice(t *testing.T) {
	t.Parallel()
	hs := confinedACLServer(t)
	reason := playerStepOneReason(t, hs, sim.TraditionalChinese)
	advice := tr(sim.TraditionalChinese).Msg(sim.M("backend.acl-refused", "User", "ls", "Command", "EVALSHA", "Rule", "~lockstep:*", "Reply", "\x00"))
	advice, _, _ = strings.Cut(advice, "\x00")
	if !strings.Contains(reason, "count-key.variant.yaml:14:16") || !strings.Contains(reason, "ARGV") || strings.HasPrefix(reason, advice) {
		t.Errorf("reason %q: want the owner in KEYS at count-key.variant.yaml:14:16, not the ACL rule", reason)
	}
}

// confinedACLServer is a server on a redis-server of the test's own whose
// ACL gives Lockstep's user exactly what it needs (backend.ACLRules),
// custom scripts allowed.
func confinedACLServer(t *testing.T) *httptest.Server {
	t.Helper()
	rs := redistest.Start(t)
	be, err := backend.Open(context.Background(), backend.Config{URL: rs.AddUser(t, "ls", "pw", strings.Fields(backend.ACLRules)...), AllowCustomScripts: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	_, hs := newTestHTTP(t, Config{Backend: RedisBackend(be), AllowCustomScripts: true})
	return hs
}

// playerStepOneReason steps the count-key lesson (examples/testdata/own)
// once in the player of hs, in loc, and returns the reason the page is
// given for its refusal, after StepScriptError's words; the step must be
// refused as the script's error.
func playerStepOneReason(t *testing.T, hs *httptest.Server, loc sim.Locale) string {
	t.Helper()
	c, _ := loadedSession(t, hs, ClientMessage{Timeline: ownLessonCode(t, "count-key.lesson.yaml"), Lang: string(loc)})
	defer c.conn.Close()
	c.send(ClientMessage{Type: MsgStep, ID: 1})
	m := c.expect(MsgError)
	reason, ok := strings.CutPrefix(m.Message, stepScriptPrefix(loc, 1))
	if m.Code != ErrCodeScriptError || !ok {
		t.Fatalf("%+v, want code %s in %s", m, ErrCodeScriptError, loc)
	}
	c.expect(MsgFrame)
	return reason
}

// TestOwnerInKeysACLAdviceOnCompare: on the confined ACL user of
// TestOwnerInKeysACLAdvice, Compare of the count-key lock says what the
// player says at its first acquire: the owner id in KEYS, at the variant
// file's KEYS list, as the refusal of the timeline, in the page's
// language. It does so for a timeline that names the variant file (t=,
// the lock as column a) and for a course lesson under the lock of a share
// code (k=, from the your-lock course table's compare link).
func TestOwnerInKeysACLAdviceOnCompare(t *testing.T) {
	t.Parallel()
	hs := confinedACLServer(t)
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join("..", "examples", "testdata", "own", p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	resp := postLock(t, hs.URL, map[string]string{
		"variant_name": "count-key.variant.yaml", "variant": read("count-key.variant.yaml"),
		"script_name_1": "count-key/acquire.lua", "script_1": read("count-key/acquire.lua"),
		"script_name_2": "count-key/release.lua", "script_2": read("count-key/release.lua"),
	})
	loc, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || err != nil || loc.Query().Get("k") == "" {
		t.Fatalf("check: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	lockCode := loc.Query().Get("k")
	for _, lang := range []sim.Locale{sim.English, sim.SimplifiedChinese} {
		reason := playerStepOneReason(t, hs, lang)
		if !strings.Contains(reason, "ARGV") {
			t.Fatalf("%s: the player's reason %q is not the owner-in-KEYS advice", lang, reason)
		}
		want := tr(lang).T("TimelineRefused", "Reason", reason)
		// The lock of k was uploaded as count-key.variant.yaml, without the
		// lesson file's directory.
		wantK := strings.ReplaceAll(want, filepath.Join("..", "examples", "testdata", "own")+"/", "")
		for path, want := range map[string]string{
			"/explore/compare?" + url.Values{"lang": {string(lang)}, "b": {"token-count"}, "t": {ownLessonCode(t, "count-key.lesson.yaml")}}.Encode():                   want,
			"/explore/compare?" + url.Values{"lang": {string(lang)}, "lesson": {"nested-reentry"}, "a": {"count-key"}, "b": {"hash-refresh"}, "k": {lockCode}}.Encode(): wantK,
		} {
			resp, body := get(t, hs.URL+path, nil)
			msg := textOf(parseDOM(t, body).one(t, "compare-error", byTestID("compare-error")))
			if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(strings.Join(strings.Fields(msg), " "), strings.Join(strings.Fields(want), " ")) {
				t.Errorf("%s: %d %q, want 422 and %q", path, resp.StatusCode, msg, want)
			}
		}
	}
}

// TestOwnLockPageWarnsOwnerInKeys: the "Your lock" page of the count-key
// lock (examples/testdata/own), which passes the owner id as KEYS[2] in
// acquire and release, shows the warning the command line prints, once
// per KEYS list that names the owner (variant file lines 14 and 19,
// column 16), in the page's language; the Redisson example, which passes
// it in ARGV, has none.
func TestOwnLockPageWarnsOwnerInKeys(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{Lessons: lockCourse(t)})
	files := countKeyFiles(t)
	warnings := func(files map[string]string, lang string) []*html.Node {
		resp := postLock(t, hs.URL, files)
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("check: %d", resp.StatusCode)
		}
		loc := strings.Replace(resp.Header.Get("Location"), "lang=en", "lang="+lang, 1)
		return parseDOM(t, getPage(t, hs.URL, loc, 200)).all(byTestID("lock-warning"))
	}
	def, err := sim.LoadVariant("count-key.variant.yaml", []byte(files["variant"]), sim.SentScripts("count-key.variant.yaml", map[string]string{
		"count-key/acquire.lua": files["script_1"], "count-key/release.lua": files["script_2"]}))
	if err != nil {
		t.Fatal(err)
	}
	for _, loc := range sim.Locales {
		ws := warnings(files, string(loc))
		var at []string
		for i, li := range ws {
			where, _ := attr(li, "data-where")
			at = append(at, where)
			if want := where + " " + tr(loc).cat.Message(loc, def.Warnings[i]); i < len(def.Warnings) && strings.Join(strings.Fields(textOf(li)), " ") != strings.Join(strings.Fields(want), " ") {
				t.Errorf("%s: warning %q, want %q", loc, textOf(li), want)
			}
		}
		if want := []string{"count-key.variant.yaml:14:16", "count-key.variant.yaml:19:16"}; !slices.Equal(at, want) {
			t.Errorf("%s: warnings at %v, want %v", loc, at, want)
		}
	}
	if ws := warnings(redissonFiles(t), "en"); len(ws) != 0 {
		t.Errorf("the Redisson example has %d warnings", len(ws))
	}
}
