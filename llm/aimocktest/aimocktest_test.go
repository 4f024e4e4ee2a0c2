package aimocktest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstall checks that the install hint keeps the pin: npm ci installs the locked
// version, npm install of a package would rewrite package.json.
func TestInstall(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"npm ci --prefix .ci/aimock", true},
		{"npm install", false},
		{"@copilotkit/aimock@", false},
	}
	for _, tt := range tests {
		if got := strings.Contains(Install, tt.text); got != tt.want {
			t.Errorf("Install %q: contains %q = %v, want %v", Install, tt.text, got, tt.want)
		}
	}
}

// TestVersionPinned checks that Version is the version package.json pins exactly.
func TestVersionPinned(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, ".ci", "aimock", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	if got := pkg.Dependencies["@copilotkit/aimock"]; got != Version {
		t.Errorf("package.json pins @copilotkit/aimock %q, want exactly %q", got, Version)
	}
}
