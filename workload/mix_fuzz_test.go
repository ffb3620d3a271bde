package workload

import "testing"

// FuzzParseMix: any bytes give a mix or an error, never a panic, and a mix
// that is accepted has entries that can be sent.
func FuzzParseMix(f *testing.F) {
	f.Add([]byte(`[{"method":"tools/list","weight":1},{"method":"tools/call","tool":"echo","args":{"m":1},"weight":2}]`))
	f.Add([]byte(`[{"method":"tools/call","gen_args":true,"weight":1e308}]`))
	f.Add([]byte(`{"method":"ping"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		mix, err := ParseMix(b)
		if err != nil {
			return
		}
		if len(mix) == 0 {
			t.Fatal("an empty mix was accepted")
		}
		for i, m := range mix {
			if m.Method == "" || m.Weight < 0 {
				t.Fatalf("entry %d accepted: %+v", i, m)
			}
		}
	})
}
