package sim

import (
	"fmt"
	"sort"
	"strings"
)

// stateViolations checks the invariants that hold or fail on a state (the
// others, stale-write and wrong-owner-release, are events the step reports).
// atEnd adds the end-of-lesson check of leaked-hold.
func (r *Runner) stateViolations(atEnd bool) []Violation {
	var out []Violation
	for _, lock := range r.locks {
		holds := r.v.holds(r.lockKey(lock))
		// overlapping-holders: believers grouped by execution context.
		byCtx := map[string][]string{}
		var ctxOrder []string
		for _, a := range r.actors {
			if g := a.grants[lock]; g != nil && g.count > 0 && !a.gone() {
				if _, ok := byCtx[a.context]; !ok {
					ctxOrder = append(ctxOrder, a.context)
				}
				byCtx[a.context] = append(byCtx[a.context], a.id)
			}
		}
		if len(ctxOrder) > 1 {
			var who []string
			for _, c := range ctxOrder {
				who = append(who, byCtx[c]...)
			}
			out = append(out, violation(InvOverlappingHolders, lock, who, explainOverlap(who, lock)))
		}
		// count-mismatch: Redis's count against the live local counts.
		if r.info.CountsInRedis {
			owners := make([]string, 0, len(holds))
			for o := range holds {
				owners = append(owners, o)
			}
			sort.Strings(owners)
			for _, o := range owners {
				sum := 0
				var who []string
				for _, a := range r.actors {
					if g := a.grants[lock]; g != nil && g.token == o && !a.gone() && g.count > 0 {
						sum += g.count
						who = append(who, a.id)
					}
				}
				if c := holds[o]; c > 0 && sum > 0 && int64(sum) != c {
					out = append(out, violation(InvCountMismatch, lock, who, explainCountMismatch(who, o, lock, c, sum)))
				}
			}
		}
		// leaked-hold: Redis keeps a count for a token nobody will release.
		// At the end, live actors that share a token (a parent and the
		// children it forked with context: inherit) leak one hold between
		// them: it is reported once, naming them all.
		liveLeak := map[string]int{} // token -> index in out
		for _, a := range r.actors {
			g := a.grants[lock]
			if g == nil || holds[g.token] <= 0 || (!a.gone() && !atEnd) {
				continue
			}
			if i, ok := liveLeak[g.token]; ok && !a.gone() {
				out[i].Actors = append(out[i].Actors, a.id)
				continue
			}
			renewing := a.status == StatusExited && g.renewAt > 0
			if !a.gone() {
				liveLeak[g.token] = len(out)
			}
			out = append(out, violation(InvLeakedHold, lock, []string{a.id}, explainLeak(a.id, a.gone(), renewing, g.token, lock, holds[g.token])))
		}
	}
	return out
}

func violation(name, lock string, actors []string, detail Text) Violation {
	return Violation{Name: name, Lock: lock, Actors: actors, Detail: detail}
}

func list(ids []string, l Locale) string {
	switch l {
	case SimplifiedChinese, TraditionalChinese:
		return strings.Join(ids, "、")
	}
	if len(ids) <= 2 {
		return strings.Join(ids, " and ")
	}
	return strings.Join(ids[:len(ids)-1], ", ") + " and " + ids[len(ids)-1]
}

func explainOverlap(who []string, lock string) Text {
	return Text{
		English:            fmt.Sprintf("%s each believe they hold lock %s, yet they run in different execution contexts: mutual exclusion is broken.", list(who, English), lock),
		SimplifiedChinese:  fmt.Sprintf("%s 都以为自己持有锁 %s，但它们属于不同的执行上下文：互斥已经失效。", list(who, SimplifiedChinese), lock),
		TraditionalChinese: fmt.Sprintf("%s 都以為自己持有鎖 %s，但它們屬於不同的執行上下文：互斥已經失效。", list(who, TraditionalChinese), lock),
	}
}

// explainStaleWrite explains a write from an older hold accepted after one
// from a newer hold. fence is the stale writer's fencing token, 0 without
// fencing. With fencing such a write gets through only when the token is no
// lower than the newer hold's: the counter went back, as when a failover lost
// its increments.
func explainStaleWrite(who string, seq, newest int, lock string, fence int64) Text {
	if fence > 0 {
		return Text{
			English:            fmt.Sprintf("The resource of %s took %s's write from hold #%d after it had taken a write from the newer hold #%d: a stale owner overwrote newer work. Its fencing token %d was no lower than the newer hold's, because the counter that issues the tokens went back (as when a failover loses its increments), so fencing could not refuse it.", lock, who, seq, newest, fence),
			SimplifiedChinese:  fmt.Sprintf("%s 保护的资源已接受较新持有 #%d 的写入，之后又接受了 %s 来自旧持有 #%d 的写入：过期的持有者覆盖了新数据。它的栅栏令牌 %d 并不比较新持有的小，因为发放令牌的计数器倒退了（例如故障转移丢掉了它的递增），所以栅栏令牌没能拒绝这次写入。", lock, newest, who, seq, fence),
			TraditionalChinese: fmt.Sprintf("%s 保護的資源已接受較新持有 #%d 的寫入，之後又接受了 %s 來自舊持有 #%d 的寫入：過期的持有者覆蓋了新資料。它的柵欄令牌 %d 並不比較新持有的小，因為發放令牌的計數器倒退了（例如故障轉移丟掉了它的遞增），所以柵欄令牌沒能拒絕這次寫入。", lock, newest, who, seq, fence),
		}
	}
	return Text{
		English:            fmt.Sprintf("The resource of %s took %s's write from hold #%d after it had taken a write from the newer hold #%d: a stale owner overwrote newer work. A fencing token would have refused it.", lock, who, seq, newest),
		SimplifiedChinese:  fmt.Sprintf("%s 保护的资源已接受较新持有 #%d 的写入，之后又接受了 %s 来自旧持有 #%d 的写入：过期的持有者覆盖了新数据。栅栏令牌本可以拒绝它。", lock, newest, who, seq),
		TraditionalChinese: fmt.Sprintf("%s 保護的資源已接受較新持有 #%d 的寫入，之後又接受了 %s 來自舊持有 #%d 的寫入：過期的持有者覆蓋了新資料。柵欄令牌本可以拒絕它。", lock, newest, who, seq),
	}
}

