package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"lockstep/internal/benchtable"
	"lockstep/internal/redistest"
	"lockstep/proxy"
)

// soak runs clients connections that loop lock/unlock (SET NX PX, then the
// EVALSHA release) on 5 shared lock keys through one proxy for d, with the
// live page open, and samples the process's RSS and live heap every
// `every`: the proxy's memory must stay flat once its trace ring is full.
// The process holds the load generator too (its clients, one connection
// each), whose memory does not grow with time.
func soak(ctx context.Context, d, every time.Duration, clients int, t *benchtable.Table, log io.Writer) error {
	rs, err := redistest.Launch("")
	if err != nil {
		return err
	}
	defer rs.Stop()
	p, err := proxy.Start(ctx, proxy.Config{Listen: "127.0.0.1:0", RedisURL: rs.URL, Locks: "lock:*", MaxClients: clients + 10})
	if err != nil {
		return err
	}
	defer p.Close()
	page, err := openLivePage(ctx, p)
	if err != nil {
		return err
	}
	defer page.close()
	t.Header = []string{fmt.Sprintf("soak: %d clients loop lock/unlock on 5 keys through the proxy for %s (redis-server on %s; %s, GOMAXPROCS %d; the live page open)",
		clients, d, rs.Addr, runtime.Version(), runtime.GOMAXPROCS(0))}

	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var pairs, errs atomic.Int64
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := redis.NewClient(&redis.Options{Addr: p.Addr(), Protocol: 2, PoolSize: 1, DisableIdentity: true, MaxRetries: -1})
			defer c.Close()
			sha, err := c.ScriptLoad(ctx, releaseLua).Result()
			if err != nil {
				errs.Add(1)
				return
			}
			key := "lock:soak:" + strconv.Itoa(i%5)
			for n := 0; ctx.Err() == nil; n++ {
				token := strconv.Itoa(i) + ":" + strconv.Itoa(n)
				ok, err := c.SetNX(ctx, key, token, 10*time.Second).Result()
				if err == nil && ok {
					err = c.EvalSha(ctx, sha, []string{key}, token).Err()
				}
				if err != nil && ctx.Err() == nil {
					errs.Add(1)
				}
				pairs.Add(1)
			}
		}()
	}
	type sample struct {
		at        time.Duration
		rss, heap uint64
	}
	var samples []sample
	start := time.Now()
	tick := time.NewTicker(every)
	defer tick.Stop()
	take := func() {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		s := sample{time.Since(start).Round(time.Second), rssBytes(), ms.HeapAlloc}
		samples = append(samples, s)
		fmt.Fprintf(log, "proxyload: soak %s: RSS %s, heap %s, %d pairs, %d errors, %s\n", s.at, benchtable.MiB(s.rss), benchtable.MiB(s.heap), pairs.Load(), errs.Load(), page.stats())
	}
	for ctx.Err() == nil {
		select {
		case <-tick.C:
			take()
		case <-ctx.Done():
		}
	}
	wg.Wait()
	take()
	if len(samples) < 3 {
		return fmt.Errorf("soak: %s gave %d samples of %s; run it longer", d, len(samples), every)
	}
	// The first sample is the warm-up (the ring filling). Flat: the mean
	// RSS of the later half of the samples is within 10 % of the earlier
	// half's (each sample sits somewhere on the sawtooth of the live
	// page's snapshots, so single samples swing).
	rest := samples[1:]
	half := len(rest) / 2
	meanRSS := func(ss []sample) float64 {
		var sum float64
		for _, s := range ss {
			sum += float64(s.rss)
		}
		return sum / float64(len(ss))
	}
	early, late := meanRSS(rest[:half]), meanRSS(rest[len(rest)-half:])
	lo, hi := rest[0].rss, rest[0].rss
	for _, s := range rest {
		lo, hi = min(lo, s.rss), max(hi, s.rss)
	}
	growth := late/early - 1
	last := samples[len(samples)-1]
	t.Add("P5", fmt.Sprintf("RSS over %s, %d clients looping lock/unlock (%d pairs, %d errors), sampled every %s after a GC", d, clients, pairs.Load(), errs.Load(), every),
		fmt.Sprintf("mean %s in the first half, %s in the second; range %s-%s", benchtable.MiB(uint64(early)), benchtable.MiB(uint64(late)), benchtable.MiB(lo), benchtable.MiB(hi)),
		fmt.Sprintf("live heap %s at %s, %s at %s", benchtable.MiB(rest[0].heap), rest[0].at, benchtable.MiB(last.heap), last.at),
		fmt.Sprintf("%+.1f %%", growth*100), "flat: within 10 %", benchtable.Yes(growth <= 0.10))
	t.Add("P5", "the live page during the soak", page.stats(), "", "", "report", "-")
	return nil
}

// rssBytes is the process's resident set (VmRSS of /proc/self/status), 0
// where there is none.
func rssBytes() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
