#!/usr/bin/env python3
"""Mutation harness: bad scenarios derived from the shipped ones, each validated and (when validate accepts it)
run briefly, classified against llmsim's input-error policy (README: one "error: " line, exit 2, no output).

  tools/mutate_scenarios.py --count 10000 --jobs 2 --out mutation-out --llmsim build/llmsim

Mutant i is a pure function of (--seed, i): the same options give the same cases in any order and with any
--jobs. A case is `llmsim validate MUTANT`, then, if that exits 0, `llmsim run MUTANT` made short and cheap with
--set overrides (see run_overrides); mutants of shipped scenarios over 4,096 GPUs are validated only. Each
command runs under a time limit (--timeout) and a resident-memory limit (--memory-GiB, above llmsim's own 8 GiB
work limit).

Classes (a case may fall into several):
  crashes          killed by a signal (SIGSEGV, SIGABRT, the kernel's OOM killer ...)
  bad exit codes   exited with a code other than 0 and 2
  hangs            a command hit its time limit
  over memory      a command's resident memory passed --memory-GiB (the work estimate let it through)
  multi-line errors  an exit 2 whose stderr is not exactly one line starting with "error: "
  control chars    a stderr line holding a raw control character (anything below U+0020 but newline, or DEL)
  partial outputs  after `run` failed: its --out folder or a <out>.partial-* left; after validate: any file written
  silent accepts   validate exits 0 on a mutant with a duplicate key, bytes after the document, an unknown key set
                   to null, or null in place of a value
  validate-ok-run-fails  validate exits 0 and run exits 2 (a check only `run` makes)
Every failing case is kept in OUT/failures/<case>/ (mutant.json, replay.sh, each command's stdout, stderr and
exit code, info.json); OUT/report.json has the totals, OUT/cases.jsonl one line per case, OUT/kinds.txt the
failures grouped by class and the shape of their error (or the mutation, when llmsim said nothing), one example
each. The last line printed is the summary (`mutation: N cases, ...`). Exit status 0 when
the harness ran (whatever it found), 2 on bad options.
"""
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from tool_main import ArgumentParser, guarded

REPO = Path(__file__).resolve().parent.parent
SILENT_TAGS = {"duplicate-key", "trailing-bytes", "unknown-key-null", "null-value"}
CLASSES = ["crashes", "bad exit codes", "hangs", "over memory", "multi-line errors", "control chars",
           "partial outputs", "silent accepts", "validate-ok-run-fails"]
CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")


# ---- JSON text with duplicate members and raw tokens (json.dumps can write neither) ----

class Raw(str):
    """A token written verbatim: 1e999, NaN, -0, a 30-digit integer as text."""


class Pairs(list):
    """An object as (key, value) pairs: may hold one key twice."""


def dump(v, indent=0):
    pad, inner = "  " * indent, "  " * (indent + 1)
    if isinstance(v, Raw):
        return str(v)
    if isinstance(v, (dict, Pairs)):
        items = v.items() if isinstance(v, dict) else v
        body = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {dump(x, indent + 1)}" for k, x in items]
        return "{\n" + ",\n".join(body) + "\n" + pad + "}" if body else "{}"
    if isinstance(v, list):
        return "[" + ", ".join(dump(x, indent + 1) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)


# ---- the shipped scenarios (the seeds of the mutants) ----

def shipped_scenarios(root):
    """(name, document, folder) of every scenario under root/scenarios, file fields made absolute."""
    out = []
    for f in sorted((root / "scenarios").rglob("*.json")):
        if f.relative_to(root).as_posix() == "scenarios/regression/baseline.json":  # llmsim regress's baseline
            continue
        doc = json.loads(f.read_text())
        absolutize_files(doc, f.parent)
        out.append((f.relative_to(root).as_posix(), doc, f.parent))
    return out


