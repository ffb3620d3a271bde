package sampler

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	neturl "net/url"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// DefaultMetrics are the metrics a Prom reads when the endpoint has them:
// what the official Prometheus clients export about their own process.
var DefaultMetrics = []string{"process_resident_memory_bytes", "process_open_fds", "go_goroutines"}

// maxScrape bounds a scrape's body: a metrics page is kilobytes; a
// runaway one should not cost the generator its memory.
const maxScrape = 16 << 20

// Prom scrapes a Prometheus text-format endpoint and reads named metrics
// from it with the Prometheus project's own parser. A metric with several
// label sets reads as their sum (all of a process's sessions, say).
type Prom struct {
	url    string
	where  string // url without its password, for messages and reports
	client *http.Client
	gauges []Gauge
}

// NewProm scrapes url once to learn which metrics it has and of what
// type. It reads those of DefaultMetrics the endpoint has (the rest are
// returned in absent) and every one of extra, which must be there and be
// a gauge, a counter or untyped.
func NewProm(ctx context.Context, url string, extra []string, client *http.Client) (p *Prom, absent []string, err error) {
	if client == nil {
		client = http.DefaultClient
	}
	p = &Prom{url: url, where: redacted(url), client: client}
	fams, err := p.scrape(ctx)
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{}
	add := func(name string, required bool) error {
		if seen[name] {
			return nil
		}
		seen[name] = true
		f, ok := fams[name]
		if !ok {
			if required {
				return fmt.Errorf("metric %s is not among the %d metrics at %s", name, len(fams), p.where)
			}
			absent = append(absent, name)
			return nil
		}
		g, err := gaugeOf(f)
		if err != nil {
			return err
		}
		p.gauges = append(p.gauges, g)
		return nil
	}
	for _, name := range DefaultMetrics {
		_ = add(name, false)
	}
	for _, name := range extra {
		if err := add(name, true); err != nil {
			return nil, nil, err
		}
	}
	return p, absent, nil
}

// gaugeOf describes family f, refusing types that are not one value.
func gaugeOf(f *dto.MetricFamily) (Gauge, error) {
	g := Gauge{Name: f.GetName()}
	switch f.GetType() {
	case dto.MetricType_GAUGE, dto.MetricType_UNTYPED:
	case dto.MetricType_COUNTER:
		g.Counter = true
	default:
		return g, fmt.Errorf("metric %s is a %s: name a gauge or a counter", g.Name, strings.ToLower(f.GetType().String()))
	}
	switch name := strings.TrimSuffix(g.Name, "_total"); {
	case strings.HasSuffix(name, "_bytes"):
		g.Unit = UnitBytes
	case strings.HasSuffix(name, "_seconds"):
		g.Unit = UnitSeconds
	}
	return g, nil
}

// Where is the endpoint's URL, its password masked.
func (p *Prom) Where() string { return p.where }

// redacted masks the password of a URL with credentials in it.
func redacted(raw string) string {
	u, err := neturl.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Redacted()
}

// Gauges are the metrics found by NewProm.
func (p *Prom) Gauges() []Gauge { return p.gauges }

// Read scrapes once.
func (p *Prom) Read(ctx context.Context, v []float64) error {
	fillNaN(v)
	fams, err := p.scrape(ctx)
	if err != nil {
		return err
	}
	for i, g := range p.gauges {
		if f, ok := fams[g.Name]; ok {
			v[i] = sum(f)
		}
	}
	return nil
}

// scrape fetches and parses the endpoint, asking for the text format.
func (p *Prom) scrape(ctx context.Context) (map[string]*dto.MetricFamily, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s", p.where, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(io.LimitReader(resp.Body, maxScrape))
	if err != nil {
		return nil, fmt.Errorf("%s: not Prometheus text format: %w", p.where, err)
	}
	return fams, nil
}

// sum adds the values of every label set of f.
func sum(f *dto.MetricFamily) float64 {
	total := 0.0
	for _, m := range f.GetMetric() {
		switch {
		case m.Gauge != nil:
			total += m.GetGauge().GetValue()
		case m.Counter != nil:
			total += m.GetCounter().GetValue()
		case m.Untyped != nil:
			total += m.GetUntyped().GetValue()
		default:
			return math.NaN()
		}
	}
	return total
}
