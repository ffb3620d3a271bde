package sampler

import (
	"context"
	"fmt"

	"github.com/prometheus/procfs"
)

// Proc reads a local process from /proc: its resident memory, open file
// descriptors, threads and CPU time. It uses the Prometheus project's
// procfs, the same reader the Go client's process metrics use, so the
// figures match what the process would export itself.
type Proc struct {
	pid  int
	proc procfs.Proc
}

// The gauges Proc reads, in order.
var procGauges = []Gauge{
	{Name: "rss_bytes", Unit: UnitBytes},
	{Name: "open_fds"},
	{Name: "threads"},
	{Name: "cpu_s", Unit: UnitSeconds, Counter: true},
}

// NewProc finds process pid, or says why it cannot be read.
func NewProc(pid int) (*Proc, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("pid must be a positive number, not %d", pid)
	}
	p, err := procfs.NewProc(pid)
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", pid, err)
	}
	if _, err := p.Stat(); err != nil {
		return nil, fmt.Errorf("process %d: %w", pid, err)
	}
	return &Proc{pid: pid, proc: p}, nil
}

// Where is "pid N".
func (p *Proc) Where() string { return fmt.Sprintf("pid %d", p.pid) }

// Gauges are rss_bytes, open_fds, threads and cpu_s.
func (p *Proc) Gauges() []Gauge { return procGauges }

// Read takes one sample. Open fds are counted separately, so a process
// whose fd directory cannot be listed (another user's) still gives the
// rest.
func (p *Proc) Read(_ context.Context, v []float64) error {
	fillNaN(v)
	st, err := p.proc.Stat()
	if err != nil {
		return fmt.Errorf("process %d: %w", p.pid, err)
	}
	v[0] = float64(st.ResidentMemory())
	v[2] = float64(st.NumThreads)
	v[3] = st.CPUTime()
	n, err := p.proc.FileDescriptorsLen()
	if err != nil {
		return fmt.Errorf("process %d: open fds: %w", p.pid, err)
	}
	v[1] = float64(n)
	return nil
}
