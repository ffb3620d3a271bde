package bench

import (
	"time"

	"github.com/mcpbench/mcpbench/measure"
)

// fill adds the session figures to p, a session level's Point over
// elapsed: the load as users and sessions per second, and the sessions'
// own figures.
func (sr *sessionRunner) fill(p *measure.Point, elapsed time.Duration) {
	p.Concurrency = len(sr.users)
	if sr.p.open() {
		rt := sr.p.rate
		p.Rate = &rt
	}
	s := &measure.SessionStats{ByScenario: make([]measure.ScenarioStats, len(sr.scenarios))}
	all, allActive := NewHistogram(), NewHistogram()
	for k, name := range sr.scenarios {
		sc := &s.ByScenario[k]
		sc.Scenario = name
		var think time.Duration
		for _, u := range sr.seen {
			c := u.byScenario[k]
			sc.Completed += c.completed
			sc.Failed += c.failed
			sc.Steps += c.steps
			think += c.think
		}
		sc.ThinkS = think.Seconds()
		sc.Duration.Fill(sr.duration[k])
		sc.Active.Fill(sr.active[k])
		sc.Means(elapsed.Seconds())
		all.Merge(sr.duration[k])
		allActive.Merge(sr.active[k])
		s.Add(&sc.SessionFigures)
	}
	for _, u := range sr.seen {
		s.Started += u.started
	}
	s.Duration.Fill(all)
	s.Active.Fill(allActive)
	s.Means(elapsed.Seconds())
	if sr.uncorrected != nil {
		s.Uncorrected, s.StartLagMS = &measure.Uncorrected{}, &measure.ScheduleLag{}
		s.Uncorrected.Fill(sr.uncorrected)
		s.StartLagMS.Fill(sr.lag)
		s.Unstarted = max(sr.due-s.Started, 0)
		sr.judgeWake(sr.wake)
	}
	p.Sessions = s
}
