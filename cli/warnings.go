package cli

import (
	"fmt"
	"io"

	"lockstep/catalog"
	"lockstep/sim"
)

// printWarnings prints the warnings of a variant file (sim.VariantDef.Warnings:
// a design that loads and runs here but fails elsewhere), each at its
// FILE:LINE:COL, in locale loc; nothing for a built-in variant or none.
func printWarnings(w io.Writer, cat *catalog.Catalog, loc sim.Locale, def *sim.VariantDef) {
	if def == nil {
		return
	}
	for _, e := range def.Warnings {
		fmt.Fprintln(w, cat.Problem(loc, e))
	}
}
