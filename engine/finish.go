package engine

import "strconv"

// FinishNote says, for a person, how a reply that did not simply stop ended: "" for the
// finish reasons of a reply that is whole or that is marked otherwise (stop; none given,
// as for an imported turn; error, a reply cut short, which is marked interrupted). The
// workbench's transcript shows it after "⚠ ", the human output of run and ask after the
// finish reason. requests is the number of requests the turn sent, when known (0: not
// known), which a tool loop stopped at its limit names.
func FinishNote(reason string, requests int) string {
	switch reason {
	case "", "stop", "error":
		return ""
	case "length":
		return "cut at max_tokens: the reply is incomplete"
	case "content_filter":
		return "stopped by the server's content filter: the reply is incomplete"
	case FinishReplyLimit:
		return "cut at ctxlab's size limit for a reply: the reply is incomplete"
	case FinishToolLoopLimit:
		if requests > 0 {
			return "tool loop stopped after " + strconv.Itoa(requests) + " requests: the model kept calling tools"
		}
		return "tool loop stopped at its limit: the model kept calling tools"
	}
	return "ended with finish reason " + strconv.Quote(reason)
}
