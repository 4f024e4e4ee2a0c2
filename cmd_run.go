package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"sync"

	"github.com/spf13/cobra"

	"github.com/ctxlab/ctxlab/engine"
	ctxapp "github.com/ctxlab/ctxlab/engine/app"
	"github.com/ctxlab/ctxlab/engine/diag"
	"github.com/ctxlab/ctxlab/engine/script"
)

// maxStdinScript caps a script read from stdin, as a script file is capped: a runaway
// pipe fails at once, in bounded memory.
const maxStdinScript = 8 << 20

func (a *app) runCommand() *cobra.Command {
	var contextPath, requestForm string
	var asJSON, showMessages bool
	cmd := &cobra.Command{
		Use:   "run SCRIPT.yaml|-",
		Short: "Play a script: each turn is answered by its scripted reply or sent to the model",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkRequestFlag(requestForm, asJSON); err != nil {
				return err
			}
			// A run is a batch whose live heap is small (a few MB for 500 turns) and whose
			// turns each leave about 150 KB behind: collecting when the heap has tripled
			// rather than doubled takes half the collections, for about 11 MB more at the
			// peak of a 500-turn run. Until the first turn is saved (the files parsed, the
			// vocabulary loaded, the dry run played: about 20 MB that mostly stays), the
			// heap is not collected at all unless it reaches 256 MiB. GOGC overrides both.
			startGC := func() {}
			if os.Getenv("GOGC") == "" {
				defer debug.SetGCPercent(debug.SetGCPercent(-1))
				defer debug.SetMemoryLimit(debug.SetMemoryLimit(256 << 20))
				var once sync.Once
				startGC = func() {
					once.Do(func() {
						debug.SetGCPercent(200)
						debug.SetMemoryLimit(math.MaxInt64)
					})
				}
			}
			run := ctxapp.ScriptRun{Path: args[0], Context: contextPath}
			if args[0] == "-" {
				data, err := io.ReadAll(io.LimitReader(a.stdin, maxStdinScript+1))
				if err != nil {
					return fmt.Errorf("read the script from stdin: %w", err)
				}
				if len(data) > maxStdinScript {
					return &diag.Error{File: "<stdin>", Msg: fmt.Sprintf("too large: a script holds at most %d MiB", maxStdinScript>>20)}
				}
				run.Path, run.Data = "<stdin>", data
			}
			var stream *turnStream
			if _, tty := a.stdoutTerminal(); tty && !asJSON {
				stream = newTurnStream(a.stdout, a.view(showMessages))
				run.OnEvent = stream.event
			}
			// Into a file or a pipe, the turns' blocks are formatted and written on a
			// goroutine of their own, while the next turn commits; each block and notice
			// in its place. A turn's trace, script step and view are not changed after
			// the turn: the queue reads them later.
			out := newOutQueue(stream == nil)
			defer out.wait()
			lines := newJSONLines(a.stdout, requestForm) // written on the queue only
			// Each turn's block is written whole, in one write: it is built in turnOut,
			// made inert as writeTurnView writes it.
			var turnOut bytes.Buffer
			view := a.view(showMessages)
			printTurn := func(st *script.Step, res *engine.TurnResult, saved bool) {
				t := res.Trace(res.Turn.ChatID)
				switch {
				case asJSON:
					out.do(func() { _ = lines.write(&t) })
				case stream != nil:
					stream.turn(st, &t, res.PlannedOn)
				default:
					out.do(func() {
						turnOut.Reset()
						if t.PlannedOn != "" {
							fmt.Fprintf(&turnOut, "── another writer wrote to %s meanwhile: saved on %s\n", t.PlannedOn, t.Branch)
						}
						writeTurnView(inertWriter{&turnOut}, &t, stepUser(st), stepSource(st, t.Request.Model), view)
						_, _ = a.stdout.Write(turnOut.Bytes())
					})
				}
				if !saved && !asJSON {
					out.do(func() {
						fmt.Fprintln(humanOutput(a.stdout), "── NOT SAVED: the reply above could not be saved (the error below says why)")
					})
				}
			}
			run.OnTurn = func(st *script.Step, res *engine.TurnResult) {
				startGC()
				printTurn(st, res, true)
			}
			run.OnUnsaved = func(st *script.Step, res *engine.TurnResult) { printTurn(st, res, false) }
			run.OnNotice = func(_ *script.Step, msg string) {
				out.do(func() { fmt.Fprintln(humanOutput(a.stderr), msg) })
			}
			run.OnStep = func(_ *script.Step, what string) {
				if !asJSON {
					out.do(func() { fmt.Fprintf(a.stdout, "── %s\n", what) })
				}
			}
			res, err := ctxapp.RunScript(cmd.Context(), a.options(), run)
			out.wait()
			if err != nil {
				return err
			}
			if !asJSON {
				sess := res.Session
				c := sess.Chat()
				u := sess.Usage()
				line := fmt.Sprintf("── chat %s · branch %s · %s · %d tokens in all", c.ID, sess.Branch(), plural(sess.TurnCount(), "turn"), u.Total())
				if res.RunPriced {
					line += " · this run " + formatUSD(res.RunCost)
				}
				if res.ChatPriced {
					line += " · chat " + formatUSD(res.ChatCost)
				}
				fmt.Fprintln(humanOutput(a.stdout), line+" · saved in "+savedIn(res.DBPath))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&contextPath, "context", "", "context file (default: the script's context:)")
	f.BoolVar(&showMessages, "show-messages", false, "show the final user message as sent (reminders baked in) and the system-placement message")
	f.BoolVar(&asJSON, "json", false, "print one JSON trace per turn, one per line")
	addRequestFlag(cmd, &requestForm)
	return cmd
}