def absolutize_files(v, folder):
    """A mutant lives in another folder: a file field naming a file beside its scenario gets that file's path."""
    if isinstance(v, dict):
        for k, x in v.items():
            if k in ("file", "trace") and isinstance(x, str) and x and (folder / x).is_file():
                v[k] = str((folder / x).resolve())
            else:
                absolutize_files(x, folder)
    elif isinstance(v, list):
        for x in v:
            absolutize_files(x, folder)


# ---- mutation operators: each takes (rng, doc, ctx) and returns (doc or text, label, path, tags) ----

LONG = "a" * 300
VALUES = [  # (label, value)
    ("string", "x"), ("integer", 1), ("fraction", 2.5), ("boolean", True), ("array", []), ("array", [1, 2]),
    ("object", {}), ("object", {"a": 1}), ("null", None),
    ("huge", 1e308), ("huge", Raw("1e999")), ("huge", Raw("-1e999")), ("huge", 10 ** 30), ("huge", 2 ** 64),
    ("huge", 2 ** 63), ("huge", -2 ** 63 - 1), ("huge", 1e9), ("huge", 1e12), ("huge", 1000001),
    ("negative", -1), ("negative", -1e9), ("negative", -0.5), ("zero", 0), ("zero", 0.0), ("zero", Raw("-0")),
    ("nan-like string", "NaN"), ("nan-like string", "inf"), ("nan-like string", "-Infinity"),
    ("nan-like string", "1e999"), ("nan token", Raw("NaN")), ("nan token", Raw("Infinity")),
    ("long string", LONG), ("control-char string", "a\nb"), ("control-char string", "x\ty"),
    ("control-char string", "\x01"), ("control-char string", "line1\r\nline2"),
    ("control-char string", "\x1b[31mred"), ("raw control char", Raw('"a\nb"')),
    ("unicode", "é"), ("unicode", "日本語"), ("unicode", "\u202eevil"), ("unicode", "😀"), ("unicode", "\ufeff"),
    ("lone surrogate", "\udcff"),
]
ODD_NAMES = [LONG, "", " ", "A100-SXM4-80GB ", "a\nb", "tab\there", "\x01", "../hardware/H100-SXM5-80GB",
             "/etc/passwd", ".", "..", "a/b", "日本語", "\u202eevil", "NaN", "%s%n", "$(id)", "name.json", "-", "~"]
BIG = [("training.global_batch", 10 ** 9), ("training.global_batch", 1e9), ("training.global_batch", 10 ** 7),
       ("training.micro_batch", 10 ** 6), ("training.seq_len", 10 ** 9), ("cluster.nodes", 1000001),
       ("cluster.nodes", 1000000), ("cluster.nodes", 100000), ("cluster.nic_latency_us", 1e12),
       ("cluster.nic_Gbps", 1e12), ("cluster.gpus_per_node", 1024), ("parallelism.tp", 2 ** 63),
       ("parallelism.dp", 2 ** 64), ("parallelism.pp", 10 ** 6), ("seed", 2 ** 64), ("seed", -2 ** 63 - 1),
       ("seed", Raw("123456789012345678901234567890")), ("serving.max_requests", 10 ** 7),
       ("serving.rate_scale", 1e6), ("serving.duration_s", 1e12), ("serving.kv_cache.block_size", 10 ** 9),
       ("faults.horizon_h", 87600), ("faults.spare_nodes", 10 ** 9), ("network.message_overhead_us", 1e12),
       ("output.trace_max_gpus", 10 ** 9), ("model.layers", 10 ** 6), ("model.hidden", 10 ** 9)]
TRAILING = [("NUL", "\0"), ("NUL line", "\n\0\n"), ("garbage", "garbage"), ("second document", None),
            ("empty object", "{}"), ("closing brace", "}"), ("comma", ","), ("comment", "// note\n")]
FILE_VALUES = ["/dev/zero", "FIFO", "DIR", "/nonexistent/trace.csv", "missing.csv", "/" + "p" * 299, "/dev/null",
               "/etc/passwd", "/proc/self/status", "", "LLMSIM"]
