package cli

import (
	"context"
	"fmt"
	"io"
)

// Serve runs the web player. (Filled in by the web package's issue.)
func Serve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "lockstep: the web player is not built yet; use `lockstep run FILE...`")
	return ExitInvalid
}
