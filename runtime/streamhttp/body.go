package streamhttp

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// errBodyBudget ends a body read that would take the bytes of all bodies
// being read beyond Options.MaxBodyBudget, or those of large bodies beyond
// what SmallBodyReserve leaves them: the server is busy (503).
var errBodyBudget = errors.New("streamhttp: request bodies being read exceed the server's budget")

// errClientBodyShare ends a body read that would take one client's bodies
// being read beyond its share (MaxClientBodyBytes for large bodies, a
// quarter of SmallBodyReserve for small ones): that client is over its
// share, others are still served (429).
var errClientBodyShare = errors.New("streamhttp: this client's request bodies being read exceed its share of the server's budget")

// bodyLimits are the admission limits of request bodies, from Options.
type bodyLimits struct {
	budget      int64 // all bodies (MaxBodyBudget)
	largeCap    int64 // large bodies: budget less SmallBodyReserve
	small       int64 // a body is small up to this size (SmallBodyBytes)
	clientLarge int64 // one client's large bodies (MaxClientBodyBytes; <= 0: unbounded)
	clientSmall int64 // one client's small bodies
}

// bodyLimits reports the admission limits, and false when MaxBodyBudget
// is disabled (negative): bodies are then admitted without accounting.
func (o *Options) bodyLimits() (bodyLimits, bool) {
	if o.MaxBodyBudget <= 0 {
		return bodyLimits{}, false
	}
	reserve := max(min(o.SmallBodyReserve, o.MaxBodyBudget), 0)
	return bodyLimits{
		budget:      o.MaxBodyBudget,
		largeCap:    o.MaxBodyBudget - reserve,
		small:       o.SmallBodyBytes,
		clientLarge: o.MaxClientBodyBytes,
		clientSmall: max(reserve/4, o.SmallBodyBytes),
	}, true
}

// bodyPool admits request bodies while they are read. Bodies up to
// SmallBodyBytes are small: they may use the whole MaxBodyBudget, while
// large ones may use only what SmallBodyReserve leaves, so the reserve is
// always there for small bodies however many large ones stall. Within
// each kind a client holds at most its share, so one client (any number
// of connections) cannot take a pool from the others. The zero value is
// ready to use.
type bodyPool struct {
	mu      sync.Mutex
	total   int64 // bytes of all bodies being read
	large   int64 // bytes of large bodies being read
	bodies  int   // bodies being read
	clients map[string]*clientBodies

	// idleClients and idleBodies keep records for reuse: one of each per
	// request otherwise.
	idleClients, idleBodies sync.Pool
}

// clientBodies is what one client's bodies being read hold.
type clientBodies struct {
	small, large int64
	bodies       int
}

// heldBody is one body being read: its client and the bytes it holds.
type heldBody struct {
	client *clientBodies
	key    string
	n      int64
	large  bool
}

// open starts accounting a body of the client named key.
func (p *bodyPool) open(key string) *heldBody {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.clients == nil {
		p.clients = map[string]*clientBodies{}
	}
	c := p.clients[key]
	if c == nil {
		// Reused: a client with one request at a time comes and goes
		// with each of them.
		c, _ = p.idleClients.Get().(*clientBodies)
		if c == nil {
			c = &clientBodies{}
		}
		p.clients[key] = c
	}
	c.bodies++
	p.bodies++
	b, _ := p.idleBodies.Get().(*heldBody)
	if b == nil {
		b = &heldBody{}
	}
	*b = heldBody{client: c, key: key}
	return b
}

// grow takes n more bytes for b, or refuses them (errBodyBudget,
// errClientBodyShare) leaving b as it was. A body turns large once it
// holds more than lim.small: its bytes then move to the large pool.
func (p *bodyPool) grow(lim bodyLimits, b *heldBody, n int64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.total+n > lim.budget {
		return errBodyBudget
	}
	c := b.client
	size := b.n + n
	if !b.large && size <= lim.small {
		if c.small+n > lim.clientSmall {
			return errClientBodyShare
		}
		c.small += n
		p.total += n
		b.n = size
		return nil
	}
	add := n // the bytes the large pool takes now
	if !b.large {
		add = size
	}
	if p.large+add > lim.largeCap {
		return errBodyBudget
	}
	if lim.clientLarge > 0 && c.large+add > lim.clientLarge {
		return errClientBodyShare
	}
	if !b.large {
		c.small -= b.n
		b.large = true
	}
	c.large += add
	p.large += add
	p.total += n
	b.n = size
	return nil
}

// close gives back what b holds.
func (p *bodyPool) close(b *heldBody) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := b.client
	p.total -= b.n
	if b.large {
		p.large -= b.n
		c.large -= b.n
	} else {
		c.small -= b.n
	}
	p.bodies--
	if c.bodies--; c.bodies == 0 {
		delete(p.clients, b.key)
		*c = clientBodies{}
		p.idleClients.Put(c)
	}
	*b = heldBody{}
	p.idleBodies.Put(b)
}

// bodyStats is a snapshot of a bodyPool, for tests and logs.
type bodyStats struct {
	total, large int64
	bodies       int
	clients      int
}

func (p *bodyPool) stats() bodyStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return bodyStats{total: p.total, large: p.large, bodies: p.bodies, clients: len(p.clients)}
}