FILE_FIELDS = [  # (family, member with a file parameter, the parameter)
    ("faults.process", "trace", "file"), ("cluster.topology", "simgrid-xml", "file"), ("routing", "coactivation", "file"),
    ("serving.workload", "mooncake", "file"), ("serving.workload", "azure-trace", "trace"),
    ("serving.workload.prompt", "cdf", "file"), ("serving.workload.output", "cdf", "file")]
PRESET_SECTIONS = ["hardware", "model", "cluster"]
FAMILIES = ["cluster.topology", "strategies.pipeline_schedule", "strategies.expert_placement",
            "strategies.fault_tolerance", "strategies.moe_pipeline", "routing", "faults.process",
            "serving.workload", "serving.scheduler", "serving.router"]
ONLY_TRAINING, ONLY_SERVING = ("training.", "strategies.", "routing", "faults."), ("serving.",)
POISSON = {"name": "poisson", "rate_rps": 1.0, "prompt": {"distribution": "fixed", "tokens": 100},
           "output": {"distribution": "fixed", "tokens": 10}}


def applies(dotted_path, doc):
    """Whether a field may appear in a scenario of doc's kind (a training section is not a serving one's)."""
    serving = doc.get("kind") == "serving"
    return not dotted_path.startswith(ONLY_SERVING if not serving else ONLY_TRAINING)


def paths_of(v, prefix=()):
    """Every (path, value) below v: dict keys and list indices, depth first."""
    out = []
    items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else []
    for k, x in items:
        out.append((prefix + (k,), x))
        out.extend(paths_of(x, prefix + (k,)))
    return out


def object_levels(doc):
    return [()] + [p for p, x in paths_of(doc) if isinstance(x, dict)]


def get(doc, path):
    for k in path:
        doc = doc[k]
    return doc


def ensure_object(doc, dotted):
    """The object at a dotted path, created or turned from a preset/member name into {"preset"|"name": ...}."""
    node = doc
    parts = dotted.split(".")
    for i, k in enumerate(parts):
        x = node.get(k)
        if isinstance(x, str):
            node[k] = {"preset" if ".".join(parts[: i + 1]) in PRESET_SECTIONS else "name": x}
        elif not isinstance(x, dict):
            node[k] = {}
        node = node[k]
    return node


def set_dotted(doc, dotted, value):
    head, _, key = dotted.rpartition(".")
    (ensure_object(doc, head) if head else doc)[key] = value


def kind_of(doc):
    k = doc.get("kind", "training") if isinstance(doc, dict) else "training"
    return k if k in ("training", "moe-chiplet", "serving") else "training"


def dotted(path):
    return ".".join(str(k) for k in path) or "(top level)"


def op_replace(rng, doc, ctx):
    path, _ = rng.choice(paths_of(doc))
    label, value = rng.choice(VALUES)
    get(doc, path[:-1])[path[-1]] = value
    return doc, f"replace by {label}", dotted(path), {"null-value"} if value is None else set()


def op_delete(rng, doc, ctx):
    keyed = [p for p, _ in paths_of(doc) if isinstance(get(doc, p[:-1]), dict)]
    path = rng.choice(keyed)
    del get(doc, path[:-1])[path[-1]]
    return doc, "delete key", dotted(path), set()


def op_unknown_key(rng, doc, ctx):
    if rng.random() < 0.4:  # the levels the issue names, present or not
        level = rng.choice(["cluster", "cluster.topology"])
        node, where = ensure_object(doc, level), level
    else:
        path = rng.choice(object_levels(doc))
        node, where = get(doc, path), dotted(path)
    key = rng.choice(["bogus", "nic_latency", "Name", "$schema", "", "a\nb", "trace "])
    value = None if rng.random() < 0.5 else rng.choice([1, "x", True, {}])
    node[key] = value
    return doc, "unknown key = null" if value is None else "unknown key", where, \
        {"unknown-key-null"} if value is None else set()


