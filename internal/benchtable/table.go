// Package benchtable prints the tables of Lockstep's benchmark commands
// (`go run ./bench` and bench/classload, both run by `make bench`): header
// lines, then one row per measure with its value, the same run's
// reference, their ratio, the target and whether it was met, aligned by a
// tabwriter. docs/performance.md pastes these tables as printed.
package benchtable

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Row is one line of a table; every cell is text as printed ("" leaves it
// empty).
type Row struct {
	Section, Measure, Value, Reference, Ratio, Target, Met string
}

// Table is the header lines (the machine, the run) and the rows in order.
type Table struct {
	Header []string
	Rows   []Row
}

// Add appends a row of the seven cells, in the columns' order.
func (t *Table) Add(section, measure, value, reference, ratio, target, met string) {
	t.Rows = append(t.Rows, Row{Section: section, Measure: measure, Value: value, Reference: reference, Ratio: ratio, Target: target, Met: met})
}

// Print writes the header lines, a blank line and the rows under their
// column names to w.
func (t *Table) Print(w io.Writer) {
	for _, h := range t.Header {
		fmt.Fprintln(w, h)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tmeasure\tvalue\treference (same run)\tratio\ttarget\tmet")
	fmt.Fprintln(tw, "-\t-------\t-----\t--------------------\t-----\t------\t---")
	for _, r := range t.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Section, r.Measure, r.Value, r.Reference, r.Ratio, r.Target, r.Met)
	}
	tw.Flush()
}

// MiB is b bytes in mebibytes, one decimal: "12.3 MiB".
func MiB(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// Yes is a met cell: "yes", or "NO" so that a missed target stands out.
func Yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "NO"
}
