package sim

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// SentScripts is the ReadFunc of a variant file that a person sent with
// its scripts (a web form: Explore's "Your lock" and a lesson's import),
// not one on a disk. LoadVariant asks for a script at its path joined to
// the variant file's directory; SentScripts answers with the text of
// scripts (by the name each was sent under) at that path, else at the
// path the variant file wrote (relative to it), else at the same base
// name. A script not among them is a *ScriptNotSentError.
func SentScripts(variantFile string, scripts map[string]string) ReadFunc {
	byName := make(map[string]string, len(scripts))
	for name, text := range scripts {
		byName[path.Clean(filepath.ToSlash(name))] = text
	}
	dir := path.Dir(filepath.ToSlash(variantFile))
	return func(p string) ([]byte, error) {
		full := path.Clean(filepath.ToSlash(p))
		rel := full
		if dir != "." {
			rel = strings.TrimPrefix(full, dir+"/")
		}
		for _, name := range []string{full, rel, path.Base(full)} {
			if text, ok := byName[name]; ok {
				return []byte(text), nil
			}
		}
		return nil, &ScriptNotSentError{Path: rel}
	}
}

// ScriptNotSentError is a script a variant file names that was not sent
// beside it (SentScripts). Path is the script's path as the variant file
// wrote it, relative to the file.
type ScriptNotSentError struct{ Path string }

func (e *ScriptNotSentError) Error() string {
	return fmt.Sprintf("sim: the script %s was not sent beside the variant file", e.Path)
}

// Message makes ScriptNotSentError a Coded error: variant.script-not-sent.
func (e *ScriptNotSentError) Message() Msg { return M("variant.script-not-sent", "Path", e.Path) }

// CheckSentScripts returns errs, the problems LoadVariant found in a
// variant file sent with scripts (SentScripts), with the Lua errors of
// every script of scripts (by the name each was sent under) that errs
// says nothing of: LoadVariant compiles only the scripts a variant file
// that parses names, so a YAML error hid a broken script until the YAML
// was fixed (issue 38: a submission's problems are listed all at once).
// Each script is compiled on its own, as LoadVariant compiles one (its
// errors at the script's own FILE:LINE:COL, the file its sent name); a
// script with a problem in errs already is not compiled again. The
// result is capped as LoadVariant's is (CapProblems).
func CheckSentScripts(errs LoadErrors, scripts map[string]string) LoadErrors {
	listed := map[string]bool{}
	for _, e := range errs {
		listed[path.Base(filepath.ToSlash(e.File))] = true
	}
	names := make([]string, 0, len(scripts))
	for name := range scripts {
		names = append(names, name)
	}
	slices.Sort(names)
	out := errs
	for _, name := range names {
		base := path.Base(filepath.ToSlash(name))
		if listed[base] || !strings.HasSuffix(base, ".lua") {
			continue
		}
		s := &Script{Name: strings.TrimSuffix(base, ".lua"), Source: scripts[name], Custom: true, file: name}
		if e := compileLua(s); e != nil {
			out = append(out, *e)
		}
	}
	return CapProblems(out)
}
