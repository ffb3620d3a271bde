package workload

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync/atomic"
)

// dataRows are the argument rows of a data file, each an object's fields.
// Sequential reading is shared by every user of a run: row i goes to the
// i-th call, whichever user makes it, so a file of distinct rows gives
// distinct calls.
type dataRows struct {
	rows []map[string]json.RawMessage
	next atomic.Int64
}

// readRows reads a data file: CSV when its name ends in .csv, else JSON
// Lines.
func readRows(file string) (*dataRows, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var rows []map[string]json.RawMessage
	if strings.HasSuffix(strings.ToLower(file), ".csv") {
		rows, err = csvRows(b)
	} else {
		rows, err = jsonLines(b)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no rows", file)
	}
	return &dataRows{rows: rows}, nil
}

// jsonLines reads one JSON object per line; blank lines are skipped.
func jsonLines(b []byte) ([]map[string]json.RawMessage, error) {
	var rows []map[string]json.RawMessage
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var row map[string]json.RawMessage
		if err := json.Unmarshal(text, &row); err != nil || row == nil {
			return nil, fmt.Errorf("line %d is not a JSON object", line)
		}
		rows = append(rows, row)
	}
	return rows, sc.Err()
}

// csvRows reads a header line of field names, then rows of string values.
func csvRows(b []byte) ([]map[string]json.RawMessage, error) {
	records, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(records) == 0 {
		return nil, errors.New("no header line")
	}
	header := records[0]
	rows := make([]map[string]json.RawMessage, 0, len(records)-1)
	for _, rec := range records[1:] {
		row := make(map[string]json.RawMessage, len(header))
		for i, field := range header {
			v, _ := json.Marshal(rec[i])
			row[field] = v
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// take returns the next row in order, or a random one.
func (d *dataRows) take(random bool, rng *rand.Rand) map[string]json.RawMessage {
	if random {
		return d.rows[rng.IntN(len(d.rows))]
	}
	return d.rows[(d.next.Add(1)-1)%int64(len(d.rows))]
}
