package backend

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
	"github.com/redis/go-redis/v9"
)

// Direct is an in-process client of one miniredis: it hands each command to
// the server's dispatcher (server.Dispatch, as miniredis's own redis.call
// does for a script) on the caller's goroutine and reads the reply the
// command wrote, with no go-redis, connection or server goroutine between.
// Its replies are go-redis's (see Do), so DecodeReply reads them as it reads
// a go-redis result. It is one connection: selected database 0, no
// authentication (an embedded run's miniredis has no password), RESP2, no
// MULTI. A Direct is not safe for concurrent use; miniredis locks itself
// inside each command, so its Go API may be used meanwhile.
//
// The search's store (package search) sends its script calls through it:
// a 3-actor search makes some 56,000 of them (docs/performance.md).
type Direct struct {
	srv  *server.Server
	peer *server.Peer
	out  bytes.Buffer // what the command wrote, through w
	w    *bufio.Writer
	rd   *bufio.Reader
	args []string
}

// NewMiniredisDirect returns a fresh miniredis with no listener and a Direct
// to it: an embedded Redis for one caller that needs no go-redis client. The
// caller closes the miniredis.
func NewMiniredisDirect() (*miniredis.Miniredis, *Direct) {
	m := miniredis.NewMiniRedis()
	// Dial starts the server with no listener (see NewMiniredis).
	if c, err := m.Dial(); err == nil {
		c.Close()
	}
	d := &Direct{srv: m.Server()}
	d.w = bufio.NewWriterSize(&d.out, embeddedBufferSize)
	d.rd = bufio.NewReaderSize(&d.out, embeddedBufferSize)
	d.peer = server.NewPeer(d.w)
	return m, d
}

// directError is an error reply, read as go-redis reads one: it implements
// redis.Error.
type directError string

func (e directError) Error() string { return string(e) }

// RedisError marks directError as a redis.Error.
func (directError) RedisError() {}

// Do runs one command and returns its reply as go-redis's Cmd.Result does
// on RESP2: an integer as int64, a bulk or status string as string, an array
// as []any (a nil element as nil, an error element as a redis.Error), a nil
// bulk or array as the error redis.Nil and an error reply as an error that
// implements redis.Error. It returns ctx's error, without running the
// command, when ctx is done.
func (d *Direct) Do(ctx context.Context, args ...string) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d.out.Reset()
	d.srv.Dispatch(d.peer, args)
	d.peer.Flush()
	d.rd.Reset(&d.out)
	v, err := readReply(d.rd)
	if err != nil {
		var re directError
		if errors.Is(err, redis.Nil) || errors.As(err, &re) {
			return nil, err
		}
		return nil, fmt.Errorf("backend: direct %s: %w", args[0], err)
	}
	if rest := d.rd.Buffered(); rest > 0 {
		return nil, fmt.Errorf("backend: direct %s: %d bytes after the reply", args[0], rest)
	}
	return v, nil
}

// RunScript runs a script as go-redis's Script.Run does: EVALSHA with sha
// (the SHA1 of src), then EVAL with src when the server answers NOSCRIPT.
// The reply is Do's.
func (d *Direct) RunScript(ctx context.Context, sha, src string, keys, args []string) (any, error) {
	d.args = append(d.args[:0], "EVALSHA", sha, strconv.Itoa(len(keys)))
	d.args = append(append(d.args, keys...), args...)
	v, err := d.Do(ctx, d.args...)
	var re directError
	if errors.As(err, &re) && strings.HasPrefix(string(re), "NOSCRIPT ") {
		d.args[0], d.args[1] = "EVAL", src
		v, err = d.Do(ctx, d.args...)
	}
	return v, err
}

// readReply reads one RESP2 reply as go-redis's proto.Reader.ReadReply
// does; see Do.
func readReply(rd *bufio.Reader) (any, error) {
	line, err := rd.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || !strings.HasSuffix(line, "\r\n") {
		return nil, fmt.Errorf("invalid reply %q", line)
	}
	kind, body := line[0], line[1:len(line)-2]
	switch kind {
	case '+':
		return body, nil
	case '-':
		return nil, directError(body)
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, fmt.Errorf("invalid bulk length %q", body)
		}
		if n < 0 {
			return nil, redis.Nil
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(rd, b); err != nil {
			return nil, err
		}
		return string(b[:n]), nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, fmt.Errorf("invalid array length %q", body)
		}
		if n < 0 {
			return nil, redis.Nil
		}
		out := make([]any, n)
		for i := range out {
			v, err := readReply(rd)
			var re directError
			switch {
			case errors.Is(err, redis.Nil):
			case errors.As(err, &re):
				out[i] = re
			case err != nil:
				return nil, err
			default:
				out[i] = v
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("reply of type %q, not RESP2", kind)
}
