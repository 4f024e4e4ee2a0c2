package app

import (
	"context"

	"github.com/ctxlab/ctxlab/engine/chat"
	"github.com/ctxlab/ctxlab/llm/tokens"
	"github.com/ctxlab/ctxlab/store"
)

// ChatSummary is a saved chat as the chat list shows it: the store's summary (id, title,
// branches, turns on the active branch, messages, usage, times) and its cost.
type ChatSummary struct {
	store.ChatSummary
	// CostUSD is the chat's cost, nil when the price of some model it used is unknown.
	CostUSD *float64
}

// Chats lists the saved chats, most recently updated first, priced under the settings of
// the flags alone. A search that is not blank keeps the chats with a message holding
// every word of it (word prefixes, any case; baked reminders are not searched).
func (w *Workspace) Chats(ctx context.Context, search string) ([]ChatSummary, error) {
	list, err := w.db.ListChats(ctx, store.ListOptions{Search: search})
	if err != nil {
		return nil, err
	}
	settings, err := w.Settings(nil, true)
	if err != nil {
		return nil, err
	}
	out := make([]ChatSummary, len(list))
	for i := range list {
		out[i].ChatSummary = list[i]
		usd, known, err := w.ChatCost(ctx, settings, list[i].ID)
		if err != nil {
			return nil, err
		}
		if known {
			out[i].CostUSD = &usd
		}
	}
	return out, nil
}

// LastChat returns the id of the most recently updated chat, or "" when there is none.
func (w *Workspace) LastChat(ctx context.Context) (string, error) {
	list, err := w.db.ListChats(ctx, store.ListOptions{Limit: 1})
	if err != nil || len(list) == 0 {
		return "", err
	}
	return list[0].ID, nil
}

// ChatCost prices a chat's usage, model by model (every branch); known is false when some
// model that used tokens has no price (the scripted model, a local model not in the
// table).
func (w *Workspace) ChatCost(ctx context.Context, s Settings, chatID string) (usd float64, known bool, err error) {
	byModel, err := w.db.PricedUsageByModel(ctx, chatID)
	if err != nil {
		return 0, false, err
	}
	usd, known = priceUsage(s, byModel)
	return usd, known, nil
}

// priceUsage prices usage by model; known is false when some model that used tokens has
// no price, or nothing is priced.
func priceUsage(s Settings, byModel map[string]chat.Usage) (usd float64, known bool) {
	known = len(byModel) > 0
	for model, u := range byModel {
		c, ok := tokens.Cost(model, u, s.PriceOverride(model))
		if !ok && u.Total() > 0 {
			known = false
		}
		usd += c
	}
	return usd, known
}
