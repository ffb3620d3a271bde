package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// A logical call that takes more than one round trip: a 2026-07-28 server
// may answer input_required (multi round-trip requests), and one with the
// tasks extension may take the call on as a task to poll. Either way the
// caller made one request and times it once, to its final answer; the
// extra round trips are counted (round_trips, task_polls).

// maxRounds bounds the rounds of one call: a server that keeps asking for
// what the policy cannot give would otherwise be asked forever.
const maxRounds = 10

// follow carries a call past an answer that is not its last.
func (s *Session) follow(ctx context.Context, p *Prepared, cursor string, first Result) Result {
	total := first
	for round := 1; total.Kind == OK; round++ {
		if s.rep.inResult[inTask] != nil && !s.rep.inputRequired() {
			return s.awaitTask(ctx, p, total)
		}
		if !s.rep.inputRequired() {
			return total
		}
		if round > maxRounds {
			total.Kind = KindJSONRPC
			total.Err = &Error{Kind: KindJSONRPC, Msg: fmt.Sprintf("%s: still input_required after %d rounds (see --client-requests)", p.req.Method, maxRounds)}
			return total
		}
		total = addRound(total, s.nextRound(ctx, p, cursor))
	}
	return total
}

// addRound folds the result of a further round into the call's.
func addRound(total, r Result) Result {
	r.Sent += total.Sent
	r.Received += total.Received
	r.ConnWait += total.ConnWait
	if total.FirstEvent > 0 {
		r.FirstEvent = total.FirstEvent
	}
	r.Created = max(r.Created, total.Created)
	if !total.SentAt.IsZero() {
		r.SentAt = total.SentAt // the call began with its first round
	}
	return r
}

// nextRound answers an input_required result: each of its inputRequests
// by the policy (one it cannot answer is left out, and the server may ask
// again), its requestState echoed as it came, the original request sent
// again with them under a new id.
func (s *Session) nextRound(ctx context.Context, p *Prepared, cursor string) Result {
	var ir struct {
		InputRequests map[string]struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		} `json:"inputRequests"`
		RequestState json.RawMessage `json:"requestState"`
	}
	if err := json.Unmarshal(s.rep.Result, &ir); err != nil {
		return Result{Kind: KindTransport, Err: &Error{Kind: KindTransport, Msg: p.req.Method + ": malformed input_required result", Err: err}}
	}
	var members [][2][]byte
	if ir.InputRequests != nil {
		answers := make(map[string]json.RawMessage, len(ir.InputRequests))
		for key, req := range ir.InputRequests {
			s.c.counts.requests[methodIndex(req.Method)].Add(1)
			if res, rerr := s.c.opts.ClientRequests.answerTo(req.Method, req.Params); rerr == nil {
				answers[key] = res
			}
		}
		raw, _ := json.Marshal(answers)
		members = append(members, [2][]byte{[]byte("inputResponses"), raw})
	}
	if len(nonNull(ir.RequestState)) > 0 {
		members = append(members, [2][]byte{[]byte("requestState"), ir.RequestState})
	}
	params, err := buildParams(p.req, s.c.meta, cursor)
	if err != nil {
		return Result{Kind: KindTransport, Err: err}
	}
	s.c.counts.rounds.Add(1)
	return s.send(ctx, p, frameHead(p.req.Method, withMembers(params, members)))
}

// withMembers adds members to the JSON object params.
func withMembers(params []byte, members [][2][]byte) []byte {
	out := bytes.TrimSuffix(bytes.TrimSpace(params), []byte("}"))
	out = append([]byte(nil), out...)
	for _, m := range members {
		if len(out) > 1 {
			out = append(out, ',')
		}
		key, _ := json.Marshal(string(m[0]))
		out = append(append(append(out, key...), ':'), m[1]...)
	}
	return append(out, '}')
}

// taskState is a task as the tasks extension describes it; a poll answers
// with it, at the top of the result or under "task", and with the call's
// result once it has one.
type taskState struct {
	TaskID        string          `json:"taskId"`
	Status        string          `json:"status"`
	StatusMessage string          `json:"statusMessage"`
	PollInterval  *int64          `json:"pollInterval"` // milliseconds
	TTL           *int64          `json:"ttl"`          // milliseconds
	Task          *taskState      `json:"task"`
	Result        json.RawMessage `json:"result"`
}

