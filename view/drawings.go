package view

// Drawings keeps what a Step draws for one step of one run in one language,
// so that runs that show the same step share one drawing: package web keeps
// those of each course lesson's canonical run (its frame cache) and gives
// them to every session whose frames so far are the canonical ones. Each
// method returns the drawing kept under its key, or calls draw, keeps what
// it returns (when it returns no error) and returns it.
//
// A Step decides what may be kept: every panel but the Redis panel of a run
// with a key prefix (it names the run's prefix), the lane labels of the
// step, and the timeline's columns. A past column depends only on its
// step's frame and the one before, and a future column on the lesson's
// step, so a column is kept by its number and whether it is past, whatever
// the step shown.
type Drawings interface {
	Panel(name string, draw func() (string, error)) (string, error)
	Labels(draw func() (string, error)) (string, error)
	Column(col int, past bool, draw func() (TimelineColumnPatch, error)) (TimelineColumnPatch, error)
}

// keptPanel draws panel name, or takes it from the Step's Drawings.
func (v *Step) keptPanel(name string, draw func() (string, error)) (string, error) {
	if v.drawn == nil || name == PanelRedis && v.prefix != "" {
		return draw()
	}
	return v.drawn.Panel(name, draw)
}
