package oidctest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
)

// Issue 23, must-show 3: the example programs show the whole flow against
// a real authorization server. examples/http-server --auth (the main
// module's resource server, runtime/auth, checking tokens at the op's RFC
// 7662 introspection endpoint as a confidential client of its own) and
// auth/oauthclient/examples/http-client-auth (oauthclient under the
// generated client) run as processes against zitadel's op in-process; the
// test plays the user's browser: it opens the URL the client prints, signs
// in at the op's login page and follows the redirect to the client's
// loopback listener.

const (
	rsClientID = "mcp-rs" // the resource server, a confidential client of the op (introspection)
	rsSecret   = "rs-secret"
)

// resourceStorage is the example storage with one policy of this test's
// authorization server: the access tokens it issues to clientID are for the
// one MCP server (zitadel's op does not implement RFC 8707 resource
// indicators, and its example storage makes a token's audience its client
// alone). Its introspection answers the resource server for those tokens,
// with the MCP server's canonical URI among their audience.
type resourceStorage struct {
	*storage.Storage
	mu       sync.Mutex
	resource string // the MCP server's canonical URI, known once it listens
}

func (s *resourceStorage) SetIntrospectionFromToken(ctx context.Context, in *oidc.IntrospectionResponse, tokenID, subject, caller string) error {
	if caller != rsClientID {
		return fmt.Errorf("%s is not the resource server", caller)
	}
	// The example storage answers only a caller among the token's
	// audience, which is the client it was issued to.
	if err := s.Storage.SetIntrospectionFromToken(ctx, in, tokenID, subject, clientID); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	in.Audience = oidc.Audience{clientID, s.resource}
	return nil
}

// loginAs plays the user's browser for an authorization URL: the op's login
// page, the example user's credentials, the redirect back to the client's
// redirect URI, which it then loads (a loopback listener of the client).
func loginAs(ctx context.Context, authURL string) error {
	au, err := url.Parse(authURL)
	if err != nil {
		return err
	}
	redirect := au.Query().Get("redirect_uri")
	if redirect == "" {
		return fmt.Errorf("authorization URL %s has no redirect_uri", authURL)
	}
	agent := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), redirect) {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	get, err := agent.Get(authURL)
	if err != nil {
		return err
	}
	get.Body.Close()
	id := get.Request.URL.Query().Get("authRequestID")
	if id == "" {
		return fmt.Errorf("authorization did not reach the login page: %s %s", get.Status, get.Request.URL)
	}
	form := url.Values{"username": {username}, "password": {password}, "id": {id}}
	resp, err := agent.PostForm(get.Request.URL.ResolveReference(&url.URL{Path: "/login/username"}).String(), form)
	if err != nil {
		return err
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if !strings.HasPrefix(loc, redirect) {
		return fmt.Errorf("login ended at %s (%s), not at the redirect URI", resp.Request.URL, resp.Status)
	}
	back, err := agent.Get(loc) // the browser lands on the client's loopback listener
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(back.Body)
	back.Body.Close()
	if back.StatusCode != http.StatusOK {
		return fmt.Errorf("the client's redirect endpoint: %s %s", back.Status, body)
	}
	return nil
}

// buildExample builds a main package of the module in dir (relative to
// this module) into out.
func buildExample(t *testing.T, dir, pkg, out string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s (in %s): %v\n%s", pkg, dir, err, b)
	}
}

