package view

import (
	"slices"
	"strconv"
	"strings"

	"lockstep/sim"
	"lockstep/templates"
)

// tokenOwners maps each token or owner id to the actors that use it, as
// far as frame f knows (issue 16 item 1.11): an actor holding a token, or
// one whose context's id it is and that has appeared on the timeline by
// f (acted, or been forked, in a step up to f). An actor declared for a
// later step is not named before it appears.
func (v *Step) tokenOwners(f sim.Frame) map[string][]string {
	appeared := map[string]bool{}
	for _, st := range v.lesson.Steps[:min(f.Index, len(v.lesson.Steps))] {
		appeared[st.Actor] = true
		if st.Do == sim.ActFork {
			appeared[st.Child] = true
		}
	}
	out := map[string][]string{}
	for _, a := range f.Actors {
		for _, h := range a.Holds {
			if h.Token != "" && !slices.Contains(out[h.Token], a.ID) {
				out[h.Token] = append(out[h.Token], a.ID)
			}
		}
		if a.RequestID != "" && appeared[a.ID] && !slices.Contains(out[a.RequestID], a.ID) {
			out[a.RequestID] = append(out[a.RequestID], a.ID)
		}
	}
	return out
}

// maxLease is the longest lease any acquire of the lesson asks for: the
// full width of a lease bar.
func maxLease(l *sim.Lesson) int64 {
	m := l.Lease.Milliseconds()
	for _, st := range l.Steps {
		m = max(m, st.Lease.Milliseconds())
	}
	return max(m, 1)
}

func perMille(n, of int64) int {
	if n <= 0 || of <= 0 {
		return 0
	}
	return int(min(n*1000/of, 1000))
}

func findKey(keys []sim.KeyState, name string) (sim.KeyState, bool) {
	for _, k := range keys {
		if k.Name == name {
			return k, true
		}
	}
	return sim.Absent(name), false
}

func (v *Step) Redis() templates.RedisView {
	t := v.t
	ui := t.UI()
	f := v.frame()
	prev := v.prev()
	rv := templates.RedisView{UI: ui, Time: t.T("TimeAt", "Time", Seconds(t, f.TimeMS))}
	switch {
	case v.prefix == "":
	case v.lesson.Nodes > 0:
		// The run has nodes of its own (backend.Store), never the Redis
		// given by URL.
		rv.Prefix = t.T("RedisPrefixNodes", "Nodes", v.lesson.Nodes, "Addr", v.info.Addr, "Prefix", v.prefix)
	case v.lesson.Replica:
		// The run fails over, so it has a primary + replica pair of its own
		// (backend.Store.Info names it after the first batch; the lesson
		// says so from the start, so every step reads the same).
		rv.Prefix = t.T("RedisPrefixPair", "Addr", v.info.Addr, "Prefix", v.prefix)
	default:
		rv.Prefix = t.T("RedisPrefix", "Prefix", v.prefix)
	}
	var prevKeys []sim.KeyState
	if prev != nil {
		prevKeys = prev.Keys
	}
	rv.Keys, rv.KeysMore = v.keyViews(f, f.Keys, prevKeys, prev != nil)
	if f.Replica != nil {
		rv.PrimaryTitle = t.T("PrimaryHeading")
		rv.ReplicaTitle = t.T("ReplicaHeading")
		var prevReplica []sim.KeyState
		if prev != nil {
			prevReplica = prev.Replica
		}
		rv.Replica, rv.ReplicaMore = v.keyViews(f, f.Replica, prevReplica, prev != nil && prev.Replica != nil)
	}
	if f.Nodes != nil {
		rv.PrimaryTitle = t.T("QuorumHeading", "Quorum", sim.Quorum(len(f.Nodes)), "Nodes", len(f.Nodes))
		for i, keys := range f.Nodes {
			var prevNode []sim.KeyState
			if prev != nil && i < len(prev.Nodes) {
				prevNode = prev.Nodes[i]
			}
			nk := templates.NodeKeysView{Node: i + 1, Title: t.T("NodeHeading", "Node", i+1)}
			nk.Keys, nk.More = v.keyViews(f, keys, prevNode, prevNode != nil)
			rv.Nodes = append(rv.Nodes, nk)
		}
	}
	return rv
}

