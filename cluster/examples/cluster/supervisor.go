package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/nats-io/nats-server/v2/server"
)

// runNATS is "cluster nats": a JetStream NATS server in this process until
// SIGINT or SIGTERM. It prints "ready" on stdout once it accepts clients.
func runNATS(args []string) error {
	fs := flag.NewFlagSet("nats", flag.ExitOnError)
	host := fs.String("host", "127.0.0.1", "address to listen on (0.0.0.0 in a container)")
	port := fs.Int("port", 4222, "client port")
	dir := fs.String("dir", "", "JetStream store directory (kept across restarts)")
	fs.Parse(args)
	if *dir == "" {
		return errors.New("nats: -dir is required")
	}
	s, err := server.NewServer(&server.Options{Host: *host, Port: *port, JetStream: true, StoreDir: *dir, NoSigs: true})
	if err != nil {
		return fmt.Errorf("nats: %w", err)
	}
	go s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		s.Shutdown()
		return errors.New("nats: not ready in 30s")
	}
	fmt.Println("ready")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	s.Shutdown()
	s.WaitForShutdown()
	return nil
}

// runProxy is "cluster proxy": only the round-robin proxy, in front of
// replicas started elsewhere.
func runProxy(args []string) error {
	fs := flag.NewFlagSet("proxy", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	fs.Parse(args)
	var backends []string
	for _, a := range fs.Args() {
		backends = append(backends, "http://"+a)
	}
	p, err := NewProxy(backends)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return p.ListenAndServe(ctx, *addr, nil)
}

// runAll is the one command: NATS, three replicas, the proxy.
func runAll(args []string) error {
	fs := flag.NewFlagSet("cluster", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "the proxy's address: the URL clients use is http://ADDR/mcp")
	n := fs.Int("replicas", 3, "number of replicas")
	lease := fs.Duration("lease", 5*time.Second, "task lease")
	dir := fs.String("dir", "", "NATS data directory (default: a new temporary one)")
	grace := fs.Duration("grace", 0, "the replicas' drain grace on SIGTERM (0: theirs, 10s)")
	fs.Parse(args)
	bin, err := os.Executable()
	if err != nil {
		return err
	}
	if *dir == "" {
		if *dir, err = os.MkdirTemp("", "mcp-cluster-"); err != nil {
			return err
		}
		defer os.RemoveAll(*dir) // after c.Stop (deferred below): NATS has exited
	}
	c := &Cluster{Bin: bin, Dir: *dir, Lease: *lease, Grace: *grace, Stderr: os.Stderr}
	defer c.Stop()
	if err := c.StartNATS(); err != nil {
		return err
	}
	var backends []string
	for i := 1; i <= *n; i++ {
		r, err := c.StartReplica("r" + strconv.Itoa(i))
		if err != nil {
			return err
		}
		backends = append(backends, r.URL)
	}
	p, err := NewProxy(backends)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go rollOnHangup(ctx, c)
	return p.ListenAndServe(ctx, *addr, func(u string) {
		fmt.Printf("cluster: NATS %s (data %s), replicas %v, proxy %s (kill -HUP %d: a rolling restart)\n", c.NATSURL, c.Dir, backends, u, os.Getpid())
	})
}

// rollOnHangup restarts the replicas one after the other (Cluster.Restart:
// each drains, exits and comes back on its address) on each SIGHUP, until
// ctx ends: the rolling restart of a deployment, by hand.
func rollOnHangup(ctx context.Context, c *Cluster) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
		}
		c.mu.Lock()
		rs := append([]*Replica(nil), c.Replicas...)
		c.mu.Unlock()
		start := time.Now()
		for _, r := range rs {
			if _, err := c.Restart(r); err != nil {
				fmt.Fprintf(os.Stderr, "cluster: rolling restart: %s: %v\n", r.Name, err)
				break
			}
			fmt.Fprintf(os.Stderr, "cluster: rolling restart: %s restarted\n", r.Name)
		}
		fmt.Fprintf(os.Stderr, "cluster: rolling restart done in %v\n", time.Since(start).Round(time.Millisecond))
	}
}

// Cluster starts and stops the processes of the example: the e2e test
// drives it as runAll does, and kills and restarts its parts.
type Cluster struct {
	Bin    string        // this program, run with "nats" and "replica"
	Dir    string        // the NATS data directory
	Lease  time.Duration // the replicas' task lease
	Grace  time.Duration // the replicas' drain grace on SIGTERM (0: theirs, 10 s)
	Linger time.Duration // how long a drained replica keeps its listener (0: theirs, 1 s)
	Stderr io.Writer     // where the children's stderr goes (besides their logs)
	LogDir string        // if set, each replica's stderr is also written to LogDir/NAME.log

	NATSURL  string
	natsPort int
	nats     *exec.Cmd

	mu       sync.Mutex
	Replicas []*Replica
}

