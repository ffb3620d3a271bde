package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/mcpbench/mcpbench/record"
)

// RecordOptions say where `record` listens, what it forwards to and where
// the scenario file goes.
type RecordOptions struct {
	Listen   string // HOST:PORT the client is pointed at
	Upstream string // the server's MCP endpoint
	Out      string // the scenario file
	Redact   []string
	// MinAnswerTime is the proxy's (record.Proxy.MinAnswerTime).
	MinAnswerTime time.Duration
	// Command, when set, is a stdio server to stand in front of instead:
	// the client's messages come on Stdin, the server's go to Stdout.
	Command        []string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Ready, when set, is told the proxy's URL once it listens.
	Ready func(url string)
	// Wrote, when set, is told each time the file is written.
	Wrote func(scenarios int)
}

// Record runs the recording proxy until ctx ends, writing the scenario
// file whenever a client ends a session and once more at the end.
func Record(ctx context.Context, o RecordOptions) error {
	if len(o.Command) > 0 {
		calls, answers, err := record.Stdio(ctx, o.Command, o.Stdin, o.Stdout, o.Stderr)
		if err != nil {
			return &ConfigError{Setting: "server command", Err: err}
		}
		n, err := record.Write(o.Out, [][]record.Call{calls}, o.Redact)
		if err == nil {
			err = record.WriteAnswers(o.Out, answers, o.Redact)
		}
		if err == nil && n > 0 && o.Wrote != nil {
			o.Wrote(n)
		}
		return err
	}
	up, err := url.Parse(o.Upstream)
	if err != nil || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" {
		return &ConfigError{Setting: "upstream", Err: fmt.Errorf("%q is not an http(s) URL", o.Upstream)}
	}
	l, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return &ConfigError{Setting: "listen", Err: err}
	}
	var mu sync.Mutex
	var werr error // the first failed write, guarded by mu
	var p *record.Proxy
	write := func() error {
		mu.Lock()
		defer mu.Unlock()
		n, err := record.Write(o.Out, p.Sessions(), o.Redact)
		if err == nil {
			err = record.WriteAnswers(o.Out, p.Answers(), o.Redact)
		}
		if err == nil && n > 0 && o.Wrote != nil {
			o.Wrote(n)
		}
		if err != nil && werr == nil {
			werr = err
		}
		return werr
	}
	p = record.NewProxy(up, func(string, []record.Call) { _ = write() })
	p.MinAnswerTime = o.MinAnswerTime
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	if o.Ready != nil {
		o.Ready("http://" + l.Addr().String() + up.Path)
	}
	select {
	case <-ctx.Done():
	case err := <-done:
		return err
	}
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return write()
}
