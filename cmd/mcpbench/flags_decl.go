package main

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Every flag is declared once, as a flagDecl: its name, shorthand, the
// field it sets, default, help, help group, range and values. declare
// registers the declarations on a pflag set and notes the rest on each
// flag, so --help's groups, the range and value checks, completion and
// "did you mean" all read the same declaration. A new command declares
// its flags like this (mcpbench ab, say):
//
//	type abFlags struct {
//		rounds int
//		output outputFlags
//	}
//
//	func (f *abFlags) flagSet() *pflag.FlagSet {
//		return declare("ab", append([]flagDecl{
//			{name: "rounds", to: &f.rounds, def: 5, group: "Load", rng: atLeastOne(100),
//				usage: "alternate the two servers `N` times"},
//		}, f.output.reports()...)...)
//	}
//
// then parseFlags(f.flagSet(), args, abUsage, e) as the other commands do,
// and a line for it in commands(). TestFlagDeclarations checks the rest.
//
// Why not cobra: the contract fixes what cobra would change (its usage
// dump and "Error:" prefix on a bad flag, its exit codes, its help layout,
// and above all its completion, which calls back into the binary where
// ours are static scripts). Taming each of those costs more lines than
// the dispatch in main.go that cobra would replace, and flag groups,
// ranges and suggestions would still be ours; pflag, which cobra is
// built on, does the parsing either way.

// flagDecl is one flag, whole.
type flagDecl struct {
	name, short string
	// to is the field the flag sets: *string, *bool, *int, *int64,
	// *uint64, *float64, *time.Duration, *[]string or a pflag.Value.
	to any
	// def is the default, of to's element type (a string for a
	// pflag.Value); nil is the zero value.
	def   any
	usage string
	group string
	// rng is a numeric flag's range; a numeric flag without one says why
	// in noRange.
	rng     *limit
	noRange string
	// values are the only values the flag takes, refused otherwise in
	// one line; hints are values completion offers where the library
	// that takes them says what is wrong.
	values, hints []string
	list          bool   // a *[]string given comma-separated, not repeated
	noOptDef      string // the value of the flag given alone
}

// helpGroups are --help's headings, in their order, for every command; a
// declaration's group is one of them (TestFlagDeclarations).
var helpGroups = []string{"A/B sides", "Target and transport", "Authentication", "Load", "Workload and tools", "Scenarios", "SLO and gates",
	"Time series and server", "Probe benchmarks", "Log window", "Merging", "Server", "Served tools", "Stats log", "Faults", "Outputs", "Shards"}

// The annotations declare leaves on each flag.
const (
	groupKey   = "mcpbench-group"
	limitsKey  = "mcpbench-range"
	valuesKey  = "mcpbench-values" // completion's
	strictKey  = "mcpbench-strict" // the values are the only ones
	noRangeKey = "mcpbench-no-range"
)

// declare is a command's flag set made of its declarations.
func declare(command string, decls ...flagDecl) *pflag.FlagSet {
	fs := newFlagSet(command)
	for _, d := range decls {
		d.register(fs)
	}
	return fs
}

// varP names pflag's registrar for each type of field.
var varP = map[reflect.Type]string{
	reflect.TypeFor[*string](): "StringVarP", reflect.TypeFor[*bool](): "BoolVarP", reflect.TypeFor[*int](): "IntVarP",
	reflect.TypeFor[*int64](): "Int64VarP", reflect.TypeFor[*uint64](): "Uint64VarP", reflect.TypeFor[*float64](): "Float64VarP",
	reflect.TypeFor[*time.Duration](): "DurationVarP",
}

// register adds d to fs; a declaration that does not hold together
// panics, which every test that builds the command finds.
func (d flagDecl) register(fs *pflag.FlagSet) {
	to := reflect.ValueOf(d.to)
	switch p := d.to.(type) {
	case *[]string:
		if d.list {
			fs.StringSliceVarP(p, d.name, d.short, nil, d.usage)
		} else {
			fs.StringArrayVarP(p, d.name, d.short, nil, d.usage)
		}
	case pflag.Value:
		if d.def != nil {
			if err := p.Set(d.def.(string)); err != nil {
				panic(fmt.Sprintf("--%s: default %v: %v", d.name, d.def, err))
			}
		}
		fs.VarP(p, d.name, d.short, d.usage)
	default:
		method, ok := varP[to.Type()]
		if !ok {
			panic(fmt.Sprintf("--%s: cannot declare a %T", d.name, d.to))
		}
		def := reflect.Zero(to.Type().Elem())
		if d.def != nil {
			if def = reflect.ValueOf(d.def); def.Type() != to.Type().Elem() {
				panic(fmt.Sprintf("--%s: default %v is a %T, not a %s", d.name, d.def, d.def, to.Type().Elem()))
			}
		}
		reflect.ValueOf(fs).MethodByName(method).Call([]reflect.Value{to, reflect.ValueOf(d.name), reflect.ValueOf(d.short), def, reflect.ValueOf(d.usage)})
	}
	if d.noOptDef != "" { // a bool's own ("true") stays
		fs.Lookup(d.name).NoOptDefVal = d.noOptDef
	}
	note := func(key string, vals ...string) { _ = fs.SetAnnotation(d.name, key, vals) }
	note(groupKey, d.group)
	if d.rng != nil {
		l := d.rng
		note(limitsKey, strconv.FormatFloat(l.min, 'g', -1, 64), strconv.FormatFloat(l.max, 'g', -1, 64), strconv.FormatBool(l.openMin))
	}
	if d.noRange != "" {
		note(noRangeKey, d.noRange)
	}
	if len(d.values) > 0 {
		note(valuesKey, d.values...)
		note(strictKey, "true")
	} else if len(d.hints) > 0 {
		note(valuesKey, d.hints...)
	}
}

// checkValues refuses a flag given a value its declaration does not list.
func checkValues(f *pflag.Flag) error {
	vals := f.Annotations[valuesKey]
	if len(f.Annotations[strictKey]) == 0 || slices.Contains(vals, f.Value.String()) {
		return nil
	}
	return usagef("--%s must be %s or %s, not %q", f.Name, strings.Join(vals[:len(vals)-1], ", "), vals[len(vals)-1], f.Value.String())
}

// helpGroup is f's heading in --help.
func helpGroup(f *pflag.Flag) string {
	if g := f.Annotations[groupKey]; len(g) == 1 {
		return g[0]
	}
	return ""
}

// groupedUsages is fs's flag help under the headings of helpGroups, in
// their order, as kubectl, k6 and gh do: seventy-odd flags in one list
// hide the few a user is after.
func groupedUsages(fs *pflag.FlagSet) string {
	sets := map[string]*pflag.FlagSet{}
	fs.VisitAll(func(f *pflag.Flag) {
		g := helpGroup(f)
		if sets[g] == nil {
			sets[g] = pflag.NewFlagSet(g, pflag.ContinueOnError)
			sets[g].SortFlags = false
		}
		sets[g].AddFlag(f)
	})
	var b strings.Builder
	for _, g := range helpGroups {
		if set := sets[g]; set != nil {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(g + ":\n" + set.FlagUsages())
		}
	}
	return b.String()
}
