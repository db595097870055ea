package backend

import (
	"errors"
	"net/url"
	"regexp"
)

// userinfo is the user:password@ part of a URL that may not parse.
var userinfo = regexp.MustCompile(`^([a-zA-Z][a-zA-Z0-9+.-]*://)([^@/?#]*)@`)

// RedactURL is a Redis URL fit to print: its password, if any, replaced
// by "xxxxx", whether or not the URL parses (issue 37, item 8: a -redis URL
// that did not parse was printed with its password).
func RedactURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return userinfo.ReplaceAllStringFunc(s, func(m string) string {
		sub := userinfo.FindStringSubmatch(m)
		user, _, hasPass := cutColon(sub[2])
		if !hasPass {
			return sub[1] + user + "@"
		}
		return sub[1] + user + ":xxxxx@"
	})
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
