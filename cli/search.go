package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"lockstep/backend"
	"lockstep/search"
	"lockstep/sim"
)

// Search executes `lockstep search FILE... [--redis URL] [--out DIR] [--json]
// [--lang L]` (shared/spec/search-format.md) and returns the exit code: 0
// when no invariant asked is broken within the depth, 1 when one is, 2 for
// an invalid file or flag or a Redis that cannot be reached. Flags may come
// before, between or after the files. The time it reports is the only wall
// clock Lockstep's search reads, here at its edge.
func Search(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("search", stderr, usageLine("usage: lockstep search FILE... [--redis URL] [--allow-custom-scripts] [--out DIR] [--json] [--lang en|zh-CN|zh-TW]"))
	redisURL := fs.redis("run every transition on the real Redis at this redis:// URL instead of the embedded one")
	outDir := fs.String("out", "", "write each breaking timeline as a lesson file DIR/<file stem>.<invariant>.yaml")
	a, code, ok := fs.parseFiles(args, stderr,
		"print one JSON object per file instead of text",
		"language of the report: en, zh-CN or zh-TW")
	if !ok {
		return code
	}
	cat, loc := a.cat, a.loc
	loaded, ok := loadFiles(a.files, search.Load, func(file string, err error) {
		// FILE:LINE:COL: message, in --lang where the problem has a
		// code (the rest are English until search codes them); with
		// --json the same as a JSON object on stdout, as run prints it.
		var es search.Errors
		if errors.As(err, &es) {
			err = sim.LoadErrors(es)
		}
		printLoadError(stderr, cat, loc, err)
		if a.asJSON {
			if jerr := json.NewEncoder(stdout).Encode(loadErrorJSON(cat, loc, file, err)); jerr != nil {
				fmt.Fprintf(stderr, "lockstep: %v\n", jerr)
			}
		}
	})
	if !ok {
		return ExitInvalid
	}
	msgs, err := search.NewMessages()
	if err != nil {
		fmt.Fprintf(stderr, "lockstep: %v\n", err)
		return ExitInvalid
	}
	// The operator's own search: bounded by no state count and no byte
	// budget, as before (the Search page's are: -search-max-states,
	// -search-max-mib).
	cfg := search.Config{Backend: search.Embedded(), MaxBytes: -1}
	if *redisURL != "" {
		be, err := backend.Open(ctx, backend.Config{URL: *redisURL, AllowCustomScripts: a.allowCustom})
		if err != nil {
			fmt.Fprintf(stderr, "lockstep: %v\n", err)
			return ExitInvalid
		}
		defer be.Close()
		cfg.Backend = search.Redis(be)
	}
	if *outDir != "" {
		if err := os.MkdirAll(*outDir, 0o755); err != nil {
			fmt.Fprintf(stderr, "lockstep: flag --out: %v\n", err)
			return ExitInvalid
		}
	}
	code = ExitOK
	for _, f := range loaded {
		printWarnings(stderr, cat, loc, f.VariantDef)
		start := time.Now()
		res, err := search.Run(ctx, f, cfg)
		if err != nil {
			// Said for this file (in JSON too where --json); the other
			// files are still searched, each reported.
			msg := searchError(cat, loc, f.Path, backend.ExplainOwnerInKeys(err, f.VariantDef))
			fmt.Fprintf(stderr, "lockstep: %s\n", msg)
			if a.asJSON {
				if jerr := json.NewEncoder(stdout).Encode(fileErrors{File: f.Path, Errors: []fileError{{Message: msg}}}); jerr != nil {
					fmt.Fprintf(stderr, "lockstep: %v\n", jerr)
				}
			}
			code = ExitInvalid
			continue
		}
		took := time.Since(start)
		if len(res.Found) > 0 {
			code = max(code, ExitFailed) // a file that could not be searched (ExitInvalid) outranks it
		}
		if a.asJSON {
			if err := json.NewEncoder(stdout).Encode(jsonReport(res)); err != nil {
				fmt.Fprintf(stderr, "lockstep: %v\n", err)
				return ExitInvalid
			}
		} else {
			printReport(stdout, msgs, loc, res, cfg.Backend.Msg, took)
		}
		if *outDir == "" {
			continue
		}
		for _, inv := range f.Invariants {
			cx := res.Found[inv]
			if cx == nil {
				continue
			}
			p := filepath.Join(*outDir, search.Stem(f.Path)+"."+inv+".yaml")
			body, err := lessonIn(*outDir, f, cx)
			if err != nil {
				fmt.Fprintf(stderr, "lockstep: flag --out: %v\n", err)
				return ExitInvalid
			}
			if err := os.WriteFile(p, body, 0o644); err != nil {
				fmt.Fprintf(stderr, "lockstep: flag --out: %v\n", err)
				return ExitInvalid
			}
			if !a.asJSON {
				fmt.Fprintln(stdout, msgs.Say(loc, "report-wrote", map[string]any{"Path": p}))
			}
		}
	}
	return code
}

