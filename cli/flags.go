package cli

import (
	"flag"
	"fmt"
	"io"
)

// flags is the flag set of one command, with the flags that several commands
// share (--redis, --redis-ca, --allow-custom-scripts, --lang, --json)
// defined one way. Each command
// gives its own help text where the flag means something of its own there.
type flags struct {
	*flag.FlagSet
}

// newFlags returns the flag set of command name: errors and -h go to
// stderr, and its usage is the lines usage returns (asked for each time it
// is printed, so a usage in the user's language can follow --lang),
// followed by the flags' defaults.
func newFlags(name string, stderr io.Writer, usage func() string) flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, usage())
		fs.PrintDefaults()
	}
	return flags{fs}
}

// parseNoArgs parses args for a command that takes flags only: an argument
// left after them is reported on stderr by refusal (a format with one %q,
// the argument), followed by the usage. It returns ok when the command goes
// on, and otherwise the exit code (parse's, or ExitInvalid).
func (f flags) parseNoArgs(args []string, stderr io.Writer, refusal string) (int, bool) {
	if code, ok := parse(f.FlagSet, args); !ok {
		return code, false
	}
	if f.NArg() > 0 {
		fmt.Fprintf(stderr, refusal+"\n", f.Arg(0))
		f.Usage()
		return ExitInvalid, false
	}
	return 0, true
}

// usageLine is a usage func that always prints line.
func usageLine(line string) func() string { return func() string { return line } }

// redis defines --redis, the URL of a real Redis (empty: the embedded one).
func (f flags) redis(help string) *string { return f.String("redis", "", help) }

// redisCA defines --redis-ca, the CA file for a rediss:// URL.
func (f flags) redisCA() *string {
	return f.String("redis-ca", "", "PEM file of the CA that signed a rediss:// server's certificate")
}

// allowCustomScripts defines --allow-custom-scripts of the commands that run
// variant files (run, search), off by default.
func (f flags) allowCustomScripts() *bool {
	return f.Bool("allow-custom-scripts", false, "with --redis: send the scripts of variant files (yours, not Lockstep's) to that Redis; a script that runs long blocks it for every client (the embedded Redis always runs them)")
}

// lang defines --lang, a locale of the catalogue (checked by language), "en"
// by default.
func (f flags) lang(help string) *string { return f.String("lang", "en", help) }

// json defines --json, off by default.
func (f flags) json(help string) *bool { return f.Bool("json", false, help) }
