package explore

import (
	"strings"

	"lockstep/drill"
	"lockstep/sim"
)

// Narrate returns the narration of a step the learner added (which has no
// say of its own), in every locale, from the frames before (prev) and after
// (cur) it. Acquire, release, write, advance, pause and resume are explained
// as drills explain them (drill.Explain); the other actions and outcomes
// have phrases here. It never returns an empty Text.
func Narrate(l *sim.Lesson, st *sim.Step, prev, cur sim.Frame) sim.Text {
	key := ""
	switch {
	case len(cur.Calls) == 0 && (cur.Outcome == sim.Reentered || cur.Outcome == sim.StillHeld):
		key = "local-" + string(cur.Outcome) // local-count: no round trip at all
	case cur.Outcome == sim.NoContext:
		key = "no-context"
	case cur.Outcome == sim.TimedOut:
		key = "timed-out"
	case cur.Outcome == sim.Pending:
		key = "pending"
	case st.Do == sim.ActFinishRelease && cur.Outcome == sim.NotOwner && len(cur.Calls) == 0:
		key = "finish-nothing"
	case st.Do == sim.ActFinishRelease:
		key = "finish-" + string(cur.Outcome)
	case st.Do == sim.ActCrash, st.Do == sim.ActExit, st.Do == sim.ActClockJump, st.Do == sim.ActFailover:
		key = string(st.Do)
	case st.Do == sim.ActFork:
		key = "fork-" + st.Context
	}
	if key == "" {
		if t := drill.Explain(l, st, prev, cur); len(t) > 0 {
			return t
		}
		key = "generic"
	}
	p, ok := narration[key]
	if !ok {
		p = narration["generic"]
	}
	r := strings.NewReplacer("{A}", st.Actor, "{C}", st.Child, "{do}", string(st.Do), "{out}", string(cur.Outcome))
	out := sim.Text{}
	for i, loc := range sim.Locales {
		out[loc] = r.Replace(p[i])
	}
	return out
}

// narration holds the phrases of Narrate: en, zh-CN, zh-TW.
var narration = map[string][3]string{
	"local-REENTERED": {
		"{A} already counts a hold in its own memory, so the nested acquire only raises that count. Nothing reaches Redis, and the lease is not extended.",
		"{A} 在自己的内存里已经记着一次持有，所以嵌套获取只把本地计数加一。没有任何命令发到 Redis，租约也没有延长。",
		"{A} 在自己的記憶體裡已經記著一次持有，所以巢狀獲取只把本地計數加一。沒有任何命令送到 Redis，租約也沒有延長。",
	},
	"local-STILL_HELD": {
		"The inner release only lowers {A}'s count in memory; the outer call still holds the lock, and Redis hears nothing.",
		"内层释放只把 {A} 内存里的计数减一；外层调用仍持有锁，Redis 什么也没收到。",
		"內層釋放只把 {A} 記憶體裡的計數減一；外層呼叫仍持有鎖，Redis 什麼也沒收到。",
	},
	"no-context": {
		"{A} has no execution context to take an owner id from, so the call cannot say whose lock this is: NO_CONTEXT.",
		"{A} 没有可取持有者标识的执行上下文，调用说不清这是谁的锁：NO_CONTEXT。",
		"{A} 沒有可取持有者標識的執行上下文，呼叫說不清這是誰的鎖：NO_CONTEXT。",
	},
	"timed-out": {
		"Redis ran {A}'s release, but the reply never came back. {A} sees a timeout, keeps its count, and will send the same release again.",
		"Redis 执行了 {A} 的释放，但回复没有回来。{A} 看到超时，保留自己的计数，之后会重发同一个释放。",
		"Redis 執行了 {A} 的釋放，但回覆沒有回來。{A} 看到逾時，保留自己的計數，之後會重送同一個釋放。",
	},
	"pending": {
		"{A} read the key and found its own token. The DEL is a second round trip that has not been sent yet: anything can happen in between.",
		"{A} 读到键里是自己的令牌。DEL 是第二次往返，还没有发出：这中间什么都可能发生。",
		"{A} 讀到鍵裡是自己的令牌。DEL 是第二次往返，還沒有送出：這中間什麼都可能發生。",
	},
	"finish-nothing": {
		"{A} has no check waiting for its DEL, so there is nothing to send.",
		"{A} 没有等待 DEL 的检查，所以没有命令可发。",
		"{A} 沒有等待 DEL 的檢查，所以沒有命令可送。",
	},
	"finish-RELEASED": {
		"{A} sends the DEL its earlier check decided on. The DEL checks nothing: it deletes whatever the key holds now.",
		"{A} 发出先前检查后决定的 DEL。DEL 不做任何检查：键里现在是什么，它就删什么。",
		"{A} 送出先前檢查後決定的 DEL。DEL 不做任何檢查：鍵裡現在是什麼，它就刪什麼。",
	},
	"finish-NOT_OWNER": {
		"{A}'s DEL finds no key left to delete.",
		"{A} 的 DEL 发现已经没有键可删。",
		"{A} 的 DEL 發現已經沒有鍵可刪。",
	},
	"crash": {
		"{A}'s process dies. It will never release; whatever it holds stays in Redis until the lease runs out.",
		"{A} 的进程挂了。它永远不会释放；它持有的一切都留在 Redis 里，直到租约耗尽。",
		"{A} 的行程掛了。它永遠不會釋放；它持有的一切都留在 Redis 裡，直到租約耗盡。",
	},
	"exit": {
		"{A}'s task ends without releasing, but its process lives on: a watchdog it started keeps renewing the lease.",
		"{A} 的任务结束了却没有释放，但进程还活着：它启动的看门狗会继续续期租约。",
		"{A} 的任務結束了卻沒有釋放，但行程還活著：它啟動的看門狗會繼續續期租約。",
	},
	"clock-jump": {
		"The Redis server's clock jumps forward: its TTLs drop at once, while the actors' own clocks have not moved.",
		"Redis 服务器的时钟向前跳：TTL 一下子变少，而各个参与者自己的时钟并没有动。",
		"Redis 伺服器的時鐘向前跳：TTL 一下子變少，而各個參與者自己的時鐘並沒有動。",
	},
	"failover": {
		"The primary dies and the replica is promoted. Whatever had not been replicated yet is gone.",
		"主节点宕机，副本被提升为主节点。还没复制过去的写入全部丢失。",
		"主節點當機，副本被提升為主節點。還沒複製過去的寫入全部遺失。",
	},
	"fork-inherit": {
		"{A} starts {C} in its own execution context: {C} inherits {A}'s grant tokens, so its acquires are nested ones.",
		"{A} 在自己的执行上下文里启动 {C}：{C} 继承 {A} 的授权令牌，所以它的获取都是重入。",
		"{A} 在自己的執行上下文裡啟動 {C}：{C} 繼承 {A} 的授權令牌，所以它的獲取都是重入。",
	},
	"fork-lost": {
		"{A} starts {C} on another chain: {C} starts with an empty context and none of {A}'s tokens.",
		"{A} 在另一条调用链上启动 {C}：{C} 的上下文是空的，没有 {A} 的任何令牌。",
		"{A} 在另一條呼叫鏈上啟動 {C}：{C} 的上下文是空的，沒有 {A} 的任何令牌。",
	},
	"generic": {
		"{A} {do}: {out}.",
		"{A} {do}：{out}。",
		"{A} {do}：{out}。",
	},
}
