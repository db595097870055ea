package main

import (
	"fmt"
	"strings"
	"time"
)

// stepPhases splits row 1's step round trips by where their time went:
// the server's share, as the web server reports it for each step
// (web.StepTiming: from the connection's reader having the message to the
// session taking it, the step's Redis work, drawing, encoding and queueing
// its frame message), the bench client's decoding of the frame message
// (encoding/json into a five-field struct: it validates the whole message
// and skips what it does not keep, which is not what a browser's
// JSON.parse does), and the rest, "sending and handoffs": the client's
// send and the network to the server, the writer taking the reply from the
// session and sending it, and the network back, which is each round trip
// less the other four.
type stepPhases struct {
	names []string
	each  []stats         // per phase, over the steps
	mean  []time.Duration // per phase; the means add up to the round trip's
	total time.Duration   // the round trips' mean
}

// phasesOf splits the round trips of r, whose server timings and client
// decodes are in the order of its times; an error when they are not one
// each.
func phasesOf(r steps) (stepPhases, error) {
	if len(r.server) != len(r.times) || len(r.decodes) != len(r.times) {
		return stepPhases{}, fmt.Errorf("bench: %d server timings and %d decodes for %d steps", len(r.server), len(r.decodes), len(r.times))
	}
	p := stepPhases{names: []string{"to the session", "Redis work", "drawing and encoding", "the bench client's decoding", "sending and handoffs"}}
	cols := make([][]time.Duration, len(p.names))
	for i, st := range r.server {
		rest := r.times[i] - st.Wait - st.Redis - st.Draw - r.decodes[i]
		for j, d := range []time.Duration{st.Wait, st.Redis, st.Draw, r.decodes[i], rest} {
			cols[j] = append(cols[j], d)
		}
	}
	for _, c := range cols {
		st := summarize(c)
		p.each = append(p.each, st)
		p.mean = append(p.mean, st.mean)
		p.total += st.mean
	}
	return p, nil
}

// value is each phase's p50/p99.
func (p stepPhases) value() string {
	var b strings.Builder
	b.WriteString("p50/p99: ")
	for i, n := range p.names {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s %.0f/%.0f µs", n, micros(p.each[i].p50), micros(p.each[i].p99))
	}
	return b.String()
}

// shares is each phase's share of the mean round trip.
func (p stepPhases) shares() string {
	parts := make([]string, len(p.names))
	for i := range p.names {
		parts[i] = fmt.Sprintf("%.0f%%", 100*float64(p.mean[i])/float64(max(1, p.total)))
	}
	return "of the mean: " + strings.Join(parts, " / ")
}

// micros is d in microseconds.
func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
