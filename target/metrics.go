package target

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metricsHandler serves the server's Prometheus metrics at /metrics: the
// Go runtime's and the process's own (go_goroutines,
// process_resident_memory_bytes, process_open_fds...), as any Go service
// instrumented with the official client exports them, and a few of the
// reference server's. A registry per server, not the global one, so that
// several servers in one test process each report their own.
func (s *Server) metricsHandler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "mcpbench_serve_sessions",
			Help: "MCP sessions the server holds open.",
		}, func() float64 { return float64(s.openSessions()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "mcpbench_serve_leaked_bytes",
			Help: "Bytes kept on purpose by --leak-per-request.",
		}, func() float64 { return float64(s.leaks.bytes.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "mcpbench_serve_kept_sessions_total",
			Help: "Session DELETEs ignored on purpose by --leak-sessions.",
		}, func() float64 { return float64(s.leaks.keptSessions.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "mcpbench_serve_requests_total",
			Help: "MCP requests answered.",
		}, func() float64 { return float64(s.totalRequests.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "mcpbench_serve_in_flight",
			Help: "tools/list and tools/call requests holding a handler slot.",
		}, func() float64 { return float64(s.inFlight.Load()) }),
	)
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}
