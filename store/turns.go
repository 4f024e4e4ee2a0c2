package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// Detail selects the parts of a turn record a read returns beyond the light record (see
// chat.Detail).
type Detail = chat.Detail

// The parts of a turn a read can add to the light record (see chat.Detail).
const (
	DetailStats     = chat.DetailStats
	DetailRequest   = chat.DetailRequest
	DetailDecisions = chat.DetailDecisions
	DetailLight     = chat.DetailLight
	DetailAll       = chat.DetailAll
)

func turnSelect(detail Detail) string {
	var b strings.Builder
	b.WriteString(`SELECT t.pk, t.id, t.branch, t.number, coalesce(t.user_message_id, ''), coalesce(t.assistant_message_id, ''),
		t.at, t.fired`)
	if detail&DetailStats != 0 {
		b.WriteString(`, t.rep_prompt, t.rep_completion, t.rep_total, t.rep_cached, t.rep_reasoning,
		t.est_prompt, t.est_completion, t.est_total, t.est_cached, t.est_reasoning,
		t.ttft_ns, t.latency_ns, t.finish_reason, t.error, t.responses`)
	}
	if detail&DetailRequest != 0 {
		b.WriteString(", t.request, t.context_digest")
	}
	if detail&DetailDecisions != 0 {
		b.WriteString(", d.decisions FROM turns t LEFT JOIN turn_decisions d ON d.turn_pk = t.pk")
	} else {
		b.WriteString(" FROM turns t")
	}
	return b.String()
}

// turnRow is a scanned turn row. Its raw fields are only valid until the next scan.
type turnRow struct {
	pk        int64
	t         chat.Turn
	at        string
	fired     sql.RawBytes
	rep       [5]sql.NullInt64
	ttft, lat int64
	request   sql.RawBytes
	decisions sql.RawBytes
	responses sql.RawBytes
	digest    sql.NullString // a NULL and a '' told apart, which RawBytes cannot do
	// lastDigest is the context digest of the turn decoded before: the turns of a chat
	// share one copy of each (most are sent with the same file).
	lastDigest *string
}

func (r *turnRow) scan(rows *sql.Rows, detail Detail) error {
	t := &r.t
	*t = chat.Turn{}
	r.rep = [5]sql.NullInt64{}
	r.ttft, r.lat = 0, 0
	dest := []any{&r.pk, &t.ID, &t.Branch, &t.Number, &t.UserMessageID, &t.AssistantMessageID, &r.at, &r.fired}
	if detail&DetailStats != 0 {
		dest = append(dest, &r.rep[0], &r.rep[1], &r.rep[2], &r.rep[3], &r.rep[4],
			&t.Estimated.PromptTokens, &t.Estimated.CompletionTokens, &t.Estimated.TotalTokens,
			&t.Estimated.CachedTokens, &t.Estimated.ReasoningTokens,
			&r.ttft, &r.lat, &t.FinishReason, &t.Error, &r.responses)
	}
	if detail&DetailRequest != 0 {
		dest = append(dest, &r.request, &r.digest)
	}
	if detail&DetailDecisions != 0 {
		dest = append(dest, &r.decisions)
	}
	return rows.Scan(dest...)
}

// decode sets *t to the scanned turn.
func (r *turnRow) decode(t *chat.Turn, chatID string, detail Detail) error {
	*t = r.t
	t.ChatID = chatID
	var err error
	if t.At, err = decTime(r.at); err != nil {
		return fmt.Errorf("turn %q: %w", t.ID, err)
	}
	if r.fired != nil {
		if err := decodeFired(r.fired, &t.Fired); err != nil {
			return fmt.Errorf("turn %q: fired: %w", t.ID, err)
		}
	}
	if detail&DetailStats != 0 {
		t.TTFT, t.Latency = time.Duration(r.ttft), time.Duration(r.lat)
		if r.rep[0].Valid {
			t.Reported = &chat.Usage{PromptTokens: int(r.rep[0].Int64), CompletionTokens: int(r.rep[1].Int64),
				TotalTokens: int(r.rep[2].Int64), CachedTokens: int(r.rep[3].Int64), ReasoningTokens: int(r.rep[4].Int64)}
		}
		if r.responses != nil {
			if err := decodeResponses(r.responses, &t.Responses); err != nil {
				return fmt.Errorf("turn %q: responses: %w", t.ID, err)
			}
		}
	}
	if detail&DetailRequest != 0 {
		if err := json.Unmarshal(r.request, &t.Request); err != nil {
			return fmt.Errorf("turn %q: request: %w", t.ID, err)
		}
		if r.digest.Valid {
			if r.lastDigest == nil || *r.lastDigest != r.digest.String {
				d := r.digest.String
				r.lastDigest = &d
			}
			t.ContextDigest = r.lastDigest
		}
	}
	if detail&DetailDecisions != 0 && r.decisions != nil {
		t.Decisions = json.RawMessage(append([]byte(nil), r.decisions...))
	}
	return nil
}

