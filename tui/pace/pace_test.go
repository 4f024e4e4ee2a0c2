package pace

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// lockedBuffer is the program's output, read by the test while the renderer writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// frameModel shows its text, and gives each frame to its pacer.
type frameModel struct {
	prog  *tea.Program
	pacer *Pacer
	err   error
	text  string
}

func (m *frameModel) Init() tea.Cmd { return nil }

func (m *frameModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case string:
		m.text = msg
	case tea.KeyMsg:
		return m, tea.Quit
	}
	return m, nil
}

func (m *frameModel) View() string {
	if m.pacer == nil && m.err == nil {
		m.pacer, m.err = Attach(m.prog)
	}
	if m.pacer != nil {
		m.pacer.Frame()
	}
	return "frame: " + m.text
}

// waitFor polls until ok, or fails after a few seconds.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 5s for %s", what)
		}
	}
}

// TestPacerSleepsWhenIdle runs a Bubble Tea program whose frames go through a Pacer: the
// renderer's ticker stops once the screen is still, every frame is drawn before it
// stops, and a new frame starts it again.
func TestPacerSleepsWhenIdle(t *testing.T) {
	out := &lockedBuffer{}
	m := &frameModel{text: "first"}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	in := strings.NewReader("")
	p := tea.NewProgram(m, tea.WithInput(in), tea.WithOutput(out), tea.WithContext(ctx), tea.WithoutSignalHandler())
	m.prog = p
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()

	waitFor(t, "the first frame drawn", func() bool { return strings.Contains(out.String(), "frame: first") })
	if m.err != nil {
		t.Fatalf("attach: %v", m.err)
	}
	pc := m.pacer
	waitFor(t, "the ticker to stop", pc.Paused)

	p.Send("second")
	waitFor(t, "the second frame drawn", func() bool { return strings.Contains(out.String(), "frame: second") })
	waitFor(t, "the ticker to stop again", pc.Paused)

	// Frames in a row, the last just before the pause would come: all drawn.
	for i := range 5 {
		p.Send("burst " + string(rune('a'+i)))
		time.Sleep(IdleAfter / 3)
	}
	waitFor(t, "the last frame of the run drawn", func() bool { return strings.Contains(out.String(), "frame: burst e") })
	waitFor(t, "the ticker to stop after the run", pc.Paused)
	n := len(out.String())
	time.Sleep(3 * IdleAfter)
	if len(out.String()) != n {
		t.Errorf("the renderer wrote while paused")
	}

	p.Quit()
	if err := <-done; err != nil {
		t.Fatalf("program: %v", err)
	}
}

// TestAttachRefusesAnUnknownProgram: a program not running (no renderer yet) is refused,
// and nothing else happens.
func TestAttachRefusesAnUnknownProgram(t *testing.T) {
	p := tea.NewProgram(&frameModel{})
	if _, err := Attach(p); err == nil {
		t.Error("attached to a program that has no renderer")
	}
}

// TestPauseWaitsForTheDraw: the ticker is not stopped while the renderer holds a frame it
// has not drawn (a busy machine can delay its tick past IdleAfter).
func TestPauseWaitsForTheDraw(t *testing.T) {
	var next bytes.Buffer
	last := ""
	pc := &Pacer{ticker: time.NewTicker(time.Hour), rate: time.Hour, rmu: &sync.Mutex{}, next: &next, last: &last}
	defer pc.ticker.Stop()
	next.WriteString("frame 2")
	last = "frame 1"
	pc.pause(pc.gen)
	if pc.Paused() {
		t.Fatal("paused before the renderer drew the last frame")
	}
	pc.mu.Lock()
	pc.idle.Stop() // the retry: run by hand below
	pc.mu.Unlock()
	last = "frame 2"
	pc.pause(pc.gen)
	if !pc.Paused() {
		t.Fatal("not paused once the last frame was drawn")
	}
	pc.Frame()
	if pc.Paused() {
		t.Error("a frame did not start the ticker again")
	}
	pc.mu.Lock()
	pc.idle.Stop()
	pc.mu.Unlock()
}
