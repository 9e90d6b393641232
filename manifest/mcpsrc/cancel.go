package mcpsrc

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// cancelNoticeTimeout bounds sending one notifications/cancelled.
const cancelNoticeTimeout = 5 * time.Second

// sseCancelling is the SSE transport, plus the notifications/cancelled
// that mcp-go's client leaves out over HTTP. On streamable HTTP a request
// whose context ends aborts its POST, which ends the server's handler; on
// SSE the POST was answered at once and the result comes on the event
// stream, so nothing tells the server that the caller gave up, and the
// upstream tool would run on after a run was cancelled. Every method but
// SendRequest is the embedded transport's.
type sseCancelling struct {
	*transport.SSE
}

// SendRequest sends request and, when ctx ends before its response
// arrives, tells the server with a notifications/cancelled that names it.
// The notice is best effort, sent off the caller's path.
func (t sseCancelling) SendRequest(ctx context.Context, request transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	res, err := t.SSE.SendRequest(ctx, request)
	if err != nil && ctx.Err() != nil && request.Method != string(mcp.MethodInitialize) {
		notice := mcp.JSONRPCNotification{
			JSONRPC: mcp.JSONRPC_VERSION,
			Notification: mcp.Notification{
				Method: string(mcp.MethodNotificationCancelled),
				Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": request.ID, "reason": ctx.Err().Error()}},
			},
		}
		go func() {
			nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelNoticeTimeout)
			defer cancel()
			_ = t.SSE.SendNotification(nctx, notice)
		}()
	}
	return res, err
}
