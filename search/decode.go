package search

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/goccy/go-yaml/ast"

	"lockstep/sim"
)

// Decode parses src, the text of the search file named path, into a File.
// It only parses: it reports what it cannot read (YAML syntax, a value of
// the wrong shape, an unknown field, a duration or number it cannot read)
// and leaves every rule of the format to Validate. Problems are
// sim.LoadErrors with positions; the File holds what could be read.
func Decode(path string, src []byte) (*File, sim.LoadErrors) {
	f := &File{Path: path}
	d := &decoder{}
	entries, errs := sim.ParseYAMLMapping(src, maxFileBytes, "search file")
	d.errs = append(d.errs, errs...)
	f.parsed = len(errs) == 0 || len(entries) > 0
	if len(entries) > 0 {
		f.at.top = entries[0].KeyPos
	}
	for _, e := range entries {
		p := sim.YAMLPos(e.Value)
		switch e.Key {
		case "title":
			f.Title, f.at.title = d.text(e)
		case "variant":
			f.Variant, f.at.variant = d.str(e), p
		case "lease":
			f.Lease, f.at.lease = d.duration(e.Key, e.Value), p
		case "fencing":
			f.Fencing = d.boolean(e)
		case "lock":
			f.Lock, f.at.lock = d.str(e), p
		case "actors":
			f.at.actors = p
			for _, n := range d.list(e) {
				a, at := d.actor(n)
				f.Actors, f.at.actor = append(f.Actors, a), append(f.at.actor, at)
			}
		case "moves":
			f.at.moves = p
			f.Moves = []Move{}
			for _, n := range d.list(e) {
				s, _ := d.scalar(n, "moves")
				f.Moves, f.at.move = append(f.Moves, Move(s)), append(f.at.move, sim.YAMLPos(n))
			}
		case "advance":
			f.at.advance = p
			f.Advance = []time.Duration{}
			for _, n := range d.list(e) {
				f.Advance, f.at.advanceAt = append(f.Advance, d.duration("advance", n)), append(f.at.advanceAt, sim.YAMLPos(n))
			}
		case "depth":
			f.Depth, f.at.depth = d.integer(e), p
		case "invariants":
			f.at.invariants = p
			f.Invariants = []string{}
			for _, n := range d.list(e) {
				s, _ := d.scalar(n, "invariants")
				f.Invariants, f.at.invariant = append(f.Invariants, s), append(f.at.invariant, sim.YAMLPos(n))
			}
		default:
			d.errorf(e.KeyPos, "unknown field %q", e.Key)
		}
	}
	return f, d.finish(path)
}

// decoder collects every problem of one file.
type decoder struct {
	errs sim.LoadErrors
}

func (d *decoder) errorf(p sim.Pos, format string, args ...any) {
	d.errs = append(d.errs, sim.LoadError{Pos: p, Msg: fmt.Sprintf(format, args...)})
}

// finish names the file in every problem and sorts them by position.
func (d *decoder) finish(path string) sim.LoadErrors {
	return sortErrors(d.errs, path)
}

func (d *decoder) scalar(n ast.Node, what string) (string, bool) {
	s, ok := sim.YAMLScalar(n)
	if !ok {
		d.errorf(sim.YAMLPos(n), "%s: want a single value, got %s", what, sim.YAMLDescribe(n))
	}
	return s, ok
}

func (d *decoder) str(e sim.YAMLEntry) string {
	s, _ := d.scalar(e.Value, e.Key)
	return s
}

func (d *decoder) boolean(e sim.YAMLEntry) bool {
	b, ok := sim.YAMLBool(e.Value)
	if !ok {
		d.errorf(sim.YAMLPos(e.Value), "%s: want true or false, got %s", e.Key, sim.YAMLDescribe(e.Value))
	}
	return b
}

func (d *decoder) integer(e sim.YAMLEntry) int {
	s, ok := d.scalar(e.Value, e.Key)
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		d.errorf(sim.YAMLPos(e.Value), "%s: want a whole number, got %q", e.Key, s)
		return 0
	}
	return n
}

