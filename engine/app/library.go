package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/ctxlab/ctxlab/engine"
	"github.com/ctxlab/ctxlab/engine/ctxfile"
	"github.com/ctxlab/ctxlab/store"
)

// Library is what the workbench's chats overlay works on: the saved chats of a workspace,
// opened with the settings and model the workbench started with.
type Library struct {
	// W is the workspace; Settings and Model answer the chats opened (Model nil: the user
	// writes the replies).
	W        *Workspace
	Settings Settings
	Model    engine.Replier
	// File is the context file of a chat that has none recorded, or whose recorded file
	// no longer loads.
	File *ctxfile.File
	// Export writes a saved chat in a format (json, markdown or openai) to w; nil: the
	// library cannot export.
	Export func(ctx context.Context, w io.Writer, format, chatID string) error
}

// Chats lists the saved chats, most recently updated first, with their cost (as
// Workspace.Chats gives them, priced under the flags alone), in two queries however many
// chats there are.
func (l *Library) Chats(ctx context.Context) ([]ChatSummary, error) {
	list, err := l.W.db.ListChats(ctx, store.ListOptions{})
	if err != nil {
		return nil, err
	}
	priced, err := l.W.db.PricedUsageByChat(ctx)
	if err != nil {
		return nil, err
	}
	settings, err := l.W.Settings(nil, true)
	if err != nil {
		return nil, err
	}
	out := make([]ChatSummary, len(list))
	for i := range list {
		out[i].ChatSummary = list[i]
		if usd, known := priceUsage(settings, priced[list[i].ID]); known {
			out[i].CostUSD = &usd
		}
	}
	return out, nil
}

// Search returns the ids of the chats with a message holding every word of text (word
// prefixes, any case; the store's full-text index), unpriced: what a filter adds to the
// titles it matches.
func (l *Library) Search(ctx context.Context, text string) (map[string]bool, error) {
	list, err := l.W.db.ListChats(ctx, store.ListOptions{Search: text})
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(list))
	for _, c := range list {
		out[c.ID] = true
	}
	return out, nil
}

// Open opens a saved chat on the context file recorded for it (else l.File). A chat
// recorded with the file the workbench has in force, inForce (nil: none), opens on it as
// it is in force: a reload may have loaded it again since l.File was, and the chat's next
// turn is sent with it. note says why the recorded file was not used ("" when it was, or
// none is recorded).
func (l *Library) Open(ctx context.Context, id string, inForce *ctxfile.File) (c *Chat, note string, err error) {
	file := l.File
	path, err := l.W.ChatContext(ctx, id)
	if err != nil {
		return nil, "", err
	}
	switch {
	case path == "":
	case inForce != nil && samePath(path, inForce.Path):
		file = inForce
	case !samePath(path, file.Path):
		f, err := ctxfile.Load(path)
		if err != nil {
			note = fmt.Sprintf("the chat's context file %s does not load; using %s (%v)", path, file.Path, err)
		} else {
			file = f
		}
	}
	e, err := l.W.Engine(file, l.Settings)
	if err != nil {
		return nil, "", err
	}
	c, err = l.W.OpenChat(ctx, l.Settings, e, l.Model, id)
	if err != nil {
		return nil, "", err
	}
	return c, note, nil
}

// New starts a new chat on file (nil: l.File), saved with its first turn.
func (l *Library) New(file *ctxfile.File) (*Chat, error) {
	if file == nil {
		file = l.File
	}
	e, err := l.W.Engine(file, l.Settings)
	if err != nil {
		return nil, err
	}
	return l.W.NewChat(l.Settings, e, l.Model), nil
}

// Rename sets a saved chat's title.
func (l *Library) Rename(ctx context.Context, id, title string) error {
	return l.W.RenameChat(ctx, id, title)
}

// Delete removes a saved chat and everything of it.
func (l *Library) Delete(ctx context.Context, id string) error { return l.W.DeleteChat(ctx, id) }

