package proxy

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// maxReplyBytes bounds one reply the proxy keeps (a bulk string's length
// or the total of an aggregate's elements it reads): Redis's own
// proto-max-bulk-len default is 512 MB; a lock application sends small
// values, and a bound keeps a broken upstream from exhausting memory. A
// larger reply is read through and dropped, and its client gets
// tooLargeReply's error in its place (readUpstreamReply).
const maxReplyBytes = 64 << 20

// maxReply is the bound of one reply from upstream: maxReplyBytes, or a
// test's Config.maxReply.
func (p *Proxy) maxReply() int {
	if p.cfg.maxReply > 0 {
		return p.cfg.maxReply
	}
	return maxReplyBytes
}

// tooLargeReply is the error reply a client gets in place of a reply over
// max bytes: its connection, and every other on the same upstream
// connection, reads on in step.
func tooLargeReply(max int) string {
	bound := strconv.Itoa(max) + " bytes"
	if max%(1<<20) == 0 {
		bound = strconv.Itoa(max>>20) + " MiB"
	}
	return "-ERR proxy: the reply was over the proxy's bound of " + bound + " and was not passed on\r\n"
}

// maxReplyDepth bounds the nesting of aggregate replies.
const maxReplyDepth = 32

// errReply is wrapped by the reply reader's errors.
var errReply = errors.New("proxy: malformed reply from upstream")

// Value is one decoded RESP2 or RESP3 reply, kept for the trace and the
// lock analysis: Kind is the RESP type byte ('+', '-', ':', '$', '*', '%',
// '~', '>', '_', ',', '#', '(', '!', '='); Str holds simple and bulk
// strings, errors, doubles and big numbers as text; Int an integer; Elems
// the elements of an aggregate (a map's keys and values alternate); Null
// is true for RESP2's $-1 and *-1 and RESP3's _.
type Value struct {
	Kind  byte
	Str   string
	Int   int64
	Elems []Value
	Null  bool
}

// readReply reads one complete reply from r and returns its raw bytes (an
// attribute '|' that precedes it included, so the client gets exactly what
// the upstream sent) and its decoded value.
func readReply(r *bufio.Reader) (raw []byte, v Value, err error) {
	return readUpstreamReply(r, nil, maxReplyBytes)
}

// readUpstreamReply reads one complete reply from r, appending its raw
// bytes to raw, and returns them and its decoded value; a reply over max
// bytes (Proxy.maxReply: maxReplyBytes) is read to its end without being
// kept and returned as tooLargeReply, so the stream stays in step (a
// shared upstream connection's other clients were closed with it).
func readUpstreamReply(r *bufio.Reader, raw []byte, max int) ([]byte, Value, error) {
	budget := max
	raw, v, err := readValue(r, raw, 0, &budget)
	if err == nil && budget < 0 {
		e := tooLargeReply(max)
		raw = append(raw[:0], e...)
		v = Value{Kind: '-', Str: strings.TrimSuffix(e[1:], "\r\n")}
	}
	return raw, v, err
}

