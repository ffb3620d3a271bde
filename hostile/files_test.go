package hostile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Report files given to compare and merge, as users meet them: cut off,
// edited by hand, huge, of the wrong kind. Each must be refused (exit 2,
// one line naming the file) or, when it is still a well-formed report,
// taken; never a crash, and within the same time and memory bounds.

const (
	// hugeBytes is the size of the huge report and of the log without a
	// newline: 200 MB, not the 1 GB users meet, to spare the disk; it is
	// twice the memory ceiling, which is what proves the bound.
	hugeBytes = 200 << 20
	fileLimit = 20 * time.Second
)

// fileCase is one bad report: how to make it from a good run shard.
type fileCase struct {
	name string
	does string
	make func(good []byte, sweep []byte) []byte
	// taken: the file is still a well-formed report, which compare and
	// merge may use (exit 0 or 1) instead of refusing (exit 2).
	taken bool
}

var fileCases = []fileCase{
	{name: "truncated", does: "the second half of the file is missing", make: func(g, _ []byte) []byte { return g[:len(g)/2] }},
	{name: "empty", does: "an empty file", make: func([]byte, []byte) []byte { return nil }},
	{name: "not-an-object", does: "a JSON array", make: func([]byte, []byte) []byte { return []byte("[1,2,3]") }},
	{name: "wrong-type", does: `"requests": "many"`, make: func(g, _ []byte) []byte { return replaceField(g, "requests", `"many"`) }},
	{name: "bad-histogram", does: "the histogram is not base64", make: func(g, _ []byte) []byte { return replaceField(g, "histogram", `"!!not base64!!"`) }},
	{name: "counts-disagree", does: "ok and errors edited to sum to more than requests", make: func(g, _ []byte) []byte { return replaceField(replaceField(g, "ok", "900000"), "errors", "-3") }},
	{name: "future-schema", does: `schema "mcpbench.run/v9"`, make: func(g, _ []byte) []byte { return replaceField(g, "schema", `"mcpbench.run/v9"`) }},
	{name: "deep-nesting", does: "a member nested 100,000 levels deep", make: func(g, _ []byte) []byte {
		return replaceField(g, "mcpbench_version", strings.Repeat("[", 100000)+strings.Repeat("]", 100000))
	}},
	{name: "huge", does: "200 MB: a run report with a 200 MB string member", make: nil},
	{name: "sweep-for-run", does: "a sweep report where a run report belongs", make: func(_, s []byte) []byte { return s }},
}

