package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Real MCP servers nobody on the project wrote, whose tools write and
// delete (scripts/install-peers.sh installs them, pinned): mcpbench must
// leave their state as it found it unless told otherwise, and say what it
// would do before doing anything.

// The pinned versions' tools, by what they do: the truth the tests hold
// mcpbench's reading of the annotations to.
var (
	filesystemReaders = []string{"read_file", "read_text_file", "read_media_file", "read_multiple_files", "list_directory",
		"list_directory_with_sizes", "directory_tree", "search_files", "get_file_info", "list_allowed_directories"}
	filesystemWriters = []string{"write_file", "edit_file", "create_directory", "move_file"}
	memoryReaders     = []string{"read_graph", "search_nodes", "open_nodes"}
	memoryWriters     = []string{"create_entities", "create_relations", "add_observations", "delete_entities", "delete_observations", "delete_relations"}
)

// peerEntry finds an npm peer server's entry point as install-peers.sh
// installs it. make test requires it (MCPBENCH_REQUIRE_PEERS=1); a plain
// go test on a machine without Node.js skips, and says so.
func peerEntry(t *testing.T, pkg string) string {
	t.Helper()
	// From the package's folder, where go test runs: a -trimpath build
	// (make test's) has no absolute source paths to start from.
	entry, _ := filepath.Abs(filepath.Join("../../.run/peers/node_modules/@modelcontextprotocol", pkg, "dist/index.js"))
	_, err := os.Stat(entry)
	_, nodeErr := exec.LookPath("node")
	if err == nil && nodeErr == nil {
		return entry
	}
	if os.Getenv("MCPBENCH_REQUIRE_PEERS") != "" {
		t.Fatalf("%s is not installed (run scripts/install-peers.sh): %v %v", pkg, err, nodeErr)
	}
	t.Skipf("%s not installed: run scripts/install-peers.sh (make test does)", pkg)
	return ""
}

// treeHash hashes every path, mode and file content under dir.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		h.Write([]byte(rel + "\x00" + info.Mode().String() + "\x00"))
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// filesystemScratch is a directory for server-filesystem to serve, with a
// few files in it.
func filesystemScratch(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "b.md"), []byte("# b\n"), 0o644)
	return dir
}

// memoryScratch is a directory holding a memory file with one entity, for
// server-memory (MEMORY_FILE_PATH).
func memoryScratch(t *testing.T) (dir, file string) {
	t.Helper()
	dir = t.TempDir()
	file = filepath.Join(dir, "memory.jsonl")
	os.WriteFile(file, []byte(`{"type":"entity","name":"alice","entityType":"person","observations":["likes tea"]}`+"\n"), 0o644)
	return dir, file
}

type peerRun struct {
	ErrorExamples map[string]string `json:"error_examples"`
	ByOperation   []struct {
		Tool     string `json:"tool"`
		Requests int64  `json:"requests"`
	} `json:"by_operation"`
	Workload struct {
		Tools []struct {
			Name   string `json:"name"`
			Effect string `json:"effect"`
		} `json:"tools"`
	} `json:"workload"`
}

// peerServer is one npm peer as the tests drive it: its command, the
// environment it needs, and the state it keeps.
type peerServer struct {
	name             string
	command          func(t *testing.T) (argv, env []string, state string)
	readers, writers []string
}

var peerServers = []peerServer{
	{"server-filesystem", func(t *testing.T) ([]string, []string, string) {
		dir := filesystemScratch(t)
		return []string{"node", peerEntry(t, "server-filesystem"), dir}, nil, dir
	}, filesystemReaders, filesystemWriters},
	{"server-memory", func(t *testing.T) ([]string, []string, string) {
		dir, file := memoryScratch(t)
		return []string{"node", peerEntry(t, "server-memory")}, []string{"MEMORY_FILE_PATH=" + file}, dir
	}, memoryReaders, memoryWriters},
}

func runPeer(t *testing.T, argv, env []string, flags ...string) (cliResult, peerRun) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "run.json")
	args := append(append([]string{"run", "--transport", "stdio", "--no-progress", "--json-out", out}, flags...), "--")
	r := runCLI(t, env, append(args, argv...)...)
	var rep peerRun
	if b, err := os.ReadFile(out); err == nil {
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
	}
	return r, rep
}

func calledTools(rep peerRun) []string {
	var called []string
	for _, o := range rep.ByOperation {
		if o.Requests > 0 {
			called = append(called, o.Tool)
		}
	}
	return called
}

