package fragment

import "testing"

func TestSingular(t *testing.T) {
	tests := []struct{ in, want string }{
		{"steps", "step"}, {"queries", "query"}, {"policies", "policy"}, {"triggers", "trigger"},
		{"concepts", "concept"}, {"entries", "entry"}, {"children", "child"}, {"people", "person"},
		{"analyses", "analysis"}, {"statuses", "status"}, {"aliases", "alias"}, {"classes", "class"},
		{"matches", "match"}, {"boxes", "box"}, {"caches", "cache"}, {"heroes", "hero"},
		{"shoes", "shoe"}, {"movies", "movie"}, {"ties", "tie"}, {"leaves", "leaf"}, {"knives", "knife"},
		{"objectives", "objective"}, {"directives", "directive"}, {"keys", "key"}, {"days", "day"},
		{"responses", "response"}, {"databases", "database"}, {"uses", "use"}, {"processes", "process"},
		{"indices", "index"}, {"indexes", "index"}, {"criteria", "criterion"}, {"quizzes", "quiz"},
		{"instructions", "instruction"}, {"skills", "skill"}, {"rows", "row"}, {"wishes", "wish"},
		// already singular, or no singular
		{"data", "data"}, {"series", "series"}, {"news", "news"}, {"status", "status"}, {"step", "step"},
		{"analysis", "analysis"}, {"bus", "bus"}, {"glossary", "glossary"}, {"class", "class"},
		{"alias", "alias"}, {"oncall", "oncall"}, {"", ""},
		// compound names change their last word only, and keep its case
		{"tool_calls", "tool_call"}, {"toolCalls", "toolCall"}, {"open-issues", "open-issue"},
		{"QUERIES", "QUERY"}, {"Queries", "Query"}, {"userIDs", "userID"},
	}
	for _, tt := range tests {
		if got := singular(tt.in); got != tt.want {
			t.Errorf("singular(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPlural(t *testing.T) {
	tests := []struct{ in, want string }{
		{"hint", "hints"}, {"term", "terms"}, {"guardrail", "guardrails"}, {"explain", "explains"},
		{"example", "examples"}, {"clarification", "clarifications"}, {"workflow", "workflows"},
		{"quirk", "quirks"}, {"styleGuide", "styleGuides"}, {"analogy", "analogies"},
		{"glossary", "glossaries"}, {"principle", "principles"}, {"policy", "policies"},
		{"identity", "identities"}, {"persona", "personas"}, {"alias", "aliases"},
		{"preference", "preferences"}, {"correction", "corrections"}, {"role", "roles"},
		{"entry", "entries"}, {"skill", "skills"}, {"fragment", "fragments"}, {"schema", "schemas"},
		{"person", "people"}, {"child", "children"}, {"analysis", "analyses"}, {"status", "statuses"},
		{"box", "boxes"}, {"match", "matches"}, {"key", "keys"}, {"day", "days"}, {"quiz", "quizzes"},
		{"hero", "heroes"}, {"photo", "photos"}, {"class", "classes"}, {"leaf", "leaves"},
		{"bus", "buses"}, {"process", "processes"}, {"wish", "wishes"},
		// already plural or uncountable: kept
		{"instructions", "instructions"}, {"available_skills", "available_skills"},
		{"sql_guidelines", "sql_guidelines"}, {"data", "data"}, {"series", "series"}, {"people", "people"},
		// case and compounds
		{"Hint", "Hints"}, {"HINT", "HINTS"}, {"tool_call", "tool_calls"}, {"", ""},
	}
	for _, tt := range tests {
		if got := plural(tt.in); got != tt.want {
			t.Errorf("plural(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestPluralRoundTrip: the singular of every kind's plural is the kind.
func TestPluralRoundTrip(t *testing.T) {
	for _, k := range append(Kinds(), "entry", "skill", "step", "query", "policy", "trigger", "concept") {
		if k == "skills" {
			continue // the kind named after its folder
		}
		if got := singular(plural(k)); got != k {
			t.Errorf("singular(plural(%q)) = %q (plural %q)", k, got, plural(k))
		}
	}
}

func TestTitleCase(t *testing.T) {
	tests := []struct{ in, want string }{
		{"hint", "Hint"}, {"styleGuide", "Style Guide"}, {"available_skills", "Available Skills"},
		{"sql_guidelines", "Sql Guidelines"}, {"userAPIKey", "User API Key"}, {"MRR", "MRR"},
		{"a-b.c", "A B C"}, {"étude", "Étude"}, {"_", "_"},
	}
	for _, tt := range tests {
		if got := titleCase(tt.in); got != tt.want {
			t.Errorf("titleCase(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
