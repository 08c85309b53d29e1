package cluster

import (
	"context"
	"errors"
	"sync"
	"testing"
)

func TestMemoryBusMatching(t *testing.T) {
	b := NewMemoryBus()
	var mu sync.Mutex
	got := map[string][]string{}
	sub := func(p string) Subscription {
		s, err := b.Subscribe(p, func(subject string, _ []byte) {
			mu.Lock()
			got[p] = append(got[p], subject)
			mu.Unlock()
		})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	sub("mcp.cancel.>")
	sub("mcp.*.s1")
	exact := sub("mcp.cancel.s1")
	for _, s := range []string{"mcp.cancel.s1", "mcp.notify.s1", "mcp.cancel.s2.x", "mcp.cancel"} {
		if err := b.Publish(context.Background(), s, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	_ = exact.Unsubscribe()
	_ = b.Publish(context.Background(), "mcp.cancel.s1", nil)
	want := map[string][]string{
		"mcp.cancel.>":  {"mcp.cancel.s1", "mcp.cancel.s2.x", "mcp.cancel.s1"},
		"mcp.*.s1":      {"mcp.cancel.s1", "mcp.notify.s1", "mcp.cancel.s1"},
		"mcp.cancel.s1": {"mcp.cancel.s1"},
	}
	for p, w := range want {
		if len(got[p]) != len(w) {
			t.Errorf("%s got %v, want %v", p, got[p], w)
			continue
		}
		for i := range w {
			if got[p][i] != w[i] {
				t.Errorf("%s got %v, want %v", p, got[p], w)
			}
		}
	}
	if err := b.Publish(context.Background(), "a.*", nil); err == nil {
		t.Error("published to a wildcard subject")
	}
	if _, err := b.Subscribe("a.>.b", func(string, []byte) {}); err == nil {
		t.Error("subscribed with > before the last token")
	}
	_ = b.Close()
	if err := b.Publish(context.Background(), "a", nil); !errors.Is(err, ErrBusClosed) {
		t.Errorf("publish after close: %v", err)
	}
}

func TestSubjectToken(t *testing.T) {
	for in, want := range map[string]string{
		"abc-DEF_09": "abc-DEF_09",
		"a.b":        "~612e62",
		"":           "~",
		"*":          "~2a",
	} {
		if got := SubjectToken(in); got != want {
			t.Errorf("SubjectToken(%q) = %q, want %q", in, got, want)
		}
		if !ValidSubject("x." + SubjectToken(in)) {
			t.Errorf("token of %q is not a valid subject token", in)
		}
	}
}

func TestMemorySessionStore(t *testing.T) {
	ctx := context.Background()
	s := NewMemorySessionStore()
	r := SessionRecord{ID: "s1", ClientCapabilities: []byte(`{}`)}
	if err := s.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, r); !errors.Is(err, ErrSessionExists) {
		t.Fatalf("second create: %v", err)
	}
	got, _ := s.Get(ctx, "s1")
	got.ClientCapabilities[0] = 'X'
	again, _ := s.Get(ctx, "s1")
	if string(again.ClientCapabilities) != `{}` {
		t.Fatal("Get returned shared bytes")
	}
	boom := errors.New("boom")
	if _, err := s.Update(ctx, "s1", func(r *SessionRecord) error { r.LogLevel = "debug"; return boom }); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if r, _ := s.Get(ctx, "s1"); r.LogLevel != "" {
		t.Fatal("failed update was stored")
	}
	if r, _ := s.Update(ctx, "s1", func(r *SessionRecord) error { r.LogLevel = "debug"; return nil }); r.LogLevel != "debug" {
		t.Fatal("update lost")
	}
	_ = s.Delete(ctx, "s1")
	if _, err := s.Get(ctx, "s1"); !errors.Is(err, ErrSessionNotFound) {
		t.Fatal(err)
	}
}
