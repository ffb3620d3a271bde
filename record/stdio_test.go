package record

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// lineSignal passes on each line the server writes.
type lineSignal chan string

func (s lineSignal) Write(b []byte) (int, error) {
	s <- string(b)
	return len(b), nil
}

// TestStdioNotesServerRequests: a stdio server (a shell script) asks the
// client for a sampling during a call; the request is noted on the call,
// and the client's answer is kept for --client-requests.
func TestStdioNotesServerRequests(t *testing.T) {
	server := `read call; echo '{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}'
read answer; echo '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'`
	in, client := io.Pipe()
	lines := make(lineSignal, 4)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() {
		io.WriteString(client, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`+"\n")
		<-lines // the server's request
		io.WriteString(client, `{"jsonrpc":"2.0","id":"s1","result":{"role":"assistant","content":{"type":"text","text":"hi"}}}`+"\n")
		<-lines // the call's answer
		client.Close()
	}()
	calls, answers, err := Stdio(ctx, []string{"sh", "-c", server}, in, lines, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || strings.Join(calls[0].ServerRequests, ",") != "sampling/createMessage" || calls[0].Answer.IsZero() {
		t.Fatalf("calls %+v", calls)
	}
	if got := string(answers["sampling/createMessage"]); len(answers) != 1 || !strings.Contains(got, `"text":"hi"`) {
		t.Fatalf("answers %s", answers)
	}
}
