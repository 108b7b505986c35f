package scenario

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/peerlearn/peerlearn/engine/aggregate"
	"github.com/peerlearn/peerlearn/engine/modelcodec"
	"github.com/peerlearn/peerlearn/sim/dflsim"
)

// byzSelectEnv names the environment variable that runs a subset of the
// attack lab, for iterating on a defence before a full run, e.g.
//
//	PEERLEARN_BYZ_SELECT='f=0.2,0.3 seeds=2 attacks=ipm,label-flip rules=clipped-fedlay'
//
// Keys (space-separated, each optional): f (attacker fractions; 0, the
// reference of every gap, is always run; "f=0" alone runs only that
// no-attack row, each rule and plain fedlay without attackers, for a
// rule's cost without attack at many training orders), seeds (which of the scale's
// seeds, counted from -seed), attacks, rules (plain fedlay is always run
// without attack: it is every gap's reference; "RULE+health" is RULE
// with the neighbourhood check, byzantine_health.go; "RULE+drift" RULE
// with the reputation's drift test, byzantine_drift.go, and
// "RULE+drift+health" both; "RULE+screen" and "RULE+screenout" RULE
// behind peer/learn's loss screen, byzantine_screen.go, before any
// "+health"), orders (training orders
// averaged per cell), victims (0 or 1: the victim-placement runs), codec
// (models travel in that codec, engine/modelcodec: the lab with
// compression on), holdout (with "+health": the share of a checked
// peer's shard held out of training and scored on, in [0, 0.5); 0, the
// default, scores on the shard it trained on; measured worse at 0.2,
// docs/RESULTS.md issue #26 "health"), healthref
// (self or best, default best as node.HealthOn: health.Config.AgainstBest),
// patience (the check's health.Config.Patience, default 1 as
// node.HealthOn), quorum (the check's health.Config.Quorum, in
// [0.5, 1): the share of the neighbours that must disagree), echo (the
// check's health.Config.EchoBelow, in [0, 1); the collapse attackers
// keep beyond it, dflsim.Adversary.EchoBelow), exposure (0 or 1: each cell also reports the
// exposed honest peers' mean accuracy apart from the rest's,
// byzantine_exposure.go), cutback (0 or 1: the adaptive attacks send
// their models cut back to the rule's cut radius,
// dflsim.Adversary.CutBack), align (0 or 1, default 1: 0 keeps the
// attackers from tilting their push for the consensus check,
// dflsim.Adversary.Unaligned), moves (0 or 1, default 0, a real peer's
// -health-moves 0: with "+health", 0 keeps every checked peer at its
// place, the check then only narrows whom it aggregates with; 1 places
// it again when the check asks), async (0 or 1: with f=0 alone, the peers
// exchange models asynchronously, as real peers do; byzantine_async.go).
// The subset is printed
// with the setting, so its numbers are never mistaken for a full run's.
const byzSelectEnv = "PEERLEARN_BYZ_SELECT"

// errSelect: byzSelectEnv does not parse.
var errSelect = errors.New("scenario: bad byzantine subset")

