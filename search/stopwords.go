package search

// stopWords are dropped from queries outside quoted phrases: they match most
// chunks, add almost nothing to BM25 and make any-of queries slow.
var stopWords = map[string]bool{}

func init() {
	for _, w := range []string{
		"a", "about", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at",
		"be", "been", "before", "being", "both", "but", "by", "can", "could", "did", "do", "does",
		"doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have",
		"having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is",
		"it", "its", "itself", "just", "me", "more", "most", "my", "no", "nor", "not", "now", "of",
		"off", "on", "once", "only", "or", "other", "our", "ours", "out", "over", "own", "same",
		"she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them",
		"then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until",
		"up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom",
		"why", "will", "with", "would", "you", "your", "yours",
	} {
		stopWords[w] = true
	}
}
