package mcp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/hostile"
	"github.com/mcpbench/mcpbench/internal/h1"
)

// matchBase is the answer the memo holds in these tests: members before
// and after the id, and members of the result.
const matchBase = `{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"a"},{"name":"b"}],"nextCursor":"c2","isError":false}}`

// memoOf is a loop memo that remembers body, as a session on the loop
// parsing it would leave it.
func memoOf(t testing.TB, body string) *parseMemo {
	t.Helper()
	memo := new(parseMemo)
	r := reply{shared: memo}
	if err := r.parse([]byte(body)); err != nil || memo.last == nil {
		t.Fatalf("the memo did not take %s: %v", body, err)
	}
	return memo
}

// trickle reads at most step bytes at a time, as a socket may give them.
type trickle struct {
	r    io.Reader
	step int
}

func (t *trickle) Read(p []byte) (int, error) { return t.r.Read(p[:min(len(p), t.step)]) }

// readMatched reads ans, an answer to request id, on a loop transport
// whose memo is memo, step bytes per read.
func readMatched(t testing.TB, memo *parseMemo, ans string, id int64, step int) (*directTransport, h1.Answer, error) {
	t.Helper()
	d, c := matchingConn(memo, ans, step)
	a, err := d.readAnswer(c, "tools/list", id)
	return d, a, err
}

// readAnswer reads the answer to method's request id from c as exchange
// does, with the loop memo's prediction.
func (t *directTransport) readAnswer(c *h1.Conn, method string, id int64) (h1.Answer, error) {
	req := t.request(method, id)
	err := t.call.Read(t.pool, c, &req, &t.ans)
	t.releasePrediction()
	return t.ans, err
}

// matchingConn is a loop transport whose memo is memo, and a connection
// on which stream comes, step bytes per read.
func matchingConn(memo *parseMemo, stream string, step int) (*directTransport, *h1.Conn) {
	d := &directTransport{httpTransport: httpTransport{s: &Session{}}, pool: readingPool(1 << 20), memo: memo}
	d.s.rep.shared = memo
	return d, h1.NewConn(readerConn{r: &trickle{strings.NewReader(stream), step}})
}

// readingPool is a loop pool that only reads (it has no loop), whose
// answers may have bodies of up to limit bytes.
func readingPool(limit int) h1.Pool {
	return h1.NewLoopPools(h1.NewPool(h1.Config{Size: 1, MaxBody: limit})).For(nil)
}

func withLength(body string) string {
	return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}

// The memo's answer with the request's id, in any framing and however
// the reads cut it, is matched without being kept, and the reply then
// holds what a full scan of it finds.
func TestMatchedAnswerFillsTheReplyAsAScanWould(t *testing.T) {
	const id = 1234
	body := strings.Replace(matchBase, `"id":7`, `"id":`+strconv.Itoa(id), 1)
	var scanned reply
	if err := scanned.parse([]byte(body)); err != nil {
		t.Fatal(err)
	}
	for _, ans := range []string{withLength(body), chunkedAnswer(body, 1, "", ""), chunkedAnswer(body, 10, ";x=y", ""), chunkedAnswer(body, 4096, "", "X-T: 1\r\n")} {
		for _, step := range []int{1, 3, 64, h1.ReadBuffer} {
			d, a, err := readMatched(t, memoOf(t, matchBase), ans, id, step)
			if err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			if !a.Matched || a.Body != nil || a.Size != len(body) {
				t.Fatalf("step %d, %.60q: matched %v, body %d bytes, size %d; want matched, size %d", step, ans, a.Matched, len(a.Body), a.Size, len(body))
			}
			if !d.answersID(&a, id) || !d.held.parsed {
				t.Fatal("a matched answer was not taken as the request's")
			}
			got := &d.s.rep
			for i := range scanned.found {
				if !bytes.Equal(got.found[i], scanned.found[i]) || (got.found[i] == nil) != (scanned.found[i] == nil) {
					t.Errorf("member %d: %q, a scan finds %q", i, got.found[i], scanned.found[i])
				}
			}
			for i := range scanned.inResult {
				if !bytes.Equal(got.inResult[i], scanned.inResult[i]) || (got.inResult[i] == nil) != (scanned.inResult[i] == nil) {
					t.Errorf("result member %d: %q, a scan finds %q", i, got.inResult[i], scanned.inResult[i])
				}
			}
			if string(got.ID) != strconv.Itoa(id) || string(got.Result) != string(scanned.Result) {
				t.Errorf("id %s result %s", got.ID, got.Result)
			}
		}
	}
}

