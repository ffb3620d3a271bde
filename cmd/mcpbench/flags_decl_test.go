package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestFlagDeclarations reads every command's flags back from their
// declarations: each was declared through declare (so it has a help group,
// a heading of --help), exactly once in its command (pflag panics on a
// name or shorthand declared twice), a numeric one with a range or a
// reason for none, and each completes in all three shells, with its
// values when it has some. A flag that several commands share under the
// same help is one declaration, so its range, values and default agree.
func TestFlagDeclarations(t *testing.T) {
	scripts := map[string]string{}
	for shell, write := range map[string]func(io.Writer, []completed){"bash": writeBash, "zsh": writeZsh, "fish": writeFish} {
		var b strings.Builder
		write(&b, completedCommands())
		scripts[shell] = b.String()
	}
	seen := map[string]*pflag.Flag{} // by name and help
	n := 0
	for _, c := range commands() {
		if c.flags == nil {
			continue
		}
		c.flags().VisitAll(func(f *pflag.Flag) {
			n++
			at := c.name + " --" + f.Name
			if g := helpGroup(f); !slices.Contains(helpGroups, g) {
				t.Errorf("%s: group %q is not a heading of helpGroups (declare it with a flagDecl)", at, g)
			}
			if f.Value.Type() == "bool" && f.NoOptDefVal != "true" {
				t.Errorf("%s: a switch that wants a value", at)
			}
			if _, numeric := numericTypes[f.Value.Type()]; numeric {
				if _, ok := flagLimit(f); !ok && len(f.Annotations[noRangeKey]) == 0 {
					t.Errorf("%s: a numeric flag with neither rng nor noRange", at)
				}
			}
			zsh := "--" + f.Name + "[" // help text in zsh specs has no [
			if f.Shorthand != "" {
				zsh = fmt.Sprintf("{-%s,--%s}'[", f.Shorthand, f.Name)
			}
			for shell, want := range map[string]string{
				"bash": fmt.Sprintf("%s) [[ $cur == -* ]] && COMPREPLY=($(compgen -W \"", c.name),
				"zsh":  zsh,
				"fish": fmt.Sprintf("-n '__fish_seen_subcommand_from %s' -l %s ", c.name, f.Name),
			} {
				word := "--" + f.Name
				if shell == "fish" {
					word = want
				}
				line := lineWith(scripts[shell], want, word)
				if line == "" {
					t.Errorf("%s: not completed in %s", at, shell)
				} else if vals := f.Annotations[valuesKey]; len(vals) > 0 && !strings.Contains(line, strings.Join(vals, " ")) && shell != "bash" {
					t.Errorf("%s: %s completion lacks its values %v: %s", at, shell, vals, line)
				}
			}
			key := f.Name + "\x00" + f.Usage
			if prev := seen[key]; prev != nil && (prev.DefValue != f.DefValue || prev.Value.Type() != f.Value.Type() ||
				!slices.Equal(prev.Annotations[limitsKey], f.Annotations[limitsKey]) || !slices.Equal(prev.Annotations[valuesKey], f.Annotations[valuesKey])) {
				t.Errorf("%s: declared twice, and the copies differ", at)
			}
			seen[key] = f
		})
	}
	if n < 150 {
		t.Fatalf("only %d flags found", n)
	}
}

// lineWith is the first line of s holding want and also (for bash's word
// lists) word; "" when none does.
func lineWith(s, want, word string) string {
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, want) && strings.Contains(line, word) {
			return line
		}
	}
	return ""
}

// TestStrictValues: a flag declared with values refuses any other in one
// line naming them, exit 2, before anything is dialled.
func TestStrictValues(t *testing.T) {
	var out, errb bytes.Buffer
	code := dispatch([]string{"run", "--url", "http://127.0.0.1:9/mcp", "--transport", "grpc"}, env{stdout: &out, stderr: &errb, getenv: os.Getenv})
	if want := "mcpbench run: --transport must be auto, http, sse or stdio, not \"grpc\" (see --help)\n"; code != exitUsage || errb.String() != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errb.String(), want)
	}
}

// TestHelpGroupsTheFlags: run --help lists its flags under the headings,
// in the table's order and the contract's, every flag once.
func TestHelpGroupsTheFlags(t *testing.T) {
	var out bytes.Buffer
	if code := dispatch([]string{"run", "--help"}, env{stdout: &out, stderr: &out, getenv: os.Getenv}); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	help := out.String()
	want := []string{"Target and transport:", "Authentication:", "Load:", "Workload and tools:", "Scenarios:",
		"SLO and gates:", "Time series and server:", "Outputs:", "Shards:"}
	last := -1
	for _, h := range want {
		i := strings.Index(help, "\n"+h+"\n")
		if i <= last {
			t.Fatalf("heading %q missing or out of order in run --help:\n%s", h, help)
		}
		last = i
	}
	if strings.Contains(help, "\nOther:\n") {
		t.Error("run --help has flags under Other")
	}
	// Under its heading: --users among the scenarios, --p95-slo-ms among the gates.
	for flag, heading := range map[string]string{"\n      --users ": "Scenarios:", "\n      --p95-slo-ms": "SLO and gates:", "\n      --oauth-scope": "Authentication:"} {
		at := strings.Index(help, flag)
		under, best := "", -1
		for _, h := range want {
			if i := strings.LastIndex(help[:max(at+1, 0)], "\n"+h+"\n"); i > best {
				under, best = h, i
			}
		}
		if at < 0 || under != heading {
			t.Errorf("%s is under %q, want %q", strings.TrimSpace(flag), under, heading)
		}
	}
	contract, err := os.ReadFile("../../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	order := "Flags of `run` and `sweep`, in `--help`'s groups: " + strings.Join(strings.Fields(strings.ReplaceAll(strings.Join(want, ", "), ":", "")), " ")
	if !strings.Contains(strings.Join(strings.Fields(string(contract)), " "), order) {
		t.Errorf("docs/contract.md does not give the groups in --help's order: want %q", order)
	}
}

// TestDeclaredTwiceIsRefused: a command that lists one declaration twice
// (the same group twice, or a flag a group already declares) does not
// build, so every test that builds it fails.
func TestDeclaredTwiceIsRefused(t *testing.T) {
	var f runFlags
	defer func() {
		if recover() == nil {
			t.Error("declaring --url twice did not panic")
		}
	}()
	declare("run", slices.Concat(f.target.flags(), f.target.flags()[:1])...)
}
