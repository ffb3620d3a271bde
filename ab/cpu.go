package ab

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/prometheus/procfs"

	"github.com/mcpbench/mcpbench/sampler"
)

// CPUSource reads a server's CPU time so far, in seconds; the runner takes
// the difference over each measurement.
type CPUSource interface {
	CPUSeconds(ctx context.Context) (float64, error)
	Where() string
}

// userHZ is the kernel's clock tick for /proc's times: 100 on every Linux
// ABI (USER_HZ); procfs assumes the same for CPUTime.
const userHZ = 100

// ProcTree reads the CPU time of a process and all its descendants from
// /proc: a server started through a shell, or one that forks workers, is
// measured whole.
type ProcTree struct {
	Pid int
	fs  procfs.FS
}

// NewProcTree checks that pid can be read from /proc.
func NewProcTree(pid int) (*ProcTree, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("pid must be a positive number, not %d", pid)
	}
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil, err
	}
	if _, err := fs.Proc(pid); err != nil {
		return nil, fmt.Errorf("process %d: %w", pid, err)
	}
	return &ProcTree{Pid: pid, fs: fs}, nil
}

// Where is "pid N and its descendants".
func (p *ProcTree) Where() string { return fmt.Sprintf("pid %d and its descendants", p.Pid) }

// CPUSeconds sums user and system time over the live tree, with each
// member's reaped children (cutime, cstime): a child that exits moves from
// the tree into its parent's children's times, so nothing counts twice.
func (p *ProcTree) CPUSeconds(context.Context) (float64, error) {
	procs, err := p.fs.AllProcs()
	if err != nil {
		return 0, err
	}
	children := map[int][]procfs.ProcStat{}
	var root *procfs.ProcStat
	for _, pr := range procs {
		st, err := pr.Stat()
		if err != nil {
			continue // gone meanwhile
		}
		if st.PID == p.Pid {
			root = &st
		}
		children[st.PPID] = append(children[st.PPID], st)
	}
	if root == nil {
		return 0, fmt.Errorf("process %d is gone", p.Pid)
	}
	ticks := 0.0
	queue := []procfs.ProcStat{*root}
	for len(queue) > 0 {
		st := queue[0]
		queue = append(queue[1:], children[st.PID]...)
		ticks += float64(st.UTime+st.STime) + float64(st.CUTime+st.CSTime)
	}
	return ticks / userHZ, nil
}

// promCPU is the metric a Prometheus client exports for its process's CPU.
const promCPU = "process_cpu_seconds_total"

// PromCPU reads process_cpu_seconds_total from a server's Prometheus text
// endpoint, with sampler's scraper (the Prometheus project's parser).
type PromCPU struct {
	prom *sampler.Prom
	at   int
}

// NewPromCPU scrapes url once and fails when it has no
// process_cpu_seconds_total.
func NewPromCPU(ctx context.Context, url string, client *http.Client) (*PromCPU, error) {
	prom, _, err := sampler.NewProm(ctx, url, []string{promCPU}, client)
	if err != nil {
		return nil, err
	}
	for i, g := range prom.Gauges() {
		if g.Name == promCPU {
			return &PromCPU{prom: prom, at: i}, nil
		}
	}
	return nil, fmt.Errorf("%s has no %s", prom.Where(), promCPU)
}

// Where is the endpoint, its password masked.
func (p *PromCPU) Where() string { return p.prom.Where() }

// CPUSeconds scrapes once.
func (p *PromCPU) CPUSeconds(ctx context.Context) (float64, error) {
	v := make([]float64, len(p.prom.Gauges()))
	if err := p.prom.Read(ctx, v); err != nil {
		return 0, err
	}
	if x := v[p.at]; x == x {
		return x, nil
	}
	return 0, errors.New(p.Where() + ": " + promCPU + " is missing")
}

// selfCPU is this process's CPU time, the generator's share of a
// measurement when it runs in process; NaN where /proc cannot tell.
func selfCPU() float64 {
	p, err := procfs.Self()
	if err != nil {
		return nan
	}
	st, err := p.Stat()
	if err != nil {
		return nan
	}
	return st.CPUTime()
}