// An answer that differs from the prediction anywhere (a byte changed at
// any place, the id another request's, shorter, longer) is read whole,
// byte for byte what came, and not matched.
func TestUnmatchedAnswerIsReadAsItCame(t *testing.T) {
	const id = 55
	want := strings.Replace(matchBase, `"id":7`, `"id":55`, 1)
	var variants []string
	for i := range len(want) {
		b := []byte(want)
		b[i] ^= 0x20
		variants = append(variants, string(b))
	}
	variants = append(variants,
		strings.Replace(want, `"id":55`, `"id":56`, 1),
		strings.Replace(want, `"id":55`, `"id":"55"`, 1),
		want[:len(want)-1],
		want+" ",
		strings.Replace(want, `"c2"`, `"c3"`, 1),
	)
	for _, body := range variants {
		for _, ans := range []string{withLength(body), chunkedAnswer(body, 7, "", "")} {
			_, a, err := readMatched(t, memoOf(t, matchBase), ans, id, 5)
			if err != nil {
				t.Fatalf("%q: %v", body, err)
			}
			if a.Matched || string(a.Body) != body {
				t.Fatalf("%q: matched %v, body %q", body, a.Matched, a.Body)
			}
		}
	}
}

// A body cut off part-way says how much of it came, whether it was being
// compared or kept when it stopped.
func TestMatchedAnswerCutShortSaysHowMuchCame(t *testing.T) {
	body := strings.Replace(matchBase, `"id":7`, `"id":8`, 1)
	for _, ans := range []string{withLength(body), chunkedAnswer(body, 16, "", "")} {
		cut := ans[:len(ans)-30]
		_, _, err := readMatched(t, memoOf(t, matchBase), cut, 8, 9)
		if err == nil || !strings.Contains(err.Error(), "cut short") {
			t.Fatalf("%q: %v, want the answer cut short", cut, err)
		}
	}
}

// A reply that points into the memo's text keeps it as it was: another
// answer remembered meanwhile goes into a new text. Without a lent text,
// remembering reuses the memo's buffer (no allocation per changed
// answer).
func TestLentMemoTextIsNotWrittenOver(t *testing.T) {
	memo := memoOf(t, matchBase)
	d, a, err := readMatched(t, memo, withLength(matchBase), 7, h1.ReadBuffer)
	if err != nil || !a.Matched || !d.answersID(&a, 7) {
		t.Fatalf("not matched: %v", err)
	}
	result := string(d.s.rep.Result)
	other := reply{shared: memo}
	if err := other.parse([]byte(`{"jsonrpc":"2.0","id":9,"result":{"tools":[{"name":"zzzzzzzzzzzzzzzzzzzz"}]}}`)); err != nil {
		t.Fatal(err)
	}
	if string(d.s.rep.Result) != result {
		t.Fatalf("the lent reply's result became %s", d.s.rep.Result)
	}
	d.returnLent()
	answers := [][]byte{[]byte(matchBase), []byte(strings.Replace(matchBase, `"a"`, `"x"`, 1))}
	i := 0
	if n := testing.AllocsPerRun(100, func() { i++; _ = other.parse(answers[i%2]) }); n != 0 {
		t.Errorf("%v allocations remembering an answer with nothing lent", n)
	}
	// Nor when an answer the memo cannot keep comes between.
	answers[1] = []byte(`{"jsonrpc":"2.0","id":1,"result":{"x":"` + strings.Repeat("y", memoMax) + `"}}`)
	if n := testing.AllocsPerRun(100, func() { i++; _ = other.parse(answers[i%2]) }); n != 0 {
		t.Errorf("%v allocations remembering an answer after one too large to keep", n)
	}
	// A lent text is not emptied either.
	d, a, err = readMatched(t, memo, withLength(matchBase), 7, h1.ReadBuffer)
	if err != nil || !a.Matched || !d.answersID(&a, 7) {
		t.Fatalf("not matched: %v", err)
	}
	_ = other.parse(answers[1])
	if string(d.s.rep.Result) != result || len(d.predFrom.text) == 0 {
		t.Fatalf("the lent reply's result became %s", d.s.rep.Result)
	}
}

