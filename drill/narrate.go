package drill

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"lockstep/sim"
)

// phrases are the narration templates, per locale. {X} placeholders are
// filled by say.
var phrases = map[string][3]string{
	"acquired": {
		"{A} finds the lock free, so the script stores its owner id {owner} with count 1 and a {lease} lease.",
		"{A} 发现锁空闲，脚本写入它的持有者标识 {owner}，重入次数为 1，租约 {lease}。",
		"{A} 發現鎖空閒，腳本寫入它的持有者標識 {owner}，重入次數為 1，租約 {lease}。",
	},
	"reentered-own": {
		"The owner in Redis is {A}'s own id {owner}, so this nested call is a reentry: count {n}, lease back to {lease}.",
		"Redis 中的持有者正是 {A} 自己的标识 {owner}，所以这次嵌套调用是重入：重入次数 {n}，租约续回 {lease}。",
		"Redis 中的持有者正是 {A} 自己的標識 {owner}，所以這次巢狀呼叫是重入：重入次數 {n}，租約續回 {lease}。",
	},
	"reentered-shared": {
		"Redis holds the owner id {owner}, taken by {holders}. {A} runs in the same instance and sends the same id, so it passes as the owner: count {n}. Two requests now both hold the lock.",
		"Redis 中的持有者标识是 {owner}，由 {holders} 写入。{A} 跑在同一个实例里、发送同一个标识，于是被当成持有者：重入次数 {n}。两个请求同时持有了这把锁。",
		"Redis 中的持有者標識是 {owner}，由 {holders} 寫入。{A} 跑在同一個實例裡、送出同一個標識，於是被當成持有者：重入次數 {n}。兩個請求同時持有了這把鎖。",
	},
	"busy-self": {
		"The key exists, and SET NX cannot tell that its holder is {A} itself: the nested call is refused by its own lock.",
		"键已存在，而 SET NX 分辨不出持有者正是 {A} 自己：嵌套调用被自己的锁挡在门外。",
		"鍵已存在，而 SET NX 分辨不出持有者正是 {A} 自己：巢狀呼叫被自己的鎖擋在門外。",
	},
	"busy": {
		"Redis holds {holders}'s owner id {owner}, not {A}'s, so {A} is turned away; the lease has {pttl} left.",
		"Redis 中是 {holders} 的持有者标识 {owner}，不是 {A} 的，所以 {A} 被拒绝；租约还剩 {pttl}。",
		"Redis 中是 {holders} 的持有者標識 {owner}，不是 {A} 的，所以 {A} 被拒絕；租約還剩 {pttl}。",
	},
	"lost": {
		"{A} believes it holds the lock, but its hold has expired in Redis. A nested acquire must not create a new hold, so the script answers LOST.",
		"{A} 以为自己持有锁，但它在 Redis 里的持有已经过期。嵌套获取不能新建持有，所以脚本返回 LOST。",
		"{A} 以為自己持有鎖，但它在 Redis 裡的持有已經過期。巢狀獲取不能新建持有，所以腳本回傳 LOST。",
	},
	"released": {
		"{A}'s id matches and the count drops to 0, so the key is deleted: the lock is free.",
		"{A} 的标识匹配，重入次数降到 0，键被删除：锁空闲了。",
		"{A} 的標識匹配，重入次數降到 0，鍵被刪除：鎖空閒了。",
	},
	"released-wrong": {
		"The release deletes the key although Redis held {holders}'s owner id: {A}'s unlock frees someone else's lock.",
		"释放删掉了键，可 Redis 中保存的是 {holders} 的持有者标识：{A} 的解锁释放了别人的锁。",
		"釋放刪掉了鍵，可 Redis 中保存的是 {holders} 的持有者標識：{A} 的解鎖釋放了別人的鎖。",
	},
	"still-held": {
		"{A}'s id matches and the count drops from {p} to {n}: the outer calls still hold the lock.",
		"{A} 的标识匹配，重入次数从 {p} 降到 {n}：外层调用仍持有锁。",
		"{A} 的標識匹配，重入次數從 {p} 降到 {n}：外層呼叫仍持有鎖。",
	},
	"still-held-shared": {
		"{A} sends the shared id {owner}: its release lowers the one count that also stands for {holders}'s hold, from {p} to {n}.",
		"{A} 发送的是共用的标识 {owner}：它的释放降低的是同时代表 {holders} 持有的那一个重入次数，从 {p} 降到 {n}。",
		"{A} 送出的是共用的標識 {owner}：它的釋放降低的是同時代表 {holders} 持有的那一個重入次數，從 {p} 降到 {n}。",
	},
	"acquired-plain": {
		"{A} finds the key absent, so SET NX writes its value {owner} with a {lease} lease. No owner check, no count.",
		"{A} 发现键不存在，SET NX 写入它的值 {owner}，租约 {lease}。没有持有者校验，也没有计数。",
		"{A} 發現鍵不存在，SET NX 寫入它的值 {owner}，租約 {lease}。沒有持有者校驗，也沒有計數。",
	},
	"released-plain": {
		"A bare DEL removes the key, checking nothing: the lock is free.",
		"一条裸 DEL 删除了键，什么也不检查：锁空闲了。",
		"一條裸 DEL 刪除了鍵，什麼也不檢查：鎖空閒了。",
	},
	"not-owner-free": {
		"The lock is free: Redis keeps nothing of {A}, so the release changes nothing and answers NOT_OWNER.",
		"锁是空闲的：Redis 里没有 {A} 的持有，释放什么也不改，返回 NOT_OWNER。",
		"鎖是空閒的：Redis 裡沒有 {A} 的持有，釋放什麼也不改，回傳 NOT_OWNER。",
	},
	"not-owner": {
		"Redis holds {holders}'s owner id {owner}, not {A}'s, so the script deletes nothing and answers NOT_OWNER.",
		"Redis 中是 {holders} 的持有者标识 {owner}，不是 {A} 的，所以脚本什么也不删，返回 NOT_OWNER。",
		"Redis 中是 {holders} 的持有者標識 {owner}，不是 {A} 的，所以腳本什麼也不刪，回傳 NOT_OWNER。",
	},
	"accepted-fenced": {
		"The resource checks {A}'s fencing token {f}: it has seen none newer, so it takes “{v}”.",
		"资源检查 {A} 的栅栏令牌 {f}：没见过更新的令牌，于是接受“{v}”。",
		"資源檢查 {A} 的柵欄令牌 {f}：沒見過更新的令牌，於是接受「{v}」。",
	},
	"accepted": {
		"The resource checks no token and takes “{v}” from {A}.",
		"资源不检查任何令牌，直接接受了 {A} 的“{v}”。",
		"資源不檢查任何令牌，直接接受了 {A} 的「{v}」。",
	},
	"rejected": {
		"The resource has already seen a newer fencing token than {A}'s {f}, so it refuses “{v}”: the stale write is stopped.",
		"资源已经见过比 {A} 的 {f} 更新的栅栏令牌，所以拒绝“{v}”：过期的写入被挡住了。",
		"資源已經見過比 {A} 的 {f} 更新的柵欄令牌，所以拒絕「{v}」：過期的寫入被擋住了。",
	},
	"advance": {
		"{by} pass.",
		"过去了 {by}。",
		"過去了 {by}。",
	},
	"advance-held": {
		"{by} pass; the lease has {pttl} left.",
		"过去了 {by}；租约还剩 {pttl}。",
		"過去了 {by}；租約還剩 {pttl}。",
	},
	"advance-expired": {
		"{by} pass. The lease runs out and Redis deletes the key: the lock is free, whatever its holders believe.",
		"过去了 {by}。租约到期，Redis 删除了键：锁空闲了，不管持有者以为什么。",
		"過去了 {by}。租約到期，Redis 刪除了鍵：鎖空閒了，不管持有者以為什麼。",
	},
	"pause": {
		"{A} stops in a long pause (a GC, a stalled VM). Its lease keeps running in Redis.",
		"{A} 陷入长时间暂停（GC、虚拟机卡顿）。它在 Redis 里的租约照样流逝。",
		"{A} 陷入長時間暫停（GC、虛擬機卡頓）。它在 Redis 裡的租約照樣流逝。",
	},
	"resume": {
		"{A} wakes up and carries on, believing what it believed before the pause.",
		"{A} 醒来继续执行，仍相信暂停前相信的一切。",
		"{A} 醒來繼續執行，仍相信暫停前相信的一切。",
	},
	"resume-stale": {
		"{A} wakes up believing it holds the lock, but Redis no longer keeps its id: {A} is a stale owner.",
		"{A} 醒来时以为自己还持有锁，但 Redis 里已经没有它的标识：{A} 成了过期持有者。",
		"{A} 醒來時以為自己還持有鎖，但 Redis 裡已經沒有它的標識：{A} 成了過期持有者。",
	},
}

