package workload

import (
	"testing"
	"time"
)

func TestScenarioFileStages(t *testing.T) {
	f, err := ParseScenarios([]byte("stages:\n  - {duration: 2s, target: 4}\n  - {duration: 1m, target: 0}\nscenarios:\n  - name: a\n    steps: [list]\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st, rate := f.LoadStages()
	if rate || len(st) != 2 || st[0].Duration != 2*time.Second || st[0].Target != 4 || st[1].Duration != time.Minute {
		t.Errorf("stages %+v (rate %v)", st, rate)
	}
	if _, err := ParseScenarios([]byte("stages:\n  - {duration: soon, target: 4}\nscenarios:\n  - name: a\n    steps: [list]\n"), t.TempDir()); err == nil {
		t.Error("a stage of no duration was read")
	}
}
