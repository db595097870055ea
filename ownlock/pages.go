package ownlock

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"lockstep/backend"
	"lockstep/explore"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
	"lockstep/webnet"
)

// The learner's own lock ("Your lock" on the Explore page, issue 19 item
// 5): a variant file and its scripts, pasted or uploaded, checked by
// sim.LoadVariant (every error beside its line), then run on the whole
// course as a table.
//
// The lock travels inside its links, not in a server-side store: its share
// code is an empty sandbox timeline under the lock (explore.Encode carries
// the variant file and its scripts), so a link works on any server of the
// same version, survives restarts, and costs the server nothing to keep;
// its size is bounded by explore.MaxCodeLen (48 KiB compressed, a lock of a
// few hundred lines of Lua) and by the bounds on the pasted files below. A
// store would need its own TTL, bound and eviction, and a link would die
// with it.

// Bounds on a learner's own lock.
const (
	// maxLockVariantBytes bounds the variant file, maxLockScriptBytes each
	// script; maxLockScripts is the number of script files (acquire,
	// release, renew, finish-release).
	maxLockVariantBytes = 32 << 10
	maxLockScriptBytes  = 64 << 10
	maxLockScripts      = 4
	// MaxFilesBytes bounds a lock's files together: the variant file and
	// every script (ReadFiles).
	MaxFilesBytes = maxLockVariantBytes + maxLockScripts*maxLockScriptBytes
	// maxLockBody bounds a check request's body, whatever its encoding.
	maxLockBody = MaxFilesBytes + 64<<10
	// DefaultLockTableTimeout bounds the whole course table of one lock
	// (Config.TableTimeout): every lesson's run (each within
	// runTimeout, its scripts within the turn bound, sim.MaxScriptTurns).
	// Lessons not reached are listed as such.
	DefaultLockTableTimeout = 30 * time.Second
)

// lockFiles is what a learner sent: the variant file and the scripts, by
// name, in the order sent.
type lockFiles struct {
	variantName, variant string
	scripts              []templates.LockScript
}

// form is the files as the page's form shows them: the scripts sent and
// empty slots up to maxLockScripts.
func (f lockFiles) form() templates.LockForm {
	out := templates.LockForm{VariantName: f.variantName, Variant: f.variant, Scripts: slices.Clone(f.scripts)}
	for len(out.Scripts) < maxLockScripts {
		out.Scripts = append(out.Scripts, templates.LockScript{})
	}
	return out
}

// filesOf are the files a loaded lock was read from (sim.VariantDef.Texts).
func filesOf(d *sim.VariantDef) lockFiles {
	f := lockFiles{variantName: d.File, variant: d.Texts[d.File]}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range d.Texts {
			if k != d.File && !yield(k) {
				return
			}
		}
	}) {
		f.scripts = append(f.scripts, templates.LockScript{Name: name, Text: d.Texts[name]})
	}
	return f
}

// readLockForm reads a check request's files (readFiles); a request
// without a variant file is an error in t's language, and a variant file
// sent without a name is my-lock.variant.yaml.
func readLockForm(t Texts, r *http.Request) (lockFiles, error) {
	f, err := readFiles(t, r)
	if err != nil {
		return f, err
	}
	if f.variantName == "" {
		f.variantName = "my-lock" + sim.VariantFileSuffix
	}
	if strings.TrimSpace(f.variant) == "" {
		return f, errors.New(t.T("LockNoVariant"))
	}
	return f, nil
}

// ReadFiles reads the variant file and scripts of a form that has the
// lock form's fields (a lesson's import has them too): the variant file
// (field variant, or an upload in variant_file) and the scripts
// (script_N with script_name_N, or uploads in scripts, each under its
// file name), each within its bound (32 KiB the variant file, 64 KiB a
// script, four scripts; MaxFilesBytes in all). The form comes back with
// an empty slot for each script not sent; the variant file may be empty.
// The error says, in t's language, which file is over its bound or not
// UTF-8. r's form must have been read within MaxFilesBytes more than the
// rest of its body.
func ReadFiles(t Texts, r *http.Request) (templates.LockForm, error) {
	f, err := readFiles(t, r)
	return f.form(), err
}

