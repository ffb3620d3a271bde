package toolschema

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// Input structs typical of tools written with the official Go SDK, whose
// inputSchema comes from jsonschema.For[T].
type (
	sdkSearch struct {
		Query         string `json:"query" jsonschema:"the text to search for"`
		MaxResults    int    `json:"max_results,omitempty" jsonschema:"how many matches to return"`
		CaseSensitive bool   `json:"case_sensitive,omitempty"`
	}
	sdkAddress struct {
		Street  string `json:"street"`
		City    string `json:"city"`
		Country string `json:"country"`
	}
	sdkOrder struct {
		CustomerID string            `json:"customer_id"`
		Items      []sdkItem         `json:"items"`
		Ship       *sdkAddress       `json:"ship,omitempty"`
		Notes      []string          `json:"notes,omitempty"`
		Labels     map[string]string `json:"labels,omitempty"`
		Due        time.Time         `json:"due,omitempty"`
	}
	sdkItem struct {
		SKU      string  `json:"sku"`
		Quantity int     `json:"quantity"`
		Price    float64 `json:"price"`
	}
	sdkPaging struct {
		Cursor   *string `json:"cursor,omitempty"`
		PageSize uint8   `json:"page_size,omitempty"`
		Filters  []struct {
			Field string `json:"field"`
			Value any    `json:"value"`
		} `json:"filters,omitempty"`
	}
	sdkEmpty struct{}
)

func TestGoSDKForSchemas(t *testing.T) {
	schemas := map[string]func() (*jsonschema.Schema, error){
		"sdk_search": func() (*jsonschema.Schema, error) { return jsonschema.For[sdkSearch](nil) },
		"sdk_order":  func() (*jsonschema.Schema, error) { return jsonschema.For[sdkOrder](nil) },
		"sdk_paging": func() (*jsonschema.Schema, error) { return jsonschema.For[sdkPaging](nil) },
		"sdk_empty":  func() (*jsonschema.Schema, error) { return jsonschema.For[sdkEmpty](nil) },
	}
	for name, mk := range schemas {
		t.Run(name, func(t *testing.T) {
			s, err := mk()
			if err != nil {
				t.Fatal(err)
			}
			raw, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			g, err := NewGenerator(name, raw, 9)
			if err != nil {
				t.Fatalf("%s: %v", raw, err)
			}
			want := 7
			if name == "sdk_empty" {
				want = 1
			}
			sets, err := g.Distinct(want)
			if err != nil {
				t.Fatalf("%s: %v", raw, err)
			}
			checkSets(t, name, raw, sets, want)
		})
	}
}
