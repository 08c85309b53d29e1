package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// composeService is what TestComposeMatchesCode reads of one service of
// compose.yaml.
type composeService struct {
	command     []string
	healthcheck []string
	ports       []string
	stopGrace   string
	dockerfile  string
	context     string
}

// readCompose reads compose.yaml as it is written (services at two
// spaces, their keys at four, flow sequences that are JSON arrays): a
// reader of this file, not of YAML, so that the test needs no YAML
// module; a layout it does not expect fails the test.
func readCompose(t *testing.T) map[string]*composeService {
	t.Helper()
	b, err := os.ReadFile("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	services := map[string]*composeService{}
	var cur *composeService
	inServices, inHealth, inBuild := false, false, false
	list := func(line, v string) []string {
		var out []string
		if err := json.Unmarshal([]byte(v), &out); err != nil {
			t.Fatalf("compose.yaml: %q: not a flow sequence of strings: %v", line, err)
		}
		return out
	}
	for n, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		key, val, _ := strings.Cut(trimmed, ":")
		val = strings.TrimSpace(val)
		switch {
		case indent == 0:
			inServices = key == "services"
			cur = nil
		case !inServices:
		case indent == 2:
			cur = &composeService{}
			services[key] = cur
			inHealth, inBuild = false, false
		case cur == nil:
			t.Fatalf("compose.yaml:%d: a key outside a service", n+1)
		case indent == 4:
			inHealth, inBuild = key == "healthcheck", key == "build"
			switch key {
			case "command":
				cur.command = list(line, val)
			case "ports":
				cur.ports = list(line, val)
			case "stop_grace_period":
				cur.stopGrace = val
			}
		case indent == 6 && inHealth && key == "test":
			cur.healthcheck = list(line, val)
		case indent == 6 && inBuild && key == "dockerfile":
			cur.dockerfile = val
		case indent == 6 && inBuild && key == "context":
			cur.context = val
		}
	}
	return services
}

// flagOf returns the value of -name in args.
func flagOf(args []string, name string) string {
	for i, a := range args {
		if a == "-"+name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// TestComposeMatchesCode is must-show 3's check of the example's
// compose.yaml against the code: every replica's healthcheck probes
// streamhttp.PathReadiness on the port its -addr listens on, through the
// example's own probe subcommand (which the built binary has, and which
// exits 0 only on 200); the proxy's backends are the replicas on those
// ports and it publishes the port it listens on; every flag a command
// uses exists in the built binary; stop_grace_period exceeds -grace plus
// -linger (else Docker's SIGKILL cuts the drain); the image's Dockerfile
// is where the build points.
func TestComposeMatchesCode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example")
	}
	services := readCompose(t)
	bin := buildOnce(t)
	replicas := 0
	for name, s := range services {
		if len(s.command) == 0 {
			t.Fatalf("service %s has no command", name)
		}
		if s.dockerfile == "" || s.context == "" {
			t.Errorf("service %s: build context %q, dockerfile %q", name, s.context, s.dockerfile)
		} else if _, err := os.Stat(filepath.Join(s.context, s.dockerfile)); err != nil {
			t.Errorf("service %s: %v", name, err)
		}
		// Every flag the command uses is one the subcommand defines.
		out, _ := exec.Command(bin, s.command[0], "-h").CombinedOutput()
		for _, a := range s.command[1:] {
			if strings.HasPrefix(a, "-") && !strings.Contains(string(out), "  "+a+" ") && !strings.Contains(string(out), "  "+a+"\n") {
				t.Errorf("service %s: %s %s has no flag %s:\n%s", name, s.command[0], strings.Join(s.command[1:], " "), a, out)
			}
		}
		if s.command[0] != "replica" {
			continue
		}
		replicas++
		_, port, err := net.SplitHostPort(flagOf(s.command, "addr"))
		if err != nil {
			t.Fatalf("service %s: -addr: %v", name, err)
		}
		if len(s.healthcheck) != 4 || s.healthcheck[0] != "CMD" || s.healthcheck[1] != "/cluster" || s.healthcheck[2] != "probe" {
			t.Fatalf("service %s: healthcheck %q, want [CMD /cluster probe URL]", name, s.healthcheck)
		}
		u, err := url.Parse(s.healthcheck[3])
		if err != nil || u.Path != streamhttp.PathReadiness || u.Port() != port {
			t.Errorf("service %s: healthcheck probes %s, want %s on port %s", name, s.healthcheck[3], streamhttp.PathReadiness, port)
		}
		grace, err1 := time.ParseDuration(flagOf(s.command, "grace"))
		linger, err2 := time.ParseDuration(flagOf(s.command, "linger"))
		stop, err3 := time.ParseDuration(s.stopGrace)
		if err1 != nil || err2 != nil || err3 != nil || stop <= grace+linger {
			t.Errorf("service %s: stop_grace_period %q must exceed -grace %q plus -linger %q", name, s.stopGrace, flagOf(s.command, "grace"), flagOf(s.command, "linger"))
		}
		// The proxy reaches this replica on its port.
		found := false
		for _, a := range services["proxy"].command {
			found = found || a == name+":"+port
		}
		if !found {
			t.Errorf("the proxy's backends %q do not include %s:%s", services["proxy"].command, name, port)
		}
	}
	if replicas != 3 {
		t.Errorf("%d replicas in compose.yaml, want 3", replicas)
	}
	p := services["proxy"]
	if p == nil {
		t.Fatal("no proxy service")
	}
	_, port, _ := net.SplitHostPort(flagOf(p.command, "addr"))
	if len(p.ports) != 1 || !strings.HasSuffix(p.ports[0], ":"+port) {
		t.Errorf("the proxy listens on %s but publishes %q", port, p.ports)
	}

	// The probe subcommand: exit status 0 on 200, not on 503.
	var status atomic.Int32
	status.Store(http.StatusOK)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != streamhttp.PathReadiness {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(int(status.Load()))
	}))
	defer srv.Close()
	if out, err := exec.Command(bin, "probe", srv.URL+streamhttp.PathReadiness).CombinedOutput(); err != nil {
		t.Errorf("probe of a ready replica: %v %s", err, out)
	}
	status.Store(http.StatusServiceUnavailable)
	if err := exec.Command(bin, "probe", srv.URL+streamhttp.PathReadiness).Run(); err == nil {
		t.Error("probe of a replica not ready exited 0")
	}
}