def op_duplicate(rng, doc, ctx):
    levels = [p for p in object_levels(doc) if get(doc, p)]
    path = rng.choice(levels)
    node = get(doc, path)
    key = rng.choice(list(node))
    other = node[key] if rng.random() < 0.3 else rng.choice(VALUES)[1]
    pairs = Pairs(node.items())
    at = [k for k, _ in pairs].index(key)
    pairs.insert(at if rng.random() < 0.5 else at + 1, (key, other))
    if path:
        get(doc, path[:-1])[path[-1]] = pairs
    else:
        doc = pairs
    return doc, "duplicate key", dotted(path + (key,)), {"duplicate-key"}


def op_trailing(rng, doc, ctx):
    label, tail = rng.choice(TRAILING)
    text = dump(doc)
    return text + "\n" + (text if tail is None else tail), f"trailing {label}", "(end)", {"trailing-bytes"}


def op_truncate(rng, doc, ctx):
    text = dump(doc)
    cut = rng.randrange(0, len(text.rstrip()) - 1)
    return text[:cut], "truncated", f"at byte {cut}", set()


def op_file_field(rng, doc, ctx):
    family, member, param = rng.choice([f for f in FILE_FIELDS if applies(f[0], doc)])
    value = rng.choice(FILE_VALUES)
    value = ctx["fixtures"].get(value, value)
    if family.endswith((".prompt", ".output")):
        workload = ensure_object(doc, "serving.workload")
        if workload.get("name") not in ("poisson", "gamma"):
            workload.clear()
            workload.update(json.loads(json.dumps(POISSON)))
        node = ensure_object(doc, family)
        node.clear()
        node["distribution"] = member
    else:
        node = ensure_object(doc, family)
        if node.get("name") != member:
            node.clear()
            node["name"] = member
    node[param] = value
    shown = value if len(value) < 40 else value[:12] + f"...({len(value)} chars)"
    return doc, f"file field = {shown}", f"{family}.{param}", set()


def op_odd_name(rng, doc, ctx):
    target = rng.choice([t for t in PRESET_SECTIONS + FAMILIES if applies(t, doc)])
    name = rng.choice(ODD_NAMES)
    head, _, key = target.rpartition(".")
    parent = ensure_object(doc, head) if head else doc
    if isinstance(parent.get(key), dict):
        parent[key]["preset" if target in PRESET_SECTIONS else "name"] = name
    else:
        parent[key] = name
    return doc, "odd preset name" if target in PRESET_SECTIONS else "odd member name", target, set()


def op_big_number(rng, doc, ctx):
    if rng.random() < 0.5:
        path, value = rng.choice([(p, v) for p, v in BIG if applies(p, doc)])
        set_dotted(doc, path, value)
        return doc, f"big number {path}={value}", path, set()
    numeric = [p for p, x in paths_of(doc) if isinstance(x, (int, float)) and not isinstance(x, bool)]
    path = rng.choice(numeric)
    value = rng.choice([1e9, 1e12, 10 ** 20, 2 ** 64, -2 ** 63 - 1, 1e308, Raw("1e400")])
    get(doc, path[:-1])[path[-1]] = value
    return doc, f"big number {value}", dotted(path), set()


OPERATORS = [(op_replace, 30), (op_delete, 8), (op_unknown_key, 10), (op_duplicate, 8), (op_trailing, 6),
             (op_truncate, 4), (op_file_field, 7), (op_odd_name, 7), (op_big_number, 10)]


def make_mutant(seed, index, bases, ctx):
    """(bytes, info) of mutant `index`: a function of (seed, index) only."""
    rng = random.Random(f"{seed}:{index}")
    name, base, _ = rng.choice(bases)
    op = rng.choices([o for o, _ in OPERATORS], weights=[w for _, w in OPERATORS])[0]
    doc, label, path, tags = op(rng, json.loads(json.dumps(base)), ctx)
    text = doc if isinstance(doc, str) else dump(doc) + "\n"
    info = {"case": index, "base": name, "op": op.__name__[3:], "mutation": label, "path": path,
            "tags": sorted(tags), "kind": kind_of(base)}
    return text.encode("utf-8", "surrogatepass"), info