// PathTurns returns the light turn records of a path (as returned by Path): the turns
// whose assistant message is on the path or, for a turn without one (it failed before any
// reply), whose user message is, in path order. A light record is what the engine derives
// counters and latches from; PathTurnsWith and Turn load more.
func (d *DB) PathTurns(ctx context.Context, chatID string, path []chat.Message) ([]chat.Turn, error) {
	return d.PathTurnsWith(ctx, chatID, path, DetailLight)
}

// CompleteTurns returns the complete turn records of a path, what a replay shows
// (engine.Store).
func (d *DB) CompleteTurns(ctx context.Context, chatID string, path []chat.Message) ([]chat.Turn, error) {
	return d.PathTurnsWith(ctx, chatID, path, DetailAll)
}

// PathTurnsWith is PathTurns with the parts of each record that detail selects: DetailLight for
// what a branch switch needs, DetailAll for a replay.
func (d *DB) PathTurnsWith(ctx context.Context, chatID string, path []chat.Message, detail Detail) ([]chat.Turn, error) {
	var out []chat.Turn
	err := d.read(ctx, func(q querier) error {
		var err error
		out, err = pathTurns(ctx, q, &d.pieces, chatID, path, detail)
		return err
	})
	return out, err
}

// shortPath is the longest path whose turns pathTurns looks up by message id.
var shortPath = 1000

// pathTurns returns the turns of a path, in path order.
func pathTurns(ctx context.Context, q querier, pc *pieceCache, chatID string, path []chat.Message, detail Detail) ([]chat.Turn, error) {
	if len(path) == 0 {
		return nil, nil
	}
	pos := make(map[string]int, len(path))
	for i := range path {
		pos[path[i].ID] = i
	}
	// No ORDER BY: the rows are sorted here by path position, and sorting them in SQLite
	// would first copy them all into a temporary b-tree. A short path (a branch switch's
	// tail) looks its turns up by message id; a long one scans the chat's turns, which
	// costs less than thousands of lookups.
	var rows *sql.Rows
	var err error
	if len(path) <= shortPath {
		ids := make([]string, len(path))
		for i := range path {
			ids[i] = path[i].ID
		}
		list, _ := json.Marshal(ids)
		rows, err = q.QueryContext(ctx, turnSelect(detail)+` WHERE t.pk IN (
			SELECT pk FROM turns WHERE chat_id = ?1 AND assistant_message_id IN (SELECT value FROM json_each(?2))
			UNION ALL
			SELECT pk FROM turns WHERE chat_id = ?1 AND assistant_message_id IS NULL AND user_message_id IN (SELECT value FROM json_each(?2)))`,
			chatID, string(list))
	} else {
		rows, err = q.QueryContext(ctx, turnSelect(detail)+" WHERE t.chat_id = ?", chatID)
	}
	if err != nil {
		return nil, dbErr(ctx, err, "load turns")
	}
	defer rows.Close()
	type placed struct {
		at int   // position on the path
		pk int64 // commit order, for turns at the same position
		i  int   // index in turns
	}
	var (
		found []placed
		turns []chat.Turn
		r     turnRow
	)
	for rows.Next() {
		if err := r.scan(rows, detail); err != nil {
			return nil, dbErr(ctx, err, "load turns")
		}
		at, ok := pos[r.t.AssistantMessageID]
		if r.t.AssistantMessageID == "" {
			at, ok = pos[r.t.UserMessageID]
		}
		if !ok {
			continue
		}
		turns = append(turns, chat.Turn{})
		if err := r.decode(&turns[len(turns)-1], chatID, detail); err != nil {
			return nil, err
		}
		found = append(found, placed{at, r.pk, len(turns) - 1})
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr(ctx, err, "load turns")
	}
	sort.Slice(found, func(i, j int) bool {
		if found[i].at != found[j].at {
			return found[i].at < found[j].at
		}
		return found[i].pk < found[j].pk
	})
	rows.Close()
	if detail&DetailDecisions != 0 {
		if err := pc.unpackTurns(ctx, q, turns); err != nil {
			return nil, err
		}
	}
	out := make([]chat.Turn, len(found))
	for i, f := range found {
		out[i] = turns[f.i]
	}
	return out, nil
}