// FuzzWireMatch: whatever answer comes, read in whatever pieces, reading
// it with a memo ends as reading it without one does (the same error or
// none, the same body), except that a body equal to the memo's answer
// with the request's id is matched instead of kept.
func FuzzWireMatch(f *testing.F) {
	f.Add([]byte(strings.Replace(matchBase, `"id":7`, `"id":3`, 1)), uint8(5), uint8(9), false)
	f.Add([]byte(matchBase), uint8(0), uint8(1), true)
	f.Add([]byte(`{"jsonrpc":"2.0","id":3}`), uint8(2), uint8(200), false)
	f.Fuzz(func(t *testing.T, body []byte, chunk, step uint8, length bool) {
		ans := chunkedAnswer(string(body), int(chunk)+1, "", "")
		if length {
			ans = withLength(string(body))
		}
		_, plain, perr := readMatched(t, nil, ans, 3, int(step)+1)
		// Twice on one connection: the second head is the pool's last.
		d, c := matchingConn(memoOf(t, matchBase), ans+ans, int(step)+1)
		a, err := d.readAnswer(c, "tools/list", 3)
		if err == nil && !plain.Close {
			if a.Matched {
				d.answersID(&a, 3) // the reply takes the memo's text
			}
			d.returnLent()
			a, err = d.readAnswer(c, "tools/list", 3)
		}
		if (err == nil) != (perr == nil) || err != nil && err.Error() != perr.Error() {
			t.Fatalf("with a memo: %v; without: %v", err, perr)
		}
		if err != nil {
			return
		}
		if !reflect.DeepEqual(a.Head, plain.Head) || a.Close != plain.Close {
			t.Fatalf("head %+v close %v; without a memo %+v %v", a.Head, a.Close, plain.Head, plain.Close)
		}
		predicted := strings.Replace(matchBase, `"id":7`, `"id":3`, 1)
		switch {
		case a.Matched && string(body) != predicted:
			t.Fatalf("%q matched the prediction", body)
		case a.Matched && (!d.answersID(&a, 3) || d.lent == nil || a.Size != len(body)):
			t.Fatalf("matched, lent %v, size %d", d.lent != nil, a.Size)
		case !a.Matched && !bytes.Equal(a.Body, plain.Body):
			t.Fatalf("body %q, without a memo %q", a.Body, plain.Body)
		case !a.Matched && string(body) == predicted:
			t.Fatal("the prediction itself was not matched")
		}
	})
}

// A matched answer with more bytes behind it on the connection (a server
// that sends every answer twice) is still the request's answer; the
// connection is out of step and dropped, and a request that reads a stale
// copy fails as answered twice, never as malformed.
func TestMatchedAnswerFollowedByAnotherStaysTheAnswer(t *testing.T) {
	srv, err := hostile.Start("duplicate-answers")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	_, s, g := loopSession(t, Options{URL: srv.URL(), PoolSize: 1})
	var ok, stale int
	g.Go(ctx, 0, func(lctx context.Context) {
		p, _ := s.Prepare(Request{Method: "tools/list"})
		for range 40 {
			r := s.Do(lctx, p, "")
			switch {
			case r.Kind == OK:
				ok++
			case r.Err != nil && strings.Contains(r.Err.Error(), "earlier request"):
				stale++
			default:
				t.Errorf("%v: %v", r.Kind, r.Err)
				return
			}
		}
	})
	g.Run()
	if ok < 20 {
		t.Errorf("%d of 40 ok (%d stale copies read)", ok, stale)
	}
}

// A request's prediction holds the memo's text until its answer is read:
// another session on the loop, answered while the request waits, must not
// write its answer into the text the prediction points at. On 63395fe the
// other answer went into the memo's text, the waiting answer still matched
// the old bytes, and its reply was filled from the new ones: mcp-go's
// initialize answer was read as the tools/list result before it.
func TestPredictionHoldsTheMemoUntilItsAnswer(t *testing.T) {
	const initAnswer = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","serverInfo":{"name":"m"}}}`
	longer := `{"jsonrpc":"2.0","id":5,"result":{"tools":[{"name":"` + strings.Repeat("e", 300) + `"}]}}`
	for _, other := range []string{longer, `{"jsonrpc":"2.0","id":5,"result":{}}`} {
		memo := memoOf(t, initAnswer)
		d, c := matchingConn(memo, withLength(strings.Replace(initAnswer, `"id":1`, `"id":8`, 1)), h1.ReadBuffer)
		req := d.request("initialize", 8)
		// Another session on the loop is answered while this one waits.
		o := reply{shared: memo}
		if err := o.parse([]byte(other)); err != nil {
			t.Fatal(err)
		}
		err := d.call.Read(d.pool, c, &req, &d.ans)
		d.releasePrediction()
		if err != nil || !d.answersID(&d.ans, 8) {
			t.Fatalf("not read: %v", err)
		}
		if got := string(d.s.rep.Result); !strings.Contains(got, "protocolVersion") {
			t.Fatalf("the initialize answer was read as %s", got)
		}
		d.returnLent()
		if memo.last.lent != 0 {
			t.Fatalf("the memo's text is still held %d times", memo.last.lent)
		}
	}
}

// Answers of two kinds, each remembered while a request holds the other's
// text, take turns with two texts: no allocation per answer.
func TestHeldMemoTextsAreReused(t *testing.T) {
	memo := memoOf(t, matchBase)
	answers := [][]byte{[]byte(matchBase), []byte(strings.Replace(matchBase, `"a"`, `"x"`, 1))}
	o := reply{shared: memo}
	i := 0
	n := testing.AllocsPerRun(100, func() {
		held := memo.last
		held.lent++ // a request in flight predicts from it
		i++
		_ = o.parse(answers[i%2])
		held.lent--
	})
	if n != 0 {
		t.Errorf("%v allocations remembering an answer while the last is held", n)
	}
}
