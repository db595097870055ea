package proxy

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tidwall/redcon"
)

// chunks is a reader that gives its parts one a read, as a client's
// bytes come in several segments.
type chunks struct{ parts []string }

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.parts[0])
	c.parts[0] = c.parts[0][n:]
	if c.parts[0] == "" {
		c.parts = c.parts[1:]
	}
	return n, nil
}

// readAll reads every command from r: for each, its args joined by
// spaces, and the Raw it came as; the error that ended it.
func readAll(t *testing.T, r io.Reader) (args, raws []string, err error) {
	t.Helper()
	cr := newCmdReader(r)
	var cmds []clientCommand
	for {
		cmds, err = cr.next(cmds)
		// Copy before the next call: they alias the reader's buffers.
		for _, c := range cmds {
			parts := make([]string, len(c.Args))
			for i, a := range c.Args {
				parts[i] = string(a)
			}
			args = append(args, strings.Join(parts, " "))
			raws = append(raws, string(c.Raw))
		}
		if err != nil {
			return args, raws, err
		}
	}
}

func TestCmdReaderDelimits(t *testing.T) {
	t.Parallel()
	set := "*3\r\n$3\r\nSET\r\n$6\r\nlock:a\r\n$2\r\nv1\r\n"
	get := "*2\r\n$3\r\nGET\r\n$6\r\nlock:a\r\n"
	long := strings.Repeat("x", 3*clientBuffer) // grows the buffer twice
	setLong := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$12288\r\n" + long + "\r\n"
	cases := []struct {
		name  string
		parts []string
		args  []string
		raws  []string
	}{
		{"a pipeline in one read", []string{set + get + set},
			[]string{"SET lock:a v1", "GET lock:a", "SET lock:a v1"}, []string{set, get, set}},
		{"split inside a bulk and a header", []string{set[:20], set[20:] + get[:3], get[3:]},
			[]string{"SET lock:a v1", "GET lock:a"}, []string{set, get}},
		{"a byte a read", strings.Split(get+set, ""),
			[]string{"GET lock:a", "SET lock:a v1"}, []string{get, set}},
		{"a command longer than the buffer", []string{setLong[:100], setLong[100:] + get},
			[]string{"SET k " + long, "GET lock:a"}, []string{setLong, get}},
		{"inline commands, quotes and empty lines skipped", []string{"PING\r\n\r\nSET k \"a b\"\n" + get},
			[]string{"PING", "SET k a b", "GET lock:a"}, []string{"PING\r\n", "SET k \"a b\"\n", get}},
		{"*0 and *-1 skipped", []string{"*0\r\n*-1\r\n" + get}, []string{"GET lock:a"}, []string{get}},
		{"a line starting with $ is inline", []string{"$4 PING\r\n$3", "\r\n" + get},
			[]string{"$4 PING", "$3", "GET lock:a"}, []string{"$4 PING\r\n", "$3\r\n", get}},
	}
	for _, tc := range cases {
		args, raws, err := readAll(t, &chunks{parts: tc.parts})
		if !errors.Is(err, io.EOF) {
			t.Errorf("%s: ended with %v, want EOF", tc.name, err)
		}
		if strings.Join(args, "|") != strings.Join(tc.args, "|") {
			t.Errorf("%s: args %q, want %q", tc.name, args, tc.args)
		}
		if strings.Join(raws, "|") != strings.Join(tc.raws, "|") {
			t.Errorf("%s: raw %q, want %q", tc.name, raws, tc.raws)
		}
	}
}

