package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"lockstep/backend"
	"lockstep/catalog"
	"lockstep/sim"
)

// Exit codes of `doctor`: ExitOK when every check passed or only warned,
// ExitFailed when a check failed (Lockstep cannot run lessons there), and
// ExitInvalid for a bad flag or a Redis that cannot be reached or refuses
// the connection.

// Doctor executes `lockstep doctor --redis URL [--redis-ca FILE] [--lang L]
// [--json]`: it checks the Redis at URL for what Lockstep needs
// (backend.Diagnose) and prints one line per check, in the user's
// language, with how to fix what fails; --json prints the checks as one
// JSON array instead. It returns the exit code.
func Doctor(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	loc, err := doctorLocalizer("en")
	if err != nil {
		fmt.Fprintf(stderr, "lockstep: %v\n", err)
		return ExitInvalid
	}
	fs := newFlags("doctor", stderr, func() string { return msg(loc, "DoctorUsage", nil) })
	redisURL := fs.redis("the Redis to check: redis://[user:password@]host:port, rediss:// for TLS")
	ca := fs.redisCA()
	lang := fs.lang("language: en, zh-CN or zh-TW")
	asJSON := fs.json("print the checks as JSON")
	if code, ok := parseWithLang(fs.FlagSet, args, lang, stderr); !ok {
		return code
	}
	if loc, err = doctorLocalizer(*lang); err != nil {
		fmt.Fprintf(stderr, "lockstep: %v\n", err)
		return ExitInvalid
	}
	if *redisURL == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, msg(loc, "DoctorNeedURL", nil))
		return ExitInvalid
	}
	checks, err := backend.Diagnose(ctx, backend.Config{URL: *redisURL, CAFile: *ca})
	if *asJSON {
		if jerr := json.NewEncoder(stdout).Encode(checks); jerr != nil {
			fmt.Fprintf(stderr, "lockstep: %v\n", jerr)
			return ExitInvalid
		}
	} else {
		printChecks(stdout, loc, redact(*redisURL), checks)
	}
	if err != nil {
		return ExitInvalid
	}
	failed := 0
	for _, c := range checks {
		if c.Status == backend.StatusFail {
			failed++
		}
	}
	if failed > 0 {
		return ExitFailed
	}
	return ExitOK
}

// printChecks writes one line per check ("ok   ...", "warn ...",
// "FAIL ..."), a fix line under each that has one, and a summary.
func printChecks(w io.Writer, loc doctorTexts, url string, checks []backend.Check) {
	fmt.Fprintln(w, msg(loc, "DoctorHeader", map[string]any{"URL": url}))
	failed, warned := 0, 0
	label := map[backend.Status]string{backend.StatusOK: msg(loc, "DoctorOK", nil), backend.StatusWarn: msg(loc, "DoctorWarn", nil), backend.StatusFail: msg(loc, "DoctorFail", nil)}
	width := 0
	for _, l := range label {
		width = max(width, displayWidth(l))
	}
	for _, c := range checks {
		id := string(c.ID) + "_" + string(c.Status)
		params := map[string]any{"rules": backend.ACLRules}
		for k, v := range c.Params {
			params[k] = v
		}
		switch {
		case c.ID == backend.CheckCluster && c.Status == backend.StatusOK:
			id += "_" + c.Params["cluster"]
		case c.ID == backend.CheckCommand && c.Status == backend.StatusFail && c.Params["rule"] == "":
			id += "_norule"
		}
		switch c.Status {
		case backend.StatusFail:
			failed++
		case backend.StatusWarn:
			warned++
		}
		l := label[c.Status]
		fmt.Fprintf(w, "%s%s  %s\n", l, strings.Repeat(" ", width-displayWidth(l)), msg(loc, id, params))
		if fix, ok := msgIf(loc, id+"_fix", params); ok && c.Status != backend.StatusOK {
			fmt.Fprintf(w, "%s  %s%s\n", strings.Repeat(" ", width), msg(loc, "DoctorFix", nil), fix)
		}
	}
	switch {
	case failed > 0:
		fmt.Fprintln(w, msg(loc, "DoctorFailed", map[string]any{"N": failed}))
	case warned > 0:
		fmt.Fprintln(w, msg(loc, "DoctorWarnings", nil))
	default:
		fmt.Fprintln(w, msg(loc, "DoctorAllOK", nil))
	}
}

// displayWidth counts a CJK character as two columns.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x1100 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// redact hides a URL's password.
func redact(u string) string {
	at := strings.LastIndex(u, "@")
	scheme := strings.Index(u, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return u
	}
	cred := u[scheme+3 : at]
	if i := strings.Index(cred, ":"); i >= 0 {
		return u[:scheme+3] + cred[:i] + ":***" + u[at:]
	}
	return u
}

// doctorTexts are doctor's messages (catalog/doctor.*.toml) in one locale.
type doctorTexts struct {
	cat *catalog.Catalog
	loc sim.Locale
}

// doctorLocalizer returns the catalogue's doctor messages in language lang
// (a locale the catalogue lacks reads as English).
func doctorLocalizer(lang string) (doctorTexts, error) {
	cat, err := catalog.New()
	if err != nil {
		return doctorTexts{}, fmt.Errorf("cli: doctor messages: %w", err)
	}
	return doctorTexts{cat: cat, loc: sim.Locale(lang)}, nil
}

// msg returns message id in the texts' language, or the id itself when the
// catalogue lacks it (a test checks that none is missing).
func msg(t doctorTexts, id string, data map[string]any) string {
	s, ok := msgIf(t, id, data)
	if !ok {
		return id
	}
	return s
}

func msgIf(t doctorTexts, id string, data map[string]any) (string, bool) {
	return t.cat.Lookup(t.loc, id, data)
}
