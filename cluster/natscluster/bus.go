package natscluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/cluster"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// Bus is a cluster.Bus on NATS.
//
// Made by NewBus, every subject is a core NATS subject: at-most-once
// delivery to the subscriptions the server knows at that moment, which is
// what change notifications need (a replica that is down has no stream to
// notify). Reconnection is the nats.Conn's: subscriptions are
// re-established by the client library after a reconnect, and messages
// published while disconnected are buffered by it (nats.ReconnectBufSize)
// — but a message the server receives before a subscriber has
// re-subscribed is lost for that subscriber.
//
// Made by NewDurableBus, the subjects that must not be lost
// (DurableConfig.Subjects; by default the request and task cancellations)
// go through a JetStream stream instead: Publish returns only once the
// stream acknowledged the message (an error otherwise), and each
// subscription reads the stream through an ordered consumer that, after a
// reconnect or a server restart, resumes from the last message it
// delivered. A cancellation published while a replica was cut off from
// the server is thus delivered to it once it is back, within MaxAge.
type Bus struct {
	nc     *nats.Conn
	prefix string

	js      jetstream.JetStream // nil: no durable subjects
	stream  string
	durable [][]string // DurableConfig.Subjects, split (without prefix)

	mu        sync.Mutex
	ensured   time.Time              // last stream re-creation attempt
	streamCfg jetstream.StreamConfig // what Publish re-creates when needed
}

// BusOption configures NewBus and NewDurableBus.
type BusOption func(*Bus)

// WithSubjectPrefix puts every subject of the bus under prefix (for example
// "app1"), so several clusters can share one NATS account. The prefix is
// dot-separated tokens without wildcards; it is added on Publish and
// Subscribe and removed from the subject the callback sees.
func WithSubjectPrefix(prefix string) BusOption {
	return func(b *Bus) { b.prefix = strings.TrimSuffix(prefix, ".") }
}

// NewBus returns a Bus of core NATS subjects on nc. The caller keeps nc
// and closes it; closing it ends every subscription of the bus.
func NewBus(nc *nats.Conn, opts ...BusOption) *Bus {
	b := &Bus{nc: nc}
	for _, o := range opts {
		o(b)
	}
	return b
}

// DefaultDurableSubjects are the subjects NewDurableBus sends through
// JetStream when DurableConfig.Subjects is empty: forwarded
// notifications/cancelled of legacy sessions (streamhttp.SubjectCancel)
// and task cancellations (tasks, "mcp.task.cancel.").
var DefaultDurableSubjects = []string{"mcp.cancel.>", "mcp.task.cancel.>"}

// DurableConfig configures NewDurableBus.
type DurableConfig struct {
	// Subjects are the subject patterns published through the stream;
	// DefaultDurableSubjects when empty. Other subjects stay core NATS.
	Subjects []string
	// Stream is the JetStream stream's name; "MCP_BUS" when empty (with a
	// subject prefix, the prefix is added: "MCP_BUS_app1").
	Stream string
	// MaxAge is how long the stream keeps a message, the longest outage
	// of a replica after which it still receives what was published
	// meanwhile; one minute when zero. A cancellation older than that is
	// late anyway (its request was answered, or the receiving replica's
	// streamhttp.Options.CancelWindow would have expired it).
	MaxAge time.Duration
	// Storage is the stream's storage. The zero value is file storage:
	// the stream (and so a cancellation acknowledged just before) survives
	// a crash of the NATS server that keeps its data directory, as in a
	// restart. Memory storage is faster but loses the stream on a server
	// restart: a replica then misses what was published before it
	// reconnected, and the stream is created again by the next Publish.
	Storage jetstream.StorageType
	// Replicas is the stream's replica count in a NATS cluster; 1 when 0.
	Replicas int
}

