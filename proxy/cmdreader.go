package proxy

import (
	"bytes"
	"fmt"
	"io"
	"math"

	"github.com/tidwall/redcon"
)

// cmdReader delimits a client's commands with redcon's parser
// (redcon.ReadNextCommand, RESP arrays and inline commands) in one buffer
// it reuses: a command's Raw and Args are slices of that buffer, valid
// until the next fill. redcon's own Reader copies each command's bytes and
// allocates its arguments (about 250 bytes and four objects a command, 80%
// of the proxy's allocations under redis-benchmark -P 16 -c 50); whoever
// keeps a command past the batch copies it (parseCommand makes strings,
// queueCommand appends Raw to the upstream batch).
type cmdReader struct {
	r     io.Reader
	buf   []byte
	start int // the first byte not yet delimited
	end   int // the end of what was read
	args  [][]byte
}

// clientCommand is one command a client sent: Raw its bytes as sent (an
// inline command's line), Args its arguments; both alias cmdReader's
// buffer.
type clientCommand struct {
	Raw  []byte
	Args [][]byte
}

// clientBuffer is the first size of a client connection's read buffer, as
// redcon's own (4 KiB); it doubles for a command that does not fit, up
// to maxCommandBytes.
const clientBuffer = 4096

// maxCommandBytes bounds one command of a client, as Redis's
// proto-max-bulk-len (512 MiB) bounds a bulk argument: a longer one is
// refused with a protocol error and the connection closed, as Redis does.
const maxCommandBytes = 512 << 20

var errCommandTooLong = fmt.Errorf("proxy: protocol error: a command over %d MiB (the proxy's bound, as Redis's proto-max-bulk-len)", maxCommandBytes>>20)

// maxInlineBytes is Redis's PROTO_INLINE_MAX_SIZE (64 KiB): an inline
// command, or a header line of a RESP array (its count, a bulk's length),
// with no newline within it is a protocol error.
const maxInlineBytes = 64 << 10

// protocolError is a client's bytes that Redis refuses as not RESP: reason
// is Redis's text after "Protocol error: " (networking.c,
// processInlineBuffer and processMultibulkBuffer), which the client is
// answered (writeProtocolError) before its connection is closed.
type protocolError struct{ reason string }

func (e *protocolError) Error() string { return "proxy: protocol error: " + e.reason }

var (
	errMultibulkLength = &protocolError{"invalid multibulk length"}
	errBulkLength      = &protocolError{"invalid bulk length"}
	errBigCount        = &protocolError{"too big mbulk count string"}
	errBigBulkCount    = &protocolError{"too big bulk count string"}
	errBigInline       = &protocolError{"too big inline request"}
)

func newCmdReader(r io.Reader) *cmdReader {
	return &cmdReader{r: r, buf: make([]byte, clientBuffer)}
}

// next appends to cmds the commands that the buffered bytes hold whole,
// reading from the connection (one read, blocking) only when they hold
// none; it returns them, at least one, or the read's error or a protocol
// error (redcon's, a *protocolError, errCommandTooLong).
func (cr *cmdReader) next(cmds []clientCommand) ([]clientCommand, error) {
	cmds = cmds[:0]
	for {
		var err error
		if cmds, err = cr.delimit(cmds); err != nil || len(cmds) > 0 {
			return cmds, err
		}
		if err := cr.fill(); err != nil {
			return cmds, err
		}
	}
}

// delimit appends the whole commands buffered to cmds (empty when
// called); an empty command (an empty line, *0, *-1) is skipped, as Redis
// does. The batch's arguments share cr.args: each command's are the
// window after the previous command's.
func (cr *cmdReader) delimit(cmds []clientCommand) ([]clientCommand, error) {
	used := 0
	for cr.start < cr.end {
		packet := cr.buf[cr.start:cr.end]
		var (
			n    int
			args [][]byte
			err  error
		)
		switch packet[0] {
		case '*':
			n, args, err = readArray(packet, cr.args[used:used])
		case '$':
			n, args, err = dollarInline(packet, cr.args[used:used])
		default:
			var complete bool
			var leftover []byte
			complete, args, _, leftover, err = redcon.ReadNextCommand(packet, cr.args[used:used])
			if complete {
				n = len(packet) - len(leftover)
			} else if err == nil && len(packet) > maxInlineBytes && bytes.IndexByte(packet, '\n') < 0 {
				err = errBigInline
			}
		}
		if err != nil {
			return cmds, err
		}
		if n == 0 {
			break
		}
		if used+len(args) > cap(cr.args) {
			// append gave args an array of their own; the next
			// commands get a larger buffer (this one's keep theirs).
			cr.args, used = make([][]byte, 0, 2*(used+len(args))), 0
		} else {
			used += len(args)
		}
		raw := packet[:n]
		cr.start += n
		if len(args) > 0 {
			cmds = append(cmds, clientCommand{Raw: raw, Args: args})
		}
	}
	return cmds, nil
}