// TestExampleAuthFlow: examples/http-server --auth and the example client
// against zitadel's op, in both eras: the client is refused 401, discovers
// the resource's and the op's metadata, sends the user to sign in
// (authorization code + PKCE, resource), lists the tools and calls echo
// with the token; sleep needs a scope the first token lacks, so the server
// answers 403 insufficient_scope, the user is asked again (step-up) and the
// call succeeds as that user; the server's tool saw the user's identity.
func TestExampleAuthFlow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two programs")
	}
	bin := t.TempDir()
	buildExample(t, "../..", "./examples/http-server", filepath.Join(bin, "http-server"))
	buildExample(t, "../oauthclient", "./examples/http-client-auth", filepath.Join(bin, "http-client-auth"))

	// The op, with the MCP client (native: PKCE, any loopback port) and
	// the resource server (confidential, for introspection) registered.
	var h http.Handler
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	defer as.Close()
	storage.RegisterClients(storage.NativeClient(clientID, redirectURL), storage.WebClient(rsClientID, rsSecret, "http://127.0.0.1/unused"))
	st := &resourceStorage{Storage: storage.NewStorage(storage.NewUserStore(as.URL))}
	h = exampleop.SetupServer(as.URL, st, nil, false)
	var disc struct {
		Introspection string `json:"introspection_endpoint"`
	}
	if resp, err := http.Get(as.URL + "/.well-known/openid-configuration"); err != nil {
		t.Fatal(err)
	} else {
		json.NewDecoder(resp.Body).Decode(&disc)
		resp.Body.Close()
	}
	if disc.Introspection == "" {
		t.Fatal("the op announces no introspection endpoint")
	}

	// examples/http-server --auth.
	srv := exec.Command(filepath.Join(bin, "http-server"), "--addr", "127.0.0.1:0", "--log-format", "json",
		"--auth", "--auth-issuer", as.URL, "--auth-introspect", disc.Introspection, "--auth-client-id", rsClientID,
		"--auth-scopes", "openid", "--auth-tool-scopes", "sleep=custom_scope")
	srv.Env = append(os.Environ(), "MCP_AUTH_CLIENT_SECRET="+rsSecret)
	stderr, _ := srv.StderrPipe()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		srv.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- srv.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			srv.Process.Kill()
		}
	}()
	records := make(chan map[string]any, 1024)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var r map[string]any
			if json.Unmarshal(sc.Bytes(), &r) == nil {
				select {
				case records <- r:
				default:
				}
			}
		}
		close(records)
	}()
	var endpoint string
	for r := range records {
		if r["msg"] == "listening" {
			endpoint, _ = r["url"].(string)
			st.mu.Lock()
			st.resource, _ = r["resource"].(string)
			st.mu.Unlock()
			break
		}
	}
	if endpoint == "" {
		t.Fatal("http-server did not start")
	}

	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			client := exec.CommandContext(ctx, filepath.Join(bin, "http-client-auth"), "--client-id", clientID, "--era", era,
				"--call", `echo={"text":"hello from the example"}`, "--call", `sleep={"ms":10}`, endpoint)
			var out strings.Builder
			client.Stdout = &out
			cerr, _ := client.StderrPipe()
			if err := client.Start(); err != nil {
				t.Fatal(err)
			}
			logins := 0
			var errs strings.Builder
			sc := bufio.NewScanner(cerr)
			for sc.Scan() {
				line := sc.Text()
				authURL, ok := strings.CutPrefix(line, "authorize: ")
				if !ok {
					errs.WriteString(line + "\n")
					continue
				}
				logins++
				if u, err := url.Parse(authURL); err != nil || u.Query().Get("code_challenge_method") != "S256" || u.Query().Get("resource") != st.resource {
					t.Errorf("authorization request %d is not PKCE S256 with resource=%s: %s", logins, st.resource, authURL)
				}
				if err := loginAs(ctx, authURL); err != nil {
					t.Errorf("login %d: %v", logins, err)
				}
			}
			if err := client.Wait(); err != nil {
				t.Fatalf("http-client-auth: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errs.String())
			}
			got := out.String()
			t.Logf("%d sign-ins; the client printed:\n%s", logins, got)
			for _, want := range []string{"connected (" + era + " era, authorized)", "echo: hello from the example", "sleep: "} {
				if !strings.Contains(got, want) {
					t.Errorf("output lacks %q", want)
				}
			}
			if logins != 2 {
				t.Errorf("%d sign-ins, want 2 (the first authorization and the step-up to custom_scope)", logins)
			}
		})
	}
	// The tool ran as the user who signed in (the op's example user, id1).
	deadline := time.After(10 * time.Second)
	for {
		select {
		case r, ok := <-records:
			if !ok {
				t.Fatal("http-server's log ended without the sleep")
			}
			if r["msg"] == "sleep started" {
				if r["subject"] != "id1" {
					t.Errorf("sleep ran as %v, want the signed-in user id1", r["subject"])
				}
				return
			}
		case <-deadline:
			t.Fatal("no sleep started record")
		}
	}
}
