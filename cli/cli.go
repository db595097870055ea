// Package cli implements Lockstep's command line: `run` prints the frames of
// lesson files, `lessons` lists the course. Package main dispatches to it;
// plain `lockstep` (or `go run .`) serves the web player instead.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"lockstep/backend"
	"lockstep/catalog"
	"lockstep/lessons"
	"lockstep/sim"
)

// Exit codes of `run`.
const (
	ExitOK      = 0 // every expect and expect_violation held
	ExitFailed  = 1 // an expectation did not hold
	ExitInvalid = 2 // a bad file, a bad flag, or Redis could not be reached
)

// Run executes `lockstep run FILE... [--redis URL] [--json] [--lang L]` and
// returns the exit code. Flags may come before, between or after the files.
//
// Text output escapes control characters (escape.go): lesson files are
// anyone's, and their texts must not drive the terminal.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	stderr = newEscapeWriter(stderr)
	fs := newFlags("run", stderr, usageLine("usage: lockstep run FILE... [--redis URL] [--redis-ca FILE] [--allow-custom-scripts] [--json] [--lang en|zh-CN|zh-TW]"))
	redisURL := fs.redis("run on the real Redis at this redis:// URL instead of the embedded one (rediss:// for TLS; a Cluster node's URL finds the cluster)")
	redisCA := fs.redisCA()
	a, code, ok := fs.parseFiles(args, stderr,
		"print frames as JSON lines (one object per lesson) instead of text",
		"narration language: en, zh-CN or zh-TW")
	if !ok {
		return code
	}
	rules := sim.Options{Locales: a.cat.Locales()}
	cat, loc := a.cat, a.loc
	loaded, ok := loadFiles(a.files, rules.LoadFile, func(f string, err error) {
		if !a.asJSON {
			printLoadError(stderr, cat, loc, err)
		} else if jerr := json.NewEncoder(stdout).Encode(loadErrorJSON(cat, loc, f, err)); jerr != nil {
			fmt.Fprintf(stderr, "lockstep: %v\n", jerr)
		}
	})
	if !ok {
		return ExitInvalid
	}
	be, err := backend.Open(ctx, backend.Config{URL: *redisURL, CAFile: *redisCA, AllowCustomScripts: a.allowCustom})
	if err != nil {
		fmt.Fprintf(stderr, "lockstep: %v\n", err)
		return ExitInvalid
	}
	defer be.Close()
	code = ExitOK
	for _, l := range loaded {
		printWarnings(stderr, cat, loc, l.VariantDef)
		frames, failures, info, err := runLesson(ctx, be, l)
		if err != nil {
			// Said for this file, in JSON too where --json; the other
			// files still run (each is reported, not only the first).
			err = backend.ExplainOwnerInKeys(err, l.VariantDef)
			msg := runError(cat, loc, l.File, err)
			fmt.Fprintf(stderr, "lockstep: %s\n", msg)
			if a.asJSON {
				if jerr := json.NewEncoder(stdout).Encode(fileErrors{File: l.File, Errors: []fileError{{Message: msg}}}); jerr != nil {
					fmt.Fprintf(stderr, "lockstep: %v\n", jerr)
				}
			}
			code = ExitInvalid
			continue
		}
		if a.asJSON {
			renderDetails(frames, cat, loc)
			out := struct {
				Lesson  string      `json:"lesson"`
				File    string      `json:"file"`
				Backend string      `json:"backend"`
				Frames  []sim.Frame `json:"frames"`
			}{l.ID, l.File, info.String(), frames}
			enc := json.NewEncoder(stdout)
			if err := enc.Encode(out); err != nil {
				fmt.Fprintf(stderr, "lockstep: %v\n", err)
				return ExitInvalid
			}
		} else {
			out := newEscapeWriter(stdout)
			fmt.Fprintf(out, "### %s (%s) · %s · %s\n", l.Title.In(loc), l.ID, l.Variant, backendText(cat, loc, info))
			fmt.Fprint(out, sim.Printer{Locale: loc, Renderer: cat}.Frames(frames))
		}
		for _, f := range failures {
			fmt.Fprintln(stderr, cat.Render(loc, f.Message()))
			code = max(code, ExitFailed) // a file that could not run (ExitInvalid) outranks it
		}
	}
	return code
}

