package results

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/mcpbench/mcpbench/measure"
)

func TestColumnJSONNull(t *testing.T) {
	b, err := json.Marshal(measure.Column{1, math.NaN(), 2.5})
	if err != nil || string(b) != "[1,null,2.5]" {
		t.Fatalf("marshal: %s %v", b, err)
	}
	var c measure.Column
	if err := json.Unmarshal(b, &c); err != nil || len(c) != 3 || c[0] != 1 || !math.IsNaN(c[1]) || c[2] != 2.5 {
		t.Fatalf("unmarshal: %v %v", c, err)
	}
}
