package explore

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"lockstep/sim"
)

// ForkTitle is the title of a fork of base after step at, in every locale.
func ForkTitle(base *sim.Lesson, at int) sim.Text {
	return sim.Text{
		sim.English:            fmt.Sprintf("What if: “%s” after step %d", base.Title.In(sim.English), at),
		sim.SimplifiedChinese:  fmt.Sprintf("如果……会怎样：“%s”第 %d 步之后", base.Title.In(sim.SimplifiedChinese), at),
		sim.TraditionalChinese: fmt.Sprintf("如果……會怎樣：「%s」第 %d 步之後", base.Title.In(sim.TraditionalChinese), at),
	}
}

// ForkSummary says, in every locale, what a fork of base after step at with
// steps steps in all is: the lesson's summary would no longer be true of it.
func ForkSummary(base *sim.Lesson, at, steps int) sim.Text {
	if steps <= at {
		return sim.Text{
			sim.English:            fmt.Sprintf("The first %d steps of the lesson “%s”; continue it your way from the menu.", steps, base.Title.In(sim.English)),
			sim.SimplifiedChinese:  fmt.Sprintf("课程“%s”的前 %d 步；可以从菜单里按你的想法继续。", base.Title.In(sim.SimplifiedChinese), steps),
			sim.TraditionalChinese: fmt.Sprintf("課程「%s」的前 %d 步；可以從選單裡照你的想法繼續。", base.Title.In(sim.TraditionalChinese), steps),
		}
	}
	return sim.Text{
		sim.English:            fmt.Sprintf("The first %d steps of the lesson “%s”, then another turn, chosen in explore mode.", at, base.Title.In(sim.English)),
		sim.SimplifiedChinese:  fmt.Sprintf("课程“%s”的前 %d 步，之后在探索模式里走了另一条路。", base.Title.In(sim.SimplifiedChinese), at),
		sim.TraditionalChinese: fmt.Sprintf("課程「%s」的前 %d 步，之後在探索模式裡走了另一條路。", base.Title.In(sim.TraditionalChinese), at),
	}
}

// ForExport returns timeline l ready to be a lesson file of the course: run
// frames (frames[0] is the start), origin o and the lesson it forks (base,
// nil for a sandbox or an import). Every text the course's tests ask for is
// filled where l has none: a fork's title and summary say what it is, a
// sandbox gets a source and a group, the takeaway lists the invariants the
// run broke (or says none did), actors get names, steps without narration
// get explore's (Narrate) and steps with an outcome assert the one the run
// gave. Its id is unique to its steps ("stale-owner-fork-3a9c1e"), so two
// exported forks can both go into lessons/. l is not changed.
func ForExport(l *sim.Lesson, frames []sim.Frame, o Origin, base *sim.Lesson) *sim.Lesson {
	out := *l
	out.Actors = slices.Clone(l.Actors)
	out.Steps = slices.Clone(l.Steps)
	id := strings.TrimSuffix(l.ID, "-fork")
	if id == "" {
		id = "timeline"
	}
	out.ID = trimID(id, 48) + "-" + shortHash(l)
	if base != nil && o.Lesson == base.ID {
		out.ID = trimID(base.ID, 48) + "-fork-" + shortHash(l)
		out.Title, out.Summary = ForkTitle(base, o.At), ForkSummary(base, o.At, len(l.Steps))
		if out.Source == "" {
			out.Source = base.Source
		}
		if out.Group == "" {
			out.Group = base.Group
		}
	}
	if len(out.Title) == 0 {
		out.Title = sandboxTitle(l.Variant)
	}
	if len(out.Summary) == 0 {
		out.Summary = sim.Text{
			sim.English:            fmt.Sprintf("A timeline built in Lockstep's explore mode on the %s lock.", l.Variant),
			sim.SimplifiedChinese:  fmt.Sprintf("在 Lockstep 探索模式里基于 %s 锁搭建的时间线。", l.Variant),
			sim.TraditionalChinese: fmt.Sprintf("在 Lockstep 探索模式裡基於 %s 鎖搭建的時間線。", l.Variant),
		}
	}
	if out.Source == "" {
		out.Source = "Lockstep explore mode"
	}
	if out.Group == "" {
		out.Group = sim.Groups[0]
		if l.Replica {
			out.Group = "replication"
		}
	}
	if fork := base != nil && o.Lesson == base.ID; fork || len(out.Takeaway) == 0 {
		out.Takeaway = takeaway(frames)
	}
	for i := range out.Actors {
		if len(out.Actors[i].Name) == 0 {
			out.Actors[i].Name = workerName(out.Actors[i].ID)
		}
	}
	for i := range out.Steps {
		st := &out.Steps[i]
		if i+1 >= len(frames) {
			break
		}
		if len(st.Say) == 0 {
			st.Say = Narrate(&out, st, frames[i], frames[i+1])
		}
		if st.Expect == "" && len(sim.OutcomesFor(st.Do)) > 1 {
			st.Expect = frames[i+1].Outcome
		}
	}
	return &out
}

// takeaway lists the invariants a run broke, with the step of each first
// break, or says that it broke none.
func takeaway(frames []sim.Frame) sim.Text {
	var seen []string
	var at []int
	for _, f := range frames {
		for _, v := range f.Violations {
			if !slices.Contains(seen, v.Name) {
				seen = append(seen, v.Name)
				at = append(at, f.Index)
			}
		}
	}
	if len(seen) == 0 {
		return sim.Text{
			sim.English:            "No invariant the runner checks broke on this timeline.",
			sim.SimplifiedChinese:  "这条时间线没有破坏运行器检查的任何不变式。",
			sim.TraditionalChinese: "這條時間線沒有破壞執行器檢查的任何不變式。",
		}
	}
	parts := make([]string, len(seen))
	for i := range seen {
		parts[i] = seen[i] + " (" + strconv.Itoa(at[i]) + ")"
	}
	list := strings.Join(parts, ", ")
	return sim.Text{
		sim.English:            "This timeline breaks " + list + ": the step where each first appears is in brackets.",
		sim.SimplifiedChinese:  "这条时间线破坏了 " + list + "：括号里是它第一次出现的步骤。",
		sim.TraditionalChinese: "這條時間線破壞了 " + list + "：括號裡是它第一次出現的步驟。",
	}
}

// shortHash is six hex digits that tell timelines apart.
func shortHash(l *sim.Lesson) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s|%s|%d|%t|%s|%d|%t", l.ID, l.Variant, l.Lease, l.Fencing, l.Lock, l.Seed, l.Replica)
	for _, a := range l.Actors {
		fmt.Fprintf(h, "|a:%s:%s:%s", a.ID, a.Instance, a.RequestID)
	}
	for _, s := range l.Steps {
		fmt.Fprintf(h, "|s:%s:%s:%s:%d:%t:%t:%s:%s:%s:%d", s.Actor, s.Do, s.Lock, s.Lease, s.ReplyLost, s.Unreplicated, s.Value, s.Child, s.Context, s.By)
	}
	return fmt.Sprintf("%06x", h.Sum32()&0xffffff)
}