// clientKey names the client of r for body admission: Options.ClientKey
// when it names one, else the authenticated identity (SessionOwner) when
// there is one, else the remote IP address. Not the connection: an
// attacker opens as many as it likes, so a share per connection would be
// no share at all. An identity is preferred to an address because it is
// what a client cannot multiply without the authorization server, and
// because many honest clients may share one address (NAT, a proxy).
func (h *Handler) clientKey(r *http.Request) string {
	if h.opts.ClientKey != nil {
		if k := h.opts.ClientKey(r); k != "" {
			return "key:" + k
		}
	}
	if h.opts.SessionOwner != nil {
		if o := h.opts.SessionOwner(r); o != "" {
			return "owner:" + o
		}
	}
	// Unprefixed: an address never starts with "key:" or "owner:", and
	// it is the key of every request without an identity, so it costs
	// no concatenation.
	return addrKey(r.RemoteAddr)
}

// addrKey is the client part of a remote address: the IP without the port
// (a client's connections differ only in ports), and of an IPv6 address
// its /64, which a single host is commonly given whole and can pick
// addresses from at will.
func addrKey(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip, err := netip.ParseAddr(host)
	switch {
	case err != nil:
		return host
	case ip.Is4():
		return host // already the canonical dotted quad: netip refuses any other spelling
	case ip.Is4In6():
		return ip.Unmap().String()
	}
	return netip.PrefixFrom(ip.WithZone(""), 64).Masked().String()
}

// budgetReader counts the bytes a body of unknown length (chunked) holds
// against the Handler's body pool as they arrive.
type budgetReader struct {
	p    *bodyPool
	lim  bodyLimits
	body *heldBody
	r    io.ReadCloser
}

func (b *budgetReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 {
		if gerr := b.p.grow(b.lim, b.body, int64(n)); gerr != nil {
			return 0, gerr
		}
	}
	return n, err
}

func (b *budgetReader) Close() error { return b.r.Close() }

// readBody reads a POST body under the hardening limits, or answers the
// request and reports false: a Content-Length over MaxBodyBytes gets 413
// before a byte is read; a body that grows over it 413; one that would
// take the bodies being read over the server's budget 503, over its
// client's share 429; one not read within BodyReadTimeout 408.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.ContentLength > h.opts.MaxBodyBytes {
		w.Header().Set("Connection", "close") // the body is not read
		writeError(w, http.StatusRequestEntityTooLarge, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest,
			"message exceeds the body size limit ("+strconv.FormatInt(r.ContentLength, 10)+" > "+strconv.FormatInt(h.opts.MaxBodyBytes, 10)+" bytes)", nil)
		return nil, false
	}
	if h.opts.BodyReadTimeout > 0 {
		rc := http.NewResponseController(w)
		if rc.SetReadDeadline(time.Now().Add(h.opts.BodyReadTimeout)) == nil {
			// Cleared once read: the connection's background read must not
			// time out under a long response stream.
			defer func() { _ = rc.SetReadDeadline(time.Time{}) }()
		}
	}
	lim, budgeted := h.opts.bodyLimits()
	var held *heldBody
	if budgeted {
		held = h.bodies.open(h.clientKey(r))
		defer h.bodies.close(held)
	}
	var data []byte
	var err error
	if cl := r.ContentLength; cl >= 0 {
		// The length is known: its bytes are taken from the budget up
		// front and read into a buffer of exactly that size (no growth,
		// no copies), so the budget is what the bodies hold.
		if budgeted {
			err = h.bodies.grow(lim, held, cl)
		}
		if err == nil {
			data = make([]byte, cl)
			_, err = io.ReadFull(r.Body, data)
		}
	} else {
		var body io.ReadCloser = r.Body
		if budgeted {
			body = &budgetReader{p: &h.bodies, lim: lim, body: held, r: r.Body}
		}
		data, err = io.ReadAll(http.MaxBytesReader(w, body, h.opts.MaxBodyBytes))
	}
	if err == nil {
		return data, true
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest, "message exceeds the body size limit", nil)
	case errors.Is(err, errBodyBudget):
		w.Header().Set("Retry-After", "1")
		w.Header().Set("Connection", "close")
		h.log.Warn("request refused: request bodies being read exceed the budget", "budget", h.opts.MaxBodyBudget, "client", held.key)
		writeError(w, http.StatusServiceUnavailable, jsonrpc2.RequestID{}, jsonrpc2.CodeInternalError, "server busy: too many request bodies being read", nil)
	case errors.Is(err, errClientBodyShare):
		w.Header().Set("Retry-After", "1")
		w.Header().Set("Connection", "close")
		h.log.Warn("request refused: this client's request bodies being read exceed its share", "client", held.key)
		writeError(w, http.StatusTooManyRequests, jsonrpc2.RequestID{}, jsonrpc2.CodeInternalError, "too many request bodies of this client being read", nil)
	case errors.Is(err, os.ErrDeadlineExceeded):
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusRequestTimeout, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest, "the request body was not sent within the body read timeout", nil)
	default:
		writeError(w, http.StatusBadRequest, jsonrpc2.RequestID{}, jsonrpc2.CodeParseError, "reading the body failed", nil)
	}
	return nil, false
}
