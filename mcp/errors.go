package mcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"syscall"

	"github.com/mcpbench/mcpbench/internal/h1"
)

// Kind classifies the outcome of one request. Every failure lands in exactly
// one kind; the names are the report's errors_by_kind keys.
type Kind uint8

const (
	OK Kind = iota
	KindConnect
	KindTimeout
	KindHTTPStatus
	KindTransport
	KindJSONRPC
	KindToolError
	KindSchemaViolation
	KindSessionExpired
	// KindAuth is a request the server refused for its credentials (HTTP
	// 401 or 403): a token that expired, was revoked or lacks a scope.
	KindAuth
	NumKinds
)

var kindNames = [NumKinds]string{
	OK:                  "ok",
	KindConnect:         "connect",
	KindTimeout:         "timeout",
	KindHTTPStatus:      "http_status",
	KindTransport:       "transport",
	KindJSONRPC:         "jsonrpc",
	KindToolError:       "tool_error",
	KindSchemaViolation: "schema_violation",
	KindSessionExpired:  "session_expired",
	KindAuth:            "auth",
}

func (k Kind) String() string {
	if k < NumKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Error is a classified failure.
type Error struct {
	Kind   Kind
	Status int // HTTP status, for KindHTTPStatus, KindSessionExpired and KindAuth
	Code   int // JSON-RPC error code, for KindJSONRPC
	Msg    string
	Err    error
	data   []byte // JSON-RPC error data, for negotiation
	// cut: an answer's body stopped coming, or overflowed, part-way; the
	// transport adds what of the answer had come.
	cut bool
	// stray: an answer came, but to another request.
	stray bool
	// challenge: the WWW-Authenticate of an answer refused for its
	// credentials (KindAuth), for OAuth to renew the token by.
	challenge []string
}

func (e *Error) Error() string {
	switch {
	case e.Err != nil && e.Msg != "":
		return fmt.Sprintf("%s: %s: %v", e.Kind, e.Msg, e.Err)
	case e.Err != nil:
		return fmt.Sprintf("%s: %v", e.Kind, e.Err)
	default:
		return fmt.Sprintf("%s: %s", e.Kind, e.Msg)
	}
}

func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the kind of err: OK for nil, the kind of an *Error, and a
// classification of network errors otherwise.
func KindOf(err error) Kind {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return classifyNetErr(err)
}

// classifyNetErr separates failures to reach the server from time-outs and
// from connections that broke after they were made.
func classifyNetErr(err error) Kind {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return KindTimeout
	}
	// Not only net.Error: fasthttp's time-out has Timeout but not
	// Temporary.
	var te interface{ Timeout() bool }
	if errors.As(err, &te) && te.Timeout() {
		return KindTimeout
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return KindConnect
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return KindConnect
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return KindConnect
	}
	return KindTransport
}

func wrapNet(err error, msg string) *Error {
	return &Error{Kind: classifyNetErr(err), Msg: msg, Err: err}
}

// AuthError is a server that refused the client's credentials, or asked
// for some: HTTP 401 or 403 while negotiating. It is not a server that
// does not speak MCP, and the fix is the caller's: send credentials.
type AuthError struct {
	Status int
	Err    error // the classified answer
}

func (e *AuthError) Error() string {
	what := "refused the credentials sent"
	if e.Status == http.StatusUnauthorized {
		what = "wants credentials (none sent, or not accepted)"
	}
	return fmt.Sprintf("HTTP %d %s: the server %s", e.Status, http.StatusText(e.Status), what)
}

func (e *AuthError) Unwrap() error { return e.Err }

// authFailure returns err as an *AuthError when it is an answer of HTTP
// 401 or 403, and nil otherwise.
func authFailure(err error) error {
	var e *Error
	if errors.As(err, &e) && (e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden) {
		return &AuthError{Status: e.Status, Err: err}
	}
	return nil
}

// ConfigError is a problem with the options, not with the server: the
// caller's to report as a usage error. Option names the Options field at
// fault ("CACert", "Engine"), "" when the message says it all, so that a
// caller can name the setting in its own terms.
type ConfigError struct {
	Option string
	msg    string
}

func (e *ConfigError) Error() string { return e.msg }

func configErrorf(format string, a ...any) error {
	return &ConfigError{msg: fmt.Sprintf(format, a...)}
}

func optionErrorf(option, format string, a ...any) error {
	return &ConfigError{Option: option, msg: fmt.Sprintf(format, a...)}
}

// msgTooLarge is the error of an answer over Options.MaxResponseBytes.
const msgTooLarge = "answer larger than the response size limit"

// wireError classifies what the engine returned into the client's Kinds.
func wireError(p *Prepared, err error) *Error {
	method := p.req.Method
	var e *Error
	var cut *h1.Cut
	var large *h1.TooLarge
	switch {
	case errors.As(err, &e):
		return e
	case errors.As(err, &cut):
		return answerCut(method, cut.Err, cut.What)
	case errors.As(err, &large):
		return tooLarge(method, large.What, large.Limit)
	case errors.Is(err, h1.ErrNoFreeConn):
		return &Error{Kind: KindTimeout, Msg: method + ": no free connection in time", Err: err}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &Error{Kind: KindOf(err), Msg: method, Err: err}
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return &Error{Kind: KindConnect, Msg: method, Err: err}
	}
	return &Error{Kind: classifyNetErr(err), Msg: method, Err: err}
}

// answerCut is the error for an answer that stopped coming: in time (a
// time-out) or at all (a broken connection); what says how much came.
func answerCut(method string, err error, what string) *Error {
	k := classifyNetErr(err)
	msg := method + ": the answer was cut short: " + what
	if k == KindTimeout {
		msg = method + ": no whole answer in time: " + what
	}
	return &Error{Kind: k, Msg: msg, Err: err}
}
