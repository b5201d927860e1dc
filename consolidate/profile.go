package consolidate

import "github.com/cairnmemory/cairn"

// KindProfile is the kind of a profile memory.
const KindProfile = cairn.MemoryProfile
