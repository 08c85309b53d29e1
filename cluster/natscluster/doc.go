// Package natscluster runs several replicas of one mcpgen server on NATS:
// the implementations of cluster.Bus (NewBus: core NATS subjects;
// NewDurableBus: cancellations through a JetStream stream, so that none is
// lost across a NATS restart or a replica's reconnect, the rest core NATS),
// cluster.SessionStore and tasks.Store (JetStream key-value buckets), and
// streamhttp.EventStore (NewEventStore: legacy SSE events in a JetStream
// stream, so a stream is resumed on any replica),
// Reachable, the readiness check of a replica on NATS.
//
// It is its own module, github.com/mcpgen/mcpgen/cluster, so that only a
// program that imports it builds the NATS client (and, in tests and the
// example, the NATS server).
package natscluster
