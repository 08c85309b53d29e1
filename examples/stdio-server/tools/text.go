package tools

import "fmt"

// This file is written by hand: the text blocks of the example's results,
// which clients that read only text (and the e2e tests) see. Without these
// methods the text block would be the structured content's JSON.

// String is the text block of sleep's result.
func (r SleepResult) String() string { return fmt.Sprintf("slept %d ms", r.SleptMs) }

// String is the text block of echo's result: the text itself.
func (r EchoResult) String() string { return r.Text }