// Replica is one running replica process.
type Replica struct {
	Name string
	Addr string // host:port
	URL  string // http://host:port/mcp
	Cmd  *exec.Cmd
	log  *os.File
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// StartNATS starts the NATS server process (on the same port and data
// directory as before, after a StopNATS) and waits until it is ready.
func (c *Cluster) StartNATS() error {
	if c.natsPort == 0 {
		p, err := freePort()
		if err != nil {
			return err
		}
		c.natsPort = p
		c.NATSURL = "nats://127.0.0.1:" + strconv.Itoa(p)
	}
	cmd := exec.Command(c.Bin, "nats", "-port", strconv.Itoa(c.natsPort), "-dir", c.Dir)
	cmd.Stderr = c.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		ok := sc.Scan() && sc.Text() == "ready"
		ready <- ok
		io.Copy(io.Discard, out)
	}()
	select {
	case ok := <-ready:
		if !ok {
			cmd.Process.Kill()
			cmd.Wait()
			return errors.New("nats server did not start")
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		return errors.New("nats server not ready in 30s")
	}
	c.nats = cmd
	return nil
}

// StopNATS stops the NATS server with sig (SIGTERM: orderly; SIGKILL: a
// crash) and waits for it to exit.
func (c *Cluster) StopNATS(sig os.Signal) {
	if c.nats == nil {
		return
	}
	c.nats.Process.Signal(sig)
	c.nats.Wait()
	c.nats = nil
}

// StartReplica starts a replica process on a free port and waits until it
// is ready (its /readyz answers 200).
func (c *Cluster) StartReplica(name string) (*Replica, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	return c.startReplica(name, "127.0.0.1:"+strconv.Itoa(port))
}

// Restart is one step of a rolling restart: SIGTERM to r (it drains),
// wait for it to exit, then start its successor on the same address and
// wait until it is ready.
func (c *Cluster) Restart(r *Replica) (*Replica, error) {
	c.Kill(r, syscall.SIGTERM)
	return c.startReplica(r.Name, r.Addr)
}

func (c *Cluster) startReplica(name, addr string) (*Replica, error) {
	args := []string{"replica", "-name", name, "-addr", addr, "-nats", c.NATSURL, "-lease", c.Lease.String()}
	if c.Grace > 0 {
		args = append(args, "-grace", c.Grace.String())
	}
	if c.Linger > 0 {
		args = append(args, "-linger", c.Linger.String())
	}
	cmd := exec.Command(c.Bin, args...)
	r := &Replica{Name: name, Addr: addr, URL: "http://" + addr + "/mcp", Cmd: cmd}
	var w []io.Writer
	if c.Stderr != nil {
		w = append(w, c.Stderr)
	}
	if c.LogDir != "" {
		f, err := os.OpenFile(filepath.Join(c.LogDir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		r.log = f
		w = append(w, f)
	}
	cmd.Stderr = io.MultiWriter(w...)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for !ready("http://" + addr + streamhttp.PathReadiness) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, fmt.Errorf("replica %s not ready in 30s", name)
		}
		time.Sleep(20 * time.Millisecond) // polling a probe: as a balancer does
	}
	c.mu.Lock()
	c.Replicas = append(c.Replicas, r)
	c.mu.Unlock()
	return r, nil
}

// probeClient is the client of readiness probes: a probe that takes
// longer than a second is a failed one, as with Kubernetes' default.
var probeClient = &http.Client{Timeout: time.Second}

// ready reports whether a GET of url answers 200.
func ready(url string) bool {
	resp, err := probeClient.Get(url)
	if err != nil {
		return false
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// runProbe is "cluster probe URL": exit status 0 when URL answers 200.
// compose.yaml's healthcheck runs it (the image has no curl).
func runProbe(args []string) error {
	if len(args) != 1 {
		return errors.New("probe: usage: cluster probe URL")
	}
	if !ready(args[0]) {
		return fmt.Errorf("probe: %s is not ready", args[0])
	}
	return nil
}

// Kill sends sig to the replica and waits for it to exit.
func (c *Cluster) Kill(r *Replica, sig os.Signal) {
	r.Cmd.Process.Signal(sig)
	r.Cmd.Wait()
	if r.log != nil {
		r.log.Close()
	}
	c.mu.Lock()
	for i, x := range c.Replicas {
		if x == r {
			c.Replicas = append(c.Replicas[:i], c.Replicas[i+1:]...)
			break
		}
	}
	c.mu.Unlock()
}

// Stop ends every replica (SIGTERM: they drain at once, side by side),
// then NATS.
func (c *Cluster) Stop() {
	c.mu.Lock()
	rs := append([]*Replica(nil), c.Replicas...)
	c.mu.Unlock()
	var wg sync.WaitGroup
	for _, r := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Kill(r, syscall.SIGTERM)
		}()
	}
	wg.Wait()
	c.StopNATS(syscall.SIGTERM)
}

// Proxy is a round-robin reverse proxy with no affinity: each request goes
// to the next backend, whatever its session or task. It does what a load
// balancer in front of replicas does (Envoy, nginx, a Kubernetes ingress):
//
//   - Watch probes each backend's /readyz; one that fails gets no new
//     requests until it passes again (a draining or restarting replica, one
//     cut off from NATS).
//   - A request that could not reach its backend (connection refused:
//     nothing was sent) or that the backend refused with 503 and
//     Retry-After (a draining replica: nothing ran) goes to the next
//     backend, which is marked down for a second. Other statuses are the
//     client's: a 503 without Retry-After, or a 200 carrying a JSON-RPC
//     error (a call cut by a drain's grace), may have run.
//
// The request body is kept for that retry (MCP bodies are small: bounded
// at 4 MiB here as in the replicas).
type Proxy struct {
	backends []*url.URL
	next     atomic.Uint64
	mu       sync.Mutex
	down     map[int]time.Time
	rp       *httputil.ReverseProxy
}

// NewProxy returns a Proxy over the backends' URLs.
func NewProxy(backends []string) (*Proxy, error) {
	p := &Proxy{down: map[int]time.Time{}}
	for _, b := range backends {
		u, err := url.Parse(b)
		if err != nil {
			return nil, err
		}
		u.Path = ""
		p.backends = append(p.backends, u)
	}
	if len(p.backends) == 0 {
		return nil, errors.New("proxy: no backends")
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(p.backends[p.pick(-1)])
			pr.SetXForwarded()
		},
		Transport:     &retryTransport{p: p, base: http.DefaultTransport},
		FlushInterval: -1, // SSE: every event at once
	}
	return p, nil
}

