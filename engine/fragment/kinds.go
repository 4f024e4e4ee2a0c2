package fragment

// The kinds of the context file, their fields in the order of @deepagents/context, and the
// Go constructors that build the same fragments. See Decode for the table.

// fieldType is what a field of a kind holds.
type fieldType uint8

const (
	fieldText     fieldType = iota // one text
	fieldTexts                     // a list of texts
	fieldPolicies                  // a list of texts or policy mappings
)

// fieldSpec describes one field of a kind.
type fieldSpec struct {
	name     string
	typ      fieldType
	required bool
}

// kindSpec describes a fragment kind of the context file.
type kindSpec struct {
	name string
	// textForm: a plain string is accepted as the whole content (`- hint: text`).
	textForm bool
	// fields of the mapping form, in output order; nil means text only.
	fields []fieldSpec
	// oneOf: the mapping form needs at least one field (identity).
	oneOf bool
}

func req(name string) fieldSpec  { return fieldSpec{name: name, typ: fieldText, required: true} }
func opt(name string) fieldSpec  { return fieldSpec{name: name, typ: fieldText} }
func reqs(name string) fieldSpec { return fieldSpec{name: name, typ: fieldTexts, required: true} }
func opts(name string) fieldSpec { return fieldSpec{name: name, typ: fieldTexts} }
func pols() fieldSpec            { return fieldSpec{name: "policies", typ: fieldPolicies} }

// The kind names with a special decoder.
const (
	kindGlossary = "glossary"
	kindFragment = "fragment"
	kindSkills   = "skills"
)

// kinds lists every kind in documentation order.
var kinds = []kindSpec{
	{name: "role", textForm: true},
	{name: "hint", textForm: true},
	{name: "term", fields: []fieldSpec{req("name"), req("definition")}},
	{name: "guardrail", textForm: true, fields: []fieldSpec{req("rule"), opt("reason"), opt("action")}},
	{name: "explain", fields: []fieldSpec{req("concept"), req("explanation"), opt("therefore")}},
	{name: "example", fields: []fieldSpec{req("question"), req("answer"), opt("note")}},
	{name: "clarification", fields: []fieldSpec{req("when"), req("ask"), req("reason")}},
	{name: "workflow", fields: []fieldSpec{req("task"), reqs("steps"), opts("triggers"), opt("notes")}},
	{name: "quirk", fields: []fieldSpec{req("issue"), req("workaround")}},
	{name: "styleGuide", textForm: true, fields: []fieldSpec{req("prefer"), opt("never"), opt("always")}},
	{name: "analogy", fields: []fieldSpec{reqs("concepts"), req("relationship"), opt("insight"), opt("therefore"), opt("pitfall")}},
	{name: kindGlossary},
	{name: "principle", textForm: true, fields: []fieldSpec{req("title"), req("description"), pols()}},
	{name: "policy", textForm: true, fields: []fieldSpec{req("rule"), opt("before"), opt("reason"), pols()}},
	{name: "identity", textForm: true, fields: []fieldSpec{opt("name"), opt("role")}, oneOf: true},
	{name: "persona", fields: []fieldSpec{req("name"), req("role"), opt("objective"), opt("tone")}},
	{name: "alias", fields: []fieldSpec{req("term"), req("meaning")}},
	{name: "preference", fields: []fieldSpec{req("aspect"), req("value")}},
	{name: "correction", fields: []fieldSpec{req("subject"), req("clarification")}},
	{name: kindFragment},
	{name: kindSkills},
}

// kindByName indexes kinds.
var kindByName = func() map[string]*kindSpec {
	m := make(map[string]*kindSpec, len(kinds))
	for i := range kinds {
		m[kinds[i].name] = &kinds[i]
	}
	return m
}()

// Kinds returns the names of every fragment kind a context file accepts, in documentation
// order.
func Kinds() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.name
	}
	return out
}

// Role is the system role or instructions: `<role>text</role>`.
func Role(text string) Fragment { return Text("role", text) }

// Hint is a behavioural rule that always applies.
func Hint(text string) Fragment { return Text("hint", text) }

// Term defines a business term.
func Term(name, definition string) Fragment {
	return New("term", object(Field{"name", String(name)}, Field{"definition", String(definition)}))
}

// Guardrail is a hard rule with its optional reason and action (empty ones are left out).
func Guardrail(rule, reason, action string) Fragment {
	return New("guardrail", object(Field{"rule", String(rule)}, Field{"reason", String(reason)},
		Field{"action", String(action)}))
}