// awaitTask polls the task the server took the call on as, at the
// interval it asks for, until the task ends; the call's result is the
// task's. Created records when the task was created.
func (s *Session) awaitTask(ctx context.Context, p *Prepared, total Result) Result {
	total.Created = max(time.Since(s.callAt), 1)
	var st taskState
	if err := json.Unmarshal(s.rep.inResult[inTask], &st); err != nil || st.TaskID == "" {
		total.Kind, total.Err = KindTransport, &Error{Kind: KindTransport, Msg: p.req.Method + ": malformed task"}
		return total
	}
	limit := time.Now().Add(max(10*s.c.opts.Timeout, time.Duration(deref(st.TTL))*time.Millisecond))
	for {
		switch st.Status {
		case "completed":
			return addRound(total, s.taskResult(ctx, p, st))
		case "failed", "cancelled", "input_required":
			total.Kind = KindToolError
			total.Err = &Error{Kind: KindToolError, Msg: fmt.Sprintf("%s: task %s %s %s", p.req.Tool, st.TaskID, st.Status, st.StatusMessage)}
			return total
		}
		wait := time.Duration(max(deref(st.PollInterval), 1)) * time.Millisecond
		if time.Now().Add(wait).After(limit) {
			total.Kind, total.Err = KindTimeout, &Error{Kind: KindTimeout, Msg: fmt.Sprintf("%s: task %s still %s", p.req.Tool, st.TaskID, st.Status)}
			return total
		}
		if !Sleep(ctx, wait) {
			total.Kind, total.Err = KindOf(ctx.Err()), &Error{Kind: KindOf(ctx.Err()), Msg: "waiting for task " + st.TaskID, Err: ctx.Err()}
			return total
		}
		s.c.counts.polls.Add(1)
		r := s.taskCall(ctx, "tasks/get", st.TaskID)
		total = addRound(total, r)
		if r.Kind != OK {
			return total
		}
		next := taskState{}
		if err := json.Unmarshal(s.rep.Result, &next); err != nil {
			total.Kind, total.Err = KindTransport, &Error{Kind: KindTransport, Msg: "tasks/get: malformed result", Err: err}
			return total
		}
		if next.Task != nil {
			next.Task.Result = next.Result
			next = *next.Task
		}
		if next.PollInterval == nil {
			next.PollInterval = st.PollInterval
		}
		st = next
	}
}

// taskResult is the result of a completed task: the one its last poll
// carried, or else tasks/result's; classified as the call's own.
func (s *Session) taskResult(ctx context.Context, p *Prepared, st taskState) Result {
	if len(nonNull(st.Result)) == 0 {
		r := s.taskCall(ctx, "tasks/result", st.TaskID)
		if r.Kind != OK {
			return r
		}
		st.Result = append(json.RawMessage(nil), s.rep.Result...)
	}
	// Read it as the answer to the call itself.
	s.resp.Reset()
	s.resp.WriteString(`{"jsonrpc":"2.0","id":0,"result":`)
	s.resp.Write(st.Result)
	s.resp.WriteByte('}')
	res := Result{}
	if err := s.rep.parse(s.resp.Bytes()); err != nil {
		return Result{Kind: KindTransport, Err: &Error{Kind: KindTransport, Msg: "task result: malformed", Err: err}}
	}
	s.classify(p, &res, "")
	return res
}

// taskCall sends a tasks/* request about taskID.
func (s *Session) taskCall(ctx context.Context, method, taskID string) Result {
	if s.taskReq == nil {
		s.taskReq = map[string]*Prepared{}
	}
	p := s.taskReq[method]
	if p == nil {
		p = &Prepared{req: Request{Method: method}}
		s.taskReq[method] = p
	}
	id, _ := json.Marshal(taskID)
	params, err := buildParams(Request{Method: method, Params: []byte(`{"taskId":` + string(id) + `}`)}, s.c.meta, "")
	if err != nil {
		return Result{Kind: KindTransport, Err: err}
	}
	return s.send(ctx, p, frameHead(method, params))
}

func deref(v *int64) int64 {
	if v == nil {
		return 0
	}
	return *v
}

// cancelled frames the notification that abandons request id.
func cancelled(id int64) []byte {
	return []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + strconv.FormatInt(id, 10) + `,"reason":"timed out"}}`)
}
