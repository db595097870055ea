package classroom

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// WriteCSV writes scores as CSV: a header, then one row per revealed
// question in order: step, action, correct, answered, right, right_pct (a
// whole percent, empty when no one answered), then the count of every
// choice offered anywhere in the class, in the order first offered. It
// returns w's error.
func WriteCSV(w io.Writer, scores []Score) error {
	var choices []string
	seen := map[string]bool{}
	for _, s := range scores {
		for _, ch := range s.Choices {
			if !seen[ch] {
				seen[ch] = true
				choices = append(choices, ch)
			}
		}
	}
	cw := csv.NewWriter(w)
	head := append([]string{"step", "action", "correct", "answered", "right", "right_pct"}, choices...)
	if err := cw.Write(head); err != nil {
		return fmt.Errorf("classroom: csv: %w", err)
	}
	for _, s := range scores {
		pct := ""
		if s.Answered > 0 {
			pct = strconv.Itoa((s.Right*100 + s.Answered/2) / s.Answered)
		}
		row := []string{strconv.Itoa(s.Step), cell(s.Action), s.Correct, strconv.Itoa(s.Answered), strconv.Itoa(s.Right), pct}
		for _, ch := range choices {
			row = append(row, strconv.Itoa(s.Counts[ch]))
		}
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("classroom: csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("classroom: csv: %w", err)
	}
	return nil
}

// cell keeps a text cell from being read as a formula by a spreadsheet
// (a lesson's actor ids are the lesson author's text).
func cell(s string) string {
	if s != "" && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@') {
		return "'" + s
	}
	return s
}
