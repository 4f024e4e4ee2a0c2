package fragment

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A small English inflector for tag names: the singular of array keys (steps -> step,
// queries -> query) and the plural of group tags (hint -> hints, policy -> policies). Only the
// last word of a snake_case, kebab-case or camelCase name changes; the case of the word is
// kept. Results are cached: names repeat on every turn.

var (
	uncountable = set("data", "metadata", "information", "equipment", "news", "series", "species",
		"feedback", "knowledge", "advice", "sheep", "fish", "deer", "software", "hardware", "research",
		"evidence", "guidance", "analytics", "context", "content", "code", "media", "staff")

	// singular -> plural; the reverse map is built from it.
	irregularPlural = map[string]string{
		"person": "people", "man": "men", "woman": "women", "child": "children", "foot": "feet",
		"tooth": "teeth", "goose": "geese", "mouse": "mice", "ox": "oxen", "criterion": "criteria",
		"phenomenon": "phenomena", "index": "indices", "matrix": "matrices", "vertex": "vertices",
		"appendix": "appendices", "quiz": "quizzes", "leaf": "leaves", "knife": "knives", "life": "lives",
		"wife": "wives", "half": "halves", "self": "selves", "shelf": "shelves", "wolf": "wolves",
		"thief": "thieves", "loaf": "loaves", "calf": "calves", "elf": "elves", "hero": "heroes",
		"potato": "potatoes", "tomato": "tomatoes", "echo": "echoes", "veto": "vetoes",
		"analysis": "analyses", "basis": "bases", "crisis": "crises", "thesis": "theses",
		"diagnosis": "diagnoses", "hypothesis": "hypotheses", "synopsis": "synopses",
		"parenthesis": "parentheses", "emphasis": "emphases", "axis": "axes", "cactus": "cacti",
		"alumnus": "alumni", "radius": "radii", "stimulus": "stimuli", "syllabus": "syllabi",
	}
	irregularSingular = func() map[string]string {
		m := make(map[string]string, len(irregularPlural))
		for s, p := range irregularPlural {
			m[p] = s
		}
		m["indexes"] = "index"
		m["matrixes"] = "matrix"
		m["vertexes"] = "vertex"
		m["appendixes"] = "appendix"
		m["radiuses"] = "radius"
		return m
	}()

	// words ending in s that are already singular.
	singularS = set("alias", "atlas", "bias", "canvas", "gas", "chaos", "lens", "bus", "plus", "minus",
		"yes", "this", "its", "always", "perhaps", "status", "bonus", "campus", "virus", "census",
		"focus", "corpus", "consensus", "process", "access", "class", "address", "success", "progress",
		"analysis", "basis", "crisis", "thesis", "axis", "diagnosis", "synopsis", "emphasis", "ethos",
		"pathos", "kudos", "iris", "tennis", "physics", "mathematics", "economics", "ethics", "politics",
		"logistics", "statistics", "news", "series", "species", "glasses", "pants", "scissors", "is",
		"was", "has", "does", "dns", "os", "ios", "aws", "gps", "sms", "https", "fps", "kubernetes")

	// nouns ending in -ves whose singular ends in -ve.
	veWords = set("move", "drive", "archive", "objective", "directive", "alternative", "perspective",
		"curve", "valve", "glove", "groove", "native", "initiative", "narrative", "incentive",
		"executive", "representative", "derivative", "primitive", "adjective", "motive", "olive",
		"nerve", "reserve", "slave", "wave", "cave", "grave", "save", "hive", "five", "dive", "live",
		"love", "stove", "sleeve", "detective", "relative", "positive", "negative", "conservative")

	// nouns ending in -ches / -oes / -ses whose singular ends in -e.
	eWords = set("cache", "niche", "avalanche", "moustache", "headache", "ache", "shoe", "toe", "canoe",
		"oboe", "hoe", "foe", "use", "cause", "house", "excuse", "case", "base", "database", "phase",
		"phrase", "response", "purpose", "course", "horse", "license", "expense", "sense", "nurse",
		"clause", "pause", "rose", "nose", "dose", "pose", "close", "release", "increase", "decrease",
		"promise", "premise", "exercise", "enterprise", "franchise", "expertise", "merchandise",
		"impulse", "pulse", "verse", "universe", "lapse", "collapse", "ellipse", "synapse", "corpse",
		"tense", "defense", "offense", "license", "suspense", "dispense", "rinse", "mouse", "blouse",
		"spouse", "browse", "goose", "moose", "noose", "loose", "choose", "vase", "erase", "chase",
		"purchase", "disease", "lease", "tease", "cheese", "sunrise", "surprise", "rise", "wise",
		"course", "source", "resource", "force", "horse", "curse", "nurse", "purse", "reverse")
)

// nouns ending in -ies whose singular ends in -ie.
var ieWords = set("movie", "cookie", "rookie", "zombie", "calorie", "genie", "prairie", "selfie",
	"newbie", "goalie", "smoothie", "brownie", "sortie", "auntie", "hippie", "freebie", "lie", "pie",
	"tie", "die")

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

var singularCache, pluralCache sync.Map

// singular returns the singular of an English noun (or name whose last word is one).
func singular(name string) string {
	if v, ok := singularCache.Load(name); ok {
		return v.(string)
	}
	head, word := splitLastWord(name)
	out := head + matchCase(word, singularWord(strings.ToLower(word)))
	singularCache.Store(name, out)
	return out
}

// plural returns the plural of an English noun (or name whose last word is one). A word that
// is already plural is kept.
func plural(name string) string {
	if v, ok := pluralCache.Load(name); ok {
		return v.(string)
	}
	head, word := splitLastWord(name)
	out := head + matchCase(word, pluralWord(strings.ToLower(word)))
	pluralCache.Store(name, out)
	return out
}

// singularWord singularizes one lower-case word.
func singularWord(w string) string {
	if w == "" || uncountable[w] || singularS[w] {
		return w
	}
	if s, ok := irregularSingular[w]; ok {
		return s
	}
	if _, ok := irregularPlural[w]; ok {
		return w
	}
	n := len(w)
	switch {
	case strings.HasSuffix(w, "ies") && ieWords[w[:n-1]]:
		return w[:n-1] // movies -> movie
	case strings.HasSuffix(w, "ies") && n > 4 && !isVowel(w[n-4]):
		return w[:n-3] + "y"
	case strings.HasSuffix(w, "ies"):
		return w[:n-1] // ties -> tie, pies -> pie
	case strings.HasSuffix(w, "ves"):
		if veWords[w[:n-1]] {
			return w[:n-1]
		}
		return w[:n-3] + "f" // irregular -fe words are in the table
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "ches"),
		strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "zzes"), strings.HasSuffix(w, "oes"):
		if eWords[w[:n-1]] {
			return w[:n-1]
		}
		return w[:n-2]
	case strings.HasSuffix(w, "uses"):
		if singularS[w[:n-2]] {
			return w[:n-2] // statuses -> status
		}
		return w[:n-1] // uses -> use, causes -> cause
	case strings.HasSuffix(w, "ases") && singularS[w[:n-2]]:
		return w[:n-2] // aliases -> alias
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s") && n > 1:
		return w[:n-1]
	}
	return w
}

