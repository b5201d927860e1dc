package main

import "github.com/cairnmemory/cairn"

// truncatedOf returns what a source's sync cut, by reason.
func truncatedOf(s cairn.SourceSyncStats) map[string]int { return s.Truncated }
