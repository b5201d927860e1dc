package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cairnmemory/cairn"
	"github.com/cairnmemory/cairn/config"
	"github.com/cairnmemory/cairn/engine"
	"github.com/cairnmemory/cairn/local"
)

// errDoctorProblems makes doctor exit 1 when it leaves a problem.
var errDoctorProblems = errors.New("problems found")

func cmdDoctor(ctx context.Context, e *env, args []string) error {
	fs := e.flags("doctor")
	repair := fs.Bool("repair", false, "rebuild what is derived: the full-text index, stray rows, stored texts that fail their hash (indexed again from their files), vectors.bin, a damaged index (SQLite: index.db moved aside; PostgreSQL: the agent's index rows deleted), memories kept")
	fs.BoolVar(&e.json, "json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := noPositional("doctor", pos); err != nil {
		return err
	}
	opts, cfg, err := e.doctorOptions()
	if err != nil {
		return err
	}
	rep, err := engine.Doctor(ctx, opts, *repair)
	if rep == nil && errors.Is(err, os.ErrNotExist) {
		// No index.db yet (before the first sync): not a problem, and the
		// checks of the configuration are what a new user runs doctor for
		// (ux U14: it exited 1 with "nothing is indexed here yet" and
		// checked neither the embedder nor the corpora).
		rep, err = &engine.DoctorReport{Checks: []engine.DoctorCheck{{Name: "index", Status: engine.CheckOK,
			Detail: "not there yet: nothing is indexed here (run cairn sync)"}}}, nil
	}
	configProblems := 0
	if rep != nil {
		for _, c := range e.configChecks(ctx, cfg, opts.Dir, *repair) { // doctor_config.go
			rep.Checks = append(rep.Checks, c)
			if c.Status == engine.CheckProblem {
				rep.Problems++
				// --repair makes folders of this user 0700; it changes
				// neither the configuration nor another user's folder.
				if c.Name != "folders" || strings.HasPrefix(c.Detail, folderForeign) {
					configProblems++
				}
			}
		}
		if perr := e.printDoctor(rep); perr != nil && err == nil {
			err = perr
		}
	}
	if err == nil && rep.Problems > 0 {
		hint := "run cairn doctor --repair"
		switch {
		case *repair:
			hint = "see the lines above"
		case rep.Problems == configProblems:
			hint = "see the fix lines above: --repair does not change the configuration or another user's folder"
		}
		err = fmt.Errorf("doctor: %w in %d checks (%s)", errDoctorProblems, rep.Problems, hint)
	}
	return err
}

// doctorOptions are the engine options of the agent, as open builds them,
// without opening the index (doctor must work when it cannot be opened).
func (e *env) doctorOptions() (engine.Options, *config.Config, error) {
	cfg, err := e.loadConfig()
	if err != nil {
		return engine.Options{}, nil, err
	}
	_, dataDir := e.paths()
	dir, err := config.AgentDir(dataDir, e.agent)
	if err != nil {
		return engine.Options{}, nil, err
	}
	var emb cairn.Embedder
	if cfg.Embedder != nil {
		emb = &lazyEmbedder{build: func() (cairn.Embedder, error) { return e.embedder(cfg) }, logf: e.logf}
	}
	return local.Fill(engine.Options{Dir: dir, Corpora: e.corpora(cfg), OneShot: true, Location: time.Local,
		AgentName: e.agentName(), Embedder: emb, Logf: e.logf, Backend: storeBackend(cfg, e.agent)}), cfg, nil
}

func (e *env) printDoctor(rep *engine.DoctorReport) error {
	if e.json {
		return e.printJSON(rep)
	}
	for _, c := range rep.Checks {
		fmt.Fprintf(e.stdout, "%-9s %-10s %s\n", c.Status, c.Name, c.Detail)
		if c.Fix != "" && c.Status != engine.CheckOK {
			fmt.Fprintf(e.stdout, "%-20s fix: %s\n", "", c.Fix)
		}
	}
	if rep.MovedAside != "" {
		fmt.Fprintf(e.stdout, "the damaged index is now %s; delete it once the rebuilt index serves you\n", rep.MovedAside)
	}
	if rep.Sync != nil {
		return e.printSync(rep.Sync)
	}
	return nil
}