// readFiles is ReadFiles as lockFiles.
func readFiles(t Texts, r *http.Request) (lockFiles, error) {
	// A browser sends a textarea's lines ended by CRLF (HTML's form
	// encoding): as LF, so that the checks' line numbers and the listing's
	// lines are the file's (with CRLF, YAML counted each comment line twice).
	lf := strings.NewReplacer("\r\n", "\n").Replace
	f := lockFiles{variantName: strings.TrimSpace(r.FormValue("variant_name")), variant: lf(r.FormValue("variant"))}
	if r.MultipartForm != nil {
		if hs := r.MultipartForm.File["variant_file"]; len(hs) > 0 && hs[0].Size > 0 {
			b, err := readUpload(hs[0], maxLockVariantBytes)
			if err != nil {
				return f, errors.New(t.T("LockFileTooLarge", "Name", hs[0].Filename, "Limit", maxLockVariantBytes>>10))
			}
			f.variantName, f.variant = path.Base(hs[0].Filename), string(b)
		}
	}
	for i := 1; i <= maxLockScripts; i++ {
		name, text := strings.TrimSpace(r.FormValue(fmt.Sprintf("script_name_%d", i))), lf(r.FormValue(fmt.Sprintf("script_%d", i)))
		if strings.TrimSpace(text) == "" && name == "" {
			continue
		}
		f.scripts = append(f.scripts, templates.LockScript{Name: name, Text: text})
	}
	if r.MultipartForm != nil {
		for _, h := range r.MultipartForm.File["scripts"] {
			if h.Size == 0 {
				continue
			}
			b, err := readUpload(h, maxLockScriptBytes)
			if err != nil {
				return f, errors.New(t.T("LockFileTooLarge", "Name", h.Filename, "Limit", maxLockScriptBytes>>10))
			}
			f.scripts = append(f.scripts, templates.LockScript{Name: path.Base(h.Filename), Text: string(b)})
		}
	}
	if len(f.scripts) > maxLockScripts {
		return f, errors.New(t.T("LockTooManyScripts", "N", len(f.scripts), "Max", maxLockScripts))
	}
	variantName := cmp.Or(f.variantName, "my-lock"+sim.VariantFileSuffix)
	if len(f.variant) > maxLockVariantBytes {
		return f, errors.New(t.T("LockFileTooLarge", "Name", variantName, "Limit", maxLockVariantBytes>>10))
	}
	for _, sc := range f.scripts {
		if len(sc.Text) > maxLockScriptBytes {
			return f, errors.New(t.T("LockFileTooLarge", "Name", sc.Name, "Limit", maxLockScriptBytes>>10))
		}
	}
	for _, file := range append([]templates.LockScript{{Name: variantName, Text: f.variant}}, f.scripts...) {
		if !utf8.ValidString(file.Text) {
			return f, errors.New(t.T("LockNotUTF8", "Name", file.Name))
		}
	}
	return f, nil
}

func readUpload(h *multipart.FileHeader, limit int) ([]byte, error) {
	file, err := h.Open()
	if err != nil {
		return nil, err
	}
	defer file.Close()
	b, err := io.ReadAll(io.LimitReader(file, int64(limit)+1))
	if err == nil && len(b) > limit {
		err = errors.New("ownlock: upload over its bound")
	}
	return b, err
}

// load checks the files with sim.LoadVariant: the scripts are read from
// what was sent (by their names, relative to the variant file), nothing
// from the disk; a lock with problems has those of every script sent
// too (sim.CheckSentScripts), not only those its variant file reached.
func (f lockFiles) load() (*sim.VariantDef, error) {
	byName := make(map[string]string, len(f.scripts))
	for _, sc := range f.scripts {
		byName[sc.Name] = sc.Text
	}
	def, err := sim.LoadVariant(f.variantName, []byte(f.variant), sim.SentScripts(f.variantName, byName))
	var les sim.LoadErrors
	if errors.As(err, &les) {
		// Every problem of the submission at once: the scripts a broken
		// variant file did not get to name are compiled too.
		return nil, sim.CheckSentScripts(les, byName)
	}
	return def, err
}

