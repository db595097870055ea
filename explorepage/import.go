package explorepage

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"lockstep/explore"
	"lockstep/ownlock"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/webnet"
)

// MaxImportBytes bounds an imported lesson file (upload or paste).
const MaxImportBytes = 256 << 10

// MaxImportBody bounds an import request's body: the file, the variant
// file and scripts it may name (ownlock.MaxFilesBytes) and the form
// around them. A longer body gets 413, whatever its encoding.
const MaxImportBody = MaxImportBytes + ownlock.MaxFilesBytes + 64<<10

// ServeImport loads a lesson file sent by upload (field file) or paste
// (field yaml) and redirects to its player; a file the loader rejects comes
// back with its errors at their lines and the text kept. A lesson that
// names a variant file (variant: ./my-lock.variant.yaml) runs on the
// variant file and scripts sent beside it, in the lock form's fields
// (ownlock.ReadFiles); each problem of theirs is at its own file's line,
// and a file not sent is named at the line that names it.
func (s *Pages) ServeImport(w http.ResponseWriter, r *http.Request) {
	loc := s.host.Negotiate(r)
	page := s.explorePage(loc, nil)
	fail := func(status int, src []byte, name string, err error) {
		page.ImportText = string(src)
		var les sim.LoadErrors
		if errors.As(err, &les) {
			bad := map[int]bool{}
			for _, e := range les {
				file := cmp.Or(e.File, name)
				page.ImportErrors = append(page.ImportErrors, templates.ImportError{Line: e.Pos.Line, Col: e.Pos.Col, Msg: s.host.Catalog().Message(loc, e),
					Where: fmt.Sprintf("%s:%d:%d", file, e.Pos.Line, e.Pos.Col), Elsewhere: file != name})
				if file == name {
					bad[e.Pos.Line] = true
				}
			}
			for i, line := range strings.Split(string(src), "\n") {
				page.ImportLines = append(page.ImportLines, templates.ImportLine{Number: i + 1, Text: line, Error: bad[i+1]})
			}
		} else {
			page.ImportErrors = append(page.ImportErrors, templates.ImportError{Line: 1, Col: 1, Msg: s.host.Texts(loc).Err(err), Where: name})
		}
		s.host.WritePage(w, r, status, templates.ExploreStart(page))
	}
	// The body must arrive within BodyTimeout and be at most
	// MaxImportBody bytes, whatever its encoding.
	var broken error
	var bfe *webnet.BrokenFormError
	if tooBig, timedOut, err := webnet.ReadForm(w, r, MaxImportBody, MaxImportBytes, s.host.BodyTimeout()); errors.As(err, &bfe) {
		// Said at the top, with what arrived kept below when it reads.
		broken = brokenForm(bfe)
		if !bfe.Kept {
			fail(http.StatusBadRequest, nil, "upload", broken)
			return
		}
	} else if err != nil {
		t := s.host.Texts(loc)
		switch {
		case tooBig:
			fail(http.StatusRequestEntityTooLarge, nil, "upload", errors.New(t.T("ImportBodyTooLarge", "Limit", MaxImportBytes>>10, "Max", MaxImportBody>>10)))
		case timedOut:
			w.Header().Set("Connection", "close")
			fail(http.StatusRequestTimeout, nil, "upload", errors.New(t.T("ImportBodyTimeout", "Seconds", s.host.BodyTimeout().Seconds())))
		default:
			fail(http.StatusBadRequest, nil, "upload", codedErr(sim.M("web.form.unreadable"), "explorepage: import: read the form: %v", err))
		}
		return
	}
	name, src := "pasted.yaml", []byte(r.FormValue("yaml"))
	if broken != nil {
		// What arrived of the paste, or the upload's name and its part,
		// goes back to the form: the learner checks it and sends again.
		if f, hdr, err := r.FormFile("file"); err == nil {
			if b, err := io.ReadAll(io.LimitReader(f, MaxImportBytes)); err == nil && len(b) > 0 && utf8.Valid(b) {
				name, src = hdr.Filename, b
			}
			f.Close()
		}
		fail(http.StatusBadRequest, src, name, broken)
		return
	}
	if f, hdr, err := r.FormFile("file"); err == nil {
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, MaxImportBytes+1))
		if err != nil {
			fail(http.StatusBadRequest, nil, hdr.Filename, codedErr(sim.M("web.import.unreadable"), "explorepage: import: read %s: %v", hdr.Filename, err))
			return
		}
		if len(b) > 0 {
			name, src = hdr.Filename, b
		}
	}
	if len(src) > MaxImportBytes {
		fail(http.StatusRequestEntityTooLarge, nil, name, errors.New(s.host.Texts(loc).T("ImportTooLarge", "Name", name, "Limit", MaxImportBytes>>10)))
		return
	}
	if bytes.HasPrefix(src, []byte{0xff, 0xfe}) || bytes.HasPrefix(src, []byte{0xfe, 0xff}) {
		fail(http.StatusUnprocessableEntity, nil, name, codedErr(sim.M("web.import.utf16"), "explorepage: import: %s is UTF-16 text; save it as UTF-8 and import it again", name))
		return
	}
	if !utf8.Valid(src) {
		fail(http.StatusUnprocessableEntity, nil, name, codedErr(sim.M("web.import.not-utf8"), "explorepage: import: %s is not UTF-8 text (a lesson file is YAML in UTF-8)", name))
		return
	}
	if len(strings.TrimSpace(string(src))) == 0 {
		fail(http.StatusBadRequest, src, name, codedErr(sim.M("web.import.empty"), "explorepage: import: choose a lesson file or paste one"))
		return
	}
	lock, err := ownlock.ReadFiles(s.host.Texts(loc), r)
	page.ImportLock = lock
	if err != nil {
		fail(http.StatusUnprocessableEntity, src, name, err)
		return
	}
	opts := s.host.LessonRules()
	opts.Variant = sentVariant(lock)
	l, err := opts.Load(name, src)
	if err != nil {
		fail(http.StatusUnprocessableEntity, src, name, err)
		return
	}
	code, err := s.host.EncodeTimeline(explore.Timeline{Kind: explore.KindImport, Lesson: l})
	if err != nil {
		fail(http.StatusUnprocessableEntity, src, name, err)
		return
	}
	http.Redirect(w, r, s.host.ExploreURL(code, 0, loc), http.StatusSeeOther)
}