// pick returns the index of the next backend that is not marked down
// (after skip); all down means the next one anyway.
func (p *Proxy) pick(skip int) int {
	n := len(p.backends)
	p.mu.Lock()
	defer p.mu.Unlock()
	for range n {
		i := int(p.next.Add(1) % uint64(n))
		if i == skip {
			continue
		}
		if until, ok := p.down[i]; !ok || time.Now().After(until) {
			return i
		}
	}
	return int(p.next.Add(1) % uint64(n))
}

func (p *Proxy) index(host string) int {
	for i, b := range p.backends {
		if b.Host == host {
			return i
		}
	}
	return -1
}

// ServeHTTP keeps the body (for a retry on another backend) and proxies.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Body != nil && r.Body != http.NoBody {
		body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20+1))
		if err != nil || len(body) > 4<<20 {
			http.Error(w, "request body too large or unreadable", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		r.ContentLength = int64(len(body))
	}
	p.rp.ServeHTTP(w, r)
}

// Watch probes every backend's /readyz each interval until ctx ends: a
// backend whose probe fails is skipped until one passes.
func (p *Proxy) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		for i, b := range p.backends {
			ok := ready(b.String() + streamhttp.PathReadiness)
			p.mu.Lock()
			if ok {
				delete(p.down, i)
			} else {
				p.down[i] = time.Now().Add(time.Hour) // until a probe passes
			}
			p.mu.Unlock()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// ListenAndServe serves the proxy at addr until ctx ends, watching the
// backends' readiness; ready (if set) gets the MCP URL once listening.
func (p *Proxy) ListenAndServe(ctx context.Context, addr string, ready func(url string)) error {
	go p.Watch(ctx, 200*time.Millisecond)
	mux := http.NewServeMux()
	mux.Handle("/mcp", p)
	hs := streamhttp.NewHTTPServer(addr, mux)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if ready != nil {
		ready("http://" + ln.Addr().String() + "/mcp")
	}
	go func() {
		<-ctx.Done()
		c, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		hs.Shutdown(c)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// retryTransport sends a request that its backend did not take (the
// connection was refused, or a 503 with Retry-After: nothing ran) to the
// next one.
type retryTransport struct {
	p    *Proxy
	base http.RoundTripper
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		resp, err := t.base.RoundTrip(req)
		last := attempt >= len(t.p.backends)
		var op *net.OpError
		refused := err != nil && errors.As(err, &op) && op.Op == "dial"
		declined := err == nil && resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != ""
		if last || !(refused || declined) {
			return resp, err
		}
		if declined {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		i := t.p.index(req.URL.Host)
		t.p.mu.Lock()
		if until, ok := t.p.down[i]; !ok || until.Before(time.Now().Add(time.Second)) {
			t.p.down[i] = time.Now().Add(time.Second)
		}
		t.p.mu.Unlock()
		next := req.Clone(req.Context())
		next.URL.Host = t.p.backends[t.p.pick(i)].Host
		next.Host = ""
		if req.GetBody != nil {
			if next.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
		req = next
	}
}
