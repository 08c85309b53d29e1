package tasks

import (
	"sync"
	"time"
)

// DefaultRateLimit is the rate limit a Manager uses when Config.RateLimit is
// zero, derived from the task cap and the advertised poll interval so that the
// two agree: a requestor polling each of its maxActive tasks once every
// pollInterval makes maxActive/pollInterval operations a second, and the
// limit admits twice that (the headroom covers creating, cancelling and
// updating tasks, and polls that bunch up):
//
//	PerSecond = 2 × maxActive / pollInterval (in seconds)
//	Burst     = 2 × maxActive
//
// With the defaults (256 tasks, 1 s) that is 512 operations a second, burst
// 512. A maxActive of zero means the default 256; a negative one (no cap)
// is counted as 256 as well.
func DefaultRateLimit(maxActive int, pollInterval time.Duration) RateLimit {
	if maxActive <= 0 {
		maxActive = 256
	}
	if pollInterval <= 0 {
		pollInterval = time.Second
	}
	return RateLimit{PerSecond: 2 * float64(maxActive) / pollInterval.Seconds(), Burst: 2 * maxActive}
}

// limiter is a token bucket per requestor key, on the Manager's clock.
type limiter struct {
	rate  float64
	burst float64
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

// maxBuckets bounds the table: beyond it idle full buckets are dropped, so
// many requestors cannot grow it without bound.
const maxBuckets = 4096

func newLimiter(rl RateLimit, now func() time.Time) *limiter {
	burst := float64(rl.Burst)
	if burst < 1 {
		burst = 1
	}
	return &limiter{rate: rl.PerSecond, burst: burst, now: now, buckets: map[string]*bucket{}}
}

func (l *limiter) allow(key string) bool {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) >= maxBuckets {
			l.prune(now)
		}
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	if d := now.Sub(b.last); d > 0 {
		b.tokens = min(l.burst, b.tokens+d.Seconds()*l.rate)
		b.last = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

func (l *limiter) prune(now time.Time) {
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*l.rate >= l.burst {
			delete(l.buckets, k)
		}
	}
}
