package main

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestEveryFlagHasAHelpGroup: every flag of every command is placed in a
// group of the table, and each group the table names is a heading; a flag
// added without a line in help_groups.go fails here.
func TestEveryFlagHasAHelpGroup(t *testing.T) {
	for _, c := range commands() {
		if c.flags == nil {
			continue
		}
		c.flags().VisitAll(func(f *pflag.Flag) {
			if g := helpGroup(c.name, f.Name); !slices.Contains(helpGroups, g) {
				t.Errorf("%s --%s: no help group (add it to flagGroups in help_groups.go)", c.name, f.Name)
			}
		})
	}
	for k, g := range flagGroups {
		if !slices.Contains(helpGroups, g) {
			t.Errorf("flagGroups[%q] = %q, which is not in helpGroups", k, g)
		}
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
