package workload

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpbench/mcpbench/mcp"
)

// The rest of the MCP surface: resources and prompts, read-only by the
// protocol (so no selection holds them back), and completions. A
// resources/read names its URI, a prompts/get its prompt, a
// completion/complete the prompt (or resource template) whose argument
// it completes; with generated arguments the server's own listings supply
// them.

// surfaceMethods are the methods of this file, and whether each names a
// target (a URI or a prompt).
var surfaceMethods = map[string]bool{
	"resources/list": false, "resources/templates/list": false, "prompts/list": false,
	"resources/read": true, "prompts/get": true, "completion/complete": true,
}

// Methods are the methods a workload sends as operations.
func Methods() []string {
	return []string{"tools/list", "tools/call", "ping", "server/discover", "resources/list", "resources/templates/list",
		"resources/read", "prompts/list", "prompts/get", "completion/complete"}
}

// IsSurfaceMethod reports whether method is one of this file's.
func IsSurfaceMethod(method string) bool {
	_, ok := surfaceMethods[method]
	return ok
}

// checkSurface says what is wrong with an entry of a surface method.
func checkSurface(m MixEntry) error {
	named := surfaceMethods[m.Method]
	switch {
	case m.Tool != "":
		return ErrToolWithoutCall
	case !named && (m.URI != "" || m.Prompt != "" || len(m.Args) > 0 || m.GenArgs):
		return fmt.Errorf("%s takes no uri, prompt, args or generated arguments", m.Method)
	case m.Method == "resources/read" && m.Prompt != "", m.Method == "prompts/get" && m.URI != "":
		return fmt.Errorf("%s: a uri goes with resources/read, a prompt with prompts/get", m.Method)
	case m.Method == "completion/complete" && m.URI != "" && m.Prompt != "":
		return fmt.Errorf("completion/complete completes a prompt's argument or a resource template's, not both")
	case named && m.URI == "" && m.Prompt == "" && !m.GenArgs:
		return &TargetError{Method: m.Method}
	case m.Method == "resources/read" && len(m.Args) > 0:
		return fmt.Errorf("resources/read takes no args")
	}
	return nil
}

// TargetError is a method that names a target, given none.
type TargetError struct{ Method string }

func (e *TargetError) Error() string {
	switch e.Method {
	case "resources/read":
		return "resources/read needs a uri (or generated arguments, which read the URIs resources/list gives)"
	case "prompts/get":
		return "prompts/get needs a prompt (or generated arguments, which get the prompts prompts/list gives)"
	}
	return "completion/complete needs a prompt or a resource template uri (or generated arguments)"
}

// expandSurface turns a surface entry into its operations.
func (s Spec) expandSurface(ctx context.Context, client *mcp.Client, m MixEntry) ([]Op, error) {
	if !surfaceMethods[m.Method] {
		return []Op{{Request: mcp.Request{Method: m.Method}, Weight: m.Weight}}, nil
	}
	var reqs []mcp.Request
	var err error
	switch {
	case !m.GenArgs:
		reqs, err = givenSurface(m)
	case m.Method == "resources/read":
		reqs, err = resourceReads(ctx, client, s.Cardinality)
	default:
		reqs, err = promptRequests(ctx, client, m, s.Cardinality)
	}
	if err != nil {
		return nil, err
	}
	ops := make([]Op, len(reqs))
	for i, r := range reqs {
		ops[i] = Op{Request: r, Weight: m.Weight / float64(len(reqs))}
	}
	return ops, nil
}

// requestLabel is how a request of method on target reads.
func requestLabel(method, target string) string {
	if target == "" {
		return method
	}
	return method + " " + target
}

// givenSurface is the request an entry spells out.
func givenSurface(m MixEntry) ([]mcp.Request, error) {
	switch m.Method {
	case "resources/list", "resources/templates/list", "prompts/list":
		return []mcp.Request{{Method: m.Method}}, nil
	case "resources/read":
		return []mcp.Request{mcp.ReadResource(m.URI)}, nil
	case "prompts/get":
		return []mcp.Request{mcp.GetPrompt(m.Prompt, m.Args)}, nil
	}
	// completion/complete: args name the argument and its value so far.
	var arg map[string]string
	if err := json.Unmarshal(m.Args, &arg); err != nil || len(arg) != 1 {
		return nil, fmt.Errorf(`completion/complete: args must name one argument and its value so far, e.g. {"style":"a"}`)
	}
	for name, value := range arg {
		if m.URI != "" {
			return []mcp.Request{mcp.Complete("ref/resource", m.URI, name, value)}, nil
		}
		return []mcp.Request{mcp.Complete("ref/prompt", m.Prompt, name, value)}, nil
	}
	return nil, nil
}

// listOn lists method's key entries on a session of its own.
func listOn(ctx context.Context, client *mcp.Client, method, key string) ([]json.RawMessage, error) {
	var entries []json.RawMessage
	err := onSession(ctx, client, method, func(s *mcp.Session) (err error) {
		entries, _, err = client.List(ctx, s, method, key)
		return err
	})
	return entries, err
}

