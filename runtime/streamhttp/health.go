package streamhttp

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// The probe paths Handler.Probes serves (and ListenAndServe mounts), as
// Kubernetes names them.
const (
	// PathLiveness answers 200 while the process serves HTTP at all. It
	// never reflects draining or a dependency: a failed liveness probe
	// restarts the container, which cures neither (a NATS outage would
	// otherwise restart every replica at once).
	PathLiveness = "/healthz"
	// PathReadiness answers 200 when this replica should get traffic, and
	// 503 with the reason when it should not: it is draining (from the
	// first instant of Drain), it is closed, or a ReadyCheck fails (for a
	// cluster, NATS unreachable: natscluster.Reachable).
	PathReadiness = "/readyz"
)

// ReadyCheck is one condition of readiness: Check returns nil when it
// holds. It runs on every readiness probe, bounded by ProbeTimeout, so it
// must be cheap (a round trip to a dependency, not a query).
type ReadyCheck struct {
	Name  string
	Check func(ctx context.Context) error
}

// ProbeTimeout bounds the ReadyChecks of one readiness probe: under the
// one second Kubernetes gives a probe by default (timeoutSeconds: 1).
const ProbeTimeout = 800 * time.Millisecond

// Probes returns the http.Handler of the liveness and readiness probes of
// h: mount it on PathLiveness and PathReadiness, beside the MCP endpoint
// (or on a port of its own). GET or HEAD; the body is one line of text
// ("ok", "ready", or "not ready: <reason>"). For Kubernetes:
//
//	readinessProbe: {httpGet: {path: /readyz, port: 8080}, periodSeconds: 1, failureThreshold: 1}
//	livenessProbe:  {httpGet: {path: /healthz, port: 8080}, periodSeconds: 10, failureThreshold: 3}
//
// with terminationGracePeriodSeconds above the drain grace plus a few
// seconds, so the kubelet's SIGKILL does not cut the drain short.
func (h *Handler) Probes(checks ...ReadyCheck) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		switch {
		case strings.HasSuffix(r.URL.Path, PathLiveness):
			probeAnswer(w, http.StatusOK, "ok")
		case strings.HasSuffix(r.URL.Path, PathReadiness):
			if why := h.notReady(r.Context(), checks); why != "" {
				probeAnswer(w, http.StatusServiceUnavailable, "not ready: "+why)
				return
			}
			probeAnswer(w, http.StatusOK, "ready")
		default:
			http.NotFound(w, r)
		}
	})
}

// notReady is why h should get no traffic now ("" when it should).
func (h *Handler) notReady(ctx context.Context, checks []ReadyCheck) string {
	switch {
	case h.isClosed():
		return "closed"
	case h.Draining():
		return "draining"
	}
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	for _, c := range checks {
		if err := c.Check(ctx); err != nil {
			return c.Name + ": " + err.Error()
		}
	}
	return ""
}

func probeAnswer(w http.ResponseWriter, status int, line string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(line + "\n"))
}
