"""Shared helper of the comparison tools: one llmsim run with overrides, its summary and resolved scenario."""
import json
import os
from tool_main import ArgumentParser, run_llmsim

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_LLMSIM = os.path.join(ROOT, "build", "llmsim")


def run(llmsim, scenario, overrides, out):
    """Runs `llmsim run SCENARIO --out OUT --set k=v ...` without a trace; exits with llmsim's error on failure.
    Returns (summary, resolved scenario)."""
    cmd = [llmsim, "run", scenario, "--out", out, "--set", "output.trace=false", "--log-level", "warn"]
    for o in overrides:
        cmd += ["--set", o]
    run_llmsim(cmd, f"llmsim ({' '.join(overrides)})")
    return (json.load(open(os.path.join(out, "summary.json"))),
            json.load(open(os.path.join(out, "scenario.resolved.json"))))


def resolve(llmsim, scenario, overrides):
    """The scenario resolved by `llmsim validate` with `--set k=v ...`; exits with llmsim's error on failure."""
    cmd = [llmsim, "validate", scenario]
    for o in overrides:
        cmd += ["--set", o]
    return json.loads(run_llmsim(cmd, f"llmsim validate ({' '.join(overrides)})"))


def comparison_parser(doc):
    """Arguments every comparison over scenarios takes: SCENARIO..., --set k=v (repeatable), --llmsim."""
    ap = ArgumentParser(description=doc.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("scenarios", nargs="+")
    ap.add_argument("--set", action="append", default=[], help="override passed to every run")
    ap.add_argument("--llmsim", default=DEFAULT_LLMSIM)
    return ap