func explainWrongOwnerRelease(who string, taker []string, lock string, out Outcome) Text {
	en, cn, tw := "lowered the hold count of", "减少了", "減少了"
	if out == Released {
		en, cn, tw = "deleted", "删除了", "刪除了"
	}
	return Text{
		English:            fmt.Sprintf("%s's release %s the hold that %s took on lock %s: Redis could not tell the two owners apart.", who, en, list(taker, English), lock),
		SimplifiedChinese:  fmt.Sprintf("%s 的释放%s %s 在锁 %s 上的持有：Redis 分不清这两个持有者。", who, cn, list(taker, SimplifiedChinese), lock),
		TraditionalChinese: fmt.Sprintf("%s 的釋放%s %s 在鎖 %s 上的持有：Redis 分不清這兩個持有者。", who, tw, list(taker, TraditionalChinese), lock),
	}
}

func explainCountMismatch(who []string, owner, lock string, redis int64, local int) Text {
	return Text{
		English:            fmt.Sprintf("Redis keeps hold count %d for owner %s on lock %s, but the call stack of %s holds %d: the two counts no longer match.", redis, owner, lock, list(who, English), local),
		SimplifiedChinese:  fmt.Sprintf("Redis 记录持有者 %s 在锁 %s 上的重入次数为 %d，但 %s 本地记的是 %d：两边已对不上。", owner, lock, redis, list(who, SimplifiedChinese), local),
		TraditionalChinese: fmt.Sprintf("Redis 記錄持有者 %s 在鎖 %s 上的重入次數為 %d，但 %s 本地記的是 %d：兩邊已對不上。", owner, lock, redis, list(who, TraditionalChinese), local),
	}
}

func explainLeak(who string, gone, renewing bool, token, lock string, n int64) Text {
	if renewing {
		return Text{
			English:            fmt.Sprintf("%s's task is over, but its process still renews the lease of its %s on lock %s (token %s): the lease never ends, and nobody else will ever get the lock.", who, holdsEN(n), lock, token),
			SimplifiedChinese:  fmt.Sprintf("%s 的任务已经结束，但它所在的进程仍在为锁 %s 上的 %d 次持有（令牌 %s）续期：租约永远不会到期，其他人再也拿不到这把锁。", who, lock, n, token),
			TraditionalChinese: fmt.Sprintf("%s 的任務已經結束，但它所在的行程仍在為鎖 %s 上的 %d 次持有（令牌 %s）續期：租約永遠不會到期，其他人再也拿不到這把鎖。", who, lock, n, token),
		}
	}
	if gone {
		return Text{
			English:            fmt.Sprintf("%s is gone, but Redis still keeps %s for its token %s on lock %s: nobody can take the lock until the lease ends.", who, holdsEN(n), token, lock),
			SimplifiedChinese:  fmt.Sprintf("%s 已经退出，但 Redis 仍为它的令牌 %s 在锁 %s 上保留 %d 次持有：租约到期之前谁都拿不到这把锁。", who, token, lock, n),
			TraditionalChinese: fmt.Sprintf("%s 已經退出，但 Redis 仍為它的令牌 %s 在鎖 %s 上保留 %d 次持有：租約到期之前誰都拿不到這把鎖。", who, token, lock, n),
		}
	}
	return Text{
		English:            fmt.Sprintf("The lesson ends while Redis still keeps %s for %s's token %s on lock %s.", holdsEN(n), who, token, lock),
		SimplifiedChinese:  fmt.Sprintf("课程结束时，Redis 仍为 %s 的令牌 %s 在锁 %s 上保留 %d 次持有。", who, token, lock, n),
		TraditionalChinese: fmt.Sprintf("課程結束時，Redis 仍為 %s 的令牌 %s 在鎖 %s 上保留 %d 次持有。", who, token, lock, n),
	}
}

// holdsEN is "1 hold" or "n holds".
func holdsEN(n int64) string {
	if n == 1 {
		return "1 hold"
	}
	return fmt.Sprintf("%d holds", n)
}
