package oauth

import (
	"net/http"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// TestRenewAt: a token is renewed a fifth of its life before it ends, and
// never more than ten seconds before (inside the window in which the
// oauth2 token sources fetch anew); one without an expiry is not renewed
// on a schedule.
func TestRenewAt(t *testing.T) {
	got := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		life, want time.Duration
	}{
		{10 * time.Second, 8 * time.Second},
		{2 * time.Second, 1600 * time.Millisecond},
		{time.Hour, time.Hour - 10*time.Second},
	} {
		b := &bearer{token: &oauth2.Token{Expiry: got.Add(c.life)}, got: got}
		if at := renewAt(b); at.Sub(got) != c.want {
			t.Errorf("a %v token renewed after %v, want %v", c.life, at.Sub(got), c.want)
		}
	}
	if at := renewAt(&bearer{token: &oauth2.Token{}, got: got}); !at.IsZero() {
		t.Errorf("a token without expiry renewed at %v", at)
	}
}

// TestConfig: flows that cannot work are refused before anything is sent.
func TestConfig(t *testing.T) {
	for _, o := range []Config{{Flow: "password"}, {Flow: ClientCredentials, ClientID: "id"}} {
		if _, err := New(o, http.DefaultClient); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}