// queryTurns returns the turns a WHERE clause selects, in commit order.
func queryTurns(ctx context.Context, q querier, pc *pieceCache, chatID string, detail Detail, where string, args ...any) ([]chat.Turn, error) {
	rows, err := q.QueryContext(ctx, turnSelect(detail)+" WHERE t.chat_id = ? AND ("+where+") ORDER BY t.pk",
		append([]any{chatID}, args...)...)
	if err != nil {
		return nil, dbErr(ctx, err, "load turns")
	}
	defer rows.Close()
	var out []chat.Turn
	var r turnRow
	for rows.Next() {
		if err := r.scan(rows, detail); err != nil {
			return nil, dbErr(ctx, err, "load turns")
		}
		out = append(out, chat.Turn{})
		if err := r.decode(&out[len(out)-1], chatID, detail); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr(ctx, err, "load turns")
	}
	rows.Close()
	if detail&DetailDecisions != 0 {
		if err := pc.unpackTurns(ctx, q, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Turn returns one turn record, complete (request and decisions).
func (d *DB) Turn(ctx context.Context, chatID, turnID string) (chat.Turn, error) {
	ts, err := queryTurns(ctx, d.db, &d.pieces, chatID, DetailAll, "t.id = ?", turnID)
	if err != nil {
		return chat.Turn{}, err
	}
	if len(ts) == 0 {
		return chat.Turn{}, notFoundf("chat %q: turn %q not found", chatID, turnID)
	}
	return ts[0], nil
}

// TurnDecisions returns the decisions of a turn (nil if it recorded none); ErrNotFound if
// the turn does not exist.
func (d *DB) TurnDecisions(ctx context.Context, chatID, turnID string) (json.RawMessage, error) {
	var dec []byte
	var pk int64
	err := d.db.QueryRowContext(ctx, `SELECT t.pk, d.decisions FROM turns t LEFT JOIN turn_decisions d ON d.turn_pk = t.pk
		WHERE t.chat_id = ? AND t.id = ?`, chatID, turnID).Scan(&pk, &dec)
	if err == sql.ErrNoRows {
		return nil, notFoundf("chat %q: turn %q not found", chatID, turnID)
	}
	if err != nil {
		return nil, dbErr(ctx, err, fmt.Sprintf("chat %q: turn %q: decisions", chatID, turnID))
	}
	if !isPacked(dec) {
		return dec, nil
	}
	t := []chat.Turn{{ID: turnID, Decisions: dec}}
	if err := d.pieces.unpackTurns(ctx, d.db, t); err != nil {
		return nil, err
	}
	return t[0].Decisions, nil
}

// TurnsByMessage returns the turns whose user or assistant message is messageID, in commit
// order, with the parts detail selects: the turn an edit or a regenerate starts from (a
// regenerated reply has its own turn, with the same user message).
func (d *DB) TurnsByMessage(ctx context.Context, chatID, messageID string, detail Detail) ([]chat.Turn, error) {
	return queryTurns(ctx, d.db, &d.pieces, chatID, detail, "t.user_message_id = ?2 OR t.assistant_message_id = ?2", messageID)
}

// Snapshot is a chat opened on one branch, read in one consistent snapshot (see
// chat.Snapshot).
type Snapshot = chat.Snapshot

// Load opens a chat on a branch ("" for its active branch): the chat, its usage, the
// branch, the messages of its path and their turn records with the parts detail selects
// (DetailLight is enough to rebuild counters and latches), from one snapshot of the
// database: what the engine needs to start on or switch to a branch.
func (d *DB) Load(ctx context.Context, chatID, branch string, detail Detail) (Snapshot, error) {
	var s Snapshot
	err := d.read(ctx, func(q querier) error {
		var err error
		if s.Chat, s.Usage, err = loadChat(ctx, q, chatID); err != nil {
			return err
		}
		if branch == "" {
			branch = s.Chat.ActiveBranch
		}
		if s.Branch, err = loadBranch(ctx, q, chatID, branch); err != nil {
			return err
		}
		if s.Messages, err = loadPath(ctx, q, chatID, s.Branch.Head); err != nil {
			return err
		}
		s.Turns, err = pathTurns(ctx, q, &d.pieces, chatID, s.Messages, detail)
		return err
	})
	return s, err
}