var locales = [3]sim.Locale{sim.English, sim.SimplifiedChinese, sim.TraditionalChinese}

// say fills phrase key with vars in every locale. Durations are given in
// ms under the names "lease", "pttl" and "by" and written per locale.
func say(key string, vars map[string]string) sim.Text {
	p := phrases[key]
	out := sim.Text{}
	for i, loc := range locales {
		var pairs []string
		for k, v := range vars {
			switch k {
			case "lease", "pttl", "by":
				ms, _ := strconv.ParseInt(v, 10, 64)
				v = duration(ms, loc)
			}
			pairs = append(pairs, "{"+k+"}", v)
		}
		out[loc] = strings.NewReplacer(pairs...).Replace(p[i])
	}
	return out
}

func duration(ms int64, loc sim.Locale) string {
	if ms < 1000 && ms > -1000 {
		n := strconv.FormatInt(ms, 10)
		if loc == sim.English {
			return n + " ms"
		}
		return n + " 毫秒"
	}
	n := strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64)
	if loc == sim.English {
		return n + " s"
	}
	return n + " 秒"
}

// leaseOf is the lease of an acquire step: its own, or the lesson's.
func leaseOf(l *sim.Lesson, st *sim.Step) time.Duration {
	if st.Lease > 0 {
		return st.Lease
	}
	return l.Lease
}

