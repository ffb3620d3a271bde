package toolschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// schemaURL is the name the single in-memory resource is registered under.
// Nothing is ever fetched: the loader below refuses every URL.
const schemaURL = "mem:///schema.json"

// noLoader keeps compilation pure: a schema naming a remote or file URL in
// $ref or $schema fails instead of reaching the network or the disk.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("loading %s: external schemas are not fetched", url)
}

// decodeJSON decodes with json.Number so that numbers keep their exact
// decimal form, as the validator expects.
func decodeJSON(b []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// compileSchema compiles doc (already decoded with decodeJSON). MCP says
// 2020-12 applies when $schema is absent; assertFormat turns "format" into
// an assertion, which the generator wants and the output validator does not.
func compileSchema(doc any, assertFormat bool) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if assertFormat {
		c.AssertFormat()
	}
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
}

// canonical returns the canonical JSON of a decoded value: sorted object
// keys, no insignificant space, no HTML escaping.
func canonical(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// leafError walks a validation error down its first causes to the most
// specific failure, which is what a user wants to read.
func leafError(err error) *jsonschema.ValidationError {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	return ve
}

// keywordOf returns the JSON pointer (relative to the schema document) and
// the keyword of a leaf validation error.
func keywordOf(ve *jsonschema.ValidationError) (ptr, keyword string) {
	frag := ""
	if i := bytes.IndexByte([]byte(ve.SchemaURL), '#'); i >= 0 {
		frag = ve.SchemaURL[i+1:]
	}
	kp := ve.ErrorKind.KeywordPath()
	if _, ok := ve.ErrorKind.(*kind.Not); ok && len(kp) == 0 {
		// The library reports 'not' without a keyword path.
		kp = []string{"not"}
	}
	ptr = pointerJoin(frag, kp...)
	if len(kp) > 0 {
		keyword = kp[0]
	}
	return ptr, keyword
}
