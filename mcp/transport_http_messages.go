package mcp

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// What a Streamable HTTP session sends beside its requests: notifications,
// cancellations, answers to the server's requests and the session's end.

// notify sends a notification; a 2xx answer is success.
func (t *httpTransport) notify(ctx context.Context, method string) error {
	return t.postMessage(ctx, t.hc, t.s.c.url, method, notification(method))
}

// cancel sends notifications/cancelled for a timed-out request, off the
// clock, on revisions before 2026-07-28; from 2026-07-28 on, closing the
// request's stream, which the timeout did, is the cancellation.
func (t *httpTransport) cancel(id int64) {
	if IsModern(t.s.c.rev) {
		return
	}
	t.cancelAt(t.s.c.url, id)
}

// cancelAt POSTs the cancellation of id to u from a goroutine, with the
// headers of now: the session goes on with its next request meanwhile.
func (t *httpTransport) cancelAt(u *url.URL, id int64) {
	h := t.buildHeader(&Prepared{req: Request{Method: "notifications/cancelled"}})
	hc, timeout := t.sideClient(), t.s.c.opts.Timeout
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		if resp, err := postWith(ctx, hc, u, h, cancelled(id), nil); err == nil {
			drain(resp.Body)
			resp.Body.Close()
		}
	}()
}

// respond sends the answer to a request from the server, on the side
// client: the request it arrived during holds a connection.
func (t *httpTransport) respond(ctx context.Context, msg []byte) error {
	return t.postMessage(ctx, t.sideClient(), t.s.c.url, "", msg)
}

func (t *httpTransport) sideClient() *http.Client {
	if t.side != nil {
		return t.side
	}
	return t.hc
}

// postMessage POSTs a message that has no response of its own (a
// notification, or an answer to the server) to u under the header of
// method ("" for an answer).
func (t *httpTransport) postMessage(ctx context.Context, hc *http.Client, u *url.URL, method string, msg []byte) error {
	ctx, cancel := context.WithTimeout(ctx, t.s.c.opts.Timeout)
	defer cancel()
	h := t.buildHeader(&Prepared{req: Request{Method: method}})
	what := method
	if what == "" {
		what = "answering the server's request"
	}
	// A reader of its own: an answer goes out while the request it
	// answers still holds t.body.
	resp, err := postWith(ctx, hc, u, h, msg, nil)
	if err != nil {
		return wrapNet(err, what)
	}
	drain(resp.Body)
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &Error{Kind: KindHTTPStatus, Status: resp.StatusCode, Msg: fmt.Sprintf("%s: HTTP %d", what, resp.StatusCode)}
	}
	return nil
}

// endSession DELETEs the session, as the spec asks of stateful revisions.
func (t *httpTransport) endSession(ctx context.Context) error {
	s := t.s
	if s.id == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.c.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, s.c.url.String(), nil)
	if err != nil {
		return err
	}
	for k, v := range s.c.opts.Header {
		req.Header[k] = v
	}
	s.c.authHeader(req.Header)
	req.Header.Set("Mcp-Session-Id", s.id)
	if s.c.rev >= Rev20250618 {
		req.Header.Set("Mcp-Protocol-Version", s.c.rev)
	}
	s.id = ""
	resp, err := t.hc.Do(req)
	if err != nil {
		return wrapNet(err, "DELETE session")
	}
	drain(resp.Body)
	resp.Body.Close()
	// 405 means the server does not let clients end sessions: allowed.
	if resp.StatusCode >= 300 && resp.StatusCode != http.StatusMethodNotAllowed && resp.StatusCode != http.StatusNotFound {
		return &Error{Kind: KindHTTPStatus, Status: resp.StatusCode, Msg: fmt.Sprintf("DELETE session: HTTP %d", resp.StatusCode)}
	}
	return nil
}
