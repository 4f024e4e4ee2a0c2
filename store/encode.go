package store

import (
	"strconv"
	"sync"
	"unsafe"

	"github.com/ctxlab/ctxlab/engine/chat"
)

// Hand-written encoders of the columns every commit writes (a message's parts, its
// reminder spans, a turn's fired reminders). They write the bytes marshalJSON writes
// (encoding/json without HTML escaping), which decode.go reads back by hand, at a fraction
// of its cost; a value they do not cover (a tool part's JSON input, which encoding/json
// compacts) goes to marshalJSON.

// encBufPool holds the buffers of the encoders.
var encBufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// maxPooledBuf is the largest buffer put back in encBufPool: one that held a message of
// megabytes is left to the garbage collector, not kept for the next message.
const maxPooledBuf = 1 << 20

// putEncBuf puts a buffer back in encBufPool unless it grew past maxPooledBuf.
func putEncBuf(bp *[]byte) {
	if *bp != nil && cap(*bp) <= maxPooledBuf {
		encBufPool.Put(bp)
	}
}

// encodeParts returns the parts column of parts.
func encodeParts(parts []chat.Part) (string, error) {
	for i := range parts {
		if len(parts[i].Input) > 0 {
			return marshalJSON(parts)
		}
	}
	if parts == nil {
		return "null", nil
	}
	bp := encBufPool.Get().(*[]byte)
	defer putEncBuf(bp)
	size := 2
	for i := range parts {
		p := &parts[i]
		size += 64 + len(p.Text) + len(p.ToolCallID) + len(p.ToolName) + len(p.Output) + len(p.ErrorText)
	}
	if cap(*bp) < size { // a long text: room for it at once, not by doubling
		*bp = make([]byte, 0, size+size/16)
	}
	b := append((*bp)[:0], '[')
	for i := range parts {
		p := &parts[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":`...)
		b = chat.AppendJSONString(b, string(p.Type))
		b = appendOptString(b, `,"text":`, p.Text)
		b = appendOptString(b, `,"tool_call_id":`, p.ToolCallID)
		b = appendOptString(b, `,"tool_name":`, p.ToolName)
		b = appendOptString(b, `,"state":`, string(p.State))
		b = appendOptString(b, `,"output":`, p.Output)
		b = appendOptString(b, `,"error_text":`, p.ErrorText)
		if p.Round != 0 {
			b = append(b, `,"round":`...)
			b = strconv.AppendInt(b, int64(p.Round), 10)
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if cap(b) > maxPooledBuf { // not put back: the string can be the buffer, not a copy
		*bp = nil
		return unsafe.String(unsafe.SliceData(b), len(b)), nil
	}
	*bp = b
	return string(b), nil
}

// encodeReminders returns the reminders column of spans (not empty).
func encodeReminders(spans []chat.ReminderSpan) string {
	bp := encBufPool.Get().(*[]byte)
	defer putEncBuf(bp)
	b := append((*bp)[:0], '[')
	for i := range spans {
		s := &spans[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = chat.AppendJSONString(b, s.ID)
		b = append(b, `,"part_index":`...)
		b = strconv.AppendInt(b, int64(s.Part), 10)
		b = append(b, `,"start":`...)
		b = strconv.AppendInt(b, int64(s.Start), 10)
		b = append(b, `,"end":`...)
		b = strconv.AppendInt(b, int64(s.End), 10)
		b = append(b, `,"mode":`...)
		b = chat.AppendJSONString(b, s.Mode)
		b = append(b, '}')
	}
	b = append(b, ']')
	*bp = b
	return string(b)
}

// encodeFired returns the fired column of fired (not empty).
func encodeFired(fired []chat.Fired) string {
	bp := encBufPool.Get().(*[]byte)
	defer putEncBuf(bp)
	b := append((*bp)[:0], '[')
	for i := range fired {
		f := &fired[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = chat.AppendJSONString(b, f.ID)
		if len(f.Latches) > 0 {
			b = append(b, `,"latches":[`...)
			for j, l := range f.Latches {
				if j > 0 {
					b = append(b, ',')
				}
				b = chat.AppendJSONString(b, l)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	*bp = b
	return string(b)
}

// appendOptString appends field (with its comma and colon) and s, unless s is empty.
func appendOptString(b []byte, field, s string) []byte {
	if s == "" {
		return b
	}
	return chat.AppendJSONString(append(b, field...), s)
}
