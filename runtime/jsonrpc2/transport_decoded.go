package jsonrpc2

import "context"

// MessageReader is implemented by a transport that decodes what it reads
// before the Conn sees it: Streamable HTTP decodes each POST body to route
// it (era, session, headers), so it hands the Conn that decoded Message
// rather than the bytes, and no message is decoded twice. The Conn's read
// loop prefers ReadMessage to Read. It routes each message before it reads
// the next and keeps nothing of the *Message itself (it copies what it
// keeps), so a reader that only its Conn reads may decode every message
// into the same Message.
type MessageReader interface {
	// ReadMessage returns the next message, decoded. A message that does
	// not decode comes back with an error of type *Error, DecodeMessage's,
	// and what could be read of it (possibly nil): the Conn answers or
	// drops it as it would have on decoding the bytes itself, and reads
	// on. Its other errors are Read's: io.EOF for a clean end, an error
	// wrapping ErrMessageTooLarge for a refused message, any other error is
	// fatal.
	ReadMessage(ctx context.Context) (*Message, error)
}

// Received is one message as read from a transport and decoded: Msg and Err
// are what DecodeMessage returned for it (Err is nil for a valid message;
// for an invalid one Msg is what could be read of it, possibly nil).
type Received struct {
	Msg *Message
	Err *Error
}

// Receive reads the next message of t, decoded once: through ReadMessage
// when t is a MessageReader, else Read and DecodeMessage. Its error is the
// transport's; a message that cannot be decoded is not an error but a
// Received with Err set. A lifecycle layer (session.Server.Accept) reads
// with it until it knows the protocol era, then hands what it read to the
// Conn with WithReceived.
func Receive(ctx context.Context, t Transport) (Received, error) {
	if mr, ok := t.(MessageReader); ok {
		m, err := mr.ReadMessage(ctx)
		if perr, ok := err.(*Error); ok {
			return Received{Msg: m, Err: perr}, nil
		}
		return Received{Msg: m}, err
	}
	data, err := t.Read(ctx)
	if err != nil {
		return Received{}, err
	}
	m, perr := DecodeMessage(data)
	return Received{Msg: m, Err: perr}, nil
}

// WithReceived hands the Conn messages already read from its transport (and
// decoded) by whoever built it: a lifecycle layer that read until it knew
// which revision's Policy to give the Conn. The read loop routes them, in
// order, before its first read of the transport, exactly as if it had read
// them itself.
func WithReceived(msgs ...Received) Option {
	return func(c *config) { c.received = append(c.received, msgs...) }
}

// readMessages is the read loop's source: the messages given WithReceived,
// then the transport's, through ReadMessage when it has one (decoded by the
// transport) or Read (decoded by route). It returns the transport's error.
func (c *Conn) readMessages(ctx context.Context) error {
	for _, r := range c.cfg.received {
		if r.Msg != nil || r.Err != nil { // the zero Received is no message
			c.routeMessage(r.Msg, r.Err)
		}
	}
	c.cfg.received = nil
	if mr, ok := c.t.(MessageReader); ok {
		for {
			c.waitOutput()
			m, err := mr.ReadMessage(ctx)
			if err != nil {
				perr, invalid := err.(*Error)
				if !invalid {
					return err
				}
				c.routeMessage(m, perr)
				continue
			}
			c.routeMessage(m, nil)
		}
	}
	for {
		c.waitOutput()
		data, err := c.t.Read(ctx)
		if err != nil {
			return err
		}
		c.route(data)
	}
}
