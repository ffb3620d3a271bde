package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// make test runs this package in two lanes at once (CONTRIBUTING.md, "The
// two lanes"): the timed lane, at normal priority, one package at a
// time with the others that measure, and the untimed lane, as SCHED_IDLE,
// beside the packages that measure nothing. A test belongs to the untimed
// lane when its first statement is t.Parallel(): by this package's rule
// those are the end-to-end runs judged by counts, files and exit codes.
// Each lane skips the other's tests, so every test runs once; with the
// variable unset (go test by hand) every test runs.
const laneEnv = "MCPBENCH_TEST_LANE"

// applyLane sets -test.skip for the lane named in laneEnv. It runs after
// the flags are parsed, before the tests.
func applyLane() error {
	lane := os.Getenv(laneEnv)
	if lane == "" {
		return nil
	}
	if lane != "timed" && lane != "untimed" {
		return fmt.Errorf("%s=%q: want timed or untimed", laneEnv, lane)
	}
	untimed, timed, err := lanes(".")
	if err != nil {
		return err
	}
	skip := untimed
	if lane == "untimed" {
		skip = timed
	}
	if s := flag.Lookup("test.skip").Value.String(); s != "" {
		return fmt.Errorf("%s with -skip %q: the lane sets -skip itself", laneEnv, s)
	}
	if len(skip) == 0 {
		return nil
	}
	return flag.Set("test.skip", "^("+strings.Join(skip, "|")+")$")
}

// lanes reads the package's test files in dir and sorts its top-level
// tests, fuzz targets and examples into the two lanes.
func lanes(dir string) (untimed, timed []string, err error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, nil, err
	}
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, err
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !testFunc.MatchString(fn.Name.Name) {
				continue
			}
			if startsParallel(fn) {
				untimed = append(untimed, fn.Name.Name)
			} else {
				timed = append(timed, fn.Name.Name)
			}
		}
	}
	sort.Strings(untimed)
	sort.Strings(timed)
	return untimed, timed, nil
}

var testFunc = regexp.MustCompile(`^(Test|Fuzz|Example)([A-Z0-9_]|$)`)

// startsParallel is whether fn's first statement is t.Parallel().
func startsParallel(fn *ast.FuncDecl) bool {
	if fn.Body == nil || len(fn.Body.List) == 0 || fn.Type.Params.NumFields() != 1 {
		return false
	}
	stmt, ok := fn.Body.List[0].(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := stmt.X.(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Parallel" {
		return false
	}
	recv, ok := sel.X.(*ast.Ident)
	return ok && recv.Name == fn.Type.Params.List[0].Names[0].Name
}

// TestLanesSplitThePackage: the lanes hold every test once, the parallel
// end-to-end runs in the untimed one and the tests that measure (the
// server-bound sweeps, the shards' agreement) in the timed one.
func TestLanesSplitThePackage(t *testing.T) {
	untimed, timed, err := lanes(".")
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]string{}
	for _, n := range untimed {
		in[n] = "untimed"
	}
	for _, n := range timed {
		if in[n] != "" {
			t.Errorf("%s in both lanes", n)
		}
		in[n] = "timed"
	}
	for name, want := range map[string]string{
		"TestDemo": "untimed", "TestConformanceClients": "untimed", "TestScripts": "untimed", "TestSoakVerdicts": "timed",
		"TestServerBound": "timed", "TestSweepKnownServer": "timed", "TestFourShardsMatchOneProcess": "timed",
		"TestScriptsThatMeasure": "timed", "FuzzFlagValues": "timed", "TestLanesSplitThePackage": "timed",
	} {
		if in[name] != want {
			t.Errorf("%s in lane %q, want %q", name, in[name], want)
		}
	}
	if len(untimed) < 20 || len(timed) < 50 {
		t.Errorf("%d untimed and %d timed tests: the parse missed some", len(untimed), len(timed))
	}
}
