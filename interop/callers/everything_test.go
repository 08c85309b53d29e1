package callers

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/interop/callers/gen/everything"
)

// TestEverything calls every tool of @modelcontextprotocol/server-everything
// and gets two of its prompts, through the generated callers.
func TestEverything(t *testing.T) {
	sess := connect(t, "everything")
	c := everything.NewCaller(sess)
	res, err := c.Echo(ctx(t), &everything.EchoArgs{Message: "hi"})
	if err != nil || !strings.Contains(text(res), "hi") {
		t.Errorf("echo: %v %v", text(res), err)
	}
	if _, err := c.GetAnnotatedMessage(ctx(t), &everything.GetAnnotatedMessageArgs{MessageType: everything.GetAnnotatedMessageArgsMessageTypeSuccess, IncludeImage: ptr(true)}); err != nil {
		t.Errorf("get-annotated-message: %v", err)
	}
	if _, err := c.GetEnv(ctx(t), &everything.GetEnvArgs{}); err != nil {
		t.Errorf("get-env: %v", err)
	}
	if _, err := c.GetResourceLinks(ctx(t), &everything.GetResourceLinksArgs{Count: ptr(2.0)}); err != nil {
		t.Errorf("get-resource-links: %v", err)
	}
	if _, err := c.GetResourceReference(ctx(t), &everything.GetResourceReferenceArgs{ResourceType: ptr(everything.GetResourceReferenceArgsResourceTypeText), ResourceID: ptr(1.0)}); err != nil {
		t.Errorf("get-resource-reference: %v", err)
	}
	w, err := c.GetStructuredContent(ctx(t), &everything.GetStructuredContentArgs{Location: everything.GetStructuredContentArgsLocationLosAngeles})
	if err != nil || w.Conditions == "" {
		t.Errorf("get-structured-content: %+v %v", w, err)
	}
	res, err = c.GetSum(ctx(t), &everything.GetSumArgs{A: 2, B: 3})
	if err != nil || !strings.Contains(text(res), "5") {
		t.Errorf("get-sum: %q %v", text(res), err)
	}
	if _, err := c.GetTinyImage(ctx(t), &everything.GetTinyImageArgs{}); err != nil {
		t.Errorf("get-tiny-image: %v", err)
	}
	if _, err := c.GzipFileAsResource(ctx(t), &everything.GzipFileAsResourceArgs{Name: ptr("a.txt.gz"), Data: ptr("data:text/plain;base64,aGVsbG8="), OutputType: ptr(everything.GzipFileAsResourceArgsOutputTypeResourceLink)}); err != nil {
		t.Errorf("gzip-file-as-resource: %v", err)
	}
	if _, err := c.ToggleSimulatedLogging(ctx(t), &everything.ToggleSimulatedLoggingArgs{}); err != nil {
		t.Errorf("toggle-simulated-logging: %v", err)
	}
	if _, err := c.ToggleSubscriberUpdates(ctx(t), &everything.ToggleSubscriberUpdatesArgs{}); err != nil {
		t.Errorf("toggle-subscriber-updates: %v", err)
	}
	if _, err := c.TriggerLongRunningOperation(ctx(t), &everything.TriggerLongRunningOperationArgs{Duration: ptr(0.2), Steps: ptr(2.0)}); err != nil {
		t.Errorf("trigger-long-running-operation: %v", err)
	}
	// simulate-research-query declares execution.taskSupport "required": a
	// plain tools/call is refused (-32601), which the typed caller returns
	// as the *jsonrpc2.Error it is. (The typed callers send no
	// task-augmented requests; see docs/typed-callers.md.)
	_, err = c.SimulateResearchQuery(ctx(t), &everything.SimulateResearchQueryArgs{Topic: "go", Ambiguous: ptr(false)})
	rejected(t, "simulate-research-query (tasks required)", err, new(*everything.ExecutionError))
	p := everything.NewPromptCaller(sess)
	if _, err := p.SimplePrompt(ctx(t), &everything.SimplePromptPromptArgs{}); err != nil {
		t.Errorf("simple-prompt: %v", err)
	}
	if _, err := p.ArgsPrompt(ctx(t), &everything.ArgsPromptPromptArgs{City: "Paris"}); err != nil {
		t.Errorf("args-prompt: %v", err)
	}

	// Arguments the server rejects: an enum value it does not know, a
	// number where a string is wanted is impossible to write, so the
	// typed enum is forced.
	var ee *everything.ExecutionError
	_, err = c.GetAnnotatedMessage(ctx(t), &everything.GetAnnotatedMessageArgs{MessageType: "bogus"})
	rejected(t, "get-annotated-message with an unknown messageType", err, &ee)
	_, err = c.GetStructuredContent(ctx(t), &everything.GetStructuredContentArgs{Location: "Atlantis"})
	rejected(t, "get-structured-content with an unknown location", err, &ee)
}
