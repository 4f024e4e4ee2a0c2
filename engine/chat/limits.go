package chat

// MaxToolCalls is the most tool calls one reply of a model (the answer to one request)
// or one scripted reply may hold. A model that sends more is cut short at the limit: the
// calls that fit are kept and the reply is marked interrupted.
const MaxToolCalls = 256
