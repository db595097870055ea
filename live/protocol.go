package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"time"

	"lockstep/proxy"
	"lockstep/sim"
)

// inMsg is a browser message (see the package doc).
type inMsg struct {
	Type   string   `json:"type"`
	Client string   `json:"client,omitempty"`
	Key    string   `json:"key,omitempty"`
	MS     int64    `json:"ms,omitempty"`
	SpanMS int64    `json:"span_ms,omitempty"`
	Keys   []string `json:"keys,omitempty"`
	ID     string   `json:"id,omitempty"`
	// Before is the Seq an "older" message asks for the events before.
	Before uint64 `json:"before,omitempty"`
}

// outMsg is a server message (see the package doc).
type outMsg struct {
	Type     string          `json:"type"`
	For      string          `json:"for,omitempty"`
	Message  string          `json:"message,omitempty"`
	Snapshot *proxy.Snapshot `json:"snapshot,omitempty"`
	Texts    []string        `json:"texts,omitempty"`
	Event    *proxy.Event    `json:"event,omitempty"`
	Text     string          `json:"text,omitempty"`
	Saved    *proxy.Saved    `json:"saved,omitempty"`
	// Open is the player's address of the saved lesson (openURL);
	// OpenError, in the page's language, why there is none.
	Open      string `json:"open,omitempty"`
	OpenError string `json:"open_error,omitempty"`
	// Lanes head the snapshot's client lanes (Lanes); Library is the lock
	// library an event's command is known by (KnownScript).
	Lanes   []LaneView `json:"lanes,omitempty"`
	Library string     `json:"library,omitempty"`
	// Suggested and Chosen come with the first lock state of a key the
	// connection had not seen (proxy.Proxy.Suggested), without -locks.
	Suggested map[string]string `json:"suggested,omitempty"`
	Chosen    []string          `json:"chosen,omitempty"`
	// Events are a frame's event messages (type "events"); Skipped counts
	// the plain events the proxy did not send since the frame before
	// (proxy.Subscription.Skipped).
	Events  []outMsg `json:"events,omitempty"`
	Skipped uint64   `json:"skipped,omitempty"`
	// First answers "older": the Seq of the oldest event the proxy
	// still holds (proxy.Snapshot.First).
	First uint64 `json:"first,omitempty"`
}

// maxFaultMS bounds a pause or a delay from the page, in ms (the proxy's
// own bound, 10 minutes).
const maxFaultMS = 10 * 60 * 1000

var idPattern = regexp.MustCompile(`^[a-z0-9-]{1,64}$`)

// Faults is what the live page drives: the proxy's fault, lock-choice and
// save API (*proxy.Proxy).
type Faults interface {
	Pause(client string, d time.Duration) error
	Resume(client string) error
	LoseNextReply(client string) error
	DelayReplies(client string, d, span time.Duration) error
	ExpireKey(ctx context.Context, key string) error
	RestartUpstream(ctx context.Context) error
	CloseClient(client string) error
	ChooseLocks(keys []string) error
	SaveLesson(ctx context.Context, opt proxy.SaveOptions) (proxy.Saved, error)
}