// keyViews shows keys as Redis holds them, with what changed since prevKeys
// (compared only when compare is set): the frame's lock keys and the
// others in order up to MaxShownKeys, each with up to MaxShownFields
// fields; more says how many keys it left out ("" when none).
func (v *Step) keyViews(f sim.Frame, keys, prevKeys []sim.KeyState, compare bool) (out []templates.KeyView, more string) {
	t := v.t
	ui := t.UI()
	owners := v.tokenOwners(f)
	lockKeys := map[string]bool{}
	for _, l := range f.Locks {
		lockKeys[l.Key] = true
	}
	scale := maxLease(v.lesson)
	who := func(token string) string {
		if ids := owners[token]; len(ids) > 0 {
			return t.T("TokenOf", "Actors", strings.Join(ids, t.T("LockListSep")))
		}
		return ""
	}
	left := 0
	for _, k := range keys {
		if len(out) >= MaxShownKeys && !lockKeys[k.Name] {
			left++
			continue
		}
		kv := templates.KeyView{Name: k.Name, Type: string(k.Type), Exists: k.Exists()}
		pk := sim.Absent(k.Name)
		if compare {
			pk, _ = findKey(prevKeys, k.Name)
		}
		switch {
		case !compare:
		case k.Exists() && !pk.Exists():
			kv.Change, kv.ChangeTx = "new", ui.KeyNew
		case !k.Exists() && pk.Exists():
			kv.Change, kv.ChangeTx = "deleted", ui.KeyDeleted
		case k.Exists() && (k.Value != pk.Value || !slices.Equal(k.Fields, pk.Fields) || k.Type != pk.Type):
			kv.Change, kv.ChangeTx = "changed", ui.KeyChanged
		}
		if !k.Exists() {
			out = append(out, kv)
			continue
		}
		fieldsLeft := 0
		for _, fl := range k.Fields {
			if len(kv.Fields) >= MaxShownFields {
				fieldsLeft++
				continue
			}
			fv := templates.FieldView{Name: shown(t, fl.Name), Value: shown(t, fl.Value)}
			if pk.Exists() {
				if old, ok := pk.Field(fl.Name); !ok {
					fv.New = true
				} else if old != fl.Value {
					fv.Changed, fv.Old = true, shown(t, old)
				}
			}
			if w := who(fl.Name); w != "" {
				fv.Who = w
			} else if w := who(fl.Value); w != "" {
				fv.Who = w
			}
			kv.Fields = append(kv.Fields, fv)
		}
		if pk.Exists() {
			now := make(map[string]bool, len(k.Fields))
			for _, fl := range k.Fields {
				now[fl.Name] = true
			}
			for _, fl := range pk.Fields {
				if ok := now[fl.Name]; !ok && len(kv.Fields) >= MaxShownFields {
					fieldsLeft++
				} else if !ok {
					kv.Fields = append(kv.Fields, templates.FieldView{Name: shown(t, fl.Name), Value: shown(t, fl.Value), Gone: true})
				}
			}
		}
		if fieldsLeft > 0 {
			kv.FieldsMore = t.T("FieldsMore", "N", fieldsLeft)
		}
		if k.Type == sim.TypeString {
			kv.Value = shown(t, k.Value)
			if pk.Exists() && pk.Value != k.Value {
				kv.ValueChg, kv.ValueOld = true, shown(t, pk.Value)
			}
			kv.Owner = who(k.Value)
		}
		kv.PTTL = strconv.FormatInt(k.PTTL, 10) + " ms"
		kv.PTTLSec = Seconds(t, k.PTTL)
		if lockKeys[k.Name] {
			kv.Bar = true
			kv.BarTo = perMille(k.PTTL, scale)
			kv.BarFrom = kv.BarTo
			if pk.Exists() {
				kv.BarFrom = perMille(pk.PTTL, scale)
				switch {
				case k.PTTL > pk.PTTL:
					kv.Renewed, kv.PTTLNote = true, ui.PTTLRenewed
				case k.PTTL < pk.PTTL:
					kv.PTTLNote = t.T("PTTLTicked", "By", Seconds(t, pk.PTTL-k.PTTL))
				}
			} else if compare {
				kv.BarFrom = 0
			}
		} else if sim.IsFencingCounterKey(k.Name) && v.lesson.FencingCounterTTL > 0 {
			// The lesson's own TTL: the application's bug it teaches.
			kv.PTTLNote = t.T("FencingTTLLesson", "TTL", Seconds(t, v.lesson.FencingCounterTTL.Milliseconds()))
		} else if sim.IsFencingKey(k.Name) {
			kv.PTTLNote = t.T("FencingTTL")
		} else {
			kv.PTTLNote = ui.Housekeeping
		}
		out = append(out, kv)
	}
	if left > 0 {
		more = t.T("KeysMore", "N", left)
	}
	return out, more
}
