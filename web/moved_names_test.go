package web

import (
	"lockstep/classserve"
	"lockstep/explorepage"
	"lockstep/searchpage"
)

// The protocol's names as web's tests knew them before the classroom's
// transport left for package classserve and the Search page for package
// searchpage and the explore pages for package explorepage (issue 31):
// tests, old and new, may spell them either way.
const (
	MsgClassStart     = classserve.MsgClassStart
	MsgClassResume    = classserve.MsgClassResume
	MsgClassAsk       = classserve.MsgClassAsk
	MsgClassReveal    = classserve.MsgClassReveal
	MsgClassEnd       = classserve.MsgClassEnd
	MsgClassCSV       = classserve.MsgClassCSV
	MsgClassJoin      = classserve.MsgClassJoin
	MsgClassAnswer    = classserve.MsgClassAnswer
	MsgClassFollow    = classserve.MsgClassFollow
	MsgClassPresenter = classserve.MsgClassPresenter
	MsgClassStatus    = classserve.MsgClassStatus
	MsgClassJoined    = classserve.MsgClassJoined
	MsgClassAnswered  = classserve.MsgClassAnswered

	ErrCodeClassBadAnswer    = classserve.ErrCodeClassBadAnswer
	ErrCodeClassBadKey       = classserve.ErrCodeClassBadKey
	ErrCodeClassBus          = classserve.ErrCodeClassBus
	ErrCodeClassEnded        = classserve.ErrCodeClassEnded
	ErrCodeClassFollowing    = classserve.ErrCodeClassFollowing
	ErrCodeClassJoins        = classserve.ErrCodeClassJoins
	ErrCodeClassNoQuestion   = classserve.ErrCodeClassNoQuestion
	ErrCodeClassNotPresenter = classserve.ErrCodeClassNotPresenter
	ErrCodeClassUnknown      = classserve.ErrCodeClassUnknown
	ErrCodeClassLimit        = classserve.ErrCodeClassLimit

	MaxImportBytes = explorepage.MaxImportBytes
	maxImportBody  = explorepage.MaxImportBody
)

type (
	ClassStatusMessage    = classserve.ClassStatusMessage
	ClassQuestion         = classserve.ClassQuestion
	ClassChoice           = classserve.ClassChoice
	ClassPresenterMessage = classserve.ClassPresenterMessage
	ClassJoinedMessage    = classserve.ClassJoinedMessage
	ClassAnsweredMessage  = classserve.ClassAnsweredMessage
	ClassCSVMessage       = classserve.ClassCSVMessage

	SearchRequest         = searchpage.Request
	SearchProgressMessage = searchpage.ProgressMessage
	SearchResultMessage   = searchpage.ResultMessage
	SearchRow             = searchpage.Row
)
