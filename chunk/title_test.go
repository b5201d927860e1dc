package chunk

import "testing"

func TestTitle(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"no title", "just prose\n", ""},
		{"front matter", "---\ntitle: Hello\n---\n# Heading\n", "Hello"},
		{"double quotes", "---\ntitle: \"Quoted: yes\"\n---\n", "Quoted: yes"},
		{"single quotes", "---\ndate: 2024\ntitle: 'Single'\n---\n", "Single"},
		{"crlf front matter", "---\r\ntitle: Win\r\n---\r\n", "Win"},
		{"front matter without title", "---\ntags: [a]\n---\n\n# From Heading\n", "From Heading"},
		{"empty title falls back", "---\ntitle:\n---\n## H2\n", "H2"},
		{"title after closer ignored", "---\na: b\n---\ntitle: no\n", ""},
		{"nested title ignored", "---\nmeta:\n  title: no\n---\n# Yes\n", "Yes"},
		{"unclosed front matter", "---\ntitle: no\n\n# Real\n", "Real"},
		{"first heading", "intro\n\n## Second level\n# First level\n", "Second level"},
		{"closing hashes", "# Title ##\n", "Title"},
		{"hash inside", "# C# tips\n", "C# tips"},
		{"indented heading", "   # Indented\n", "Indented"},
		{"code block skipped", "```sh\n# comment\n```\n# Real\n", "Real"},
		{"empty heading skipped", "#\n# Next\n", "Next"},
		{"hashtag", "#tag\n", ""},
		{"seven hashes", "####### no\n", ""},
		{"bom", "\ufeff# Bom\n", "Bom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Title(tt.in); got != tt.want {
				t.Fatalf("Title(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
