package workload

import (
	"errors"
	"testing"
)

// TestSurfaceChecks: resources, prompts and completions say what they
// lack before any server is asked, and mixes take them with a uri or a
// prompt.
func TestSurfaceChecks(t *testing.T) {
	var target *TargetError
	for _, c := range []struct {
		spec Spec
		ok   bool
		is   error
		as   any
	}{
		{spec: Spec{Method: "resources/list"}, ok: true},
		{spec: Spec{Method: "resources/read", URI: "a://b"}, ok: true},
		{spec: Spec{Method: "resources/read", GenArgs: true, Cardinality: 4}, ok: true},
		{spec: Spec{Method: "resources/read"}, as: &target},
		{spec: Spec{Method: "prompts/get"}, as: &target},
		{spec: Spec{Method: "prompts/get", Prompt: "p", Args: []byte(`{"a":"1"}`)}, ok: true},
		{spec: Spec{Method: "prompts/get", Prompt: "p", Tool: "x"}, is: ErrToolWithoutCall},
		{spec: Spec{Method: "tools/list", URI: "a://b"}, is: ErrTargetUnused},
		{spec: Spec{Method: "prompts/list", Prompt: "p"}, is: ErrTargetUnused},
		{spec: Spec{Method: "resources/read", GenArgs: true, Cardinality: 0}, is: ErrCardinality},
		{spec: Spec{Method: "prompts/get", GenArgs: true, Cardinality: 2, Args: []byte(`{}`)}, is: ErrGenArgsReplaces},
		{spec: Spec{Method: "completion/complete", Prompt: "p", URI: "t://{x}"}},
		{spec: Spec{Method: "resources/read", URI: "a://b", Prompt: "p"}},
	} {
		err := c.spec.Check()
		switch {
		case c.ok && err != nil:
			t.Errorf("%+v: %v", c.spec, err)
		case c.ok:
		case err == nil:
			t.Errorf("%+v: accepted", c.spec)
		case c.is != nil && !errors.Is(err, c.is):
			t.Errorf("%+v: %v, want %v", c.spec, err, c.is)
		case c.as != nil && !errors.As(err, c.as):
			t.Errorf("%+v: %v, want a %T", c.spec, err, c.as)
		}
	}
	if _, err := ParseMix([]byte(`[{"method":"resources/read","uri":"a://b"},{"method":"prompts/get","prompt":"p","args":{"x":"1"}}]`)); err != nil {
		t.Errorf("a mix of reads and prompts: %v", err)
	}
	if _, err := ParseMix([]byte(`[{"method":"prompts/get"}]`)); err == nil {
		t.Error("a mix's prompts/get without a prompt was accepted")
	}
	if _, err := ParseMix([]byte(`[{"method":"tools/list","uri":"a://b"}]`)); err == nil {
		t.Error("a mix's tools/list with a uri was accepted")
	}
	if got := fillTemplate("demo://r/{kind}/x/{id}", "7"); got != "demo://r/7/x/7" {
		t.Errorf("fillTemplate: %s", got)
	}
}
