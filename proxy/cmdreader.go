package proxy

import (
	"errors"
	"fmt"
	"io"

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

// errDollarInline answers a line that starts with '$', which redcon's
// parser reads as Tile38's protocol, not Redis's.
var errDollarInline = errors.New("proxy: protocol error: expected '*', got '$'")

func newCmdReader(r io.Reader) *cmdReader {
	return &cmdReader{r: r, buf: make([]byte, clientBuffer)}
}

// next appends to cmds the commands that the buffered bytes hold whole,
// reading from the connection (one read, blocking) only when they hold
// none; it returns them, at least one, or the read's error or a protocol
// error (redcon's, errDollarInline, errCommandTooLong).
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
// called); an empty command (an empty line, *0) is skipped, as Redis
// does. The batch's arguments share cr.args: each command's are the
// window after the previous command's.
func (cr *cmdReader) delimit(cmds []clientCommand) ([]clientCommand, error) {
	used := 0
	for cr.start < cr.end {
		packet := cr.buf[cr.start:cr.end]
		complete, args, kind, leftover, err := redcon.ReadNextCommand(packet, cr.args[used:used])
		if err != nil {
			return cmds, err
		}
		if !complete {
			break
		}
		if kind == redcon.Tile38 {
			return cmds, errDollarInline
		}
		if used+len(args) > cap(cr.args) {
			// append gave args an array of their own; the next
			// commands get a larger buffer (this one's keep theirs).
			cr.args, used = make([][]byte, 0, 2*(used+len(args))), 0
		} else {
			used += len(args)
		}
		raw := packet[:len(packet)-len(leftover)]
		cr.start += len(raw)
		if len(args) > 0 {
			cmds = append(cmds, clientCommand{Raw: raw, Args: args})
		}
	}
	return cmds, nil
}

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
