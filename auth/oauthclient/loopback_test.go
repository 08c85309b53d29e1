package oauthclient

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// TestLoopback: the browser (here: a GET of the redirect the authorization
// server would send) delivers the response to Authorize.
func TestLoopback(t *testing.T) {
	var l *Loopback
	l, err := NewLoopback("/callback", func(authURL string) error {
		go func() {
			resp, err := http.Get(l.RedirectURL() + "?code=c1&state=s1")
			if err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	u, err := l.Authorize(ctx, "https://as/authorize")
	if err != nil {
		t.Fatal(err)
	}
	if q := u.Query(); q.Get("code") != "c1" || q.Get("state") != "s1" {
		t.Fatalf("redirect %s", u)
	}
	short, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	l.Open = func(string) error { return nil }
	if _, err := l.Authorize(short, "https://as/authorize"); err == nil {
		t.Fatal("Authorize returned without a redirect")
	}
}