// sentVariant resolves the variant file a lesson names (as it wrote it) to
// the variant file sent beside the lesson, with its scripts (lock): it is
// loaded and checked under the name the lesson gave it, its scripts read
// from the ones sent (sim.SentScripts). No variant file sent is an error
// in the reader's language, variant.not-sent, which the loader reports at
// the lesson's variant line.
func sentVariant(lock templates.LockForm) func(written string) (*sim.VariantDef, error) {
	return func(written string) (*sim.VariantDef, error) {
		if strings.TrimSpace(lock.Variant) == "" {
			return nil, codedErr(sim.M("variant.not-sent", "Variant", written), "explorepage: import: the lesson names the variant file %s, which was not sent", written)
		}
		file := path.Clean(written)
		scripts := map[string]string{}
		for _, sc := range lock.Scripts {
			if sc.Name != "" {
				scripts[sc.Name] = sc.Text
			}
		}
		return sim.LoadVariant(file, []byte(lock.Variant), sim.SentScripts(file, scripts))
	}
}

// brokenForm is the error a page shows for a form whose body broke off
// (webnet.BrokenFormError): it names the field it broke in, when known.
func brokenForm(e *webnet.BrokenFormError) error {
	if e.Field != "" {
		return codedErr(sim.M("web.form.broken-field", "Field", e.Field), "explorepage: %v", e)
	}
	return codedErr(sim.M("web.form.broken"), "explorepage: %v", e)
}