// searchError says, in locale loc, why search file path could not be
// searched: a step over a bound (sim.LimitError) with what to do, an
// advance's at its entry of the file (FILE:LINE:COL, search.AdvanceError),
// a learner's script at its own line; anything else after the file's name,
// once: the "search: PATH: " that package search's errors begin with is
// not said again (it made "x.yaml: search: x.yaml: search: x.yaml: ...").
func searchError(cat catalogRenderer, loc sim.Locale, path string, err error) string {
	msg := cat.Error(loc, err)
	var ae *search.AdvanceError
	if errors.As(err, &ae) {
		return msg
	}
	for {
		rest, ok := strings.CutPrefix(msg, "search: ")
		if !ok {
			break
		}
		msg = rest
	}
	for {
		rest, ok := strings.CutPrefix(msg, path+": ")
		if !ok {
			break
		}
		msg = strings.TrimPrefix(rest, "search: ")
	}
	return path + ": " + msg
}

// catalogRenderer is what searchError needs of the catalogue.
type catalogRenderer interface {
	Error(l sim.Locale, err error) string
}

// searchJSON is the --json object of one file (search-format.md).
type searchJSON struct {
	File        string                    `json:"file"`
	Variant     string                    `json:"variant"`
	Depth       int                       `json:"depth"`
	Complete    bool                      `json:"complete"`
	End         search.End                `json:"end"`
	States      int                       `json:"states"`
	Transitions int                       `json:"transitions"`
	ScriptCalls int64                     `json:"script_calls"`
	Violations  map[string]*violationJSON `json:"violations"`
}

type violationJSON struct {
	Steps  int    `json:"steps"`
	Lesson string `json:"lesson"`
}

func jsonReport(res *search.Result) searchJSON {
	out := searchJSON{File: res.File.Path, Variant: res.File.Variant, Depth: res.File.Depth, Complete: res.Complete, End: res.End,
		States: res.States, Transitions: res.Transitions, ScriptCalls: res.ScriptCalls, Violations: map[string]*violationJSON{}}
	for _, inv := range res.File.Invariants {
		out.Violations[inv] = nil
		if cx := res.Found[inv]; cx != nil {
			out.Violations[inv] = &violationJSON{Steps: cx.Steps(), Lesson: string(cx.YAML)}
		}
	}
	return out
}

// printReport prints a search's report: per invariant asked its shortest
// breaking timeline, one step per line with its outcome and, after the
// breaking step, why it breaks the invariant; or none within the depth.
func printReport(w io.Writer, msgs *search.Messages, loc sim.Locale, res *search.Result, backendName sim.Msg, took time.Duration) {
	f := res.File
	fmt.Fprintln(w, msgs.Say(loc, "report-header", map[string]any{"File": f.Path, "Variant": f.Variant, "Actors": len(f.Actors), "Depth": f.Depth, "Backend": backendName}))
	for _, inv := range f.Invariants {
		cx := res.Found[inv]
		switch {
		case cx == nil && res.Complete:
			fmt.Fprintln(w, msgs.Say(loc, "report-none", map[string]any{"Invariant": inv, "Depth": f.Depth}))
			continue
		case cx == nil:
			fmt.Fprintln(w, msgs.Say(loc, "report-not-reached", map[string]any{"Invariant": inv, "Reached": res.Reached}))
			continue
		}
		fmt.Fprintln(w, msgs.Say(loc, "report-broken", map[string]any{"Invariant": inv, "Steps": cx.Steps()}))
		for i, st := range cx.Lesson.Steps {
			fmt.Fprintf(w, "  %2d. %s → %s\n", i+1, msgs.DescribeStep(loc, st), cx.Frames[i+1].Outcome)
		}
		last := cx.Frames[len(cx.Frames)-1]
		for _, v := range last.Violations {
			if v.Name == inv {
				fmt.Fprintf(w, "      %s\n", msgs.Narration(v.Detail).In(loc))
				break
			}
		}
	}
	fmt.Fprintln(w, msgs.Say(loc, "report-stats", map[string]any{"States": res.States, "Transitions": res.Transitions,
		"Calls": res.ScriptCalls, "Time": took.Round(time.Millisecond).String(), "Complete": res.Complete, "Reached": res.Reached, "Depth": f.Depth}))
}

// lessonIn is counterexample cx of search file f as a lesson file written
// in dir: a variant file the search names relative to itself is named
// relative to dir (a lesson's `variant:` is relative to the lesson).
func lessonIn(dir string, f *search.File, cx *search.Counterexample) ([]byte, error) {
	if !sim.IsVariantPath(f.Variant) {
		return cx.YAML, nil
	}
	variant, err := filepath.Abs(filepath.Join(filepath.Dir(f.Path), filepath.FromSlash(f.Variant)))
	if err != nil {
		return nil, err
	}
	out, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(out, variant)
	if err != nil {
		return nil, err
	}
	rel = filepath.ToSlash(rel)
	if !strings.HasPrefix(rel, "../") {
		rel = "./" + rel
	}
	l := *cx.Lesson
	l.Variant = rel
	return sim.MarshalLesson(&l)
}
