package templates

import "strings"

// Interview holds the strings of interview mode in one language: the
// player's predict mode, the drills page and the two interview pages.
// Package web fills every field from its message files, like UI (the
// message id is the field name). Fields marked "JS template" hold
// {placeholders} that the page's script fills.
type Interview struct {
	NavLabel     string // the site navigation's name for screen readers
	NavInterview string
	NavSixty     string
	// NavInterviewShort and NavSixtyShort are the two links' words on a
	// phone, where the site's links share one row (issue 38).
	NavInterviewShort string
	NavSixtyShort     string
	NavDrills         string
	NavCourse         string
	PredictMode       string
	PredictHelp       string
	PredictPrompt     string // JS template: {step}, {action}, {actor}, {lock}
	PredictChoose     string
	PredictRight      string // JS template: {outcome}
	PredictWrong      string // JS template: {guess}, {outcome}
	PredictWhy        string
	PredictWhyRight   string // JS template: {reason}
	PredictWhyWrong   string // JS template: {reason}
	PredictPlayOff    string
	PredictScore      string // JS template: {right}, {total}
	PredictNoScore    string
	RetryMisses       string
	RetryProgress     string // JS template: {n}, {total}
	RetryDone         string
	RetryNone         string
	DrillsHeading     string
	DrillsIntro       string
	DrillNew          string
	DrillLevelLabel   string
	DrillSeedLabel    string
	DrillOpen         string
	DrillVariant      string
	DrillShare        string
	DrillCrumb        string
	InterviewHeading  string
	InterviewIntro    string
	YourAnswer        string
	AnswerHint        string
	AnswerSaved       string
	ShowModel         string
	HideModel         string
	ModelAnswer       string
	Demonstration     string
	OpenLesson        string
	SixtyHeading      string
	SixtyIntro        string
	OneLineHeading    string
	SpokenHeading     string
	TimerLabel        string
	TimerStart        string
	TimerStop         string
	TimerReset        string
	TimerDone         string
	SelfTestHeading   string
	SelfTestIntro     string
	StateDiagramNote  string
}

// NavLink is an entry of the site navigation. Short, when set, is what
// the link says on a phone, where the links share one row; its title is
// then Label.
type NavLink struct {
	Label   string
	Short   string
	URL     string
	Current bool
}

// joinLink is the link of links to the class code page (/join), unless
// the page is that page: what joinQuick shows on a phone.
func joinLink(links []NavLink) (NavLink, bool) {
	for _, l := range links {
		if strings.HasPrefix(l.URL, "/join") && !l.Current {
			return l, true
		}
	}
	return NavLink{}, false
}

// PredictData is what the player's predict mode needs beside the strings:
// both JSON, read by the page's script.
type PredictData struct {
	// Steps is a JSON array with one entry per step of the lesson: null for
	// a step with nothing to predict, else {"do","actor","lock","outcomes"}
	// with the outcomes the buttons offer.
	Steps string
	// Glosses is a JSON object of outcome → its gloss in the page's
	// language, and action → its name under "act:<action>".
	Glosses string
}

// InterviewPage is the page of the follow-up questions.
type InterviewPage struct {
	Site
	Questions []InterviewQuestion
}

// InterviewQuestion is one follow-up question with its model answer and
// the lesson that demonstrates it.
type InterviewQuestion struct {
	N           int
	ID          string // q1, q2, q3: the element ids and the localStorage key
	Label       string // "Question 1"
	Question    string
	Model       []string // paragraphs of the model answer
	LessonTitle string
	LessonURL   string
	// Timeline is the demonstrating lesson, run to its end.
	Timeline TimelineView
}

// SixtyPage is the 60-second answer.
type SixtyPage struct {
	Site
	OneLine   string
	Spoken    []string // paragraphs
	Diagram   DiagramView
	SelfTests []SelfTest
}

// SelfTest is one of the card's self-test timelines, linked to its lesson.
type SelfTest struct {
	Label       string
	LessonTitle string
	URL         string
}

// DrillsPage lists the drill levels.
type DrillsPage struct {
	Site
	// Levels are the drill levels; what was wrong with the drill link
	// that led here is said by the page's notices (Notice: level, seed).
	Levels []DrillLevel
}

// DrillLevel is one level on the drills page.
type DrillLevel struct {
	ID      string
	Title   string
	Summary string
	Variant string
	Actions string // the actions its steps use, in words
	NewURL  string // a drill of this level with a fresh seed
}

// navTitle is the tooltip of a link with a short form: its full words.
func navTitle(l NavLink) string {
	if l.Short == "" {
		return ""
	}
	return l.Label
}
