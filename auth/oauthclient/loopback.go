package oauthclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
)

// Loopback is the redirect endpoint of a native application (RFC 8252
// section 7.3): an HTTP listener on the loopback interface that receives
// the authorization response. Use its RedirectURL as Config.RedirectURL
// and its Authorize as Config.Authorize.
type Loopback struct {
	// Open shows the user the authorization URL (typically: starts the
	// system browser).
	Open func(authURL string) error

	ln       net.Listener
	srv      *http.Server
	redirect string
	got      chan *url.URL
}

// NewLoopback listens on 127.0.0.1 (port chosen by the system) for the
// redirect to path (e.g. "/callback").
func NewLoopback(path string, open func(authURL string) error) (*Loopback, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("loopback redirect listener: %w", err)
	}
	l := &Loopback{Open: open, ln: ln, redirect: "http://" + ln.Addr().String() + path, got: make(chan *url.URL, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		u := *r.URL
		select {
		case l.got <- &u:
			fmt.Fprintln(w, "Authorization received; you can close this window.")
		default:
			http.Error(w, "no authorization is waiting", http.StatusConflict)
		}
	})
	l.srv = &http.Server{Handler: mux}
	go l.srv.Serve(ln)
	return l, nil
}

// RedirectURL is the listener's redirect URI.
func (l *Loopback) RedirectURL() string { return l.redirect }

// Authorize opens authURL and waits for the redirect (or ctx's end).
func (l *Loopback) Authorize(ctx context.Context, authURL string) (*url.URL, error) {
	if l.Open == nil {
		return nil, errors.New("Loopback.Open is nil")
	}
	// Drop a stale response a previous, abandoned authorization left.
	select {
	case <-l.got:
	default:
	}
	if err := l.Open(authURL); err != nil {
		return nil, err
	}
	select {
	case u := <-l.got:
		return u, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// Close stops the listener.
func (l *Loopback) Close() error { return l.srv.Close() }