// pluralWord pluralizes one lower-case word.
func pluralWord(w string) string {
	if w == "" || uncountable[w] {
		return w
	}
	if p, ok := irregularPlural[w]; ok {
		return p
	}
	if _, ok := irregularSingular[w]; ok {
		return w
	}
	if !singularS[w] && singularWord(w) != w {
		return w // already plural
	}
	n := len(w)
	switch {
	case strings.HasSuffix(w, "y") && n > 1 && !isVowel(w[n-2]):
		return w[:n-1] + "ies"
	case strings.HasSuffix(w, "is"):
		return w[:n-2] + "es"
	case strings.HasSuffix(w, "s"), strings.HasSuffix(w, "sh"), strings.HasSuffix(w, "ch"),
		strings.HasSuffix(w, "x"), strings.HasSuffix(w, "z"):
		return w + "es"
	}
	return w + "s"
}

func isVowel(c byte) bool {
	return strings.IndexByte("aeiou", c) >= 0
}

// splitLastWord splits a name before its last word: at the last '_', '-', '.' or ' ', or at
// the last lower-to-upper (or acronym-to-word) camelCase boundary.
func splitLastWord(name string) (head, word string) {
	if i := strings.LastIndexAny(name, "_-. "); i >= 0 {
		return name[:i+1], name[i+1:]
	}
	runes := []rune(name)
	for i := len(runes) - 1; i > 0; i-- {
		cur, prev := runes[i], runes[i-1]
		if unicode.IsUpper(cur) && (unicode.IsLower(prev) || unicode.IsDigit(prev)) {
			return string(runes[:i]), string(runes[i:])
		}
		if unicode.IsUpper(cur) && unicode.IsUpper(prev) && i+1 < len(runes) && unicode.IsLower(runes[i+1]) &&
			!(i+2 == len(runes) && runes[i+1] == 's') { // APIKey -> API Key, but not IDs -> I Ds
			return string(runes[:i]), string(runes[i:])
		}
	}
	return "", name
}

// matchCase gives out the case pattern of word: ALL CAPS (also with a plural s, as in IDs),
// Capitalized or as is.
func matchCase(word, out string) string {
	if word == "" || out == "" {
		return out
	}
	if strings.ToLower(word) == word {
		return out
	}
	if strings.ToUpper(word) == word && utf8.RuneCountInString(word) > 1 {
		return strings.ToUpper(out)
	}
	if stem, ok := strings.CutSuffix(word, "s"); ok && strings.ToUpper(stem) == stem && utf8.RuneCountInString(stem) > 1 {
		return strings.ToUpper(out) // IDs -> ID
	}
	if r, _ := utf8.DecodeRuneInString(word); unicode.IsUpper(r) {
		o, osize := utf8.DecodeRuneInString(out)
		return string(unicode.ToUpper(o)) + out[osize:]
	}
	return out
}
