package harness

import (
	"net/http"
	"net/url"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/mcp"
	"github.com/mcpbench/mcpbench/workload"
)

// This file is the front door's vocabulary: the names a command needs to
// fill a RunConfig or SweepConfig, to watch the load and to word the
// errors that come back, so that it imports harness rather than the
// generator, the workload or the client. The types are aliases, not copies:
// each is a plain value a command fills and harness hands down unchanged
// (settings, progress figures, typed errors read field by field), so a
// second type would only mean a conversion to keep in step. Client is the
// exception that is not a value: Dial returns it, and a command only passes
// it on (to probe.Config.Dial).

// The load of one level, and what the generator reports while it runs.
type (
	// Progress is a snapshot of a level under way.
	Progress = bench.Progress
	// Interval is one settled bucket of the series (an Output gets it in
	// a PointInterval).
	Interval = bench.Interval
	// Stages are a staged level's shape (--stages, --rate-stages).
	Stages = bench.Stages
	// LevelConfig is the generator's configuration of a level
	// (bench.Config): its load model, length, warm-up and interval; its
	// Observer is harness's, which feeds the Outputs. Model is one of
	// the load models after it (bench/model*.go).
	LevelConfig   = bench.Config
	Model         = bench.Model
	ClosedLoop    = bench.ClosedLoop
	OpenLoop      = bench.OpenLoop
	ClosedStages  = bench.ClosedStages
	RateStages    = bench.RateStages
	ScenarioUsers = bench.ScenarioUsers
)

// ParseStages reads stages written D:N[,D:N…].
func ParseStages(s string) (Stages, error) { return bench.ParseStages(s) }

// The target: how to reach and speak to the server.
type (
	Options        = mcp.Options
	Client         = mcp.Client
	OAuth          = mcp.OAuth
	ClientInfo     = mcp.ClientInfo
	ClientRequests = mcp.ClientRequests
	// Trace asks for W3C trace context on a share of the requests; a
	// Span is one such request, handed to Trace.OnSpan.
	Trace       = mcp.Trace
	Span        = mcp.Span
	Transport   = mcp.Transport
	SessionMode = mcp.SessionMode
	Engine      = mcp.Engine
	// AuthError is a server that refused the credentials or wanted some;
	// an UnreachableError may wrap one.
	AuthError = mcp.AuthError
)

// The user-visible session modes, engines and OAuth flows.
const (
	SessionPerWorker  = mcp.SessionPerWorker
	SessionShared     = mcp.SessionShared
	SessionPerRequest = mcp.SessionPerRequest

	EngineAuto    = mcp.EngineAuto
	EngineDirect  = mcp.EngineDirect
	EngineNetHTTP = mcp.EngineNetHTTP

	OAuthAuto              = mcp.OAuthAuto
	OAuthClientCredentials = mcp.OAuthClientCredentials
	OAuthAuthorizationCode = mcp.OAuthAuthorizationCode
	OAuthEnterprise        = mcp.OAuthEnterprise
)

// Redact hides a URL's user info, which may hold a password.
func Redact(raw string) string { return mcp.Redact(raw) }

// ParseURL checks an endpoint URL ("" or "/" as its path means /mcp).
func ParseURL(raw string) (*url.URL, error) { return mcp.ParseURL(raw) }

// Revisions are the protocol revisions the client speaks, newest first.
func Revisions() []string { return mcp.Revisions() }

// ParseClientRequests reads the policy that answers the server's requests
// during a call: decline, error, or the path of a JSON file of results.
func ParseClientRequests(spec string) (*ClientRequests, error) {
	return mcp.ParseClientRequests(spec)
}

// SecretValues lists the credential values in h (its sensitive headers and
// the extra header names), which must never reach a report or a message.
func SecretValues(h http.Header, extra ...string) []string { return mcp.SecretValues(h, extra...) }

// What is sent: a plain workload or a scenario file's sessions.
type (
	Spec         = workload.Spec
	ScenarioSpec = workload.ScenarioSpec
	ScenarioFile = workload.ScenarioFile
	Selection    = workload.Selection
	MixEntry     = workload.MixEntry
	ToolInfo     = workload.ToolInfo
)

// ParseMix reads a mix file's contents.
func ParseMix(b []byte) ([]MixEntry, error) { return workload.ParseMix(b) }

// ReadScenarioFile reads and checks a scenario file and the data files its
// steps name.
func ReadScenarioFile(path string) (*ScenarioFile, error) { return workload.ReadScenarioFile(path) }

// The errors a WorkloadError may carry, which a command words in its own
// terms: each speaks of values (a method, a tool, a glob), never of flags.
type (
	ServerError      = workload.ServerError
	MethodError      = workload.MethodError
	UnknownToolError = workload.UnknownToolError
	InjectError      = workload.InjectError
	SelectionError   = workload.SelectionError
	GlobError        = workload.GlobError
	StepError        = workload.StepError
)

// The workload errors without fields, for errors.Is.
var (
	ErrMixReplaces     = workload.ErrMixReplaces
	ErrGenArgsReplaces = workload.ErrGenArgsReplaces
	ErrToolWithoutCall = workload.ErrToolWithoutCall
	ErrCallWithoutTool = workload.ErrCallWithoutTool
	ErrGlobsUnused     = workload.ErrGlobsUnused
	ErrTargetUnused    = workload.ErrTargetUnused
)

// Methods are the methods a workload sends as operations.
func Methods() []string { return workload.Methods() }

// The effects a SelectionError counts the tools it left out by.
const (
	Additive    = workload.Additive
	Destructive = workload.Destructive
)