// runLesson runs l on a new store of be. info is what the run ran on: the
// backend, or for a lesson with a replica the pair the store set up (never a
// single Redis given by URL, which cannot fail over).
func runLesson(ctx context.Context, be *backend.Backend, l *sim.Lesson) (frames []sim.Frame, failures []sim.Failure, info backend.Info, err error) {
	store, err := be.NewStore()
	if err != nil {
		return nil, nil, be.Info(), err
	}
	r, err := sim.NewRunner(l, store)
	if err != nil {
		store.Close(ctx)
		return nil, nil, be.Info(), err
	}
	frames, err = r.Run(ctx)
	info = store.Info()
	if cerr := store.Close(ctx); err == nil {
		err = cerr
	}
	return frames, r.Failures(), info, err
}

// parseWithLang parses args into fs and checks the --lang flag's value. It
// returns ok when the command goes on, and otherwise the exit code: ExitOK
// after -h, ExitInvalid for a bad flag or language (named on stderr).
func parseWithLang(fs *flag.FlagSet, args []string, lang *string, stderr io.Writer) (int, bool) {
	if code, ok := parse(fs, args); !ok {
		return code, false
	}
	if _, _, ok := language(*lang, stderr); !ok {
		return ExitInvalid, false
	}
	return 0, true
}

// parse parses args into fs. It returns ok when the command goes on, and
// otherwise the exit code: ExitOK after -h, ExitInvalid for a bad flag (the
// flag package has named it on stderr).
func parse(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return ExitOK, false
	} else if err != nil {
		return ExitInvalid, false
	}
	return 0, true
}

// fileArgs is what a command over files (run, search) has once its flags
// are parsed: the files named, the catalogue and the --lang locale, and the
// flags the two share.
type fileArgs struct {
	files       []string
	cat         *catalog.Catalog
	loc         sim.Locale
	asJSON      bool // --json
	allowCustom bool // --allow-custom-scripts
}

// parseFiles defines the flags run and search share (--json, --lang, with
// the command's help texts jsonHelp and langHelp, and
// --allow-custom-scripts), parses args (flags anywhere among the files) and
// checks that the language is one of the catalogue's and that at least one
// file is named. It returns the parsed arguments, or the exit code and
// false.
func (f flags) parseFiles(args []string, stderr io.Writer, jsonHelp, langHelp string) (fileArgs, int, bool) {
	asJSON := f.json(jsonHelp)
	lang := f.lang(langHelp)
	allowCustom := f.allowCustomScripts()
	files, err := parseInterspersed(f.FlagSet, args)
	if errors.Is(err, flag.ErrHelp) {
		return fileArgs{}, ExitOK, false
	}
	if err != nil {
		return fileArgs{}, ExitInvalid, false
	}
	cat, loc, ok := language(*lang, stderr)
	if !ok {
		return fileArgs{}, ExitInvalid, false
	}
	if len(files) == 0 {
		f.Usage()
		return fileArgs{}, ExitInvalid, false
	}
	return fileArgs{files: files, cat: cat, loc: loc, asJSON: *asJSON, allowCustom: *allowCustom}, 0, true
}

// loadFiles loads each of files with load, in order, and hands each error to
// report with its file. ok is false when a file did not load: the command
// then exits ExitInvalid, having reported every file's error, not only the
// first.
func loadFiles[T any](files []string, load func(string) (T, error), report func(file string, err error)) (loaded []T, ok bool) {
	ok = true
	for _, f := range files {
		v, err := load(f)
		if err != nil {
			report(f, err)
			ok = false
			continue
		}
		loaded = append(loaded, v)
	}
	return loaded, ok
}

// parseInterspersed parses flags that may stand anywhere among the files.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// Lessons prints the embedded course, one lesson per line. It takes no
// file arguments (a usage error, ExitInvalid): lesson files are run or
// checked with Run.
func Lessons(args []string, stdout, stderr io.Writer) int {
	stdout, stderr = newEscapeWriter(stdout), newEscapeWriter(stderr)
	fs := newFlags("lessons", stderr, usageLine("usage: lockstep lessons [--lang en|zh-CN|zh-TW] (lists the embedded course; to check or run lesson files, use lockstep run FILE...)"))
	lang := fs.lang("language of titles: en, zh-CN or zh-TW")
	// It takes no files: a file named here would otherwise be ignored
	// without a word.
	if code, ok := fs.parseNoArgs(args, stderr, "lockstep lessons: unexpected argument %q"); !ok {
		return code
	}
	_, loc, ok := language(*lang, stderr)
	if !ok {
		return ExitInvalid
	}
	all, err := lessons.All()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return ExitInvalid
	}
	idW, varW := 0, 0
	for _, l := range all {
		idW, varW = max(idW, len(l.ID)), max(varW, len(l.Variant))
	}
	for _, l := range all {
		fmt.Fprintf(stdout, "%-*s  %-*s  %s\n", idW, l.ID, varW, l.Variant, l.Title.In(loc))
		if s := l.Summary.In(loc); s != "" {
			fmt.Fprintf(stdout, "%-*s  %-*s  %s\n", idW, "", varW, "", strings.TrimSpace(s))
		}
	}
	return ExitOK
}