// duration reads a Go duration (30s, 1500ms). A value it cannot read is 0,
// reported here; the rules on durations are Validate's.
func (d *decoder) duration(what string, n ast.Node) time.Duration {
	s, ok := d.scalar(n, what)
	if !ok {
		return 0
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		d.errorf(sim.YAMLPos(n), "%s: want a duration such as 30s or 1500ms (Go syntax, with a unit), got %q", what, s)
		return 0
	}
	return v
}

func (d *decoder) list(e sim.YAMLEntry) []ast.Node {
	items, errs := sim.YAMLSequence(e.Value, e.Key)
	d.errs = append(d.errs, errs...)
	return items
}

func (d *decoder) mapping(n ast.Node, what string) []sim.YAMLEntry {
	entries, errs := sim.YAMLMapping(n, what)
	d.errs = append(d.errs, errs...)
	return entries
}

// text reads a text field: a plain string, or a mapping from locale to
// string whose keys Validate checks (their positions are returned).
func (d *decoder) text(e sim.YAMLEntry) (sim.Text, map[string]sim.Pos) {
	if s, ok := sim.YAMLScalar(e.Value); ok {
		return sim.Plain(s), nil
	}
	t, at := sim.Text{}, map[string]sim.Pos{}
	for _, kv := range d.mapping(e.Value, e.Key) {
		t[sim.Locale(kv.Key)] = d.str(kv)
		at[kv.Key] = kv.KeyPos
	}
	return t, at
}

// actor reads an actor entry as lessons write them: id, name, instance,
// request_id.
func (d *decoder) actor(n ast.Node) (sim.ActorSpec, actorPos) {
	at := actorPos{at: sim.YAMLPos(n)}
	a := sim.ActorSpec{Pos: at.at}
	for _, e := range d.mapping(n, "actor") {
		p := sim.YAMLPos(e.Value)
		switch e.Key {
		case "id":
			a.ID, at.id = d.str(e), p
		case "name":
			a.Name, at.name = d.text(e)
		case "instance":
			a.Instance, at.instance = d.str(e), p
		case "request_id":
			a.RequestID, at.requestID = d.str(e), p
		default:
			d.errorf(e.KeyPos, "actor: unknown field %q", e.Key)
		}
	}
	return a, at
}

// Load reads the search file at path, decodes and validates it and fills
// in the defaults. A file that cannot be read gets an error naming it; an
// invalid one an Errors listing every problem (FILE:LINE:COL:
// message) that wraps ErrInvalid.
func Load(path string) (*File, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is named once, first
		}
		return nil, fmt.Errorf("search: %s: cannot read the search file: %w", path, err)
	}
	return parseFile(path, src, true)
}

// Parse is Load for a file's text: Decode, then Validate, then Defaults. A
// file whose variant is a variant file needs Load, which can read it.
func Parse(path string, src []byte) (*File, error) { return parseFile(path, src, false) }

func parseFile(path string, src []byte, files bool) (*File, error) {
	f, errs := Decode(path, src)
	if f.parsed && sim.IsVariantPath(f.Variant) {
		// `variant: ./my-lock.variant.yaml`, relative to the search file.
		var verrs sim.LoadErrors
		if !files {
			verrs = sim.LoadErrors{{Pos: f.at.variant, Msg: "variant " + f.Variant + ": a variant file can be named only by a search file read from a file",
				Problem: sim.M("variant.no-file-access", "Variant", f.Variant)}}
		} else if def, err := sim.LoadVariantFile(filepath.Join(filepath.Dir(path), filepath.FromSlash(f.Variant))); err != nil {
			errors.As(err, &verrs)
		} else {
			f.VariantDef = def
		}
		errs = append(errs, verrs...)
		if len(verrs) > 0 {
			f.VariantDef = &sim.VariantDef{} // reported: not an unknown variant as well
		}
	}
	if f.parsed {
		// Validate what could be read even when some of it could not,
		// so that one run reports every problem.
		errs = append(errs, Validate(f)...)
	}
	if len(errs) > 0 {
		return nil, Errors(sortErrors(errs, path))
	}
	f.Defaults()
	return f, nil
}
