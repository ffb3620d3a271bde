package record

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"sync"
	"time"
)

// Stdio stands between a client and the stdio server command argv: the
// client's lines (from in) go to the server's stdin, the server's lines
// come back on out, each unchanged; the server's stderr goes to errw. It
// returns the session's calls, each answered when the server's answer
// with its id went out, and the client's first result to each kind of
// request the server sent it, once the client closes its side (or ctx
// ends) and the server has exited.
func Stdio(ctx context.Context, argv []string, in io.Reader, out, errw io.Writer) ([]Call, map[string]json.RawMessage, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stderr = errw
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	var (
		mu      sync.Mutex
		calls   []Call
		pending = map[string]int{}    // request id -> index in calls
		asked   = map[string]string{} // the server's request id -> its method
		answers = map[string]json.RawMessage{}
	)
	go func() { // client -> server
		defer stdin.Close()
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for sc.Scan() {
			line := sc.Bytes()
			mu.Lock()
			for _, m := range messagesIn(line) {
				switch method, ok := asked[string(m.ID)]; {
				case m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null":
					pending[string(m.ID)] = len(calls)
					calls = append(calls, Call{Method: m.Method, Params: m.Params, Sent: time.Now()})
				case ok && len(m.Result) > 0 && answers[method] == nil:
					answers[method] = m.Result
				}
			}
			mu.Unlock()
			if _, err := stdin.Write(append(line, '\n')); err != nil {
				return
			}
		}
	}()
	sc := bufio.NewScanner(stdout) // server -> client
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		// Noted before it is passed on: the client may answer a request
		// of the server's as soon as it reads it, and its answer is kept
		// only for a request already noted.
		noteServerLine(line, &mu, pending, asked, &calls)
		if _, err := out.Write(append(line, '\n')); err != nil {
			break
		}
	}
	err = cmd.Wait()
	mu.Lock()
	defer mu.Unlock()
	for _, i := range pending { // never answered: the server went first
		calls[i].Answer = calls[i].Sent
	}
	if _, exited := err.(*exec.ExitError); exited || ctx.Err() != nil {
		err = nil // a server that ends with its client, as stdio servers do
	}
	return calls, answers, err
}

// noteServerLine notes a line of the server's: a request of its own on
// the latest call waiting, or the answer to a call.
func noteServerLine(line []byte, mu *sync.Mutex, pending map[string]int, asked map[string]string, callsp *[]Call) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	calls := *callsp    // the client's side appends to it under mu
	if m.Method != "" { // the server asks: note it on the latest call waiting
		asked[string(m.ID)] = m.Method
		if i := latestPending(pending, len(calls)); i >= 0 {
			calls[i].ServerRequests = append(calls[i].ServerRequests, m.Method)
		}
	} else if i, ok := pending[string(m.ID)]; ok {
		calls[i].Answer = time.Now()
		delete(pending, string(m.ID))
	}
}

// latestPending is the index of the latest call still waiting for its
// answer, or of the latest call if none is (-1 if there is none).
func latestPending(pending map[string]int, n int) int {
	if len(pending) == 0 {
		return n - 1
	}
	latest := -1
	for _, i := range pending {
		latest = max(latest, i)
	}
	return latest
}