// onSession runs f on a session of its own; its error is the server's.
func onSession(ctx context.Context, client *mcp.Client, what string, f func(*mcp.Session) error) error {
	s, err := client.NewSession(ctx)
	if err == nil {
		err = f(s)
		_ = s.Close(ctx)
	}
	if err != nil {
		return &ServerError{Msg: fmt.Sprintf("%s: %v", what, err), Err: err}
	}
	return nil
}

// resourceReads are reads of up to n URIs: those resources/list gives,
// then its templates filled in with 1, 2, 3... while fewer than n.
func resourceReads(ctx context.Context, client *mcp.Client, n int) ([]mcp.Request, error) {
	listed, err := listOn(ctx, client, "resources/list", "resources")
	if err != nil {
		return nil, err
	}
	var reqs []mcp.Request
	for _, r := range listed {
		var res struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(r, &res) == nil && res.URI != "" && len(reqs) < n {
			reqs = append(reqs, mcp.ReadResource(res.URI))
		}
	}
	if len(reqs) < n {
		templates, err := listOn(ctx, client, "resources/templates/list", "resourceTemplates")
		if err != nil && len(reqs) == 0 {
			return nil, err
		}
		for i := 1; len(reqs) < n && len(templates) > 0 && i <= n; i++ {
			for _, t := range templates {
				var tpl struct {
					URITemplate string `json:"uriTemplate"`
				}
				if json.Unmarshal(t, &tpl) == nil && tpl.URITemplate != "" && len(reqs) < n {
					reqs = append(reqs, mcp.ReadResource(fillTemplate(tpl.URITemplate, strconv.Itoa(i))))
				}
			}
		}
	}
	if len(reqs) == 0 {
		return nil, &ServerError{Msg: "resources/read --gen-args: the server lists no resources and no templates"}
	}
	return reqs, nil
}

// fillTemplate puts v in every {variable} of an RFC 6570 template (the
// simple form servers use for resource templates).
func fillTemplate(tpl, v string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tpl, '{')
		j := strings.IndexByte(tpl[max(i, 0):], '}')
		if i < 0 || j < 0 {
			return b.String() + tpl
		}
		b.WriteString(tpl[:i])
		b.WriteString(v)
		tpl = tpl[i+j+1:]
	}
}

type promptDef struct {
	Name      string `json:"name"`
	Arguments []struct {
		Name     string `json:"name"`
		Required bool   `json:"required"`
	} `json:"arguments"`
}

// promptRequests are prompts/get (or completion/complete) requests for the
// prompt an entry names, or else every prompt listed (up to n). A
// required argument gets the server's first completion of it, or a plain
// value where it offers none (prompt arguments are strings without a
// schema).
func promptRequests(ctx context.Context, client *mcp.Client, m MixEntry, n int) ([]mcp.Request, error) {
	var reqs []mcp.Request
	err := onSession(ctx, client, "prompts/list", func(s *mcp.Session) error {
		listed, _, err := client.List(ctx, s, "prompts/list", "prompts")
		for _, r := range listed {
			var p promptDef
			if json.Unmarshal(r, &p) != nil || p.Name == "" || m.Prompt != "" && p.Name != m.Prompt || len(reqs) >= n {
				continue
			}
			args := map[string]string{}
			for _, a := range p.Arguments {
				if a.Required {
					args[a.Name] = suggest(ctx, client, s, p.Name, a.Name)
				}
			}
			switch {
			case m.Method == "prompts/get" && len(args) == 0:
				reqs = append(reqs, mcp.GetPrompt(p.Name, nil))
			case m.Method == "prompts/get":
				raw, _ := json.Marshal(args)
				reqs = append(reqs, mcp.GetPrompt(p.Name, raw))
			case len(p.Arguments) > 0:
				reqs = append(reqs, mcp.Complete("ref/prompt", p.Name, p.Arguments[0].Name, ""))
			}
		}
		return err
	})
	switch {
	case err != nil:
		return nil, err
	case len(reqs) == 0 && m.Prompt != "":
		return nil, &ServerError{Msg: fmt.Sprintf("%s --gen-args: the server lists no prompt %q", m.Method, m.Prompt)}
	case len(reqs) == 0:
		return nil, &ServerError{Msg: fmt.Sprintf("%s --gen-args: the server lists no prompt to use", m.Method)}
	}
	return reqs, nil
}

// suggest is the server's first completion of a prompt's argument, or
// "1" when it gives none.
func suggest(ctx context.Context, client *mcp.Client, s *mcp.Session, prompt, arg string) string {
	res, err := client.Request(ctx, s, mcp.Complete("ref/prompt", prompt, arg, ""), "")
	var out struct {
		Completion struct {
			Values []string `json:"values"`
		} `json:"completion"`
	}
	if err == nil && json.Unmarshal(res, &out) == nil && len(out.Completion.Values) > 0 {
		return out.Completion.Values[0]
	}
	return "1"
}
