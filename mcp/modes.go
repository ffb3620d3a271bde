package mcp

// The modes a client is configured with. Each is a string type so that the
// flag values and report fields stay the words users type and read.

// Transport is the wire a client speaks to the server on.
type Transport string

const (
	// TransportAuto tries Streamable HTTP and falls back to HTTP+SSE when
	// the server answers the POST as a 2024-11-05 server would.
	TransportAuto  Transport = "auto"
	TransportHTTP  Transport = "http"  // Streamable HTTP
	TransportSSE   Transport = "sse"   // the 2024-11-05 HTTP+SSE transport
	TransportStdio Transport = "stdio" // a server process's stdin and stdout
)

// SessionMode says how workers use the sessions of stateful revisions.
type SessionMode string

const (
	SessionPerWorker  SessionMode = "per-worker"
	SessionShared     SessionMode = "shared"
	SessionPerRequest SessionMode = "per-request"
)

// Engine is what carries the Streamable HTTP POSTs.
type Engine string

const (
	// EngineAuto is direct for plain HTTP without a proxy, else net/http.
	EngineAuto    Engine = "auto"
	EngineDirect  Engine = "direct"
	EngineNetHTTP Engine = "net/http"
	// EngineStdio is what Client.Engine reports for the stdio transport;
	// it is not a choice for Options.Engine.
	EngineStdio Engine = "stdio"
)
