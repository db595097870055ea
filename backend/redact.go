package backend

import (
	"errors"
	"net/url"
	"regexp"
	"strings"
)

// userinfo is the user:password@ part of a URL that may not parse.
var userinfo = regexp.MustCompile(`^([a-zA-Z][a-zA-Z0-9+.-]*://)([^@/?#]*)@`)

// RedactURL is a Redis URL fit to print: its password, if any, replaced
// by "xxxxx", whether or not the URL parses (issue 37, item 8: a -redis URL
// that did not parse was printed with its password). A value that is not a
// URL with a scheme and a host (no scheme, a mistyped separator, a bare
// password, a leading space) may be anything, so none of it is shown.
func RedactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.Scheme != "" && (u.Host != "" || u.Scheme == "unix") {
		return u.Redacted()
	}
	sub := userinfo.FindStringSubmatch(s)
	if sub == nil {
		if knownScheme(s) && !strings.Contains(s, "@") {
			return s // a URL with no user part: nothing to hide
		}
		return notShown
	}
	if !knownScheme(sub[1]) {
		return notShown
	}
	user, _, hasPass := cutColon(sub[2])
	rest := s[len(sub[0]):]
	if !hasPass {
		return sub[1] + user + "@" + rest
	}
	return sub[1] + user + ":xxxxx@" + rest
}

// notShown stands for a value given as a Redis URL that is not one.
const notShown = "(not shown: not a redis://, rediss:// or unix:// URL, and it may hold a password)"

// knownScheme reports whether s starts with a scheme Lockstep opens.
func knownScheme(s string) bool {
	for _, p := range []string{"redis://", "rediss://", "unix://"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func cutColon(s string) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// urlProblem is err without the URL a *url.Error quotes (with its
// password): what was wrong with it.
func urlProblem(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