// readValue reads one reply (at depth, within aggregates) from r,
// appending its raw bytes to raw, and returns them and its value, counting
// its bytes and elements against budget. Once the budget is below zero
// the rest of the reply is read and dropped: neither bytes nor values are
// kept (the caller sees the budget below zero).
func readValue(r *bufio.Reader, raw []byte, depth int, budget *int) ([]byte, Value, error) {
	if depth > maxReplyDepth {
		return raw, Value{}, fmt.Errorf("%w: nested more than %d deep", errReply, maxReplyDepth)
	}
	line, err := r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return raw, Value{}, fmt.Errorf("%w: a line over %d bytes", errReply, r.Size())
		}
		return raw, Value{}, err
	}
	if *budget >= 0 {
		raw = append(raw, line...)
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return raw, Value{}, fmt.Errorf("%w: line %q", errReply, line)
	}
	// body stays bytes: a length or a count is parsed from a string
	// that does not escape (no allocation); only a string reply keeps one.
	kind, body := line[0], line[1:len(line)-2]
	v := Value{Kind: kind}
	switch kind {
	case '+', '-', ',', '(':
		v.Str = string(body)
	case '#':
		v.Str = string(body)
		if v.Str == "t" {
			v.Int = 1
		}
	case '_':
		v.Null = true
	case ':':
		n, err := strconv.ParseInt(string(body), 10, 64)
		if err != nil {
			return raw, v, fmt.Errorf("%w: integer %q", errReply, body)
		}
		v.Int = n
	case '$', '!', '=':
		n, err := strconv.Atoi(string(body))
		if err != nil || n < -1 {
			return raw, v, fmt.Errorf("%w: length %q", errReply, body)
		}
		if n == -1 {
			v.Null = true
			break
		}
		if *budget -= n; *budget < 0 {
			if _, err := r.Discard(n + 2); err != nil {
				return raw, v, err
			}
			break
		}
		start := len(raw)
		raw = append(raw, make([]byte, n+2)...)
		if _, err := readFull(r, raw[start:]); err != nil {
			return raw, v, err
		}
		v.Str = string(raw[start : start+n])
	case '*', '%', '~', '>', '|':
		n, err := strconv.Atoi(string(body))
		if err != nil || n < -1 {
			return raw, v, fmt.Errorf("%w: count %q", errReply, body)
		}
		if n == -1 {
			v.Null = true
			break
		}
		if kind == '%' || kind == '|' {
			n *= 2
		}
		*budget -= n
		if *budget >= 0 {
			v.Elems = make([]Value, 0, min(n, 64))
		}
		for range n {
			var e Value
			if raw, e, err = readValue(r, raw, depth+1, budget); err != nil {
				return raw, v, err
			}
			if *budget >= 0 {
				v.Elems = append(v.Elems, e)
			}
		}
		if kind == '|' {
			// An attribute annotates the reply that follows it.
			var next Value
			raw, next, err = readValue(r, raw, depth, budget)
			return raw, next, err
		}
	default:
		return raw, v, fmt.Errorf("%w: type byte %q", errReply, kind)
	}
	return raw, v, nil
}

func readFull(r *bufio.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// IsNil reports whether v is a null reply (RESP2 nil bulk or array, RESP3 null).
func (v Value) IsNil() bool { return v.Null }

// IsError reports whether v is an error reply.
func (v Value) IsError() bool { return v.Kind == '-' || v.Kind == '!' }

// IsPush reports whether v is a RESP3 push (a pub/sub message, an
// invalidation): it answers no command.
func (v Value) IsPush() bool { return v.Kind == '>' }

// String writes v the way redis-cli does, on one line: "OK", "(integer) 1",
// "(nil)", "(error) ERR ...", "\"value\"", "[a, b]".
func (v Value) String() string {
	var b strings.Builder
	v.write(&b)
	return b.String()
}

func (v Value) write(b *strings.Builder) {
	switch {
	case v.Null:
		b.WriteString("(nil)")
		return
	}
	switch v.Kind {
	case '+':
		b.WriteString(v.Str)
	case '-', '!':
		b.WriteString("(error) " + v.Str)
	case ':':
		b.WriteString("(integer) " + strconv.FormatInt(v.Int, 10))
	case '#':
		b.WriteString("(boolean) " + map[bool]string{true: "true", false: "false"}[v.Int == 1])
	case ',', '(':
		b.WriteString(v.Str)
	case '$', '=':
		b.WriteString(strconv.Quote(v.Str))
	default:
		open, end := "[", "]"
		if v.Kind == '%' {
			open, end = "{", "}"
		} else if v.Kind == '>' {
			open = ">["
		}
		b.WriteString(open)
		for i, e := range v.Elems {
			if i > 0 {
				sep := ", "
				if v.Kind == '%' && i%2 == 1 {
					sep = ": "
				}
				b.WriteString(sep)
			}
			e.write(b)
		}
		b.WriteString(end)
	}
}
