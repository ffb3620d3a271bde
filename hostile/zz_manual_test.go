package hostile

import (
	"fmt"
	"os"
	"testing"
	"time"
)

func TestManualServe(t *testing.T) {
	name := os.Getenv("HOSTILE_SERVE")
	if name == "" {
		t.Skip()
	}
	s, err := Start(name)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	os.WriteFile("/tmp/hostile.url", []byte(s.URL()), 0o644)
	fmt.Println(s.URL())
	time.Sleep(60 * time.Second)
}