// replaceField sets the first member named key (a number, string or
// bracketed value on one line of indented JSON) to value.
func replaceField(doc []byte, key, value string) []byte {
	lines := strings.Split(string(doc), "\n")
	for i, l := range lines {
		if k, _, ok := strings.Cut(strings.TrimSpace(l), ":"); ok && k == fmt.Sprintf("%q", key) {
			comma := ""
			if strings.HasSuffix(l, ",") {
				comma = ","
			}
			lines[i] = l[:strings.Index(l, ":")+1] + " " + value + comma
			break
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

// writeHuge writes a run report's head and a 200 MB string member.
func writeHuge(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprint(f, `{"schema":"mcpbench.run/v1","pad":"`)
	block := bytes.Repeat([]byte("a"), 1<<20)
	for range hugeBytes >> 20 {
		if _, err := f.Write(block); err != nil {
			return err
		}
	}
	_, err = fmt.Fprint(f, `"}`)
	return err
}

// fileResult is what compare and merge did with one bad file.
type fileResult struct {
	c              fileCase
	compare, merge outcome
}

func TestReportFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 200 MB file")
	}
	dir := t.TempDir()
	shards, sweep := goodReports(t, dir)
	good, err := os.ReadFile(shards[1])
	if err != nil {
		t.Fatal(err)
	}
	sw, err := os.ReadFile(sweep)
	if err != nil {
		t.Fatal(err)
	}
	if o := runChild(fileLimit, nil, "merge", shards[0], shards[1], "--json-out", filepath.Join(dir, "merged.json"), "-q"); o.code != 0 {
		t.Fatalf("merging the good shards: exit %d: %s", o.code, o.stderr)
	}
	var rows []fileResult
	for _, c := range fileCases {
		path := filepath.Join(dir, c.name+".json")
		if c.make == nil {
			err = writeHuge(path)
		} else {
			err = os.WriteFile(path, c.make(good, sw), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		r := fileResult{c: c}
		r.compare = runChild(fileLimit, nil, "compare", "-q", shards[0], path)
		r.merge = runChild(fileLimit, nil, "merge", "-q", shards[0], path, "--json-out", filepath.Join(dir, c.name+"-merged.json"))
		os.Remove(path)
		for _, o := range []*outcome{&r.compare, &r.merge} {
			o.stderr = bytes.ReplaceAll(o.stderr, []byte(dir+string(filepath.Separator)), nil)
		}
		t.Run(c.name, func(t *testing.T) {
			checkFileOutcome(t, "compare", c, r.compare)
			checkFileOutcome(t, "merge", c, r.merge)
		})
		rows = append(rows, r)
	}
	fileRows = rows
}

// fileRows are the file cases' results, for the doc.
var fileRows []fileResult

func checkFileOutcome(t *testing.T, what string, c fileCase, o outcome) {
	t.Helper()
	checkProcess(t, what, o, fileLimit)
	line := strings.TrimSpace(string(o.stderr))
	switch {
	case o.code == 2:
		if strings.Count(line, "\n") > 0 || !namesFile.MatchString(line) {
			t.Errorf("%s: exit 2 with %q: want one line naming the file", what, clip(o.stderr))
		}
	case c.taken && (o.code == 0 || o.code == 1):
	default:
		t.Errorf("%s: exit %d (%s); want 2, a refusal in one line", what, o.code, clip(o.stderr))
	}
}

// goodReports runs the baseline server's two shards and a sweep.
func goodReports(t *testing.T, dir string) ([2]string, string) {
	srv, err := Start("baseline")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var shards [2]string
	for i := range shards {
		shards[i] = filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		o := runChild(fileLimit, nil, "run", "--url", srv.URL(), "-c", "2", "-n", "100", "--shard", fmt.Sprintf("%d/2", i), "--json-out", shards[i], "-q", "--no-progress")
		if o.code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, o.code, o.stderr)
		}
	}
	sweep := filepath.Join(dir, "sweep.json")
	o := runChild(fileLimit, nil, "sweep", "--url", srv.URL(), "--concurrency-values", "1,2", "-n", "50", "--json-out", sweep, "--md-out", filepath.Join(dir, "s.md"), "--svg-out", filepath.Join(dir, "s.svg"), "-q", "--no-progress")
	if o.code != 0 {
		t.Fatalf("sweep: exit %d: %s", o.code, o.stderr)
	}
	return shards, sweep
}

// reportFileSection is the doc's part on report files.
func reportFileSection() string {
	if len(fileRows) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, `
## Report files given to compare and merge

Each bad file is given to `+"`compare -q GOOD BAD`"+` and `+"`merge -q GOOD BAD --json-out OUT`"+`, GOOD being
a shard of a run against the baseline server. The test requires a refusal (exit 2) in one line
naming the file, or, for a file that is still a well-formed report, a result; within %s and %d MiB.

| file | what it holds | compare | merge | peak RSS |
| --- | --- | --- | --- | --- |
`, fileLimit, rssCeiling>>20)
	for _, r := range fileRows {
		fmt.Fprintf(&b, "| %s | %s | exit %d: %s | exit %d: %s | %s / %s |\n", r.c.name, cell(r.c.does),
			r.compare.code, cell(string(r.compare.stderr)), r.merge.code, cell(string(r.merge.stderr)),
			mib(r.compare.peakRSS), mib(r.merge.peakRSS))
	}
	return b.String()
}

// namesFile matches a refusal that says which file it refuses: by path, or
// by its place among merge's arguments.
var namesFile = re(`\.json|report \d`)
