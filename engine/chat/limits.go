package chat

import "fmt"

// MaxToolCalls is the most tool calls one reply of a model (the answer to one request)
// or one scripted reply may hold. A model that sends more is cut short at the limit: the
// calls that fit are kept and the reply is marked interrupted.
const MaxToolCalls = 256

// MaxReplySize bounds the bytes one reply of a model (the answer to one request) holds:
// its text (refusals included) and its tool calls' ids, names and arguments together,
// 4 MiB. The longest answers models give are a few hundred KB (100,000 tokens); a reply
// at the limit is saved, counted and printed by run or ask in under a second, at about
// 120 MB. A model that sends more is cut at the limit: what fits is kept, and the reply is
// saved marked interrupted, with the error ErrReplyTooLong.
const MaxReplySize = 4 << 20

// MaxToolArguments bounds the arguments of one tool call of a model's reply: 1 MiB of
// JSON, far more than any tool's input. A call whose arguments run longer is cut at the
// limit like a reply past MaxReplySize, with the error ErrToolArgumentsTooLong.
const MaxToolArguments = 1 << 20

// ErrReplyTooLong is the error (wrapped) of a model's reply cut at MaxReplySize.
var ErrReplyTooLong = fmt.Errorf("a reply holds at most %d MiB of text and tool calls", MaxReplySize>>20)

// ErrToolArgumentsTooLong is the error (wrapped) of a model's reply cut because a tool
// call's arguments ran past MaxToolArguments.
var ErrToolArgumentsTooLong = fmt.Errorf("a tool call's arguments hold at most %d MiB", MaxToolArguments>>20)
