package templates

// EndCard is what a course lesson's player offers at its last step (issue
// 38, item 5): the next lesson of the course, a replay from the start in
// predict mode, and a fork at this step (the explore panel's menu). The
// header carries it (Header.End) so that it comes again in the page's
// language; the page's script (static/endcard.js) shows it under the
// narration at the last step.
type EndCard struct {
	// NextURL, NextLabel and NextTitle are the next lesson's address,
	// number as its file names it and title; NextURL is "" after the
	// course's last lesson.
	NextURL, NextLabel, NextTitle string
	ReplayURL                     string // this lesson from step 0 with ?predict=1
	CourseURL                     string // the course page
}