// NewDurableBus returns a Bus on nc whose cfg.Subjects go through a
// JetStream stream (created or updated here), and the others through core
// NATS as with NewBus. The caller keeps nc and closes it.
func NewDurableBus(ctx context.Context, nc *nats.Conn, cfg DurableConfig, opts ...BusOption) (*Bus, error) {
	b := NewBus(nc, opts...)
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("natscluster: durable bus: %w", err)
	}
	subjects := cfg.Subjects
	if len(subjects) == 0 {
		subjects = DefaultDurableSubjects
	}
	var full []string
	for _, s := range subjects {
		if !cluster.ValidPattern(s) {
			return nil, errors.New("natscluster: durable bus: invalid subject " + s)
		}
		b.durable = append(b.durable, strings.Split(s, "."))
		full = append(full, b.full(s))
	}
	b.stream = cfg.Stream
	if b.stream == "" {
		b.stream = "MCP_BUS"
		if b.prefix != "" {
			b.stream += "_" + strings.NewReplacer(".", "_", "*", "_", ">", "_").Replace(b.prefix)
		}
	}
	maxAge := cfg.MaxAge
	if maxAge <= 0 {
		maxAge = time.Minute
	}
	replicas := max(cfg.Replicas, 1)
	b.js = js
	sc := jetstream.StreamConfig{
		Name:        b.stream,
		Description: "mcpgen cluster bus: messages that must reach replicas that reconnect",
		Subjects:    full,
		Storage:     cfg.Storage,
		MaxAge:      maxAge,
		Duplicates:  min(maxAge, 2*time.Minute), // Publish's retries carry a message id
		Replicas:    replicas,
		Discard:     jetstream.DiscardOld,
	}
	if _, err := js.CreateOrUpdateStream(ctx, sc); err != nil {
		return nil, fmt.Errorf("natscluster: durable bus: stream %s: %w", b.stream, err)
	}
	b.streamCfg = sc
	return b, nil
}

var _ cluster.Bus = (*Bus)(nil)

func (b *Bus) full(subject string) string {
	if b.prefix == "" {
		return subject
	}
	return b.prefix + "." + subject
}

// isDurable reports whether subject goes through the stream.
func (b *Bus) isDurable(tokens []string) bool {
	for _, d := range b.durable {
		if cluster.MatchTokens(d, tokens) {
			return true
		}
	}
	return false
}

// defaultPublishTimeout bounds a durable Publish whose ctx has no
// deadline: a bus must not block its caller for ever while the server is
// down.
const defaultPublishTimeout = 10 * time.Second

