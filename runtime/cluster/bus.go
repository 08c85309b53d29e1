package cluster

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
)

// Bus carries messages between the replicas of one server. Delivery is at
// most once per subscriber and unordered across publishers unless an
// implementation promises more for some subjects (natscluster's durable
// bus keeps cancellations in a JetStream stream, so a replica that was cut
// off receives them when it is back, possibly twice); receivers must
// treat duplicates and late arrivals as harmless (a cancellation is applied
// once, by the replica that runs the request, and ignored everywhere else).
// A Publish error means the message may not reach anyone: a sender that
// must not lose one (streamhttp forwarding a client's cancellation) tells
// its own caller instead of reporting success.
//
// Subjects are dot-separated tokens, as in NATS: a subscription subject may
// end in ".>" to match every subject with that prefix and at least one more
// token, and a "*" token matches exactly one token.
type Bus interface {
	// Publish sends data to every current subscriber of subject, on every
	// replica. It returns once the bus accepted the message, not once it
	// was delivered; it may wait, within ctx, for the bus to be able to
	// accept it.
	Publish(ctx context.Context, subject string, data []byte) error
	// Subscribe calls fn for each message published to a subject matching
	// pattern, until the returned Subscription is ended. fn runs on the
	// bus's goroutine (MemoryBus: the publisher's): it must not block.
	Subscribe(pattern string, fn func(subject string, data []byte)) (Subscription, error)
}

// Subscription is one registration made by Bus.Subscribe.
type Subscription interface {
	// Unsubscribe ends the subscription; fn is not called after it returns.
	Unsubscribe() error
}

// ErrBusClosed is returned by a closed MemoryBus.
var ErrBusClosed = errors.New("cluster: bus closed")

// MemoryBus is a Bus inside one process: Publish calls every matching
// subscriber's fn synchronously, in subscription order. It is what tests use
// to run several replicas in one process.
type MemoryBus struct {
	mu     sync.RWMutex
	next   uint64
	subs   map[uint64]*memSub
	closed bool
}

type memSub struct {
	bus     *MemoryBus
	id      uint64
	pattern []string
	fn      func(string, []byte)
	done    atomic.Bool
}

// NewMemoryBus returns an empty MemoryBus.
func NewMemoryBus() *MemoryBus { return &MemoryBus{subs: map[uint64]*memSub{}} }

// Publish calls fn of every subscription whose pattern matches subject.
func (b *MemoryBus) Publish(_ context.Context, subject string, data []byte) error {
	if !ValidSubject(subject) {
		return errors.New("cluster: invalid subject " + subject)
	}
	tokens := strings.Split(subject, ".")
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		return ErrBusClosed
	}
	var hit []*memSub
	for _, s := range b.subs {
		if MatchTokens(s.pattern, tokens) {
			hit = append(hit, s)
		}
	}
	b.mu.RUnlock()
	// Order by subscription id, so delivery order does not depend on map
	// iteration.
	for i := 1; i < len(hit); i++ {
		for j := i; j > 0 && hit[j].id < hit[j-1].id; j-- {
			hit[j], hit[j-1] = hit[j-1], hit[j]
		}
	}
	for _, s := range hit {
		// Each subscriber gets its own copy: a receiver may keep it.
		cp := append([]byte(nil), data...)
		if !s.done.Load() {
			s.fn(subject, cp)
		}
	}
	return nil
}

// Subscribe registers fn for subjects matching pattern.
func (b *MemoryBus) Subscribe(pattern string, fn func(subject string, data []byte)) (Subscription, error) {
	if !ValidPattern(pattern) {
		return nil, errors.New("cluster: invalid subscription subject " + pattern)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, ErrBusClosed
	}
	b.next++
	s := &memSub{bus: b, id: b.next, pattern: strings.Split(pattern, "."), fn: fn}
	b.subs[s.id] = s
	return s, nil
}

// Close ends every subscription; Publish and Subscribe fail afterwards.
func (b *MemoryBus) Close() error {
	b.mu.Lock()
	b.closed = true
	subs := b.subs
	b.subs = map[uint64]*memSub{}
	b.mu.Unlock()
	for _, s := range subs {
		s.done.Store(true)
	}
	return nil
}

// Unsubscribe ends the subscription: fn is not called for messages
// published after it returns (a call already running may finish).
func (s *memSub) Unsubscribe() error {
	s.done.Store(true)
	s.bus.mu.Lock()
	delete(s.bus.subs, s.id)
	s.bus.mu.Unlock()
	return nil
}

// ValidSubject reports whether subject can be published to: non-empty
// dot-separated tokens without wildcards or white space.
func ValidSubject(subject string) bool {
	if subject == "" {
		return false
	}
	for _, t := range strings.Split(subject, ".") {
		if t == "" || t == "*" || t == ">" || strings.ContainsAny(t, " \t\r\n") {
			return false
		}
	}
	return true
}

// ValidPattern reports whether p can be subscribed to: non-empty tokens
// without white space, where ">" may only be the last token.
func ValidPattern(p string) bool {
	if p == "" {
		return false
	}
	toks := strings.Split(p, ".")
	for i, t := range toks {
		if t == "" || strings.ContainsAny(t, " \t\r\n") {
			return false
		}
		if t == ">" && i != len(toks)-1 {
			return false
		}
	}
	return true
}

// MatchTokens reports whether a subject, split at its dots, matches a
// subscription pattern, split likewise: "*" matches one token, a final ">"
// one or more. Bus implementations share it so every engine matches alike.
func MatchTokens(pattern, subject []string) bool {
	for i, p := range pattern {
		if p == ">" {
			return len(subject) > i
		}
		if i >= len(subject) {
			return false
		}
		if p != "*" && p != subject[i] {
			return false
		}
	}
	return len(pattern) == len(subject)
}

// SubjectToken makes s usable as one subject token: session and task ids
// are chosen by servers and clients and may hold dots, wildcards or spaces.
// Tokens of letters, digits, '-' and '_' pass unchanged; anything else is
// hex-escaped with a leading '~' (which such tokens never contain), so the
// mapping is one-to-one.
func SubjectToken(s string) string {
	plain := s != ""
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	if plain {
		return s
	}
	const hex = "0123456789abcdef"
	b := make([]byte, 1, 1+2*len(s))
	b[0] = '~'
	for i := 0; i < len(s); i++ {
		b = append(b, hex[s[i]>>4], hex[s[i]&15])
	}
	return string(b)
}
