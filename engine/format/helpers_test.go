package format_test

import (
	"context"

	"github.com/ctxlab/ctxlab/store/storetest"
)

var (
	ctx = context.Background()
	t0  = storetest.TurnStart
)
