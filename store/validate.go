package store

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// checkName reports an id or name that the engine's stores all refuse (chat.CheckName):
// empty, too long, not UTF-8 or holding control characters.
func checkName(kind, s string) error {
	return invalid(chat.CheckName(kind, s))
}

// checkTime reports a time that cannot be stored (chat.CheckTime).
func checkTime(t time.Time, what string) error {
	return invalid(chat.CheckTime(t, what))
}

// checkChat validates a chat record before it is written (chat.CheckChat).
func checkChat(c *chat.Chat) error { return invalid(chat.CheckChat(c)) }

// checkMessage validates a message before it is written (chat.CheckMessage).
func checkMessage(m *chat.Message) error { return invalid(chat.CheckMessage(m)) }

// checkTurn validates a turn before it is written (chat.CheckTurn); its references are
// checked by the database.
func checkTurn(t *chat.Turn) error { return invalid(chat.CheckTurn(t)) }

// invalid returns a refusal of the record checks of package chat as an ErrInvalid error
// of the store, with the same message.
func invalid(err error) error {
	if err == nil {
		return nil
	}
	return &storeError{msg: err.Error(), kind: ErrInvalid}
}

func quote(s string) string { return chat.Quote(s) }

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// marshalJSON encodes v without escaping <, > and & (messages are full of tags).
func marshalJSON(v any) (string, error) {
	buf := bufPool.Get().(*bytes.Buffer)
	defer bufPool.Put(buf)
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// compactJSON returns raw compacted, or an error if it is not valid JSON.
func compactJSON(raw []byte) (string, error) {
	buf := bufPool.Get().(*bytes.Buffer)
	defer bufPool.Put(buf)
	buf.Reset()
	if err := json.Compact(buf, raw); err != nil {
		return "", err
	}
	return buf.String(), nil
}