# ---- running a case ----

def run_cmd(argv, cwd, stem, timeout, memory):
    """Runs argv with stdout/stderr in cwd/stem.*, polling its resident memory; returns the exit code, -N for
    signal N, "timeout" past the time limit or "memory" past the resident-memory limit (the process group is
    killed). Resident memory, not address space: SimGrid reserves a stack per actor that is never touched."""
    limited = ["/bin/sh", "-c", "ulimit -c 0; exec \"$0\" \"$@\"", *argv]
    with open(cwd / f"{stem}.stdout", "wb") as out, open(cwd / f"{stem}.stderr", "wb") as err:
        p = subprocess.Popen(limited, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                             start_new_session=True)
        code, deadline = None, time.monotonic() + timeout
        while code is None:
            try:
                code = p.wait(timeout=0.05)
            except subprocess.TimeoutExpired:
                over = "timeout" if time.monotonic() > deadline else "memory" if rss(p.pid) > memory else None
                if over:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
                    code = over
    (cwd / f"{stem}.code").write_text(f"{code}\n")
    return code


def rss(pid):
    """Resident bytes of process pid (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


def run_overrides(resolved, mutated):
    """--set flags that keep a run short, from the mutant's resolved scenario: (the ones any scenario of its kind
    takes: one iteration, no trace; serving: no capacity search), (the size ones: at most pp micro-batches per
    replica; serving: 50 requests). A size is left out when the mutation touched that field: its own value is
    what is tested."""
    kind = resolved.get("kind", "training")
    sets = ["output.trace=false", "output.events_csv=false"]
    sizes = {}
    if kind == "serving":
        sets.append("serving.capacity_search.enabled=false")
        sizes["serving.max_requests"] = 50
    else:
        sets.append("training.iterations=1")
        t, p = resolved.get("training", {}), resolved.get("parallelism", {})
        replicas = 1 if kind == "moe-chiplet" else p.get("dp", 1)
        per_batch, stages = t.get("micro_batch", 1) * replicas, p.get("pp", 1)
        if isinstance(per_batch, int) and isinstance(stages, int) and t.get("global_batch", 0) > per_batch * stages:
            sizes["training.global_batch"] = per_batch * stages
    touched = lambda key: key == mutated or key.startswith(mutated + ".") or mutated.startswith(key + ".")
    return sets, [f"{k}={v}" for k, v in sizes.items() if not touched(k)]


def short_run_sets(llmsim, case_dir, info, opts, memory):
    """The --set flags of the short run: the size ones too unless validate rejects them (a schedule needing
    more micro-batches: stp, zb-v)."""
    sets, sizes = run_overrides(resolved_scenario(case_dir), info["path"])
    if sizes:
        flags = [a for x in sets + sizes for a in ("--set", x)]
        if run_cmd([llmsim, "validate", "mutant.json"] + flags, case_dir, "shrink", opts.timeout, memory) == 0:
            return sets + sizes
    return sets


def resolved_scenario(case_dir):
    """validate's stdout: the resolved scenario ({} when it is not one)."""
    try:
        doc = json.loads((case_dir / "validate.stdout").read_text())
        return doc if isinstance(doc, dict) else {}
    except (ValueError, UnicodeDecodeError):
        return {}


