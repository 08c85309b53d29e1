package session

import (
	"log/slog"

	"github.com/mcpgen/mcpgen/runtime/logsink"
)

// atLeast returns l restricted to records at min or above, so the
// runtime's Info lines (cancellations) stay quiet unless asked for.
func atLeast(l *slog.Logger, min slog.Level) *slog.Logger {
	return slog.New(logsink.AtLeast(l.Handler(), min))
}