// TestCmdReaderManyArgs: a batch whose arguments outgrow the shared
// argument buffer keeps every command's own (the buffer is replaced, not
// written over).
func TestCmdReaderManyArgs(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	var want []string
	for i := range 40 {
		n := 1 + i%7
		in.WriteString("*" + strconv.Itoa(n) + "\r\n")
		parts := make([]string, n)
		for j := range n {
			parts[j] = "a" + strconv.Itoa(i) + "-" + strconv.Itoa(j)
			in.WriteString("$" + strconv.Itoa(len(parts[j])) + "\r\n" + parts[j] + "\r\n")
		}
		want = append(want, strings.Join(parts, " "))
	}
	args, _, err := readAll(t, strings.NewReader(in.String()))
	if !errors.Is(err, io.EOF) {
		t.Fatalf("ended with %v", err)
	}
	if strings.Join(args, "|") != strings.Join(want, "|") {
		t.Fatalf("args\n%q\nwant\n%q", args, want)
	}
}

func TestCmdReaderRefuses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		want     string
	}{
		{"a bulk without $", "*1\r\n+PING\r\n", "expected '$'"},
		{"a bad array length", "*x\r\n", "invalid multibulk length"},
		{"a bulk length that lies", "*1\r\n$2\r\nPING\r\n", "invalid bulk length"},
		{"a count over INT_MAX", "*2147483648\r\n", "invalid multibulk length"},
		{"a count of 19 digits", "*1000000000000000000\r\n", "invalid multibulk length"},
		{"a count line without \\r", "*1\n$4\r\nPING\r\n", "invalid multibulk length"},
		{"a count with a sign", "*+1\r\n", "invalid multibulk length"},
		{"a count with a leading zero", "*01\r\n", "invalid multibulk length"},
		{"a bulk length with a letter", "*1\r\n$3x\r\n", "invalid bulk length"},
		// Redis skips any byte after the '\r'; the proxy refuses it.
		{"a bulk length line without \\n", "*1\r\n$3\rPING\r\n", "invalid bulk length"},
		{"a bulk over proto-max-bulk-len", "*1\r\n$536870913\r\n", "invalid bulk length"},
		{"a negative bulk length", "*2\r\n$1\r\na\r\n$-7\r\n", "invalid bulk length"},
		{"a count line over 64 KiB", "*" + strings.Repeat("1", 65<<10), "too big mbulk count string"},
		{"a bulk length line over 64 KiB", "*1\r\n$" + strings.Repeat("1", 65<<10), "too big bulk count string"},
		{"an inline line over 64 KiB", strings.Repeat("a", 65<<10), "too big inline request"},
		{"a $ line over 64 KiB", "$" + strings.Repeat("a", 65<<10), "too big inline request"},
		{"unbalanced quotes", "SET k \"a\r\n", "unbalanced"},
	}
	for _, tc := range cases {
		_, _, err := readAll(t, strings.NewReader(tc.in))
		if err == nil || errors.Is(err, io.EOF) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want one saying %q", tc.name, err, tc.want)
		}
	}
	// A read error that is not EOF comes through as it is.
	_, _, err := readAll(t, iotest.ErrReader(io.ErrUnexpectedEOF))
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("read error: %v", err)
	}
}

// BenchmarkDelimit delimits a pipeline of 16 SET and GET commands as
// redis-benchmark sends them: with readArray (the proxy's) and with
// redcon.ReadNextCommand (which delimited them before).
func BenchmarkDelimit(b *testing.B) {
	var in []byte
	for range 8 {
		in = append(in, "*3\r\n$3\r\nSET\r\n$16\r\nkey:000000000042\r\n$3\r\nxxx\r\n*2\r\n$3\r\nGET\r\n$16\r\nkey:000000000042\r\n"...)
	}
	args := make([][]byte, 0, 64)
	for _, tc := range []struct {
		name string
		next func(p []byte) int
	}{
		{"readArray", func(p []byte) int { n, _, _ := readArray(p, args); return n }},
		{"redcon", func(p []byte) int {
			_, _, _, left, _ := redcon.ReadNextCommand(p, args)
			return len(p) - len(left)
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				for p := in; len(p) > 0; {
					p = p[tc.next(p):]
				}
			}
		})
	}
}