// applySelect narrows p to the subset spec names (see byzSelectEnv).
func (p *byzParams) applySelect(spec string) error {
	if strings.TrimSpace(spec) == "" {
		return nil
	}
	noneOnly, attacksSet, victimsSet, movesSet := false, false, false, false
	var err error // the 0-or-1 keys' (selectBool)
	for _, kv := range strings.Fields(spec) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			return fmt.Errorf("%w: %s: %q is not key=value", errSelect, byzSelectEnv, kv)
		}
		vals := strings.Split(v, ",")
		switch k {
		case "f":
			fs := []float64{0}
			if v == "0" { // the no-attack row alone
				p.fractions, noneOnly = fs, true
				continue
			}
			for _, s := range vals {
				f, err := strconv.ParseFloat(s, 64)
				if err != nil || !(f > 0 && f < 0.5) {
					return fmt.Errorf("%w: %s: fraction %q not in (0, 0.5)", errSelect, byzSelectEnv, s)
				}
				fs = append(fs, f)
			}
			p.fractions = fs
		case "seeds":
			var only []int
			for _, s := range vals {
				n, err := strconv.Atoi(s)
				if err != nil || n < 1 {
					return fmt.Errorf("%w: %s: seed offset %q: want 1, 2, ...", errSelect, byzSelectEnv, s)
				}
				only = append(only, n)
			}
			p.onlySeeds = only
		case "attacks":
			attacksSet = true
			all := append(append(dflsim.Attacks(), dflsim.AdaptiveAttacks()...), dflsim.AttackBackdoor)
			p.attacks, p.adaptive = nil, nil
			for _, a := range vals {
				if !slices.Contains(all, a) {
					return fmt.Errorf("%w: %s: unknown attack %q (want %v)", errSelect, byzSelectEnv, a, all)
				}
				switch {
				case slices.Contains(dflsim.AdaptiveAttacks(), a):
					p.adaptive = append(p.adaptive, a)
				case a != dflsim.AttackBackdoor:
					p.attacks = append(p.attacks, a)
				}
			}
			if !slices.Contains(vals, dflsim.AttackBackdoor) {
				p.backdoorF = 0
			} else if p.backdoorF == 0 {
				p.backdoorF = byzBackdoorF
			}
		case "rules":
			for _, r := range vals { // refused here, not minutes into the run
				base, _ := splitHealth(r)
				base, _, _ = splitScreen(base)
				if base, _ = splitDrift(base); !isLabRule(base) {
					return fmt.Errorf("%w: %s: rule %q: want an aggregate rule (aggregate.ParseRule, e.g. clipped-fedlay or the lab's coordclipped16-fedlay, coordclipped4-s2-fedlay), optionally +drift or +suspend, then +screen, then +health", errSelect, byzSelectEnv, r)
				}
			}
			p.rules = vals
		case "victims":
			if p.victims, err = selectBool(k, v); err != nil {
				return err
			}
			victimsSet = true
		case "codec":
			if _, err := modelcodec.Parse(v); err != nil {
				return fmt.Errorf("%w: %s: codec %q: %v", errSelect, byzSelectEnv, v, err)
			}
			p.codec = v
		case "trigger":
			t := dflsim.TriggerPlace(v)
			if t == "" || !t.Known() { // "trigger=" names none
				return fmt.Errorf("%w: %s: trigger %q: want one of %v", errSelect, byzSelectEnv, v, dflsim.TriggerPlaces())
			}
			p.trigger = t
		case "balance":
			if p.balance, err = selectBool(k, v); err != nil {
				return err
			}
		case "align":
			var align bool
			if align, err = selectBool(k, v); err != nil {
				return err
			}
			p.unaligned = !align
		case "cutback":
			if p.cutback, err = selectBool(k, v); err != nil {
				return err
			}
		case "moves":
			var moves bool
			if moves, err = selectBool(k, v); err != nil {
				return err
			}
			p.stay, movesSet = !moves, true
		case "async":
			if p.async, err = selectBool(k, v); err != nil {
				return err
			}
		case "exposure":
			if p.exposure, err = selectBool(k, v); err != nil {
				return err
			}
		case "holdout":
			h, err := strconv.ParseFloat(v, 64)
			if err != nil || !(h >= 0 && h < 0.5) {
				return fmt.Errorf("%w: %s: holdout %q not in [0, 0.5)", errSelect, byzSelectEnv, v)
			}
			p.holdout = h
		case "healthref":
			if v != "self" && v != "best" {
				return fmt.Errorf("%w: %s: healthref %q: want self or best", errSelect, byzSelectEnv, v)
			}
			p.healthBest = v == "best"
		case "patience":
			n, err := selectInt("patience", v, 1, 10)
			if err != nil {
				return err
			}
			p.patience = n
		case "quorum":
			q, err := strconv.ParseFloat(v, 64)
			if err != nil || !(q >= 0.5 && q < 1) {
				return fmt.Errorf("%w: %s: quorum %q not in [0.5, 1)", errSelect, byzSelectEnv, v)
			}
			p.quorum = q
		case "echo":
			e, err := strconv.ParseFloat(v, 64)
			if err != nil || !(e >= 0 && e < 1) {
				return fmt.Errorf("%w: %s: echo %q not in [0, 1)", errSelect, byzSelectEnv, v)
			}
			p.echo = &e
		case "orders":
			n, err := selectInt("orders", v, 1, 16)
			if err != nil {
				return err
			}
			p.orders = n
		default:
			return fmt.Errorf("%w: %s: unknown key %q (f, seeds, attacks, rules, orders, victims, codec, trigger, balance, cutback, align, exposure, moves, async, holdout, healthref, patience, quorum, echo)", errSelect, byzSelectEnv, k)
		}
	}
	if p.async {
		if err := p.asyncAllowed(noneOnly, movesSet && !p.stay); err != nil {
			return err
		}
		p.stay = true
	}
	if noneOnly {
		if attacksSet || victimsSet && p.victims {
			return fmt.Errorf("%w: %s: f=0 runs the no-attack row alone: attacks and victims=1 need an attacker fraction", errSelect, byzSelectEnv)
		}
		p.attacks, p.adaptive, p.backdoorF, p.victims = nil, nil, 0, false
	}
	p.selected = spec
	return nil
}

// byzSelected reads byzSelectEnv into p.
func (p *byzParams) byzSelected() error { return p.applySelect(os.Getenv(byzSelectEnv)) }

// seedList lists the seeds run from base: base .. base+seeds-1, or the
// selected offsets of them.
func (p *byzParams) seedList(base uint64) []uint64 {
	var out []uint64
	for k := range p.seeds {
		if p.onlySeeds == nil || slices.Contains(p.onlySeeds, k+1) {
			out = append(out, base+uint64(k))
		}
	}
	return out
}

// rulesAt lists the rules run at fraction f: at 0 plain fedlay too, the
// reference of every gap, when a subset left it out.
func (p *byzParams) rulesAt(f float64) []string {
	if f == 0 && !slices.Contains(p.rules, "fedlay") {
		return append([]string{"fedlay"}, p.rules...)
	}
	return p.rules
}

// selectInt parses key's value v, an integer in [lo, hi].
func selectInt(key, v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%w: %s: %s %q: want %d to %d", errSelect, byzSelectEnv, key, v, lo, hi)
	}
	return n, nil
}

// isLabRule reports whether the lab can run the aggregation rule name:
// one aggregate.ParseRule accepts, the lab's prefixes included
// ("coordclippedR-X" sets the coordinate radius R by name, and
// "coordclippedR-sF-X" also its floor F from our own step, issue #26).
func isLabRule(name string) bool {
	_, err := aggregate.ParseRule(name)
	return err == nil
}

// selectBool reads key k's value v, "0" or "1".
func selectBool(k, v string) (bool, error) {
	if v != "0" && v != "1" {
		return false, fmt.Errorf("%w: %s: %s %q: want 0 or 1", errSelect, byzSelectEnv, k, v)
	}
	return v == "1", nil
}
