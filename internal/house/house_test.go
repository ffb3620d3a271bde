// Package house holds the tests that keep the code base's shape: which
// package may import which, and how long a file or a function may grow.
// They read the sources as text, so they need no build of the packages.
package house

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/mcpbench/mcpbench/"

// layers ranks each package: a package may import only packages of a
// strictly lower rank. Rank 0 packages import nothing of ours. A new
// package must be added here, which is the point: its place is a decision.
// docs/architecture.md draws the same map.
var layers = map[string]int{
	"internal/evloop":       0,
	"internal/jsonscan":     0,
	"abstat":                0,
	"internal/h1":           1,
	"mcp/internal/connbook": 0,
	"mcp/oauth":             1,
	"toolschema":            1,
	"logscan":               1,
	"target":                1,
	"internal/textfmt":      1,
	"internal/hist":         1,
	"internal/browsertest":  1,
	"hostile":               1,
	"record":                1,
	"sampler":               1,
	"measure":               2, // the measurement vocabulary, over internal/hist
	"mcp":                   3,
	"bench":                 3,
	"ab":                    3,
	"workload":              4,
	"sweep":                 4,
	"probe":                 5,
	"results":               6,
	"report":                7,
	"harness":               8,
	"dashboard":             9,
	"telemetry":             9,
	"cmd/mcpbench":          10,
	"interop":               10, // tests only: the differential matrix, above harness

	// Commands beside mcpbench that make test builds: make image's builder,
	// the GitHub Action's report reader and make k8s-check's report check.
	"scripts/image":          10,
	"scripts/action/outputs": 10,
	"scripts/k8s/verify":     10,
}

// bypasses are imports the ranks allow but the design does not: cmd
// fills the client's options and the workload's spec itself, but runs
// them through harness, never through the generator or the client's
// engines beneath it, so harness stays the one way to run a load.
var bypasses = map[string][]string{
	"cmd/mcpbench": {"bench", "mcp/oauth", "internal/h1", "internal/evloop"},
}

// longFuncs are the functions allowed over maxFuncLines, each with why.
var longFuncs = map[string]string{
	"target/tools.go:themes": "a literal table of the reference server's tool themes",
}

const (
	maxFileLines = 450
	maxFuncLines = 80
)

type goFile struct {
	pkg, path string
	fset      *token.FileSet
	file      *ast.File
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root not found from %s: %v", root, err)
	}
	return root
}

// sources parses every non-test Go file of the module outside testdata.
func sources(t *testing.T) []goFile {
	t.Helper()
	root := repoRoot(t)
	var files []goFile
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files = append(files, goFile{pkg: filepath.ToSlash(filepath.Dir(rel)), path: filepath.ToSlash(rel), fset: fset, file: f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no Go sources found")
	}
	return files
}

func TestImportDirection(t *testing.T) {
	for _, msg := range importViolations(sources(t)) {
		t.Error(msg)
	}
}

func TestFileAndFunctionSize(t *testing.T) {
	for _, msg := range sizeViolations(sources(t)) {
		t.Error(msg)
	}
}

func importViolations(files []goFile) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		rank, ok := layers[f.pkg]
		if !ok {
			if !seen[f.pkg] {
				out = append(out, "package "+f.pkg+" has no place in the layer map (internal/house/house_test.go, docs/architecture.md)")
			}
			seen[f.pkg] = true
			continue
		}
		for _, imp := range f.file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			dep, ours := strings.CutPrefix(path, module)
			if !ours {
				continue
			}
			depRank, known := layers[dep]
			switch {
			case !known:
				out = append(out, f.path+" imports "+dep+", which has no place in the layer map")
			case depRank >= rank:
				out = append(out, fmt.Sprintf("%s (rank %d) imports %s (rank %d): imports must go down the map", f.path, rank, dep, depRank))
			case slices.Contains(bypasses[f.pkg], dep):
				out = append(out, fmt.Sprintf("%s imports %s: %s goes through harness", f.path, dep, f.pkg))
			}
		}
	}
	return out
}

func sizeViolations(files []goFile) []string {
	var out, long []string
	for _, f := range files {
		if n := f.fset.File(f.file.Pos()).LineCount(); n > maxFileLines {
			out = append(out, fmt.Sprintf("%s has %d lines; split it below %d", f.path, n, maxFileLines))
		}
		for _, d := range f.file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			n := f.fset.Position(fd.End()).Line - f.fset.Position(fd.Pos()).Line + 1
			key := f.path + ":" + fd.Name.Name
			if _, excepted := longFuncs[key]; n > maxFuncLines && !excepted {
				long = append(long, fmt.Sprintf("function over %d lines: %s (%d)", maxFuncLines, key, n))
			}
		}
	}
	sort.Strings(long)
	return append(out, long...)
}

// TestHouseRulesBite runs the same checks on made-up files that break each
// rule, so a check cannot silently stop applying.
func TestHouseRulesBite(t *testing.T) {
	parse := func(pkg, name, src string) goFile {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		return goFile{pkg: pkg, path: pkg + "/" + name, fset: fset, file: f}
	}
	upward := parse("mcp", "up.go", "package mcp\nimport _ \""+module+"bench\"\n")
	unknown := parse("newpkg", "n.go", "package newpkg\n")
	bypass := parse("cmd/mcpbench", "b.go", "package main\nimport _ \""+module+"bench\"\n")
	if got := importViolations([]goFile{upward, unknown, bypass}); len(got) != 3 {
		t.Errorf("want an upward import, an unplaced package and a bypass of harness caught, got %q", got)
	}
	body := strings.Repeat("\t_ = 1\n", maxFuncLines)
	big := parse("bench", "big.go", "package bench\nfunc f() {\n"+body+"}\n"+strings.Repeat("\n", maxFileLines))
	if got := sizeViolations([]goFile{big}); len(got) != 2 {
		t.Errorf("want a long file and a long function caught, got %q", got)
	}
}