// lockErrors are a failed check's problems, each file shown with its lines
// and the problems beside the lines they name.
func (s *Pages) lockErrors(loc sim.Locale, f lockFiles, err error) []templates.LockFile {
	var les sim.LoadErrors
	if !errors.As(err, &les) {
		return []templates.LockFile{{Name: f.variantName, Errors: []templates.ImportError{{Line: 1, Col: 1, Msg: s.host.Texts(loc).Err(err), Where: f.variantName}}}}
	}
	texts := map[string]string{f.variantName: f.variant}
	order := []string{f.variantName}
	for _, sc := range f.scripts {
		texts[sc.Name] = sc.Text
		order = append(order, sc.Name)
	}
	byFile := map[string]*templates.LockFile{}
	var out []templates.LockFile
	for _, e := range les {
		name := e.File
		if _, ok := texts[name]; !ok {
			if _, ok := texts[path.Base(name)]; ok {
				name = path.Base(name)
			}
		}
		lf := byFile[name]
		if lf == nil {
			lf = &templates.LockFile{Name: name}
			byFile[name] = lf
		}
		where := fmt.Sprintf("%s:%d:%d", name, e.Pos.Line, e.Pos.Col)
		lf.Errors = append(lf.Errors, templates.ImportError{Line: e.Pos.Line, Col: e.Pos.Col, Msg: s.host.Catalog().Message(loc, e), Where: where})
	}
	for _, name := range append(order, slices.Sorted(func(yield func(string) bool) {
		for k := range byFile {
			if _, ok := texts[k]; !ok && !yield(k) {
				return
			}
		}
	})...) {
		lf := byFile[name]
		if lf == nil {
			continue
		}
		bad := map[int][]string{}
		for _, e := range lf.Errors {
			bad[e.Line] = append(bad[e.Line], e.Where+" "+e.Msg)
		}
		if text, ok := texts[name]; ok {
			for i, line := range strings.Split(text, "\n") {
				lf.Lines = append(lf.Lines, templates.LockLine{Number: i + 1, Text: line, Errors: bad[i+1]})
			}
		}
		out = append(out, *lf)
	}
	return out
}

// lockWarnings are def's warnings (the owner id in KEYS...) in loc, each
// at its FILE:LINE:COL: what `lockstep run` and `search` print before a
// run, shown on the page too.
func (s *Pages) lockWarnings(loc sim.Locale, def *sim.VariantDef) []templates.ImportError {
	var out []templates.ImportError
	for _, e := range def.Warnings {
		out = append(out, templates.ImportError{Line: e.Pos.Line, Col: e.Pos.Col, Msg: s.host.Catalog().Message(loc, e),
			Where: fmt.Sprintf("%s:%d:%d", e.File, e.Pos.Line, e.Pos.Col)})
	}
	return out
}

// lockPage is the "Your lock" page in loc with the form filled from f.
func (s *Pages) lockPage(loc sim.Locale, f lockFiles) templates.LockPage {
	t := s.host.Texts(loc)
	return templates.LockPage{
		Site: s.host.Site(loc, func(l sim.Locale) string { return "/explore/lock?lang=" + string(l) }),
		X:    t.Explore(), Form: f.form(),
		Examples: view.LockExamples(t.UI()),
	}
}