// carry validates m and carries it out on p; it returns the answer, an
// error message rendered by r in the page's language when refused.
func carry(ctx context.Context, p Faults, r renderer, m inMsg) outMsg {
	refuse := func(code string, kv ...any) outMsg {
		return outMsg{Type: "error", For: m.Type, Message: r.Render(sim.M("live.error."+code, append([]any{"Type", m.Type}, kv...)...))}
	}
	needClient := func() *outMsg {
		if m.Client == "" {
			o := refuse("missing", "Field", "client")
			return &o
		}
		return nil
	}
	needMS := func(field string, v int64) *outMsg {
		if v <= 0 || v > maxFaultMS {
			o := refuse("range", "Field", field, "Value", v, "Max", maxFaultMS)
			return &o
		}
		return nil
	}
	var err error
	switch m.Type {
	case "pause":
		if o := needClient(); o != nil {
			return *o
		}
		if o := needMS("ms", m.MS); o != nil {
			return *o
		}
		err = p.Pause(m.Client, time.Duration(m.MS)*time.Millisecond)
	case "resume":
		if o := needClient(); o != nil {
			return *o
		}
		err = p.Resume(m.Client)
	case "lose-reply":
		if o := needClient(); o != nil {
			return *o
		}
		err = p.LoseNextReply(m.Client)
	case "delay":
		if o := needClient(); o != nil {
			return *o
		}
		if o := needMS("ms", m.MS); o != nil {
			return *o
		}
		if o := needMS("span_ms", m.SpanMS); o != nil {
			return *o
		}
		err = p.DelayReplies(m.Client, time.Duration(m.MS)*time.Millisecond, time.Duration(m.SpanMS)*time.Millisecond)
	case "expire":
		if m.Key == "" {
			return refuse("missing", "Field", "key")
		}
		err = p.ExpireKey(ctx, m.Key)
	case "restart":
		err = p.RestartUpstream(ctx)
	case "close":
		if o := needClient(); o != nil {
			return *o
		}
		err = p.CloseClient(m.Client)
	case "locks":
		err = p.ChooseLocks(m.Keys)
	case "save":
		id := m.ID
		if id == "" {
			id = "observed"
		}
		if !idPattern.MatchString(id) {
			return refuse("bad-id", "Value", fmt.Sprintf("%q", id))
		}
		saved, err := p.SaveLesson(ctx, proxy.SaveOptions{ID: id, Key: m.Key, Renderer: r.cat})
		if err != nil {
			return refusal(refuse, m, err)
		}
		out := outMsg{Type: "saved", For: m.Type, Saved: &saved}
		if open, err := openURL(saved, r.cat.Locales(), r.loc); err != nil {
			out.OpenError = r.cat.T(r.loc, "live.ui.open-failed", "Err", r.cat.Error(r.loc, err))
		} else {
			out.Open = open
		}
		return out
	default:
		return refuse("unknown-type")
	}
	if err != nil {
		return refusal(refuse, m, err)
	}
	return outMsg{Type: "done", For: m.Type}
}

// refusal names a proxy error in the page's language.
func refusal(refuse func(string, ...any) outMsg, m inMsg, err error) outMsg {
	switch {
	case errors.Is(err, proxy.ErrNoClient):
		return refuse("no-client", "Client", fmt.Sprintf("%q", m.Client))
	case errors.Is(err, proxy.ErrNotPaused):
		return refuse("not-paused", "Client", fmt.Sprintf("%q", m.Client))
	case errors.Is(err, proxy.ErrNotLock):
		return refuse("not-lock", "Key", fmt.Sprintf("%q", m.Key))
	case errors.Is(err, proxy.ErrNotEmbedded):
		return refuse("not-embedded")
	case errors.Is(err, proxy.ErrLocksFixed):
		return refuse("locks-fixed")
	case errors.Is(err, proxy.ErrNotSuggested):
		// The proxy's error ends with the quoted key it refused.
		return refuse("not-suggested", "Key", strings.TrimPrefix(err.Error(), proxy.ErrNotSuggested.Error()+": "))
	case errors.Is(err, proxy.ErrNothingToSave):
		return refuse("nothing-to-save")
	}
	return refuse("failed", "Err", err.Error())
}

// decode parses a browser message. A field of the wrong type is said by
// the field's JSON name and the kind of value it takes (encoding/json's
// own words name the Go struct: "Go struct field inMsg.before").
func decode(b []byte) (inMsg, error) {
	var m inMsg
	if err := json.Unmarshal(b, &m); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return m, fmt.Errorf("field %q takes %s, not a JSON %s", te.Field, valueKind(te.Type), te.Value)
		}
		return m, err
	}
	return m, nil
}

// valueKind names the kind of JSON value a field of Go type t takes.
func valueKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number, 0 or more"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "an object"
}
