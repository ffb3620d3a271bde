package record

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestProxyNotesServerRequests: a request of the server's on a call's own
// SSE answer is noted on that call; one on the session's GET stream on
// the latest call sent before it; answers and notifications are not. The
// client's answer to the server's request is kept for --client-requests.
func TestProxyNotesServerRequests(t *testing.T) {
	getSent := make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Mcp-Session-Id", "s1")
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n")
			io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"roots/list\"}\r\n\r\n")
			close(getSent)
			return
		}
		body, _ := io.ReadAll(r.Body)
		switch {
		case strings.Contains(string(body), `"initialize"`):
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
		case strings.Contains(string(body), `"tools/call"`):
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"elicitation/create\",\"params\":{}}\n\n")
			io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}\n\n")
		default:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":3,"result":{}}`)
		}
	}))
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL + "/mcp")
	p := NewProxy(u, nil)
	front := httptest.NewServer(p)
	defer front.Close()
	send := func(method, body string) {
		req, _ := http.NewRequest(method, front.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Mcp-Session-Id", "s1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	send(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	send(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask"}}`)
	send(http.MethodPost, `{"jsonrpc":"2.0","id":7,"result":{"action":"accept","content":{"name":"x"}}}`)
	send(http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	time.Sleep(2 * time.Millisecond) // the GET stream's request comes after the list was sent
	send(http.MethodGet, "")
	<-getSent
	sessions := p.Sessions()
	if len(sessions) != 1 || len(sessions[0]) != 3 {
		t.Fatalf("sessions %+v", sessions)
	}
	got := []string{}
	for _, c := range sessions[0] {
		got = append(got, c.Method+"="+strings.Join(c.ServerRequests, ","))
	}
	if want := "initialize= tools/call=elicitation/create tools/list=roots/list"; strings.Join(got, " ") != want {
		t.Fatalf("noted %q, want %q", strings.Join(got, " "), want)
	}
	if a := p.Answers(); len(a) != 1 || string(a["elicitation/create"]) != `{"action":"accept","content":{"name":"x"}}` {
		t.Fatalf("answers kept: %s", a)
	}
}

// TestProxyTimesAnswersAsTheyPass: an SSE stream the server keeps open
// after its answer does not stretch the call. The client, answered, sends
// its next request while the stream is still open: the two are noted one
// after the other, not as calls at once.
func TestProxyTimesAnswersAsTheyPass(t *testing.T) {
	next := make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Mcp-Session-Id", "s1")
		body, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(body), `"tools/call"`) {
			close(next)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":3,"result":{}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}\n\n")
		w.(http.Flusher).Flush()
		select { // the stream stays open until the next request came
		case <-next:
		case <-time.After(5 * time.Second):
		}
		time.Sleep(50 * time.Millisecond)
	}))
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL + "/mcp")
	p := NewProxy(u, nil)
	front := httptest.NewServer(p)
	defer front.Close()
	post := func(body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, front.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Mcp-Session-Id", "s1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	call := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}`)
	line := make([]byte, 64)
	if _, err := io.ReadAtLeast(call.Body, line, len("data: ")); err != nil {
		t.Fatal(err)
	}
	list := post(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	io.Copy(io.Discard, list.Body)
	list.Body.Close()
	io.Copy(io.Discard, call.Body)
	call.Body.Close()
	sessions := p.Sessions()
	if len(sessions) != 1 || len(sessions[0]) != 2 {
		t.Fatalf("sessions %+v", sessions)
	}
	c, l := sessions[0][1], sessions[0][0] // noted as they end: the list first
	if c.Method != "tools/call" || l.Method != "tools/list" {
		t.Fatalf("noted %s, then %s", l.Method, c.Method)
	}
	if c.Answer.After(l.Sent) {
		t.Fatalf("the call's answer noted %v after the list was sent: the open stream was counted", c.Answer.Sub(l.Sent))
	}
	// A starved client can take past minThink to send the list: a think
	// step between them is the client's, not an overlap.
	var got []step
	for _, st := range steps(sessions[0], nil) {
		if st.Think == "" {
			got = append(got, st)
		}
	}
	if len(got) != 2 || got[0].Call == nil || got[1].List == nil {
		t.Fatalf("steps %+v: want the call, then the list", got)
	}
}