// serveLockCheck checks a lock sent by the form (POST /explore/lock): its
// problems come back beside their lines with the files kept; a lock that
// passes is redirected to its own link (serveLock), which runs the course
// table.
func (s *Pages) serveLockCheck(w http.ResponseWriter, r *http.Request) {
	loc := s.host.Negotiate(r)
	t := s.host.Texts(loc)
	if tooBig, timedOut, err := s.host.ReadForm(w, r, maxLockBody); err != nil {
		p := s.lockPage(loc, lockFiles{})
		status := http.StatusBadRequest
		var bfe *webnet.BrokenFormError
		switch {
		case errors.As(err, &bfe):
			// What arrived goes back to the form, said at the top.
			if bfe.Kept {
				f, _ := readLockForm(t, r)
				p = s.lockPage(loc, f)
			}
			p.Failed = t.Msg(sim.M("web.form.broken"))
			if bfe.Field != "" {
				p.Failed = t.Msg(sim.M("web.form.broken-field", "Field", bfe.Field))
			}
		case tooBig:
			status, p.Failed = http.StatusRequestEntityTooLarge, t.T("LockBodyTooLarge", "Max", maxLockBody>>10)
		case timedOut:
			w.Header().Set("Connection", "close")
			status, p.Failed = http.StatusRequestTimeout, t.T("ImportBodyTimeout", "Seconds", s.host.BodyTimeout().Seconds())
		default:
			p.Failed = t.Msg(sim.M("web.form.unreadable"))
		}
		s.host.WritePage(w, r, status, templates.LockStart(p))
		return
	}
	f, err := readLockForm(t, r)
	if err != nil {
		p := s.lockPage(loc, f)
		p.Failed = err.Error()
		s.host.WritePage(w, r, http.StatusUnprocessableEntity, templates.LockStart(p))
		return
	}
	fail := func(err error) {
		p := s.lockPage(loc, f)
		p.Files = s.lockErrors(loc, f, err)
		s.host.WritePage(w, r, http.StatusUnprocessableEntity, templates.LockStart(p))
	}
	def, err := f.load()
	if err != nil {
		fail(err)
		return
	}
	code, err := s.lockCode(def)
	if err != nil {
		fail(err)
		return
	}
	http.Redirect(w, r, lockURL(code, loc), http.StatusSeeOther)
}

// lockCode is the share code of a lock: an empty sandbox timeline under it.
func (s *Pages) lockCode(def *sim.VariantDef) (string, error) {
	l, err := explore.Sandbox(s.host.Catalog(), explore.SandboxConfig{Def: def, LeaseMS: 30000, Actors: 2, Lock: "order:42"})
	if err != nil {
		return "", err
	}
	return s.host.EncodeTimeline(explore.Timeline{Kind: explore.KindOwnLock, Lesson: l})
}

// lockURL is the link of a lock's page: its files and its course table.
func lockURL(code string, loc sim.Locale) string {
	return "/explore/lock?k=" + url.QueryEscape(code) + "&lang=" + string(loc)
}

// decodeLock opens a lock's share code (k).
func (s *Pages) decodeLock(code string) (*sim.VariantDef, explore.Timeline, error) {
	tl, err := s.host.DecodeTimeline(code)
	if err != nil {
		return nil, tl, err
	}
	if d := tl.Lesson.VariantDef; d == nil || d.Builtin {
		return nil, tl, notALock()
	}
	return tl.Lesson.VariantDef, tl, nil
}

// serveLock is the "Your lock" page (GET /explore/lock): the form, and with
// k= a lock's files and its course table.
func (s *Pages) serveLock(w http.ResponseWriter, r *http.Request) {
	loc := s.host.Negotiate(r)
	t := s.host.Texts(loc)
	code := r.URL.Query().Get("k")
	if code == "" {
		s.host.WritePage(w, r, http.StatusOK, templates.LockStart(s.lockPage(loc, lockFiles{})))
		return
	}
	def, tl, err := s.decodeLock(code)
	if err != nil {
		p := s.lockPage(loc, lockFiles{})
		p.Failed = t.Err(err)
		s.host.WritePage(w, r, http.StatusBadRequest, templates.LockStart(p))
		return
	}
	p := s.lockPage(loc, filesOf(def))
	p.Site = s.host.Site(loc, func(l sim.Locale) string { return lockURL(code, l) })
	p.Name, p.ShareURL = def.Name, lockURL(code, loc)
	p.Warnings = s.lockWarnings(loc, def)
	p.SearchURL = "/search?lock=" + url.QueryEscape(code) + "&lang=" + string(loc)
	if enc, err := s.host.EncodeTimeline(tl); err == nil {
		p.SandboxURL = s.host.ExploreURL(enc, 0, loc)
	}
	release, ok := s.takeLockTable(s.host.ClientAddr(r))
	if !ok {
		p.TableNote = t.T("LockTableBusy")
		s.host.WritePage(w, r, http.StatusServiceUnavailable, templates.LockStart(p))
		return
	}
	defer release()
	ctx, cancel := context.WithTimeout(r.Context(), s.tableTimeout)
	defer cancel()
	p.Rows, p.TableNote = s.lockTable(ctx, t, def, code)
	p.Table = true
	s.host.WritePage(w, r, http.StatusOK, templates.LockStart(p))
}

