package app

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/store"
)

// AmbiguousChatError is a chat id prefix that more than one saved chat starts with.
type AmbiguousChatError struct {
	Prefix string
	// Candidates are the ids that start with Prefix, sorted.
	Candidates []string
}

func (e *AmbiguousChatError) Error() string {
	shown := e.Candidates
	if len(shown) > 10 {
		shown = append(shown[:10:10], fmt.Sprintf("… %d more", len(e.Candidates)-10))
	}
	return fmt.Sprintf("chat %q is ambiguous: %d chats start with it: %s", e.Prefix, len(e.Candidates), strings.Join(shown, ", "))
}

// ResolveChat returns the id of the saved chat idOrPrefix names: a chat with that exact
// id; else "last", the most recently updated chat; else the one chat whose id starts with
// it (git-style). A prefix several ids start with is an *AmbiguousChatError listing them;
// one none starts with is the store's error for the id (chat.ErrNotFound).
func (w *Workspace) ResolveChat(ctx context.Context, idOrPrefix string) (string, error) {
	if idOrPrefix == "" {
		return "", fmt.Errorf("chat %q: %w", idOrPrefix, chat.ErrNotFound)
	}
	c, exact := w.db.Chat(ctx, idOrPrefix)
	if exact == nil {
		return c.ID, nil
	}
	list, err := w.db.ListChats(ctx, store.ListOptions{})
	if err != nil {
		return "", err
	}
	if idOrPrefix == "last" {
		if len(list) == 0 {
			return "", fmt.Errorf("chat last: no chat saved yet: %w", chat.ErrNotFound)
		}
		return list[0].ID, nil
	}
	var found []string
	for _, c := range list {
		if strings.HasPrefix(c.ID, idOrPrefix) {
			found = append(found, c.ID)
		}
	}
	switch len(found) {
	case 0:
		return "", exact // the store's error: no such chat
	case 1:
		return found[0], nil
	}
	sort.Strings(found)
	return "", &AmbiguousChatError{Prefix: idOrPrefix, Candidates: found}
}