// Publish sends data on subject. A core subject returns once the client
// library has taken the message (buffered while reconnecting), not once
// delivered. A durable subject returns once the stream acknowledged it,
// retrying (with one message id, so the stream keeps one copy) while the
// server is unreachable or JetStream not ready, until ctx ends (or
// defaultPublishTimeout, 10s, when ctx has no deadline): an error means the
// message may not have been stored.
func (b *Bus) Publish(ctx context.Context, subject string, data []byte) error {
	if !cluster.ValidSubject(subject) {
		return errors.New("natscluster: invalid subject " + subject)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if b.js == nil || !b.isDurable(strings.Split(subject, ".")) {
		return b.nc.Publish(b.full(subject), data)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultPublishTimeout)
		defer cancel()
	}
	id := nuid.Next()
	for {
		// Not while disconnected: the client library would buffer the
		// request and send it on reconnect, possibly after this Publish
		// gave up and reported the message as not accepted.
		for !b.nc.IsConnected() {
			if b.nc.IsClosed() {
				return fmt.Errorf("natscluster: %s not accepted by stream %s: %w", subject, b.stream, nats.ErrConnectionClosed)
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("natscluster: %s not accepted by stream %s: disconnected: %w", subject, b.stream, ctx.Err())
			case <-time.After(20 * time.Millisecond):
			}
		}
		// Each attempt gets a bounded wait: a request sent just before a
		// disconnect is never answered, and must be sent again.
		actx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := b.js.Publish(actx, b.full(subject), data, jetstream.WithMsgID(id))
		cancel()
		if err == nil {
			return nil
		}
		if b.nc.IsClosed() || ctx.Err() != nil {
			return fmt.Errorf("natscluster: %s not accepted by stream %s: %w", subject, b.stream, err)
		}
		if errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrNoResponders) {
			// JetStream not ready yet after a restart, or the stream lost
			// (memory storage): make sure it exists.
			b.ensureStream(ctx)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("natscluster: %s not accepted by stream %s: %w", subject, b.stream, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (b *Bus) ensureStream(ctx context.Context) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if time.Since(b.ensured) < time.Second {
		return
	}
	b.ensured = time.Now()
	_, _ = b.js.CreateOrUpdateStream(ctx, b.streamCfg)
}

// Subscribe calls fn, on the subscription's own goroutine (messages of one
// subscription in order), for every message on a subject matching pattern.
// On a durable bus, the messages of the durable subjects that match come
// from the stream (those published after Subscribe returns, including
// while this connection was cut off), the others from core NATS; creating
// the stream's consumer needs the server (Subscribe fails after 10s
// without it).
func (b *Bus) Subscribe(pattern string, fn func(subject string, data []byte)) (cluster.Subscription, error) {
	if !cluster.ValidPattern(pattern) {
		return nil, errors.New("natscluster: invalid subscription subject " + pattern)
	}
	cut := 0
	if b.prefix != "" {
		cut = len(b.prefix) + 1
	}
	s := &busSub{}
	ptoks := strings.Split(pattern, ".")
	durable, onlyDurable := false, false
	for _, d := range b.durable {
		if collide(ptoks, d) {
			durable = true
		}
		if subset(ptoks, d) {
			onlyDurable = true
		}
	}
	if durable {
		ctx, cancel := context.WithTimeout(context.Background(), defaultPublishTimeout)
		defer cancel()
		if err := b.consume(ctx, s, pattern, func(subject string, data []byte) {
			if !s.done.Load() {
				fn(subject[cut:], data)
			}
		}); err != nil {
			return nil, err
		}
	}
	if !onlyDurable {
		sub, err := b.nc.Subscribe(b.full(pattern), func(m *nats.Msg) {
			subject := m.Subject[cut:]
			if s.done.Load() || durable && b.isDurable(strings.Split(subject, ".")) {
				return // the stream's consumer delivers it
			}
			fn(subject, m.Data)
		})
		if err != nil {
			_ = s.Unsubscribe()
			return nil, err
		}
		// Unlimited pending: fn must not block (cluster.Bus), and a slow
		// consumer dropping a cancellation would be worse than memory.
		_ = sub.SetPendingLimits(-1, -1)
		s.core = sub
	}
	return s, nil
}

// consume starts the ordered consumer of a subscription: from the message
// after the stream's last one now, so a new subscriber does not receive
// what was published before it existed, and, after each reconnect, from
// the message after the last it delivered (the ordered consumer's reset).
func (b *Bus) consume(ctx context.Context, s *busSub, pattern string, fn func(string, []byte)) error {
	st, err := b.js.Stream(ctx, b.stream)
	if err != nil {
		return fmt.Errorf("natscluster: durable bus: stream %s: %w", b.stream, err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		return fmt.Errorf("natscluster: durable bus: stream %s: %w", b.stream, err)
	}
	cons, err := b.js.OrderedConsumer(ctx, b.stream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{b.full(pattern)},
		DeliverPolicy:  jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:    info.State.LastSeq + 1,
	})
	if err != nil {
		return fmt.Errorf("natscluster: durable bus: consumer of %s: %w", pattern, err)
	}
	cc, err := cons.Consume(func(m jetstream.Msg) { fn(m.Subject(), m.Data()) },
		// A short heartbeat: a consumer lost with its server (not seen as
		// a reconnect) is replaced within two of them.
		jetstream.PullHeartbeat(time.Second), jetstream.PullExpiry(10*time.Second),
		jetstream.ConsumeErrHandler(func(jetstream.ConsumeContext, error) {}))
	if err != nil {
		return fmt.Errorf("natscluster: durable bus: consumer of %s: %w", pattern, err)
	}
	s.cc = cc
	return nil
}

// busSub is a Bus subscription: a core NATS subscription, a stream
// consumer, or both.
type busSub struct {
	core *nats.Subscription
	cc   jetstream.ConsumeContext
	done atomic.Bool
}

// Unsubscribe ends the subscription; fn is not called once it returned.
func (s *busSub) Unsubscribe() error {
	s.done.Store(true)
	var err error
	if s.core != nil {
		err = s.core.Unsubscribe()
	}
	if s.cc != nil {
		s.cc.Stop()
	}
	return err
}

// collide reports whether some subject matches both patterns.
func collide(a, b []string) bool {
	for i := 0; ; i++ {
		if i == len(a) || i == len(b) {
			return len(a) == len(b)
		}
		if a[i] == ">" || b[i] == ">" {
			return true
		}
		if a[i] != "*" && b[i] != "*" && a[i] != b[i] {
			return false
		}
	}
}

// subset reports whether every subject matching a also matches b.
func subset(a, b []string) bool {
	for i := 0; ; i++ {
		if i == len(b) {
			return len(a) == len(b)
		}
		if b[i] == ">" {
			return i < len(a)
		}
		if i == len(a) {
			return false
		}
		if b[i] == "*" {
			if a[i] == ">" {
				return false
			}
			continue
		}
		if a[i] != b[i] {
			return false
		}
	}
}
