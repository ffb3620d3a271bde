package workload

import "testing"

// FuzzParseScenarios: any bytes give a scenario file or an error, never a
// panic; a file that is accepted has a scenario with a step.
func FuzzParseScenarios(f *testing.F) {
	f.Add([]byte("scenarios:\n  - name: a\n    steps:\n      - list\n      - call: {tool: echo, args: {message: hi}}\n      - think: 10ms\n"))
	f.Add([]byte(`{"scenarios":[{"name":"b","weight":2,"steps":[{"parallel":[{"call":{"tool":"x"}},"ping"]},{"repeat":{"times":2,"steps":["ping"]}}]}]}`))
	f.Add([]byte("scenarios: [{name: c, steps: [{think: {uniform: [1ms, 2ms]}}]}]"))
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := ParseScenarios(b, t.TempDir())
		if err != nil {
			return
		}
		if len(file.Scenarios) == 0 {
			t.Fatal("a file without scenarios was accepted")
		}
	})
}

// FuzzDataRows: JSON lines and CSV rows never panic the reader, and every
// row read is an object of fields.
func FuzzDataRows(f *testing.F) {
	f.Add([]byte("{\"q\":\"a\"}\n{\"q\":\"b\",\"n\":2}\n"), false)
	f.Add([]byte("q,n\na,1\nb,2\n"), true)
	f.Fuzz(func(t *testing.T, b []byte, csv bool) {
		read := jsonLines
		if csv {
			read = csvRows
		}
		rows, err := read(b)
		if err != nil {
			return
		}
		for i, r := range rows {
			if r == nil {
				t.Fatalf("row %d is nil", i)
			}
		}
	})
}
