package view

import (
	"testing"

	"lockstep/sim"
)

// TestNodeCellsApart: for every number of nodes a lesson may have, each
// node's cell in the reply row lies within its column, holds what fits it
// at the largest size a reply is drawn at (8.2 units a character, on a
// phone) with 2 units to spare, and keeps apart from every other cell:
// on the same line, side by side without overlap; else at least a line's
// pitch (15 units, that size) apart; the lines end above the row's end.
func TestNodeCellsApart(t *testing.T) {
	t.Parallel()
	const x = 3 * TimelineColumnWidth
	for nodes := sim.MinNodes; nodes <= sim.MaxNodes; nodes++ {
		rowH := tlNodeBase + (nodeLines(nodes)-1)*tlReplyLine + tlNodeBelow
		type cell struct {
			left, right float64
			y           int
		}
		var cells []cell
		for n := 1; n <= nodes; n++ {
			mid, y, units := nodeCell(x, n)
			w := 8.2 * float64(units)
			c := cell{float64(mid) - w/2 - 1, float64(mid) + w/2 + 1, y}
			if units < 5 || c.left < x || c.right > x+TimelineColumnWidth || y <= 0 || y+3 > rowH {
				t.Errorf("%d nodes: node %d's cell holds %d units, x %.1f to %.1f, baseline %d of a row %d high; want at least 5 units (\"%d:nil\") within the column and the row", nodes, n, units, c.left, c.right, y, rowH, n)
			}
			for m, o := range cells {
				sameLine := o.y == y
				if sameLine && !(o.right <= c.left || c.right <= o.left) || !sameLine && abs(o.y-y) < 15 {
					t.Errorf("%d nodes: the cells of nodes %d and %d touch: %+v, %+v", nodes, m+1, n, o, c)
				}
			}
			cells = append(cells, c)
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