// Explain explains a concept, with an optional actionable "therefore".
func Explain(concept, explanation, therefore string) Fragment {
	return New("explain", object(Field{"concept", String(concept)}, Field{"explanation", String(explanation)},
		Field{"therefore", String(therefore)}))
}

// Example is a question and its answer, with an optional note.
func Example(question, answer, note string) Fragment {
	return New("example", object(Field{"question", String(question)}, Field{"answer", String(answer)},
		Field{"note", String(note)}))
}

// Clarification says when to ask what, and why.
func Clarification(when, ask, reason string) Fragment {
	return New("clarification", object(Field{"when", String(when)}, Field{"ask", String(ask)},
		Field{"reason", String(reason)}))
}

// Workflow is a task with its steps, optional triggers and notes.
func Workflow(task string, steps, triggers []string, notes string) Fragment {
	return New("workflow", object(Field{"task", String(task)}, Field{"steps", Strings(steps...)},
		Field{"triggers", Strings(triggers...)}, Field{"notes", String(notes)}))
}

// Quirk is a data quirk and its workaround.
func Quirk(issue, workaround string) Fragment {
	return New("quirk", object(Field{"issue", String(issue)}, Field{"workaround", String(workaround)}))
}

// StyleGuide is a preferred style with optional never/always rules.
func StyleGuide(prefer, never, always string) Fragment {
	return New("styleGuide", object(Field{"prefer", String(prefer)}, Field{"never", String(never)},
		Field{"always", String(always)}))
}

// Analogy compares concepts through a relationship, with optional insight, therefore and
// pitfall.
func Analogy(concepts []string, relationship, insight, therefore, pitfall string) Fragment {
	return New("analogy", object(Field{"concepts", Strings(concepts...)}, Field{"relationship", String(relationship)},
		Field{"insight", String(insight)}, Field{"therefore", String(therefore)}, Field{"pitfall", String(pitfall)}))
}

// GlossaryEntry maps a business term to its expression.
type GlossaryEntry struct {
	Term       string
	Expression string
}

// Glossary maps terms to expressions: it renders as `<glossary>` holding one `<entry>` per
// pair, each with `<term>` and `<expression>`.
func Glossary(entries ...GlossaryEntry) Fragment {
	l := make(List, 0, len(entries))
	for _, e := range entries {
		l = append(l, New("entry", object(Field{"term", String(e.Term)}, Field{"expression", String(e.Expression)})))
	}
	return New(kindGlossary, l)
}

// Principle is a guiding principle with optional policies: texts (String) or Policy
// fragments (stored as their data, so they render as `<policy>` items).
func Principle(title, description string, policies ...Value) Fragment {
	return New("principle", object(Field{"title", String(title)}, Field{"description", String(description)},
		Field{"policies", policyList(policies)}))
}

// Policy is a rule, optionally a prerequisite (before) with its reason and sub-policies.
func Policy(rule, before, reason string, policies ...Value) Fragment {
	return New("policy", object(Field{"rule", String(rule)}, Field{"before", String(before)},
		Field{"reason", String(reason)}, Field{"policies", policyList(policies)}))
}

// policyList keeps texts and objects, and stores a Policy fragment as its data.
func policyList(vs []Value) List {
	if len(vs) == 0 {
		return nil
	}
	l := make(List, 0, len(vs))
	for _, v := range vs {
		if f, ok := v.(Fragment); ok {
			v = f.Data
		}
		l = append(l, v)
	}
	return l
}

// Identity is who the user is (name and/or role).
func Identity(name, role string) Fragment {
	return New("identity", object(Field{"name", String(name)}, Field{"role", String(role)}))
}

// Persona is the assistant's persona: name, role, and the optional objective and tone (empty
// ones are left out).
func Persona(name, role, objective, tone string) Fragment {
	return New("persona", object(Field{"name", String(name)}, Field{"role", String(role)},
		Field{"objective", String(objective)}, Field{"tone", String(tone)}))
}

// Alias is the user's own meaning of a term.
func Alias(term, meaning string) Fragment {
	return New("alias", object(Field{"term", String(term)}, Field{"meaning", String(meaning)}))
}

// Preference is how the user prefers an aspect of the output.
func Preference(aspect, value string) Fragment {
	return New("preference", object(Field{"aspect", String(aspect)}, Field{"value", String(value)}))
}

// Correction records a correction of an earlier misunderstanding.
func Correction(subject, clarification string) Fragment {
	return New("correction", object(Field{"subject", String(subject)}, Field{"clarification", String(clarification)}))
}
