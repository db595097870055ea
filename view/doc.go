// Package view turns the frames of a lesson run into what the player shows:
// the flat view models of package templates (narration, alerts, the Redis
// panel, the command and its Lua source, the state diagram, the timeline,
// the explore menu, the controls) and the panels rendered from them, for
// one step in one language. It does no I/O and keeps no state between
// calls: a Step (New) depends only on its Input, the lesson, the frames up
// to the step, the texts of a locale (the Texts interface; package web's
// message catalogue), the backend's description and the run's key prefix.
// A caller that shows the same step of the same run to many (package web,
// for a course lesson's canonical run) may hand it Drawings to keep what it
// draws for the others (drawings.go); the Step decides what may be kept.
//
// One file per concern: step.go (the Step, the panels by name), narration.go,
// alerts.go, redis.go, command.go and luadoc.go (the command panel and the
// scripts' KEYS/ARGV comments), focus.go and diagram.go (seed 001's state
// diagram), timeline.go and timeline_column.go (the lanes), delta.go (what a
// step's frame message carries when the page already shows the previous one:
// the panels that changed and a TimelinePatch), drawings.go (what a Step
// lets its caller keep for other runs at the same step), predict.go, source.go,
// controls.go, explore.go (the "What if?" menu and compare rows) and
// export_svg.go (a whole run as a standalone SVG document).
package view