def classify(info, case_dir, validate, run):
    """The classes of a finished case (see the module docstring)."""
    found = set()
    for stem, code in (("validate", validate), ("run", run)):
        if code is None:
            continue
        err = (case_dir / f"{stem}.stderr").read_bytes()[:65536].decode("utf-8", "replace")
        if code == "timeout":
            found.add("hangs")
        elif code == "memory":
            found.add("over memory")
        elif code < 0:
            found.add("crashes")
        elif code not in (0, 2):
            found.add("bad exit codes")
        if code == 2 and not re.fullmatch(r"error: [^\n]*\n?", err):
            found.add("multi-line errors")
        if any(CONTROL.search(line) for line in err.split("\n")):
            found.add("control chars")
    out = case_dir / "out"
    left = [p.name for p in case_dir.iterdir() if p.name.startswith("out.partial-")]
    if run not in ("timeout", "memory") and (left or out.exists() and run != 0):  # a killed run may leave them: a hang
        found.add("partial outputs")
    if validate == 0 and SILENT_TAGS & set(info["tags"]):
        found.add("silent accepts")
    if validate == 0 and run == 2 and info["revalidate"] == 0:
        found.add("validate-ok-run-fails")
    return found


def replay_script(llmsim, sets):
    flags = " ".join(f"--set '{x}'" for x in sets)
    return (f"#!/bin/sh\n# replays this case; the FIFO and folder fixtures live in the harness's --out\n"
            f"cd \"$(dirname \"$0\")\"\n"
            f"'{llmsim}' validate mutant.json >/dev/null; echo \"validate: $?\"\n"
            f"'{llmsim}' run mutant.json --out out --log-level warn {flags}; echo \"run: $?\"\n")


def run_case(index, opts, bases, ctx):
    started = time.monotonic()
    data, info = make_mutant(opts.seed, index, bases, ctx)
    case_dir = ctx["work"] / f"case-{index:06d}"
    shutil.rmtree(case_dir, ignore_errors=True)
    case_dir.mkdir(parents=True)
    (case_dir / "mutant.json").write_bytes(data)
    llmsim, memory = str(opts.llmsim), ctx["memory"]
    validate = run_cmd([llmsim, "validate", "mutant.json"], case_dir, "validate", opts.timeout, memory)
    info["validate_s"] = round(time.monotonic() - started, 3)
    run = revalidate = None
    sets = []
    if validate == 0 and info["base"] in ctx["heavy"]:
        info["run_skipped"] = True
    elif validate == 0:
        sets = short_run_sets(llmsim, case_dir, info, opts, memory)
        flags = [a for x in sets for a in ("--set", x)]
        run = run_cmd([llmsim, "run", "mutant.json", "--out", "out", "--log-level", "warn"] + flags, case_dir, "run",
                      opts.timeout, memory)
        if run == 2:  # is it the overrides that validate rejects?
            revalidate = run_cmd([llmsim, "validate", "mutant.json"] + flags, case_dir, "revalidate",
                                 opts.timeout, memory)
    info.update(validate=validate, run=run, revalidate=revalidate)
    info["classes"] = sorted(classify(info, case_dir, validate, run))
    info["seconds"] = round(time.monotonic() - started, 3)
    for stem in ("validate", "run"):
        f = case_dir / f"{stem}.stderr"
        info[f"{stem}_error"] = f.read_bytes()[:300].decode("utf-8", "replace").split("\n")[0] if f.exists() else ""
    if info["classes"]:
        shutil.rmtree(case_dir / "out", ignore_errors=True)
        for p in case_dir.glob("out.partial-*"):
            shutil.rmtree(p, ignore_errors=True)
        (case_dir / "replay.sh").write_text(replay_script(llmsim, sets))
        (case_dir / "replay.sh").chmod(0o755)
        (case_dir / "info.json").write_text(json.dumps(info, indent=2, ensure_ascii=True) + "\n")
        shutil.move(str(case_dir), ctx["failures"] / case_dir.name)
    else:
        shutil.rmtree(case_dir, ignore_errors=True)
    return info


class HeavyBases:
    """Which shipped scenarios are too big for a short run (over 4,096 GPUs): their mutants are validated, not
    run. Asked once per scenario, when one of its mutants is accepted."""

    def __init__(self, llmsim, root):
        self.llmsim, self.root, self.known, self.lock = llmsim, root, {}, threading.Lock()

    def __contains__(self, base):
        with self.lock:
            if base not in self.known:
                r = subprocess.run([str(self.llmsim), "validate", str(self.root / base)], capture_output=True, text=True)
                cluster = json.loads(r.stdout)["cluster"] if r.returncode == 0 else {"nodes": 0, "gpus_per_node": 0}
                self.known[base] = cluster["nodes"] * cluster["gpus_per_node"] > 4096
            return self.known[base]


