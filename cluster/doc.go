// Package cluster groups embedded chunks by topic, in process and in pure
// Go (C17 of the tools spec): exact duplicates set aside by fingerprint,
// a seeded UMAP reduction (or the vectors as they are), HDBSCAN with
// excess-of-mass or leaf selection, clusters numbered by their smallest
// "<hash>\0<seq>", representatives nearest each centroid, and a 2-D
// layout. It is a library over vectors, keys and fingerprints: reading the
// index, storing runs and staleness belong to its callers.
//
// Quick start:
//
//	res, err := cluster.Run(ctx, items, nil) // nil: every default
//	if err != nil { ... }                    // cairn.ErrInvalid names the option or item
//	for _, m := range res.Members {
//		fmt.Println(m.Hash, m.Seq, m.Cluster, m.Probability, m.RepresentativeRank)
//	}
//
// The pipeline, and where it simplifies the Python reference (umap-learn
// and hdbscan):
//
//   - Duplicates: items ordered by (hash, seq); the first of each
//     fingerprint is canonical, later ones are returned as Duplicates and
//     not clustered. At least MinUnique unique chunks are needed.
//   - Nearest neighbours (cosine): a forest of random projection trees,
//     then nearest-neighbour descent rounds, as umap-learn's pynndescent,
//     but each point refines only its own list from its neighbours' and
//     reverse neighbours' nearest entries (so the goroutines never share a
//     list and the graph does not depend on their number). One graph of
//     max(nNeighbors, 30) serves the space and the layout.
//   - UMAP: umap-learn's fuzzy simplicial set (ρ, σ by bisection, fuzzy
//     union), its a/b curve fit for minDist, and its SGD with negative
//     sampling (5 per edge sample, gradient clip 4, linear learning rate),
//     parallel and deterministic: each epoch reads the other points from a
//     copy taken at its start and moves only each edge's head (twice as
//     far, as both directions of an edge are walked), with negative
//     samples seeded by (seed, epoch, point), so a seed gives one answer
//     on any number of cores (umap-learn's parallel SGD is Hogwild and
//     gives none). Simplified: 500 epochs up to 5,000 points and 200
//     above (umap-learn switches at 10,000); the initial layout is PCA of
//     the vectors (umap-learn's default is spectral); powers use a
//     polynomial 2^(y·log2 x) with about 1e-6 relative error. The 2-D
//     layout starts from the space's two principal axes with 100 epochs
//     (method none: from the vectors' with 200) and runs on its own
//     goroutine beside HDBSCAN.
//   - HDBSCAN (euclidean): exact core distances (minSamples counts the
//     point itself, as scikit-learn's HDBSCAN) and the minimum spanning
//     tree of mutual reachability: in the UMAP space (up to 32
//     dimensions, minSamples up to 256) by a kd-tree and Borůvka's
//     algorithm, pruning boxes by distance, core distance and component
//     (as the hdbscan library's boruvka_kdtree, single-tree); above that
//     by a dense scan and Prim's algorithm (O(n²) distances, O(n)
//     memory). Then the single linkage dendrogram, the condensed tree,
//     then excess of mass or the leaves, clusterSelectionEpsilon and
//     allowSingleCluster as the hdbscan library does them. Probabilities
//     are λ over the cluster's largest λ; outlier scores are GLOSH.
//
// Every random choice comes from Options.Seed; Options.Workers and
// Options.Progress change the speed and what is reported, never the
// result: the same seed gives the same clusters for the same vectors, bit
// for bit, on any number of cores. The same texts embedded again need not
// give the same vectors, though: an embedder's batches round differently,
// so a re-embedding (after `cairn doctor --repair`, or a fresh sync) can
// change the last bits of some vectors, and UMAP's nonlinear SGD and
// HDBSCAN's density thresholds can then move a few points between
// clusters or into noise. Seen once: 23 of 3,215 vectors differed by at
// most 5.2e-8, and the noise went from 1 point to 8. Compare runs over
// the same stored vectors, not over two embeddings.
package cluster
