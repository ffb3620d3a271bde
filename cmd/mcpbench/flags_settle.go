package main

import (
	"fmt"
	"time"
)

// settleValue is --log-settle: "auto" (stored as -1, the harness's and the
// probe's word for "as long as the log's interval suggests") or a duration
// that is not negative.
type settleValue time.Duration

const autoSettle = settleValue(-1)

func (v *settleValue) String() string {
	if *v < 0 {
		return "auto"
	}
	return time.Duration(*v).String()
}

func (v *settleValue) Set(s string) error {
	if s == "auto" {
		*v = autoSettle
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want auto or a duration such as 70s")
	}
	if d < 0 {
		return fmt.Errorf("must not be negative")
	}
	*v = settleValue(d)
	return nil
}

func (v *settleValue) Type() string { return "auto|duration" }
