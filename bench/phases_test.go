package main

import (
	"strings"
	"testing"
	"time"

	"lockstep/web"
)

// TestPhasesOf checks the split of round trips: the rest is what the
// server's share and the decoding leave, the means add up to the round
// trips' mean, and timings that do not match the steps one to one are an
// error.
func TestPhasesOf(t *testing.T) {
	us := time.Microsecond
	r := steps{
		times: []time.Duration{500 * us, 700 * us},
		server: []web.StepTiming{
			{Step: 1, Wait: 10 * us, Redis: 100 * us, Draw: 50 * us},
			{Step: 2, Wait: 30 * us, Redis: 300 * us, Draw: 70 * us},
		},
		decodes: []time.Duration{100 * us, 120 * us},
	}
	p, err := phasesOf(r)
	if err != nil {
		t.Fatal(err)
	}
	wantMeans := []time.Duration{20 * us, 200 * us, 60 * us, 110 * us, 210 * us} // rests 240 and 180
	for i, want := range wantMeans {
		if p.mean[i] != want {
			t.Errorf("%s: mean %s, want %s", p.names[i], p.mean[i], want)
		}
	}
	if p.total != 600*us {
		t.Errorf("the means add up to %s, want the round trips' mean 600µs", p.total)
	}
	// With two samples, summarize takes the larger for p50 and p99.
	if v := p.value(); !strings.Contains(v, "sending and handoffs 240/240 µs") || !strings.Contains(v, "Redis work 300/300 µs") {
		t.Errorf("value %q", v)
	}
	if sh := p.shares(); sh != "of the mean: 3% / 33% / 10% / 18% / 35%" {
		t.Errorf("shares %q", sh)
	}
	r.decodes = r.decodes[:1]
	if _, err := phasesOf(r); err == nil {
		t.Error("one decode for two steps is not an error")
	}
}
