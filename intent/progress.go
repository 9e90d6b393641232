package intent

// Progress of the operation a call waits for, handed to the transport.

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/intentsrv/intentsrv/runs"
)

type progressKey struct{}

// WithProgress returns a context under which an ask or act call, and
// runs.await, hand the progress of the operation they wait for to notify,
// as it is reported, for as long as they wait and never after they
// answered. notify must not block (drop what cannot be sent at once). A
// transport sets it for a request that asked for progress (MCP: a
// progressToken). A server that waits until done (WaitUntilDone) reports
// no progress.
func WithProgress(ctx context.Context, notify func(runs.Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, notify)
}

func progressOf(ctx context.Context) func(runs.Progress) {
	fn, _ := ctx.Value(progressKey{}).(func(runs.Progress))
	return fn
}

// withMCPProgress forwards progress as MCP notifications/progress to the
// client of a request that sent a progressToken. Notifications the
// session cannot take (closed, or its queue full) are dropped: progress is
// advisory, and the run keeps the latest. A task-augmented call's progress
// goes on after the call answered, for as long as its task runs, while the
// session lasts (stdio; over HTTP the request's stream has ended).
func withMCPProgress(ctx context.Context, meta *mcp.Meta) context.Context {
	if meta == nil || meta.ProgressToken == nil {
		return ctx
	}
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		return ctx
	}
	token := meta.ProgressToken
	return WithProgress(ctx, func(p runs.Progress) {
		params := map[string]any{"progressToken": token, "progress": p.Done}
		if p.Total > 0 {
			params["total"] = p.Total
		}
		if p.Message != "" {
			params["message"] = p.Message
		}
		if task := taskCallOf(ctx); task != nil && task.rec.ID != "" {
			sendTaskProgress(ctx, task.rec.ID, params)
			return
		}
		_ = srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), params)
	})
}

// sendTaskProgress sends the progress of MCP task taskID to the session of
// ctx, naming the task in _meta as the protocol asks of every message
// about a task (mcp-go's SendNotificationToClient cannot carry _meta). It
// drops what the session cannot take at once.
func sendTaskProgress(ctx context.Context, taskID string, params map[string]any) {
	session := server.ClientSessionFromContext(ctx)
	if session == nil || !session.Initialized() {
		return
	}
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: string(mcp.MethodNotificationProgress),
		Params: mcp.NotificationParams{Meta: map[string]any{mcp.RelatedTaskMetaKey: map[string]string{"taskId": taskID}}, AdditionalFields: params},
	}}
	select {
	case session.NotificationChannel() <- n:
	default:
	}
}
