package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cairnmemory/cairn/cluster"
)

// result is one size's measurements.
type result struct {
	Chunks, Unique                  int
	DuplicatesFound, DuplicatesMade int
	Clusters                        int
	NoiseShare                      float64 // predicted noise / unique chunks
	TrueNoiseCaught                 float64 // share of the noise notes labelled noise
	ARIAll                          float64 // all unique chunks; noise (truth and predicted) one class each
	ARITopics                       float64 // topic chunks only (not noise notes); predicted noise one class
	ARIClustered                    float64 // topic chunks that were clustered
	Seconds, CPUSeconds             float64
	PeakRSSMB                       float64
}

func runChild(ctx context.Context, n int) error {
	chunks := generate(n, *seed)
	c := &cache{}
	if *synthetic {
		c.vecs = synthVectors(chunks, *seed)
	} else {
		digest, err := modelDigest()
		if err != nil {
			return err
		}
		if c, err = loadCache(cachePath(), digest, chunks); err != nil {
			return err
		}
	}
	if len(c.vecs) < n {
		return fmt.Errorf("cache holds %d of %d chunks", len(c.vecs), n)
	}
	items := make([]cluster.Item, n)
	truth := map[string]int{}
	distinct := map[string]bool{}
	for i, ch := range chunks {
		h := textHash(ch.text)
		hash := fmt.Sprintf("doc%06d", i)
		items[i] = cluster.Item{Hash: hash, Seq: 0, Fingerprint: hex.EncodeToString(h[:]), Vector: c.vecs[i]}
		truth[hash] = ch.label
		distinct[ch.text] = true
	}
	c.vecs = nil
	o := &cluster.Options{Space: cluster.Space{Method: *method, NComponents: *ncomp},
		HDBSCAN: cluster.HDBSCAN{MinClusterSize: *minSize, MinSamples: *minSample, ClusterSelectionMethod: *selection}}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			return fmt.Errorf("create profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("start profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	cpu0 := cpuSeconds()
	t0 := time.Now()
	res, err := cluster.Run(ctx, items, o)
	if err != nil {
		return err
	}
	r := result{Chunks: n, Unique: len(res.Members), DuplicatesFound: len(res.Duplicates), DuplicatesMade: n - len(distinct),
		Clusters: len(res.Clusters), Seconds: time.Since(t0).Seconds(), CPUSeconds: cpuSeconds() - cpu0,
		PeakRSSMB: float64(peakRSS()) / (1 << 20)}
	score(&r, res, truth)
	return json.NewEncoder(os.Stdout).Encode(r)
}

func score(r *result, res *cluster.Result, truth map[string]int) {
	var all, allP, top, topP, cl, clP []int
	noise, trueNoise, caught := 0, 0, 0
	for _, m := range res.Members {
		t := truth[m.Hash]
		all, allP = append(all, t), append(allP, m.Cluster)
		if m.Cluster < 0 {
			noise++
		}
		if t < 0 {
			trueNoise++
			if m.Cluster < 0 {
				caught++
			}
			continue
		}
		top, topP = append(top, t), append(topP, m.Cluster)
		if m.Cluster >= 0 {
			cl, clP = append(cl, t), append(clP, m.Cluster)
		}
	}
	r.NoiseShare = float64(noise) / float64(len(res.Members))
	r.TrueNoiseCaught = float64(caught) / float64(max(1, trueNoise))
	r.ARIAll = cluster.AdjustedRand(all, allP)
	r.ARITopics = cluster.AdjustedRand(top, topP)
	r.ARIClustered = cluster.AdjustedRand(cl, clP)
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// peakRSS returns VmHWM in bytes, 0 where /proc is missing.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
