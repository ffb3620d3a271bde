package report

import (
	"encoding/xml"
	"fmt"
	"io"

	"github.com/mcpbench/mcpbench/results"
)

// JUnit XML, the subset CI systems read: one test case per gate.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr"`
	Timestamp string      `xml:"timestamp,attr"`
	Cases     []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteCompareJUnit writes one JUnit test case per gated figure; a
// regression is a failure.
func WriteCompareJUnit(w io.Writer, c *results.Comparison) error {
	s := junitSuite{Name: "mcpbench compare " + c.Kind, Time: "0", Timestamp: c.New.StartedAt.UTC().Format("2006-01-02T15:04:05")}
	for i := range c.Checks {
		ch := &c.Checks[i]
		if !ch.Gated {
			continue
		}
		detail := fmt.Sprintf("base %s, new %s, change %s, limit %s", checkValue(ch, ch.Base), checkValue(ch, ch.New), ch.ChangeText(), ch.Limit)
		tc := junitCase{Name: ch.Scope + ": " + ch.Metric, Classname: "mcpbench.compare." + c.Kind, Time: "0"}
		if ch.Verdict == results.VerdictRegression {
			tc.Failure = &junitFailure{Message: ch.Reason, Type: "regression", Text: detail}
			s.Failures++
		} else {
			tc.SystemOut = ch.Verdict + ": " + detail
		}
		s.Cases = append(s.Cases, tc)
		s.Tests++
	}
	return writeJUnit(w, "mcpbench compare", s)
}

// writeJUnit writes one suite as a JUnit document named name.
func writeJUnit(w io.Writer, name string, s junitSuite) error {
	doc := junitSuites{Name: name, Tests: s.Tests, Failures: s.Failures, Suites: []junitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("%s junit: %w", name, err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("%s junit: %w", name, err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}