// takeLockTable takes a slot for one course table: at most
// Config.MaxSearches at once server-wide and one per client address. ok
// is false when none is free; release gives the slot back.
func (s *Pages) takeLockTable(addr string) (release func(), ok bool) {
	s.lockMu.Lock()
	defer s.lockMu.Unlock()
	if s.lockAddrs[addr] {
		return nil, false
	}
	select {
	case s.lockTables <- struct{}{}:
	default:
		return nil, false
	}
	s.lockAddrs[addr] = true
	return func() {
		s.lockMu.Lock()
		delete(s.lockAddrs, addr)
		s.lockMu.Unlock()
		<-s.lockTables
	}, true
}

// lockUnder is course lesson l under the lock def: the timeline its row
// opens (explore.Under: every step retold from the run once an outcome
// differs from the lesson's own run), that run's frames, the lesson's own, and the
// first step that differs.
func (s *Pages) lockUnder(ctx context.Context, l *sim.Lesson, def *sim.VariantDef) (tl explore.Timeline, frames, own []sim.Frame, first int, err error) {
	own, err = s.host.LessonFrames(ctx, l)
	if err != nil {
		return tl, nil, nil, 0, err
	}
	lv, err := explore.AsLock(l, def)
	if err != nil {
		return tl, nil, own, 0, err
	}
	frames, err = s.host.RunFrames(ctx, lv)
	if err != nil {
		return tl, nil, own, 0, err
	}
	under, first := explore.Under(s.host.Catalog(), l, lv, frames, own)
	return explore.Timeline{Kind: explore.KindUnder, Lesson: under, Origin: explore.Origin{Under: l.ID}}, frames, own, first, nil
}

// lessonUnder is what course lesson l came to under a lock: the run's
// error, or the first step that differs from the lesson's own run (0
// when none), the two frames at that step (nil past either run's end),
// and the invariants broken. It holds no text, so
// that one run serves every language (tableCache).
type lessonUnder struct {
	err             error
	first           int
	got, want       *sim.Frame
	broken, brokenO []string
}

// lockResults runs every course lesson under def within ctx, from the
// cache when the lock's table ran whole before. cut is true when ctx
// ended before the last lesson, overran when a script passed its time or
// memory bound (the lessons after are not run: issue 37), memory when
// that bound was memory's. Only a whole table without an error row is
// kept: an error may be the machine's of the moment (a restarted
// sandbox, a Redis that went away).
func (s *Pages) lockResults(ctx context.Context, def *sim.VariantDef, code string) (res []lessonUnder, cut, overran, memory bool) {
	if r, ok := s.tables.Get(code); ok {
		return r, false, false, false
	}
	whole := true
	for _, l := range s.host.Lessons() {
		if ctx.Err() != nil || overran {
			cut = cut || !overran
			whole = false
			break
		}
		_, frames, own, first, err := s.lockUnder(ctx, l, def)
		r := lessonUnder{err: err, first: first}
		if err != nil {
			whole = false
			var over *backend.ScriptOverrunError
			overran = errors.As(err, &over)
			memory = memory || overran && over.Killed == "memory"
		} else {
			// Copies: a pointer into frames would keep the whole run
			// alive in the cache, not the two frames it needs.
			if first < len(frames) {
				f := frames[first]
				r.got = &f
			}
			if first < len(own) {
				o := own[first]
				r.want = &o
			}
			r.broken, r.brokenO = explore.BrokenUnder(frames, own)
		}
		res = append(res, r)
	}
	if whole {
		s.tables.Add(code, res)
	}
	return res, cut, overran, memory
}