// TestGeneratedArgsLeaveRealServersAlone: plain --gen-args against each
// peer exits 0, calls only its read-only tools (by the JSON's per-tool
// figures), and leaves its state byte for byte as it was.
func TestGeneratedArgsLeaveRealServersAlone(t *testing.T) {
	for _, p := range peerServers {
		t.Run(p.name, func(t *testing.T) {
			argv, env, state := p.command(t)
			before := treeHash(t, state)
			r, rep := runPeer(t, argv, env, "--gen-args", "-c", "4", "-n", "200")
			if r.code != 0 {
				t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
			}
			called := calledTools(rep)
			for _, tool := range called {
				if !slices.Contains(p.readers, tool) {
					t.Errorf("called %s, which is not read-only", tool)
				}
			}
			if len(called) < 2 {
				t.Errorf("called %v: the read-only tools should all have been", called)
			}
			for _, info := range rep.Workload.Tools {
				if info.Effect != "read-only" {
					t.Errorf("report lists %+v", info)
				}
			}
			if !strings.Contains(r.stderr, "calling ") || !strings.Contains(r.stderr, "(read-only)") {
				t.Errorf("no line naming the selected tools on stderr: %s", r.stderr)
			}
			if after := treeHash(t, state); after != before {
				t.Fatalf("the server's state changed: %s -> %s", before, after)
			}
		})
	}
}

// TestAllowDestructiveWrites: --allow-destructive adds the writing tools,
// and the scratch state shows they ran.
func TestAllowDestructiveWrites(t *testing.T) {
	for _, p := range peerServers {
		t.Run(p.name, func(t *testing.T) {
			argv, env, state := p.command(t)
			before := treeHash(t, state)
			r, rep := runPeer(t, argv, env, "--gen-args", "--allow-destructive", "-c", "4", "-n", "400", "--allow-request-errors")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			called := calledTools(rep)
			for _, w := range p.writers {
				if !slices.Contains(called, w) {
					t.Errorf("%s was not called: %v", w, called)
				}
			}
			if treeHash(t, state) == before {
				t.Fatal("the writing tools changed nothing")
			}
		})
	}
}

// TestToolErrorKeepsServerMessage: a tool_error example carries what the
// server said (server-filesystem reading a file that does not exist).
func TestToolErrorKeepsServerMessage(t *testing.T) {
	argv, env, _ := peerServers[0].command(t)
	r, rep := runPeer(t, argv, env, "--method", "tools/call", "--tool", "read_text_file", "--args", `{"path":"missing.txt"}`, "-n", "5", "--allow-request-errors")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if ex := rep.ErrorExamples["tool_error"]; !strings.Contains(ex, "read_text_file: ") || !strings.Contains(ex, "ENOENT") {
		t.Fatalf("tool_error example %q lacks the server's message", ex)
	}
	if !strings.Contains(r.stdout, "ENOENT") {
		t.Fatalf("the summary lacks the server's message:\n%s", r.stdout)
	}
}

// TestDryRunCallsNothing: --dry-run against each peer prints the plan,
// writes it as JSON, and the server receives no tools/call at all (its
// stdin is recorded on the way in).
func TestDryRunCallsNothing(t *testing.T) {
	t.Parallel() // counts, files and exit codes, no figure a busy machine changes
	for _, p := range peerServers {
		t.Run(p.name, func(t *testing.T) {
			argv, env, _ := p.command(t)
			dir := t.TempDir()
			stdin, out := filepath.Join(dir, "stdin.log"), filepath.Join(dir, "plan.json")
			wrapped := []string{"sh", "-c", `tee "$0" | exec "$@"`, stdin}
			for _, mode := range [][]string{{"run", "-c", "4", "-n", "200"}, {"sweep", "--concurrency-values", "1,2", "-n", "50"}} {
				args := append(append(slices.Clone(mode), "--gen-args", "--dry-run", "--transport", "stdio", "--no-progress", "--json-out", out, "--"), append(wrapped, argv...)...)
				r := runCLI(t, env, args...)
				if r.code != 0 {
					t.Fatalf("%s: exit %d: %s", mode[0], r.code, r.stderr)
				}
				sent, _ := os.ReadFile(stdin)
				if !strings.Contains(string(sent), `"tools/list"`) || strings.Contains(string(sent), "tools/call") {
					t.Fatalf("%s: the server received:\n%s", mode[0], sent)
				}
				var plan struct {
					Schema  string `json:"schema"`
					Command string `json:"command"`
					Plan    struct {
						Calls []struct {
							Name       string            `json:"name"`
							Effect     string            `json:"effect"`
							SampleArgs []json.RawMessage `json:"sample_args"`
						} `json:"calls"`
					} `json:"plan"`
				}
				b, _ := os.ReadFile(out)
				if err := json.Unmarshal(b, &plan); err != nil || plan.Schema != "mcpbench.plan/v1" || plan.Command != mode[0] || len(plan.Plan.Calls) < 2 {
					t.Fatalf("%s: plan %v: %s", mode[0], err, b)
				}
				for _, c := range plan.Plan.Calls {
					if !slices.Contains(p.readers, c.Name) || c.Effect != "read-only" || len(c.SampleArgs) == 0 || len(c.SampleArgs) > 2 {
						t.Errorf("%s: planned %+v", mode[0], c)
					}
					if !strings.Contains(r.stdout, "tool      "+c.Name+": read-only") {
						t.Errorf("%s: the printed plan lacks %s:\n%s", mode[0], c.Name, r.stdout)
					}
				}
			}
		})
	}
}
