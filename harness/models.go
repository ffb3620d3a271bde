package harness

import "github.com/mcpbench/mcpbench/sweep"

// What harness reads of a level's load model (front.go names the models
// for cmd): its level for the outputs, the report's mode, and a sweep
// level's model.

// levelOf is the level a run's model names, for its outputs: none for
// stages.
func levelOf(m Model) sweep.Level {
	switch m := m.(type) {
	case ClosedLoop:
		return sweep.Level{Concurrency: m.Concurrency}
	case ScenarioUsers:
		return sweep.Level{Concurrency: m.Users}
	case OpenLoop:
		return sweep.Level{Rate: m.Rate}
	}
	return sweep.Level{}
}

// modeOf is the report's mode of a run's model: "open" for an open loop
// at one rate; stages, as before models were types, read "closed".
func modeOf(m Model) string {
	if levelOf(m).Rate > 0 {
		return "open"
	}
	return "closed"
}

// modelAt is a sweep's model for level l: a closed loop of its workers,
// or an open loop at its rate, with the points' ramp and bound.
func (c *SweepConfig) modelAt(l sweep.Level) Model {
	if l.Rate > 0 {
		return OpenLoop{Rate: l.Rate, MaxInFlight: c.MaxInFlight, RampUp: c.RampUp}
	}
	return ClosedLoop{Concurrency: l.Concurrency, RampUp: c.RampUp}
}
