package mcp

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzClientRequestsFile: a --client-requests file of any bytes gives a
// policy or an error, never a panic.
func FuzzClientRequestsFile(f *testing.F) {
	f.Add([]byte(`{"elicitation/create":{"action":"accept","content":{"name":"x"}},"roots/list":{"roots":[]}}`))
	f.Add([]byte(`{"sampling/createMessage":{"role":"assistant","content":{"type":"text","text":"hi"}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "answers.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _ = ParseClientRequests(path)
	})
}
