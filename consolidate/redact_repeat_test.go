package consolidate

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairnmemory/cairn"
)

// memoryText is every text field of m, joined.
func memoryText(m cairn.Memory) string {
	return strings.Join(append(append([]string{m.Title, m.Summary, m.Body, m.AppliesWhen, m.About}, m.Cues...), m.Concepts...), "\n")
}

// TestMemoryFieldsRedactedTogether: a value a rule redacts in one field of
// a memory is redacted where another field repeats it bare (ux F5: a told
// memory kept "Router note k7Qp2mZx1" in its title after its body's
// "passphrase is 'k7Qp2mZx1'" was redacted), for a told memory, a gated
// item and a gated observation. The caller's request is not changed.
func TestMemoryFieldsRedactedTogether(t *testing.T) {
	const secret = "k7Qp2mZx1"
	req := &cairn.RememberRequest{Kind: "fact", Agent: "cli", Title: "Router note " + secret,
		Summary: "The router passphrase is '" + secret + "'.", Body: "later " + secret + " again",
		Cues: []string{"router " + secret}, Concepts: []string{secret + "-router"}}
	m, err := Told(req, time.Date(2026, 12, 4, 2, 30, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if all := memoryText(m); strings.Contains(all, secret) || !strings.Contains(m.Title, "Router note [REDACTED:password]") {
		t.Errorf("told memory holds the secret or lacks the placeholder:\n%s", all)
	}
	if !strings.Contains(req.Title, secret) || !slices.Equal(req.Cues, []string{"router " + secret}) {
		t.Errorf("the request was changed: %+v", req)
	}
	again, _ := Told(req, time.Date(2026, 12, 4, 2, 31, 0, 0, time.UTC))
	if again.ID != m.ID {
		t.Errorf("ids %q and %q: the same memory told again should replace it", m.ID, again.ID)
	}

	g, outcome := gateFixture()
	it, ok := g.item(json.RawMessage(`{"kind":"fact","requests":[1],"title":"Router `+secret+`","summary":"The router password is `+secret+`.","body":"","applies_when":"when `+secret+` fails","scope":"project","confidence":"stated","importance":3,"cues":["`+secret+` router"],"concepts":["`+secret+`"]}`), outcome)
	if !ok {
		t.Fatalf("item dropped: %v", g.dropped)
	}
	if all := memoryText(it); strings.Contains(all, secret) {
		t.Errorf("gated item holds the secret:\n%s", all)
	}
	o, ok := g.observation(json.RawMessage(`{"text":"Dana's wifi password is ` + secret + `.","about":"Dana ` + secret + `","requests":[2],"cues":["` + secret + `"]}`))
	if !ok {
		t.Fatalf("observation dropped: %v", g.dropped)
	}
	if all := memoryText(o); strings.Contains(all, secret) {
		t.Errorf("gated observation holds the secret:\n%s", all)
	}
}
