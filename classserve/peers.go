package classserve

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// ParsePeer checks that raw is the public base URL of a Lockstep server
// (Config.ClassPeers): absolute, http or https, a host, no path beyond
// "/", no query, fragment or user info. It returns the URL as
// "scheme://host[:port]", lowercase, or an error that says what is wrong.
func ParsePeer(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil:
		return "", fmt.Errorf("classserve: peer %q: %w", raw, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("classserve: peer %q: not an absolute http:// or https:// URL", raw)
	case u.Host == "" || u.Hostname() == "":
		return "", fmt.Errorf("classserve: peer %q: no host", raw)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return "", fmt.Errorf("classserve: peer %q: a base URL has no user, query or fragment", raw)
	case u.Path != "" && u.Path != "/":
		return "", fmt.Errorf("classserve: peer %q: a base URL has no path (the server serves at /)", raw)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// ParsePeers is a list of peers (web.Config.ClassPeers) checked (ParsePeer each): in order, as
// the student page gets them, and as a set of origins for OriginAllowed.
func ParsePeers(peers []string) ([]string, map[string]bool, error) {
	list, set := make([]string, 0, len(peers)), map[string]bool{}
	for _, p := range peers {
		o, err := ParsePeer(p)
		if err != nil {
			return nil, nil, err
		}
		list, set[o] = append(list, o), true
	}
	return list, set, nil
}

// OriginAllowed is the websocket's origin check: a request without
// Origin (not a browser), one whose Origin's host is the Host it was sent
// to (gorilla's same-origin rule), or one from a page of a peer (origins,
// from Config.ClassPeers: a student page served by another server of the
// class, reconnecting here). Any other origin is refused (403).
func OriginAllowed(r *http.Request, origins map[string]bool) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	return origins[strings.ToLower(u.Scheme+"://"+u.Host)]
}
