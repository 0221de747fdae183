#!/usr/bin/env python3
"""Simulate Kafka transactions and write the text `kafka-dump-log.sh` would print, with ground truth.

Usage:
    python benchmarks/simulate.py --scenario fencing --era 3.3 --out DIR [--seed N]
    python benchmarks/simulate.py --scenario all --era all --out DIR
    python benchmarks/simulate.py --scenario fencing+timeout --era 4.0 --out DIR
    python benchmarks/simulate.py --bulk --size 1GB --era 3.3 --out FILE

Stdlib only and deterministic for a given seed. As a module: `simulate(...)`, `generate(...)`,
`generate_bulk(...)`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from kafkasim import (  # noqa: E402
    ERAS, MAIN_ERAS, RenderOptions, Sim, expand, finalize_truth, generate_bulk, get_era, populate,
    scenario_names, write_case,
)

__all__ = ["simulate", "generate", "generate_bulk", "main", "ERAS", "MAIN_ERAS", "scenario_names"]


def simulate(scenario: str, era: str = "3.3", seed: int = 1, protocol: int | None = None,
             background: bool = True) -> Sim:
    """Run a (possibly composed, `a+b`) scenario to completion and classify what is left open."""
    sim = Sim(get_era(era), seed=seed, protocol=protocol)
    populate(sim, scenario, with_background=background)
    sim.run()
    for finalize in sim.finalizers:
        finalize(sim)
    finalize_truth(sim)
    return sim


def generate(scenario: str, era: str, out_dir: str | Path, seed: int = 1, protocol: int | None = None,
             options: RenderOptions | None = None, background: bool = True) -> dict:
    """Simulate and write the dump texts plus expected.json into `out_dir`; returns expected.json."""
    sim = simulate(scenario, era, seed, protocol, background)
    return write_case(sim, scenario, expand(scenario), options or RenderOptions(), Path(out_dir))


def _eras(spec: str) -> list[str]:
    if spec == "all":
        return list(ERAS)
    if spec == "main":
        return list(MAIN_ERAS)
    names = spec.split(",")
    for n in names:
        get_era(n)
    return names


def _scenarios(spec: str) -> list[str]:
    return scenario_names() if spec == "all" else spec.split(",")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="simulate.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="scenarios: " + ", ".join(scenario_names()) + "\neras: " + ", ".join(ERAS))
    p.add_argument("--scenario", default="all", help="name, a+b to compose, comma list, or 'all'")
    p.add_argument("--era", default="3.3", help="era name, comma list, 'main' or 'all'")
    p.add_argument("--out", required=True, help="output directory (scenarios) or file (--bulk)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--protocol", type=int, choices=(1, 2), help="transaction protocol (default: 2 for 4.x eras)")
    p.add_argument("--shallow", action="store_true", help="no --deep-iteration / --print-data-log")
    p.add_argument("--no-print-data-log", action="store_true", help="deep iteration without payloads")
    p.add_argument("--no-snapshot", action="store_true", help="skip producer-state .snapshot dumps")
    p.add_argument("--no-txnindex", action="store_true", help="skip .txnindex dumps")
    p.add_argument("--no-background", action="store_true", help="no healthy neighbour traffic")
    p.add_argument("--bulk", action="store_true", help="stream one large data-partition dump to --out")
    p.add_argument("--size", default="1GB", help="bulk size, e.g. 5MB, 1GB")
    p.add_argument("--producers", type=int, default=200, help="bulk: number of producers")
    return p


def _run_bulk(args: argparse.Namespace) -> int:
    era = args.era if args.era not in ("all", "main") else "3.3"
    s = generate_bulk(args.out, args.size, era=era, seed=args.seed, producers=args.producers,
                      deep=not args.shallow, print_data=not (args.shallow or args.no_print_data_log))
    print(f"wrote {s['bytes']:,} bytes to {args.out} in {s['seconds']:.1f}s ({s['mb_per_s']} MB/s): "
          f"{s['batches']:,} batches, {s['records']:,} records, {s['commits']:,} commits, {s['aborts']:,} aborts, "
          f"{len(s['open_transactions'])} open transactions")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.bulk:
        return _run_bulk(args)
    try:
        eras, scenarios = _eras(args.era), _scenarios(args.scenario)
        for s in scenarios:
            expand(s)
    except KeyError as exc:
        print(f"simulate.py: {exc.args[0]}", file=sys.stderr)
        return 2
    opts = RenderOptions(deep=not args.shallow, print_data=not (args.shallow or args.no_print_data_log),
                         snapshots=not args.no_snapshot, txnindex=not args.no_txnindex)
    out = Path(args.out)
    started = time.perf_counter()
    for era in eras:
        for scenario in scenarios:
            case_dir = out / scenario if len(eras) == 1 else out / era / scenario
            doc = generate(scenario, era, case_dir, args.seed, args.protocol, opts, not args.no_background)
            print(f"{case_dir}: {len(doc['files'])} files, findings: {', '.join(doc['findings']) or 'none'}")
    print(f"done in {time.perf_counter() - started:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
