package natstest

import (
	"testing"

	"github.com/nats-io/nats.go"
)

func TestStartServesJetStream(t *testing.T) {
	s := Start(t, Options{})
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := nc.JetStream()
	if err != nil {
		t.Fatal(err)
	}
	kv, err := js.CreateKeyValue(&nats.KeyValueConfig{Bucket: "probe"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put("k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	e, err := kv.Get("k")
	if err != nil || string(e.Value()) != "v" {
		t.Fatalf("get: %v %v", e, err)
	}
}
