package chat

// Archive is the whole of one chat, as a store keeps it: every message of its graph
// (parents before children), every branch and checkpoint in the order they were made, and
// every turn record with its request and decisions, in commit order. The chat's usage
// totals are derived from the turns. Package format writes it as the lossless JSON
// export and reads it back.
type Archive struct {
	Chat        Chat         `json:"chat"`
	Messages    []Message    `json:"messages"`
	Branches    []Branch     `json:"branches"`
	Checkpoints []Checkpoint `json:"checkpoints"`
	Turns       []Turn       `json:"turns"`
}

// Detail selects the parts of a turn record a read returns beyond the light record (ID,
// ChatID, Branch, Number, UserMessageID, AssistantMessageID, At and Fired: what the
// engine derives its counters and latches from when it opens a chat or switches branch).
// Each part costs: on a 5,000-turn branch the light records load in about 14 ms, with
// DetailStats|DetailRequest in about 25 ms more; decisions are the bulk of a database.
type Detail uint8

// The parts of a turn a read can add to the light record.
const (
	// DetailStats fills Reported, Estimated, TTFT, Latency, FinishReason and Error.
	DetailStats Detail = 1 << iota
	// DetailRequest fills Request and ContextDigest: to show a turn or rebuild the
	// request it sent.
	DetailRequest
	// DetailDecisions fills Decisions: to show a turn's decisions or compare them in a
	// replay.
	DetailDecisions
	// DetailLight is the light record alone.
	DetailLight Detail = 0
	// DetailAll is the whole record.
	DetailAll = DetailStats | DetailRequest | DetailDecisions
)

// Snapshot is a chat opened on one branch, read in one consistent snapshot.
type Snapshot struct {
	Chat     Chat
	Usage    Usage // the chat's usage totals
	Branch   BranchInfo
	Messages []Message // the branch's path, root first
	Turns    []Turn    // the turns of Messages, with the parts asked for
}
