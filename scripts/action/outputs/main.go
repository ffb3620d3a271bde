// Command outputs prints a run or sweep report's headline figures as the
// name=value lines the GitHub Action writes to $GITHUB_OUTPUT: p95_ms,
// p99_ms, rps, error_rate, and for a sweep the point they come from.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
)

type figures struct {
	Concurrency int     `json:"concurrency"`
	Rate        float64 `json:"rate"`
	P95         float64 `json:"p95_ms"`
	P99         float64 `json:"p99_ms"`
	RPS         float64 `json:"rps"`
	ErrorRate   float64 `json:"error_rate"`
}

type report struct {
	figures
	Points         []figures `json:"points"`
	Recommendation *struct {
		Concurrency int     `json:"recommended_concurrency"`
		MaxRPS      float64 `json:"max_sustainable_rps"`
	} `json:"recommendation"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: outputs REPORT.json")
		os.Exit(2)
	}
	b, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "outputs:", err)
		os.Exit(2)
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		fmt.Fprintf(os.Stderr, "outputs: %s is not a run or sweep report: %v\n", os.Args[1], err)
		os.Exit(2)
	}
	write(os.Stdout, r)
}

// write prints the figures: a run's own, or a sweep's chosen point.
func write(w io.Writer, r report) {
	f := r.figures
	if len(r.Points) > 0 {
		f = sweepPoint(r)
		if f.Rate > 0 {
			fmt.Fprintf(w, "point=rate %s\n", num(f.Rate))
		} else {
			fmt.Fprintf(w, "point=concurrency %d\n", f.Concurrency)
		}
	}
	fmt.Fprintf(w, "p95_ms=%s\np99_ms=%s\nrps=%s\nerror_rate=%s\n", num(f.P95), num(f.P99), num(f.RPS), num(f.ErrorRate))
}

// sweepPoint is the point the sweep recommends (by concurrency, or by rate
// for a rate sweep), else the one with the highest throughput.
func sweepPoint(r report) figures {
	best := r.Points[0]
	for _, p := range r.Points {
		if rec := r.Recommendation; rec != nil {
			if (rec.Concurrency > 0 && p.Concurrency == rec.Concurrency && p.Rate == 0) || (rec.MaxRPS > 0 && p.Rate == rec.MaxRPS) {
				return p
			}
		}
		if p.RPS > best.RPS {
			best = p
		}
	}
	return best
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