// lockTable runs every course lesson under def, within ctx, and returns a
// row per lesson and a note when ctx ended before the last.
func (s *Pages) lockTable(ctx context.Context, t Texts, def *sim.VariantDef, code string) ([]templates.LockRow, string) {
	res, cut, overran, memory := s.lockResults(ctx, def, code)
	var rows []templates.LockRow
	note := ""
	if cut {
		note = t.T("LockTableCut", "Seconds", s.tableTimeout.Seconds())
	}
	notRun := "LockNotRun" // what the rows not run say: the bound that stopped the table
	if overran && memory {
		notRun = "LockNotRunMemory"
	}
	errorRow := map[string]string{} // an error's text -> the row that said it
	for i, l := range s.host.Lessons() {
		row := templates.LockRow{ID: l.ID, Label: s.host.LessonLabel(l, i), Title: l.Title.In(t.Locale()), Variant: l.Variant}
		q := url.Values{"k": {code}, "lesson": {l.ID}, "lang": {string(t.Locale())}}
		row.PlayURL = "/explore/lock/open?" + q.Encode()
		q.Set("to", "compare")
		row.CompareURL = "/explore/lock/open?" + q.Encode()
		if i >= len(res) {
			row.Verdict, row.Kind = t.T(notRun), "skipped"
			rows = append(rows, row)
			continue
		}
		r := res[i]
		switch {
		case r.err != nil:
			row.Kind, row.Verdict = "error", t.Err(r.err)
			if reason, ok := s.host.Refusal(t.Locale(), r.err); ok {
				row.Verdict = reason
			}
			// A script that fails fails the same way in most lessons: its
			// error is said once, in the first row, and named after.
			// The same error names a different script hash (40 hex digits)
			// where a lesson runs the script with another guard (a Derived
			// batch's, or one on the step's clock), so the hash is left out
			// of the comparison.
			same := scriptHash.ReplaceAllString(row.Verdict, "")
			if first, ok := errorRow[same]; ok {
				row.Verdict = t.T("LockSameError", "Lesson", first)
			} else {
				errorRow[same] = row.Label
			}
			row.PlayURL, row.CompareURL = "", ""
		case r.first == 0:
			row.Kind, row.Same, row.Verdict = "same", true, t.T("LockSame")
			row.Broken, row.BrokenOwn = r.broken, r.brokenO
			row.BrokenNames = brokenNames(t, row.Broken)
		default:
			row.Kind, row.Step = "differs", r.first
			row.Verdict = differsVerdict(t, r)
			row.Broken, row.BrokenOwn = r.broken, r.brokenO
			row.BrokenNames = brokenNames(t, row.Broken)
		}
		rows = append(rows, row)
	}
	return rows, note
}

// serveLockOpen opens course lesson `lesson` under the lock of k: in the
// player at the first step that differs, or (to=compare) on Compare with
// the lesson's own variant. A link that cannot be opened answers the lock
// page with the reason (OpenFailed): 400 for a bad k, 404 for an unknown
// lesson, 422 for a run that failed under the lock.
func (s *Pages) serveLockOpen(w http.ResponseWriter, r *http.Request) {
	loc := s.host.Negotiate(r)
	t := s.host.Texts(loc)
	q := r.URL.Query()
	// A link that cannot be opened gets the lock page's error view in the
	// reader's language, naming what failed (a fresh review of issue 33:
	// it was bare text): the link's field, or the lesson's run.
	fail := func(status int, f lockFiles, msg sim.Msg) {
		p := s.lockPage(loc, f)
		p.Site = s.host.Site(loc, func(l sim.Locale) string {
			q2 := r.URL.Query()
			q2.Set("lang", string(l))
			return "/explore/lock/open?" + q2.Encode()
		})
		p.OpenFailed = t.Msg(msg)
		s.host.WritePage(w, r, status, templates.LockStart(p))
	}
	def, _, err := s.decodeLock(q.Get("k"))
	if err != nil {
		fail(http.StatusBadRequest, lockFiles{}, sim.M("web.lock.open-field", "Field", "k", "Reason", t.Err(err)))
		return
	}
	l := s.host.Course(q.Get("lesson"))
	if l == nil {
		fail(http.StatusNotFound, filesOf(def), sim.M("web.lock.open-field", "Field", "lesson", "Reason", t.Msg(sim.M("web.no-such-lesson", "ID", q.Get("lesson")))))
		return
	}
	runFailed := func(reason string) {
		fail(http.StatusUnprocessableEntity, filesOf(def), sim.M("web.lock.open-failed", "Lesson", l.ID, "Title", l.Title.In(loc), "Reason", reason))
	}
	if q.Get("to") == "compare" {
		c := url.Values{"lesson": {l.ID}, "a": {def.Name}, "b": {l.Variant}, "k": {q.Get("k")}, "lang": {string(loc)}}
		http.Redirect(w, r, "/explore/compare?"+c.Encode(), http.StatusSeeOther)
		return
	}
	tl, _, _, first, err := s.lockUnder(r.Context(), l, def)
	if err != nil {
		msg := t.Err(err)
		if reason, ok := s.host.Refusal(t.Locale(), err); ok {
			msg = reason
		}
		runFailed(msg)
		return
	}
	code, err := s.host.EncodeTimeline(tl)
	if err != nil {
		runFailed(t.Err(err))
		return
	}
	http.Redirect(w, r, s.host.ExploreURL(code, first, loc), http.StatusSeeOther)
}

