package mcp

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"
)

// The standing GET stream of a stateful Streamable HTTP session
// (Options.Listen): a server may send requests and notifications that
// belong to no call of the client's on it, an elicitation among them, and
// would wait for the answer in vain while the call it is part of runs to
// its timeout. A load test usually has no use for it, and it costs a
// connection per session, so it is opened only when asked for.

// listener is one session's GET stream, read by a goroutine of its own.
type listener struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// listen opens the session's GET stream, if asked for and the session has
// an id, and answers what comes on it until the session closes. A server
// that offers no stream (405) is left alone; one that ends it is asked
// again after its retry delay.
func (t *httpTransport) listen() {
	s := t.s
	if !s.c.opts.Listen || s.id == "" || IsModern(s.c.rev) || t.listening != nil {
		return
	}
	// The headers are taken now: the goroutine must not read the session.
	answerH := t.buildHeader(&Prepared{})
	h := answerH.Clone()
	h.Del("Content-Type")
	h.Set("Accept", "text/event-stream")
	ctx, cancel := context.WithCancel(context.Background())
	l := &listener{cancel: cancel}
	t.listening = l
	// The session's first call waits until the stream is open: a server
	// drops what it has no stream to send on.
	opened := make(chan struct{}, 1)
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		defer close(opened)
		sse := newSSEReader(s.c.maxBody)
		var rep reply
		for ctx.Err() == nil {
			retry, offered := t.readStanding(ctx, h, answerH, sse, &rep, opened)
			if !offered || !Sleep(ctx, retry) {
				return
			}
			s.c.counts.reopens.Add(1)
		}
	}()
	select {
	case <-opened:
	case <-time.After(s.c.opts.Timeout):
	}
}

// readStanding reads the GET stream once to its end, answering the
// server's requests, and returns how long to wait before asking again,
// and whether the server offers the stream at all.
func (t *httpTransport) readStanding(ctx context.Context, h, answerH http.Header, sse *sseReader, rep *reply, opened chan struct{}) (time.Duration, bool) {
	c := t.s.c
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url.String(), nil)
	if err != nil {
		return 0, false
	}
	req.Header = h
	resp, err := t.sideClient().Do(req)
	if err != nil {
		return time.Second, true
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !hasMediaType(resp.Header.Get("Content-Type"), "text/event-stream") {
		drain(resp.Body)
		return 0, false
	}
	select {
	case opened <- struct{}{}:
	default:
	}
	sse.reset(resp.Body)
	for {
		data, err := sse.next()
		if err != nil {
			retry := time.Second
			if sse.retryMS >= 0 {
				retry = time.Duration(sse.retryMS) * time.Millisecond
			}
			return retry, err == io.EOF || ctx.Err() == nil
		}
		if len(data) == 0 || rep.parse(data) != nil || !rep.isNotification() {
			continue
		}
		if msg := c.serverMessage(rep, data); msg != nil {
			if resp, err := postWith(ctx, t.sideClient(), c.url, answerH, msg, nil); err == nil {
				drain(resp.Body)
				resp.Body.Close()
			}
		}
	}
}

// stopListening closes the GET stream and waits for its reader.
func (t *httpTransport) stopListening() {
	if l := t.listening; l != nil {
		l.cancel()
		l.wg.Wait()
		t.listening = nil
	}
}