# ---- the report ----

def histogram(values):
    return dict(sorted(Counter(str(v) for v in values if v is not None).items()))


def signature(r, cls):
    """What a failure looks like: the mutation when llmsim said nothing (wrong): a silent accept, a hang, a crash,
    partial outputs; else the shape of its error (quoted text, paths and numbers blanked)."""
    code, err = (r["run"], r["run_error"]) if r["run"] not in (None, 0) else (r["validate"], r["validate_error"])
    if cls in ("silent accepts", "hangs", "crashes", "partial outputs") or not err.startswith("error: "):
        return re.sub(r"\d[\d.e+]*", "N", r["mutation"].split(" = ")[0].split("=")[0]).strip()
    err = re.sub(r'"[^"]*"?', '"…"', err)
    err = re.sub(r"(/[^ /:\]\[\]]+)+", "PATH", err.split(":", 1)[1])
    return "error:" + re.sub(r"\d[\d.e+]*", "N", err)[:90]


def kinds_text(results):
    """Failures grouped by class and signature: count, the mutations behind them, one example."""
    groups = {}
    for r in results:
        for c in r["classes"]:
            groups.setdefault((c, signature(r, c)), []).append(r)
    lines = []
    for (c, sig), rs in sorted(groups.items(), key=lambda kv: (CLASSES.index(kv[0][0]), -len(kv[1]))):
        ex, mutations = rs[0], sorted({x["mutation"] for x in rs})
        err = ex["run_error"] if ex["run"] not in (None, 0) else ex["validate_error"]
        lines.append(f"{c} | {sig} | {len(rs)} cases | mutations: {'; '.join(mutations[:4])}"
                     f"{' ...' if len(mutations) > 4 else ''} | e.g. case-{ex['case']:06d}: {ex['base']} "
                     f"{ex['mutation']} at {ex['path']}: validate {ex['validate']}, run {ex['run']}: {err[:200]!r}")
    return lines


def summary_line(n, totals):
    return (f"mutation: {n} cases, {totals['crashes']} crashes, {totals['hangs']} hangs, "
            f"{totals['over memory']} over memory, "
            f"{totals['bad exit codes']} bad exit codes, {totals['multi-line errors']} multi-line errors, "
            f"{totals['control chars']} control-char lines, {totals['partial outputs']} partial outputs, "
            f"{totals['silent accepts']} silent accepts, {totals['validate-ok-run-fails']} validate-ok-run-fails")