// differsVerdict says in t's language what differs at step r.first of a
// lesson's run under a lock (r.got) from its run under its own lock
// (r.want), as explore.Differs tells it: the step's outcome, what its
// renewals answered, or the invariants it breaks. A run that ended
// before step first gives "—" for it.
func differsVerdict(t Texts, r lessonUnder) string {
	first := r.first
	if r.got == nil || r.want == nil {
		want, got := "—", "—"
		if r.want != nil {
			want = string(r.want.Outcome)
		}
		if r.got != nil {
			got = string(r.got.Outcome)
		}
		return t.T("LockDiffers", "Step", first, "Got", got, "Want", want)
	}
	f, o := *r.got, *r.want
	switch explore.Differs(f, o) {
	case explore.DiffRenewal:
		return t.T("LockDiffersRenewal", "Step", first, "Got", renewalWords(t, f), "Want", renewalWords(t, o))
	case explore.DiffViolations:
		return t.T("LockDiffersViolations", "Step", first, "Got", violationWords(t, f), "Want", violationWords(t, o))
	}
	return t.T("LockDiffers", "Step", first, "Got", string(f.Outcome), "Want", string(o.Outcome))
}

// renewalWords are what frame f's renewals answered, and whose belief
// one ended, in t's language ("LockNoRenewal" when none ran).
func renewalWords(t Texts, f sim.Frame) string {
	var parts []string
	for _, o := range explore.RenewalOutcomes(f) {
		parts = append(parts, string(o))
	}
	for _, l := range f.Lost {
		parts = append(parts, t.T("LockBeliefEnded", "Actor", l.Actor))
	}
	if len(parts) == 0 {
		return t.T("LockNoRenewal")
	}
	return strings.Join(parts, t.T("LockListSep"))
}

// violationWords are the titles of the invariants frame f breaks in t's
// language ("LockNoViolation" when none).
func violationWords(t Texts, f sim.Frame) string {
	var parts []string
	for _, v := range f.Violations {
		title := v.Name
		if m := view.InvariantTitleID(v.Name); m != "" {
			title = t.T(m)
		}
		if !slices.Contains(parts, title) {
			parts = append(parts, title)
		}
	}
	if len(parts) == 0 {
		return t.T("LockNoViolation")
	}
	return strings.Join(parts, t.T("LockListSep"))
}

// brokenNames are the titles of invariants ids in t's language, by id
// (view.InvariantTitleID).
func brokenNames(t Texts, ids []string) map[string]string {
	out := map[string]string{}
	for _, id := range ids {
		if m := view.InvariantTitleID(id); m != "" {
			out[id] = t.T(m)
		}
	}
	return out
}

// scriptHash matches a script's SHA1 (40 hex digits) in an error's text.
var scriptHash = regexp.MustCompile(`\b[0-9a-f]{40}\b`)
