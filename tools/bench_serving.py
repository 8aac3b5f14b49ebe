#!/usr/bin/python3
"""Benchmarks the serving simulator: runs the one-hour Azure conversation trace (19,366 requests) on 4 replicas
(scenarios/serving/llama2-70b-a100-conversation.json) and prints the wall time of the whole command and the
simulator's own (summary.json wall_time_s), the simulated steps and steps per wall second. Target: under 30 s.

Usage: tools/bench_serving.py [SCENARIO] [--llmsim build/llmsim]
"""
import json
import os
import tempfile
import time
from tool_main import ArgumentParser, guarded, run_llmsim

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("scenario", nargs="?",
                    default=os.path.join(ROOT, "scenarios", "serving", "llama2-70b-a100-conversation.json"))
    ap.add_argument("--llmsim", default=os.path.join(ROOT, "build", "llmsim"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as out:
        start = time.monotonic()
        run_llmsim([args.llmsim, "run", args.scenario, "--out", os.path.join(out, "run"), "--log-level", "warn"],
                   "llmsim run")
        wall = time.monotonic() - start
        s = json.load(open(os.path.join(out, "run", "summary.json")))
    sv = s["serving"]
    print(f"scenario           {s['name']}")
    print(f"requests           {sv['requests']} over {sv['makespan_s']:.0f} simulated s on {sv['replicas']} replicas")
    print(f"steps              {sv['steps']}")
    print(f"wall time          {wall:.2f} s (command, incl. reading the trace and writing outputs)")
    print(f"simulation         {s['wall_time_s']:.2f} s ({sv['steps'] / s['wall_time_s']:.0f} steps per second)")
    print(f"target             < 30 s: {'met' if wall < 30 else 'MISSED'}")


if __name__ == "__main__":
    guarded(main)
