package llm

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
)

// Models lists the ids of the models the server offers (GET /models), sorted. The
// request is bounded by FirstTokenTimeout and retried like a stream.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	if e := c.refused(); e != nil {
		return nil, e
	}
	for retries := 0; ; retries++ {
		a := &attempt{}
		ids, e := c.modelsOnce(ctx, a)
		if e == nil {
			return ids, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		wait, ok := c.retryWait(e, a, retries)
		if !ok {
			return nil, e
		}
		if err := c.sleep(ctx, wait); err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}

func (c *Client) modelsOnce(ctx context.Context, a *attempt) ([]string, *Error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	w := startWatchdog(cancel, c.firstToken, 0)
	defer w.stop()
	list, err := c.api.ListModels(withAttempt(actx, a))
	if err != nil {
		e := c.requestError(err, actx, a)
		if e.Kind == KindFirstToken {
			e.Kind = KindResponseTimeout
		}
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if e.Kind == KindTransport && (errors.As(err, &syntax) || errors.As(err, &typ) || errors.Is(err, ErrResponseTooLarge)) {
			e.Kind = KindResponse
		}
		return nil, e
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		ids = append(ids, m.ID)
	}
	sort.Strings(ids)
	return ids, nil
}