// exportExt is the file extension of each export format.
var exportExt = map[string]string{"json": ".json", "markdown": ".md", "openai": ".openai.json"}

// ExportFile exports a saved chat in format to a new file in dir named after the chat
// (ExportName: NAME.md, NAME.json, NAME.openai.json), never overwriting: NAME-1.md,
// NAME-2.md … when the name is taken. It returns the path written; a failed export leaves
// no file.
func (l *Library) ExportFile(ctx context.Context, dir, format, id string) (string, error) {
	ext, ok := exportExt[format]
	if !ok {
		return "", fmt.Errorf("unknown export format %q (want json, markdown or openai)", format)
	}
	if l.Export == nil {
		return "", errors.New("export is not available here")
	}
	c, err := l.W.db.Chat(ctx, id)
	if err != nil {
		return "", err
	}
	base := ExportName(c.Title, c.ID)
	for i := 0; i < 1000; i++ {
		name := base + ext
		if i > 0 {
			name = base + "-" + strconv.Itoa(i) + ext
		}
		path := filepath.Join(dir, name)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("export to %s: %w", path, err)
		}
		err = l.Export(ctx, f, format, id)
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("export to %s: %w", path, cerr)
		}
		if err != nil {
			os.Remove(path)
			return "", err
		}
		return path, nil
	}
	return "", fmt.Errorf("export: every name from %s%s to %s-999%s is taken in %s", base, ext, base, ext, dir)
}

// Export file names: the slug of a title is at most maxSlug bytes, and the id's suffix
// idSuffix bytes.
const (
	maxSlug  = 48
	idSuffix = 8
)

// ExportName is the base name of a chat's export file (without its extension): the slug
// of its title (lower-case ASCII letters and digits, every other run of characters a
// single '-'; accents dropped, so "Café" gives "cafe"; at most 48 bytes), then '-' and a
// short suffix of its id (its last 8 letters and digits), so that two chats of one title
// do not share a name: "Support demo" of chat "demo-1" is "support-demo-demo1". A title
// with nothing to keep (empty, emoji alone) gives the id, made safe the same way and
// bounded too. The name holds no path separator, dot, blank or control character, and is
// never a name Windows reserves (CON, NUL, COM1 …): it can be written on any system.
func ExportName(title, id string) string {
	idSlug := slug(id, 2*maxSlug)
	name := slug(title, maxSlug)
	switch {
	case name == "" && idSlug == "":
		name = "chat"
	case name == "":
		name = idSlug
	default:
		alnum := strings.ReplaceAll(idSlug, "-", "")
		if len(alnum) > idSuffix {
			alnum = alnum[len(alnum)-idSuffix:]
		}
		if alnum != "" {
			name += "-" + alnum
		}
	}
	if reservedName(name) {
		name = "chat-" + name
	}
	return name
}

// slug lower-cases s to ASCII letters and digits, its accents dropped, every other run of
// characters one '-', none at either end, cut to at most n bytes (at a '-' when one is
// near).
func slug(s string, n int) string {
	var b strings.Builder
	dash := false
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r): // an accent, decomposed from its letter
			continue
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
		case r >= 'A' && r <= 'Z':
			r += 'a' - 'A'
		default:
			dash = b.Len() > 0
			continue
		}
		if dash {
			b.WriteByte('-')
			dash = false
		}
		b.WriteRune(r)
	}
	out := b.String()
	if len(out) > n {
		out = out[:n]
		if i := strings.LastIndexByte(out, '-'); i > n/2 {
			out = out[:i]
		}
		out = strings.TrimRight(out, "-")
	}
	return out
}

// reservedName reports whether a base name is one Windows reserves for devices.
func reservedName(name string) bool {
	switch strings.ToLower(name) {
	case "con", "prn", "aux", "nul":
		return true
	}
	l := strings.ToLower(name)
	return len(l) == 4 && (strings.HasPrefix(l, "com") || strings.HasPrefix(l, "lpt")) && l[3] >= '0' && l[3] <= '9'
}

// samePath reports whether two paths name the same file once made absolute.
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}