func lockOf(f sim.Frame, lock string) sim.LockView {
	for _, l := range f.Locks {
		if l.Name == lock {
			return l
		}
	}
	return sim.LockView{Name: lock, State: sim.Idle}
}

func holdOf(f sim.Frame, actor, lock string) (sim.HoldView, bool) {
	for _, a := range f.Actors {
		if a.ID != actor {
			continue
		}
		for _, h := range a.Holds {
			if h.Lock == lock {
				return h, true
			}
		}
	}
	return sim.HoldView{}, false
}

// narrate sets each step's expect to the outcome the run gave it and its
// narration to why it came out so, from the frames before and after it.
func narrate(l *sim.Lesson, frames []sim.Frame) {
	for i := range l.Steps {
		st := &l.Steps[i]
		prev, cur := frames[i], frames[i+1]
		if len(sim.OutcomesFor(st.Do)) > 1 {
			st.Expect = cur.Outcome
		}
		st.Say = Explain(l, st, prev, cur)
	}
}

// Explain returns the narration of step st of l in every locale: why it
// came out as it did, read from the frames before (prev) and after (cur)
// it. It covers acquire, release, write, advance, pause and resume, the
// actions drills use; for any other action or outcome it returns nil, and
// the player shows the outcome and its gloss alone. Package explore uses it
// for the steps a learner adds.
func Explain(l *sim.Lesson, st *sim.Step, prev, cur sim.Frame) sim.Text {
	lock := st.Lock
	if lock == "" {
		lock = l.Lock
	}
	pl, cl := lockOf(prev, lock), lockOf(cur, lock)
	var others []string
	for _, h := range pl.Holders {
		if h != st.Actor {
			others = append(others, h)
		}
	}
	holders := strings.Join(others, ", ")
	if holders == "" {
		holders = pl.Owner
	}
	vars := map[string]string{
		"A": st.Actor, "owner": pl.Owner, "holders": holders,
		"p": strconv.FormatInt(pl.Count, 10), "n": strconv.FormatInt(cl.Count, 10),
		"pttl": strconv.FormatInt(pl.PTTL, 10), "lease": strconv.FormatInt(leaseOf(l, st).Milliseconds(), 10),
		"by": strconv.FormatInt(st.By.Milliseconds(), 10), "v": st.Value,
	}
	own := slices.Contains(pl.Holders, st.Actor)
	switch st.Do {
	case sim.ActAcquire:
		switch cur.Outcome {
		case sim.Acquired:
			vars["owner"] = cl.Owner
			if l.Variant == "setnx-del" {
				return say("acquired-plain", vars)
			}
			return say("acquired", vars)
		case sim.Reentered:
			vars["owner"] = cl.Owner
			if own && len(pl.Holders) == 1 {
				return say("reentered-own", vars)
			}
			return say("reentered-shared", vars)
		case sim.Busy:
			if own {
				return say("busy-self", vars)
			}
			return say("busy", vars)
		case sim.Lost:
			return say("lost", vars)
		}
	case sim.ActRelease:
		switch cur.Outcome {
		case sim.Released:
			switch {
			case !own:
				return say("released-wrong", vars)
			case l.Variant == "setnx-del":
				return say("released-plain", vars)
			}
			return say("released", vars)
		case sim.StillHeld:
			if own && len(pl.Holders) == 1 {
				return say("still-held", vars)
			}
			return say("still-held-shared", vars)
		case sim.NotOwner:
			if pl.State == sim.Idle {
				return say("not-owner-free", vars)
			}
			return say("not-owner", vars)
		}
	case sim.ActWrite:
		h, _ := holdOf(cur, st.Actor, lock)
		vars["f"] = strconv.FormatInt(h.Fence, 10)
		switch {
		case cur.Outcome == sim.Rejected:
			return say("rejected", vars)
		case l.Fencing:
			return say("accepted-fenced", vars)
		default:
			return say("accepted", vars)
		}
	case sim.ActAdvance:
		switch {
		case pl.State != sim.Idle && cl.State == sim.Idle:
			return say("advance-expired", vars)
		case cl.State != sim.Idle:
			vars["pttl"] = strconv.FormatInt(cl.PTTL, 10)
			return say("advance-held", vars)
		default:
			return say("advance", vars)
		}
	case sim.ActPause:
		return say("pause", vars)
	case sim.ActResume:
		if h, ok := holdOf(cur, st.Actor, lock); ok && h.Count > 0 && !h.InRedis {
			return say("resume-stale", vars)
		}
		return say("resume", vars)
	}
	// An outcome none of the phrases covers: the player still shows the
	// outcome and its gloss.
	return nil
}
