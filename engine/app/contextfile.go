package app

// DefaultContextFile is the context file a command uses when nothing names one and the
// working directory holds it; `ctxlab init` writes it.
const DefaultContextFile = "ctxlab.ctx.yaml"