// readArray reads the RESP array (a command) at packet's start as Redis
// does (networking.c, processMultibulkBuffer): its length in bytes and its
// arguments (appended to args, slices of packet), 0 when it is not whole
// yet; a count of 0 or less is a whole command of no arguments, skipped.
// What is buffered of a command not yet whole is checked as the whole
// one: a count Redis refuses (not a number, over INT_MAX), a bulk length
// it refuses (not a number, negative, over proto-max-bulk-len), a header
// line with no newline over maxInlineBytes is the error Redis answers,
// not a wait for more. (redcon.ReadNextCommand waited on those, and
// panicked on a negative bulk length: "*1\r\n$-2\r\n".)
func readArray(packet []byte, args [][]byte) (int, [][]byte, error) {
	args = args[:0]
	count, i, ok := respHeader(packet, 1)
	switch {
	case !ok || count > math.MaxInt32:
		return 0, args, errMultibulkLength
	case i == 0:
		if len(packet) > maxInlineBytes {
			return 0, args, errBigCount
		}
		return 0, args, nil
	}
	for range max(count, 0) {
		if i >= len(packet) {
			return 0, args[:0], nil
		}
		if packet[i] != '$' {
			return 0, args[:0], &protocolError{"expected '$', got '" + string(packet[i]) + "'"}
		}
		n, next, ok := respHeader(packet, i+1)
		switch {
		case !ok || n < 0 || n > maxBulkBytes:
			return 0, args[:0], errBulkLength
		case next == 0:
			if len(packet)-i > maxInlineBytes {
				return 0, args[:0], errBigBulkCount
			}
			return 0, args[:0], nil
		}
		i = next
		if int64(len(packet)-i) < n+2 {
			return 0, args[:0], nil
		}
		end := i + int(n)
		if packet[end] != '\r' || packet[end+1] != '\n' {
			return 0, args[:0], errBulkLength
		}
		args = append(args, packet[i:end])
		i = end + 2
	}
	return i, args, nil
}

// respHeader reads the number of the header line at p[i:] (after its '*'
// or '$') as Redis's string2ll: an optional '-' and at most 18 digits, no
// leading zero, then "\r\n" (Redis takes any byte after the '\r'). next
// is the index after the line, 0 when the line is not whole yet; ok is
// false when it is not such a number (said as soon as a byte shows it,
// which Redis says once the line is whole).
func respHeader(p []byte, i int) (n int64, next int, ok bool) {
	neg := i < len(p) && p[i] == '-'
	if neg {
		i++
	}
	digits := i
	for ; i < len(p) && p[i] >= '0' && p[i] <= '9'; i++ {
		if i-digits < 18 {
			n = 10*n + int64(p[i]-'0')
		}
	}
	switch {
	case i == len(p) || (p[i] == '\r' && i+1 == len(p)):
		return 0, 0, true // more digits or the newline to come
	case p[i] != '\r' || p[i+1] != '\n' || i == digits || i-digits > 18 || (p[digits] == '0' && i-digits > 1):
		return 0, 0, false
	case neg:
		n = -n
	}
	return n, i + 2, true
}

// dollarInline reads a line starting with '$' as Redis does, as an inline
// command (Redis answers "$3\r\n" unknown command '$3'; redcon would read
// Tile38's protocol and wait for a space): redcon's inline parser, which
// skips a leading space, is handed a copy of the line after one. The copy
// is the line's own (the last argument may alias it), so the arguments
// stay valid as long as the buffer's. Its length in bytes, 0 when the
// line is not whole yet.
func dollarInline(packet []byte, args [][]byte) (int, [][]byte, error) {
	nl := bytes.IndexByte(packet, '\n')
	if nl < 0 {
		if len(packet) > maxInlineBytes {
			return 0, args[:0], errBigInline
		}
		return 0, args[:0], nil
	}
	line := make([]byte, nl+2)
	line[0] = ' '
	copy(line[1:], packet[:nl+1])
	_, args, _, _, err := redcon.ReadNextCommand(line, args)
	return nl + 1, args, err
}

// maxBulkBytes is Redis's proto-max-bulk-len (512 MiB by default): a
// longer bulk is refused, "invalid bulk length".
const maxBulkBytes = 512 << 20

// fill reads once from the connection after what is buffered, moving
// the buffered part of a command to the front or growing the buffer when
// it is full.
func (cr *cmdReader) fill() error {
	if cr.start == cr.end {
		cr.start, cr.end = 0, 0
	}
	if cr.end == len(cr.buf) {
		if cr.start > 0 {
			cr.end = copy(cr.buf, cr.buf[cr.start:cr.end])
			cr.start = 0
		} else {
			if len(cr.buf) >= maxCommandBytes {
				return errCommandTooLong
			}
			grown := make([]byte, 2*len(cr.buf))
			copy(grown, cr.buf[:cr.end])
			cr.buf = grown
		}
	}
	n, err := cr.r.Read(cr.buf[cr.end:])
	cr.end += n
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// buffered reports whether bytes are read and not yet delimited (the
// start of a command whose end is still to come).
func (cr *cmdReader) buffered() bool { return cr.start < cr.end }

// shrink gives back a buffer grown for a long command once nothing is
// buffered, so an idle connection keeps clientBuffer bytes.
func (cr *cmdReader) shrink() {
	if cr.start == cr.end && len(cr.buf) > 4*clientBuffer {
		cr.buf, cr.start, cr.end = make([]byte, clientBuffer), 0, 0
	}
	if cap(cr.args) > 1024 {
		cr.args = nil
	}
}
