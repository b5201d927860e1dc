package consolidate

import "github.com/cairnmemory/cairn/redact"

// redactTogether redacts the fields and list entries given as the parts
// of one memory (redact.RedactParts): a value a rule replaced in one of
// them is also replaced where another repeats it bare. A told memory
// "Router note k7Qp2mZx1" whose body says "the passphrase is 'k7Qp2mZx1'"
// kept the value in its title when each field was redacted alone (ux F5).
// The lists are changed in place. The per-field clean calls that follow
// find nothing more (Redact is idempotent).
func redactTogether(fields []*string, lists ...[]string) {
	for _, l := range lists {
		for i := range l {
			fields = append(fields, &l[i])
		}
	}
	redact.RedactParts(fields)
}
