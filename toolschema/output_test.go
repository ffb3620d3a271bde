package toolschema

import (
	"encoding/json"
	"testing"
)

// orderOutputSchema is a typical outputSchema: the seed's get_order result.
const orderOutputSchema = `{"type":"object","properties":{
 "orderNumber":{"type":"string","pattern":"^ORD-\\d+$"},
 "status":{"enum":["pending","confirmed","shipped","delivered","cancelled"]},
 "placedAt":{"type":"string","format":"date-time"},
 "items":{"type":"array","items":{"type":"object","properties":{
   "name":{"type":"string"},"quantity":{"type":"integer","minimum":1},
   "unitPrice":{"type":"number","minimum":0},"currency":{"type":"string","minLength":3,"maxLength":3}},
   "required":["name","quantity","unitPrice","currency"]}},
 "total":{"type":"object","properties":{"amount":{"type":"number"},"currency":{"type":"string"}},"required":["amount","currency"]},
 "shipping":{"type":"object","properties":{"carrier":{"type":"string"},"trackingNumber":{"type":["string","null"]},"estimatedDelivery":{"type":["string","null"]}}}},
 "required":["orderNumber","status","items","total"]}`

const orderPayload = `{"orderNumber":"ORD-48291","status":"shipped","placedAt":"2026-03-20T10:15:00Z",
 "items":[{"name":"USB-C cable","quantity":2,"unitPrice":9.99,"currency":"EUR"},{"name":"Charger 65W","quantity":1,"unitPrice":39.5,"currency":"EUR"},{"name":"Case","quantity":1,"unitPrice":19,"currency":"EUR"}],
 "total":{"amount":78.48,"currency":"EUR"},"shipping":{"carrier":"DHL","trackingNumber":"JD0146000034","estimatedDelivery":null}}`

func TestOutputValidate(t *testing.T) {
	ov, err := CompileOutputSchema(json.RawMessage(orderOutputSchema))
	if err != nil {
		t.Fatal(err)
	}
	if v := ov.Validate(json.RawMessage(orderPayload)); v != nil {
		t.Fatalf("valid payload: %v", v)
	}
	tests := []struct{ payload, instance, schemaPath string }{
		{`{"orderNumber":"ORD-1","status":"lost","items":[],"total":{"amount":1,"currency":"EUR"}}`, "/status", "/properties/status/enum"},
		{`{"orderNumber":"ORD-1","status":"shipped","items":[{"name":"x","quantity":0,"unitPrice":1,"currency":"EUR"}],"total":{"amount":1,"currency":"EUR"}}`, "/items/0/quantity", "/properties/items/items/properties/quantity/minimum"},
		{`{"orderNumber":"ORD-1","status":"shipped","items":[]}`, "", "/required"},
		{`{"orderNumber":"X-1","status":"shipped","items":[],"total":{"amount":1,"currency":"EUR"}}`, "/orderNumber", "/properties/orderNumber/pattern"},
		{`[]`, "", "/type"},
		{``, "", ""},
		{`{"orderNumber":`, "", ""},
	}
	for _, tt := range tests {
		v := ov.Validate(json.RawMessage(tt.payload))
		if v == nil {
			t.Errorf("%s: want a violation", tt.payload)
			continue
		}
		if v.InstancePath != tt.instance || v.SchemaPath != tt.schemaPath || v.Message == "" {
			t.Errorf("%s: got %+v, want instance %q schema %q", tt.payload, v, tt.instance, tt.schemaPath)
		}
	}
	if _, err := CompileOutputSchema(json.RawMessage(`{"type":12}`)); err == nil {
		t.Error("invalid outputSchema compiled")
	}
}

// BenchmarkOutputValidate: the load generator's per-response cost with
// validation on. Run: go test -run '^$' -bench OutputValidate -benchmem ./toolschema/
func BenchmarkOutputValidate(b *testing.B) {
	ov, err := CompileOutputSchema(json.RawMessage(orderOutputSchema))
	if err != nil {
		b.Fatal(err)
	}
	payload := json.RawMessage(orderPayload)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		if v := ov.Validate(payload); v != nil {
			b.Fatal(v)
		}
	}
}

func BenchmarkOutputValidateParallel(b *testing.B) {
	ov, _ := CompileOutputSchema(json.RawMessage(orderOutputSchema))
	payload := json.RawMessage(orderPayload)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if v := ov.Validate(payload); v != nil {
				b.Error(v)
				return
			}
		}
	})
}
