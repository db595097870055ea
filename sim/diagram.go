package sim

// LockState is a node of seed 001's state diagram of a reentrant lock.
type LockState string

// The states of seed 001's diagram.
const (
	Idle     LockState = "idle"
	HeldOnce LockState = "held-once"
	HeldMany LockState = "held-many"
)

// LockStates lists the diagram's states in drawing order.
var LockStates = []LockState{Idle, HeldOnce, HeldMany}

// StateNames are the states' display names.
var StateNames = map[LockState]Text{
	Idle:     {English: "Idle", SimplifiedChinese: "空闲", TraditionalChinese: "空閒"},
	HeldOnce: {English: "Held once", SimplifiedChinese: "持有 1 次", TraditionalChinese: "持有 1 次"},
	HeldMany: {English: "Held many", SimplifiedChinese: "持有多次", TraditionalChinese: "持有多次"},
}

// Edge is a transition of the diagram.
type Edge struct {
	ID       string
	From, To LockState
	Label    Text
}

// OffDiagram is the id of a change of state the diagram has no arrow for,
// e.g. a hold deleted by another owner's release under a broken variant.
const OffDiagram = "off-diagram"

// Diagram is the transition table of seed 001's diagram. The runner names the
// edge each step takes from it, and the player draws it, so both always agree.
var Diagram = []Edge{
	{ID: "first-acquire", From: Idle, To: HeldOnce, Label: Text{
		English: "first acquire, lease set", SimplifiedChinese: "首次获取，设定租约", TraditionalChinese: "首次獲取，設定租約"}},
	{ID: "reenter", From: HeldOnce, To: HeldMany, Label: Text{
		English: "same owner re-enters", SimplifiedChinese: "同一持有者重入", TraditionalChinese: "同一持有者重入"}},
	{ID: "reenter-or-partial-release", From: HeldMany, To: HeldMany, Label: Text{
		English: "re-enter again, or release part", SimplifiedChinese: "继续重入或部分释放", TraditionalChinese: "繼續重入或部分釋放"}},
	{ID: "count-to-one", From: HeldMany, To: HeldOnce, Label: Text{
		English: "hold count back to 1", SimplifiedChinese: "重入次数回到 1", TraditionalChinese: "重入次數回到 1"}},
	{ID: "release-or-expire", From: HeldOnce, To: Idle, Label: Text{
		English: "released to 0, or lease ends", SimplifiedChinese: "释放到 0，或租约到期", TraditionalChinese: "釋放到 0，或租約到期"}},
	{ID: "expire", From: HeldMany, To: Idle, Label: Text{
		English: "lease ends", SimplifiedChinese: "租约到期", TraditionalChinese: "租約到期"}},
}

// Transition is the edge a step took on one lock's diagram.
type Transition struct {
	ID   string    `json:"id"` // an Edge ID, or OffDiagram
	From LockState `json:"from"`
	To   LockState `json:"to"`
}

// stateOf places a hold count on the diagram.
func stateOf(count int64) LockState {
	switch {
	case count <= 0:
		return Idle
	case count == 1:
		return HeldOnce
	}
	return HeldMany
}

// transition names the edge from one (state, count) to the next, or returns
// nil when nothing moved.
func transition(from LockState, fromCount int64, to LockState, toCount int64, byExpiry bool) *Transition {
	if from == to && fromCount == toCount {
		return nil
	}
	for _, e := range Diagram {
		if e.From != from || e.To != to {
			continue
		}
		// HeldMany -> Idle is on the diagram only as expiry.
		if e.ID == "expire" && !byExpiry {
			break
		}
		return &Transition{ID: e.ID, From: from, To: to}
	}
	if from == to && from == HeldOnce {
		return nil // a new owner in one step cannot happen; the count is unchanged
	}
	return &Transition{ID: OffDiagram, From: from, To: to}
}

// Mermaid returns the diagram as Mermaid stateDiagram-v2 text in locale l.
func Mermaid(l Locale) string {
	id := map[LockState]string{Idle: "Idle", HeldOnce: "HeldOnce", HeldMany: "HeldMany"}
	s := "stateDiagram-v2\n"
	for _, st := range LockStates {
		s += "    " + id[st] + " : " + StateNames[st].In(l) + "\n"
	}
	s += "    [*] --> Idle\n"
	for _, e := range Diagram {
		s += "    " + id[e.From] + " --> " + id[e.To] + " : " + e.Label.In(l) + "\n"
	}
	return s
}