// language returns the message catalogue and the locale named by the --lang
// flag, or reports on stderr that the catalogue has no such locale.
func language(lang string, stderr io.Writer) (*catalog.Catalog, sim.Locale, bool) {
	cat, err := catalog.New()
	if err != nil {
		fmt.Fprintf(stderr, "lockstep: %v\n", err)
		return nil, "", false
	}
	if !cat.Has(sim.Locale(lang)) {
		names := make([]string, len(cat.Locales()))
		for i, l := range cat.Locales() {
			names[i] = string(l)
		}
		fmt.Fprintf(stderr, "lockstep: flag --lang: unknown language %q (want one of %s)\n", lang, strings.Join(names, ", "))
		return nil, "", false
	}
	return cat, sim.Locale(lang), true
}

// runError returns, in locale loc, why lesson file could not run: the step
// that could not (a *sim.StepRunError) and the catalogue's words for its
// cause (a *sim.LimitError, a *backend.PermissionError, a
// *backend.OwnerInKeysError), or err in plain words.
func runError(cat *catalog.Catalog, loc sim.Locale, file string, err error) string {
	var se *sim.StepRunError
	if errors.As(err, &se) {
		// The step's error, explained where backend.ExplainOwnerInKeys
		// put its explanation in its place.
		return cat.T(loc, "run.step-failed", "File", file, "Step", se.Step, "Do", string(se.Do), "Reason", cat.Error(loc, se.Err))
	}
	return file + ": " + cat.Error(loc, err)
}

// backendText names what a run ran on, in locale loc
// (backend.Info.Message).
func backendText(cat *catalog.Catalog, loc sim.Locale, info backend.Info) string {
	return cat.Render(loc, info.Message())
}

// renderDetails fills the text of every violation's detail in locale loc,
// for the JSON output (frame.go documents the field).
func renderDetails(frames []sim.Frame, cat *catalog.Catalog, loc sim.Locale) {
	for i := range frames {
		for j := range frames[i].Violations {
			d := &frames[i].Violations[j].Detail
			d.Text = cat.Render(loc, *d)
		}
	}
}

// fileErrors is the JSON object `run --json` prints for a file that cannot
// be loaded: each problem with its 1-based line and column (0 when it has
// no place), the field path and the message in the --lang language.
type fileErrors struct {
	File   string      `json:"file"`
	Errors []fileError `json:"errors"`
}

type fileError struct {
	// File is set when the problem is in another file than the one run: a
	// variant file the lesson names (its line and column are that file's).
	File    string `json:"file,omitempty"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

// loadErrorJSON returns why file cannot be loaded, for `run --json`.
func loadErrorJSON(cat *catalog.Catalog, loc sim.Locale, file string, err error) fileErrors {
	out := fileErrors{File: file, Errors: []fileError{}}
	var les sim.LoadErrors
	if !errors.As(err, &les) {
		out.Errors = append(out.Errors, fileError{Message: cat.Error(loc, err)})
		return out
	}
	for _, e := range les {
		fe := fileError{Line: e.Pos.Line, Col: e.Pos.Col, Path: e.Path, Message: cat.Message(loc, e)}
		if e.File != "" && e.File != file {
			fe.File = e.File
		}
		out.Errors = append(out.Errors, fe)
	}
	return out
}

// printLoadError prints why a lesson file cannot be loaded, in locale loc:
// FILE:LINE:COL: message for each problem, one per line.
func printLoadError(w io.Writer, cat *catalog.Catalog, loc sim.Locale, err error) {
	var les sim.LoadErrors
	if errors.As(err, &les) {
		for _, e := range les {
			fmt.Fprintln(w, cat.Problem(loc, e))
		}
		return
	}
	fmt.Fprintln(w, cat.Error(loc, err))
}
