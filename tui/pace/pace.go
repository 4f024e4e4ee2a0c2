// Package pace lets the workbench sleep while its screen does not change.
//
// Bubble Tea v1's renderer draws on a ticker that runs at the program's frame rate (60
// a second) for as long as the program runs, whether there is anything new to draw or
// not: an idle workbench woke 60 times a second and used about 0.6% of a core doing
// nothing. The renderer has no way to pause, so a Pacer reaches its ticker (pinned
// Bubble Tea v1.3.x; Attach fails, and nothing changes, on a renderer it does not know):
// each frame the program is given starts the ticker again, and a quarter of a second
// without one stops it, once the renderer has drawn the last frame (on a busy machine
// that can take longer: the ticker then runs until it has).
package pace

import (
	"bytes"
	"errors"
	"reflect"
	"sync"
	"time"
	"unsafe"

	tea "github.com/charmbracelet/bubbletea"
)

// IdleAfter is how long after the last frame the renderer's ticker stops: many of its
// ticks, so the last frame is always drawn first.
const IdleAfter = 250 * time.Millisecond

// Pacer starts and stops the frame ticker of a program's renderer. Its methods are safe
// for concurrent use.
type Pacer struct {
	ticker *time.Ticker
	rate   time.Duration
	// The renderer's lock, the frame it was last given and the one it drew last.
	rmu  *sync.Mutex
	next *bytes.Buffer
	last *string

	mu     sync.Mutex
	gen    int // frames seen: a stop planned before the last frame is void
	paused bool
	idle   *time.Timer
}

// Attach returns the Pacer of p's renderer. Call it once the program runs (from the
// model's View, which Bubble Tea calls after it started the renderer), on the program's
// goroutine.
func Attach(p *tea.Program) (*Pacer, error) {
	r := reflect.ValueOf(p).Elem().FieldByName("renderer")
	if !r.IsValid() || r.Kind() != reflect.Interface || r.IsNil() {
		return nil, errors.New("pace: the program has no renderer")
	}
	std := r.Elem()
	if std.Kind() != reflect.Pointer || std.Type().Elem().Name() != "standardRenderer" {
		return nil, errors.New("pace: the renderer is not Bubble Tea's standard one")
	}
	v := std.Elem()
	ticker, rate, rmu := fieldOf[*time.Ticker](v, "ticker"), fieldOf[time.Duration](v, "framerate"), fieldOf[*sync.Mutex](v, "mtx")
	next, last := fieldOf[bytes.Buffer](v, "buf"), fieldOf[string](v, "lastRender")
	if ticker == nil || rate == nil || rmu == nil || next == nil || last == nil || *ticker == nil || *rate <= 0 || *rmu == nil {
		return nil, errors.New("pace: the renderer has no frame ticker (not started, or another Bubble Tea)")
	}
	return &Pacer{ticker: *ticker, rate: *rate, rmu: *rmu, next: next, last: last}, nil
}

// fieldOf is the address of the unexported field name of the struct v, if it is of type
// T (nil if not).
func fieldOf[T any](v reflect.Value, name string) *T {
	f := v.FieldByName(name)
	if !f.IsValid() || f.Type() != reflect.TypeFor[T]() || !f.CanAddr() {
		return nil
	}
	return (*T)(unsafe.Pointer(f.UnsafeAddr()))
}

// Frame says the program is drawing a frame: the ticker runs (again), until IdleAfter
// without a frame.
func (pc *Pacer) Frame() {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.gen++
	if pc.paused {
		pc.ticker.Reset(pc.rate)
		pc.paused = false
	}
	if pc.idle != nil {
		pc.idle.Stop()
	}
	gen := pc.gen
	pc.idle = time.AfterFunc(IdleAfter, func() { pc.pause(gen) })
}

// pause stops the ticker, unless a frame came after the one it was planned at, or the
// renderer has not drawn the last frame yet (it then tries again later).
func (pc *Pacer) pause(gen int) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if gen != pc.gen || pc.paused {
		return
	}
	pc.rmu.Lock()
	drawn := pc.next.Len() == 0 || pc.next.String() == *pc.last
	pc.rmu.Unlock()
	if !drawn {
		pc.idle = time.AfterFunc(IdleAfter, func() { pc.pause(gen) })
		return
	}
	pc.ticker.Stop()
	pc.paused = true
}

// Paused reports whether the ticker is stopped.
func (pc *Pacer) Paused() bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.paused
}
