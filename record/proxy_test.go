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
