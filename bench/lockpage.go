package main

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"lockstep/backend"
	"lockstep/internal/benchtable"
	"lockstep/sim"
	"lockstep/web"
)

// Section 8 measures "Your lock"'s page: a lock's course table runs every
// lesson under the lock (in the Lua sandbox); its page viewed again (a
// reload, another language, a class opening the link a teacher shared)
// comes from the table cache (web.Config.LockTableCache) against a server
// without one, which runs the course again.

// redissonLock is the form of the Redisson example the project ships
// (examples/variants), as the "Your lock" form posts it.
func redissonLock() (map[string]string, error) {
	out := map[string]string{"variant_name": "redisson-rlock.variant.yaml"}
	files := []string{"redisson-rlock.variant.yaml", "redisson-rlock/acquire.lua", "redisson-rlock/release.lua", "redisson-rlock/renew.lua"}
	for i, f := range files {
		b, err := os.ReadFile(filepath.Join("examples", "variants", f))
		if err != nil {
			return nil, fmt.Errorf("bench: the Redisson example (run from the repository's root): %w", err)
		}
		if i == 0 {
			out["variant"] = string(b)
			continue
		}
		out[fmt.Sprintf("script_name_%d", i)], out[fmt.Sprintf("script_%d", i)] = f, string(b)
	}
	return out, nil
}

// lockLink posts fields to s's "Your lock" form and returns the lock's
// link (the 303's Location).
func lockLink(c *http.Client, base string, fields map[string]string) (string, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			return "", err
		}
	}
	mw.Close()
	resp, err := c.Post(base+"/explore/lock?lang=en", mw.FormDataContentType(), &body)
	if err != nil {
		return "", fmt.Errorf("bench: post the lock: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return "", fmt.Errorf("bench: post the lock: %s", resp.Status)
	}
	return resp.Header.Get("Location"), nil
}

// timedGet GETs url and returns how long the whole answer took.
func timedGet(c *http.Client, url string) (time.Duration, error) {
	start := time.Now()
	resp, err := c.Get(url)
	if err != nil {
		return 0, fmt.Errorf("bench: get %s: %w", url, err)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("bench: get %s: %s", url, resp.Status)
	}
	return time.Since(start), err
}

// lockPageRows adds section 8: the Redisson lock's page viewed again, in
// another language, with and without the table cache, views alternated.
func lockPageRows(t *benchtable.Table, be *backend.Backend, ls []*sim.Lesson, views int) error {
	fields, err := redissonLock()
	if err != nil {
		return err
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	defer c.CloseIdleConnections()
	var cached, uncached []time.Duration
	var first time.Duration
	for _, o := range []struct {
		size int
		out  *[]time.Duration
	}{{0, &cached}, {-1, &uncached}} {
		s, err := startServer(be, ls, 10, time.Hour, func(c *web.Config) { c.LockTableCache = o.size })
		if err != nil {
			return err
		}
		link, err := lockLink(c, s.hs.URL, fields)
		if err == nil {
			var d time.Duration
			if d, err = timedGet(c, s.hs.URL+link); o.size == 0 {
				first = d
			}
		}
		for i := 0; err == nil && i < views; i++ {
			lang := []string{"zh-CN", "zh-TW", "en"}[i%3]
			var d time.Duration
			d, err = timedGet(c, s.hs.URL+link+"&lang="+lang)
			*o.out = append(*o.out, d)
		}
		s.close()
		if err != nil {
			return err
		}
	}
	mc, mu := summarize(cached).p50, summarize(uncached).p50
	t.Add("8", fmt.Sprintf("\"Your lock\": the Redisson example's page viewed again in another language (%d views; the first view %s, its course table of %d lessons in the Lua sandbox)", views, first.Round(time.Millisecond), len(ls)),
		mc.Round(time.Microsecond).String(), "no table cache: "+mu.Round(time.Millisecond).String(),
		fmt.Sprintf("%.3fx", float64(mc)/float64(mu)), "≤ 0.1x (the cache stays only where it pays)", benchtable.Yes(float64(mc) <= 0.1*float64(mu)))
	return nil
}