def report(results, opts, seconds):
    totals = {c: sum(c in r["classes"] for r in results) for c in CLASSES}
    rep = {"cases": len(results), "seed": opts.seed, "seconds": round(seconds, 1),
           "cases_per_s": round(len(results) / seconds, 2) if seconds else None,
           "validate_exit_codes": histogram(r["validate"] for r in results),
           "run_exit_codes": histogram(r["run"] for r in results),
           "operators": histogram(r["op"] for r in results), "totals": totals,
           "runs_skipped_heavy_base": sum(bool(r.get("run_skipped")) for r in results),
           "runs_overrides_rejected": sum(r["revalidate"] == 2 for r in results),
           "validate_median_s": sorted(r["validate_s"] for r in results)[len(results) // 2]}
    (opts.out / "report.json").write_text(json.dumps(rep, indent=2) + "\n")
    kinds = kinds_text(results)
    with open(opts.out / "cases.jsonl", "w") as f:
        for r in results:
            f.write(json.dumps(r, ensure_ascii=True) + "\n")
    (opts.out / "kinds.txt").write_text("".join(k + "\n" for k in kinds))
    with open(opts.out / "failures" / "index.tsv", "w") as f:
        for r in results:
            if r["classes"]:
                f.write(f"case-{r['case']:06d}\t{','.join(r['classes'])}\t{r['base']}\t{r['mutation']}\t{r['path']}\n")
    print(f"validate exit codes: {rep['validate_exit_codes']}")
    print(f"run exit codes: {rep['run_exit_codes']} ({rep['runs_skipped_heavy_base']} accepted mutants of scenarios "
          f"over 4,096 GPUs not run; {rep['runs_overrides_rejected']} runs whose short-run --set validate rejects)")
    slowest = max(results, key=lambda r: r["validate_s"])
    print(f"validate: median {rep['validate_median_s']} s, slowest {slowest['validate_s']:.1f} s "
          f"(case-{slowest['case']:06d}, {slowest['base']}, {slowest['mutation']} at {slowest['path']})")
    print(f"{len(results)} cases in {seconds:.0f} s ({rep['cases_per_s']} cases/s); "
          f"{len(kinds)} failure kinds in {opts.out / 'kinds.txt'}, cases in {opts.out / 'failures'}/")
    print(summary_line(len(results), totals))


# ---- command line ----

def options(argv):
    p = ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--count", type=int, default=10000, help="mutants (default 10000)")
    p.add_argument("--seed", type=int, default=1, help="seed of the mutants (default 1)")
    p.add_argument("-j", "--jobs", type=int, default=2, help="cases at once (default 2)")
    p.add_argument("--out", type=Path, default=Path("mutation-out"), help="report and failing cases (emptied first)")
    p.add_argument("--llmsim", type=Path, default=REPO / "build" / "llmsim", help="the binary under test")
    p.add_argument("--timeout", type=float, default=120,
                   help="seconds a command may take (default 120: a million requests, within the limits, take about 40)")
    p.add_argument("--memory-GiB", type=float, default=10,
                   help="resident-memory limit of each command (default 10)")
    o = p.parse_args(argv)
    if o.count < 1 or o.jobs < 1 or o.timeout <= 0 or o.memory_GiB <= 0:
        p.error("--count, --jobs, --timeout and --memory-GiB must be positive")
    if not os.access(o.llmsim, os.X_OK):
        p.error(f"--llmsim {o.llmsim}: not an executable (build it: cmake --build build)")
    o.llmsim, o.out = o.llmsim.resolve(), o.out.resolve()
    return o


def fixtures(out):
    """The odd files file fields point at: a FIFO nobody writes, a folder, the llmsim binary (not text)."""
    folder = out / "fixtures"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "fifo")
    return {"FIFO": str(folder / "fifo"), "DIR": str(folder)}


def main(argv):
    opts = options(argv)
    shutil.rmtree(opts.out, ignore_errors=True)
    ctx = {"fixtures": fixtures(opts.out), "work": opts.out / "work", "failures": opts.out / "failures",
           "memory": int(opts.memory_GiB * 2 ** 30)}
    ctx["fixtures"]["LLMSIM"] = str(opts.llmsim)
    ctx["heavy"] = HeavyBases(opts.llmsim, REPO)
    ctx["failures"].mkdir()
    bases = shipped_scenarios(REPO)
    started, results, lock = time.monotonic(), [], threading.Lock()

    def one(i):
        r = run_case(i, opts, bases, ctx)
        with lock:
            results.append(r)
            if len(results) % 500 == 0:
                print(f"  {len(results)}/{opts.count} cases, {time.monotonic() - started:.0f} s", file=sys.stderr)
        return r

    with ThreadPoolExecutor(opts.jobs) as pool:
        list(pool.map(one, range(opts.count)))
    shutil.rmtree(ctx["work"], ignore_errors=True)
    results.sort(key=lambda r: r["case"])
    report(results, opts, time.monotonic() - started)
    return 0


if __name__ == "__main__":
    sys.exit(guarded(main, sys.argv[1:]))
