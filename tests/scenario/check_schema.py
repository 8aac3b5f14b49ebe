#!/usr/bin/env python3
"""Checks the JSON Schema `llmsim schema --format json-schema` prints with a full validator of the draft it
declares (Debian's python3-jsonschema), against llmsim itself:

  check_schema.py --llmsim build/llmsim --resolved DIR shipped
                                                   every shipped scenario is valid, and its resolved form
                                                   in DIR (the loader's, which tests/scenario/
                                                   reference_test.cpp writes there)
  check_schema.py --llmsim build/llmsim rejected   every scenario of BAD that `llmsim validate` rejects (exit 2,
                                                   one "error: " line) the schema rejects too, except the ones
                                                   of NOT_EXPRESSED, which it must accept (so that list stays
                                                   true); the scenarios of GOOD both accept

Prints one line per problem and exits 1 if there is any, 0 otherwise.

What the schema cannot say (each rule is llmsim's alone, `llmsim validate` is the full check):
  - rules between fields: tp*pp*dp*cp = the GPUs, global_batch divisible by micro_batch*dp, heads by tp, pp
    within the layers, min <= max of a length distribution, prefill_replicas below dp, a moe-chiplet on a
    nop-tree, the tokens a distribution needs, ns-3 only with simgrid-xml, memory fit, the work limit;
  - rules on the JSON text: duplicate keys and bytes after the document (a schema sees the parsed value);
  - files: a trace, platform or co-activation file exists, is a regular file and parses;
  - the scenario name's characters (a plain file name: the default output folder), checked with the cross-field
    rules rather than in the field table the schema is generated from.
"""
import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import jsonschema

REPO = Path(__file__).resolve().parents[2]
DEFAULT = "scenarios/default.json"
SERVING = "scenarios/regression/serving-vllm.json"

# (base scenario, {dotted path: value}); None deletes the key. Each is an error of the field tables.
BAD = [
    (DEFAULT, {"bogus": 1}),                                         # unknown keys, at every level
    (DEFAULT, {"cluster.bogus": 1}),
    (DEFAULT, {"cluster.topology": {"name": "fat-tree", "bogus": 1}}),
    (DEFAULT, {"cluster.topology": {"name": "torus", "w": 2}}),      # another member's parameter
    (DEFAULT, {"parallelism.tpp": 4}),
    (DEFAULT, {"strategies.pipeline_schedule": {"name": "1f1b", "virtual_stages": 2}}),
    (DEFAULT, {"hardware": {"preset": "A100-SXM4-80GB", "bogus": 1}}),
    (SERVING, {"serving.workload.prompt.bogus": 1}),
    (SERVING, {"serving.kv_cache.bogus": 1}),
    (DEFAULT, {"parallelism.dp": "many"}),                           # wrong types
    (DEFAULT, {"parallelism.tp": 2.5}),
    (DEFAULT, {"training.global_batch": "64"}),
    (DEFAULT, {"training.overlap_grad_reduce": 1}),
    (DEFAULT, {"cluster.nodes": [2]}),
    (DEFAULT, {"output": "none"}),
    (DEFAULT, {"name": 7}),
    (DEFAULT, {"hardware": 5}),
    (DEFAULT, {"strategies.pipeline_schedule": 3}),
    (SERVING, {"serving.max_requests": True}),
    (DEFAULT, {"parallelism.tp": 0}),                                # out-of-range numbers
    (DEFAULT, {"seed": -1}),
    (DEFAULT, {"cluster.nodes": 1000001}),
    (DEFAULT, {"training.iterations": 1001}),
    (DEFAULT, {"training.grad_bucket_MB": 0}),
    (DEFAULT, {"training.zero_stage": 4}),
    (DEFAULT, {"parallelism.cp": 0}),
    (SERVING, {"serving.rate_scale": 0}),
    (SERVING, {"serving.workload.rate_rps": 1e7}),
    (SERVING, {"serving.capacity_search.tolerance": 1}),
    (DEFAULT, {"training.precision": "fp12"}),                       # unknown enum values, member and preset names
    (DEFAULT, {"kind": "inference"}),
    (DEFAULT, {"parallelism.cp_variant": "striped"}),
    (DEFAULT, {"software": "megatron-2019"}),
    (DEFAULT, {"network.model": "ns-4"}),
    (DEFAULT, {"strategies.pipeline_schedule": "1f2b"}),
    (DEFAULT, {"strategies.pipeline_schedule": {"name": "1f2b"}}),
    (DEFAULT, {"hardware": "B300"}),
    (DEFAULT, {"cluster": {"preset": "selene2", "nodes": 2}}),
    (DEFAULT, {"model": "gpt-1.7b "}),
    (DEFAULT, {"cluster": "selene"}),                                # a preset lacking a required field
    (DEFAULT, {"cluster": {"preset": "selene"}}),
    (SERVING, {"serving.precision": "bf17"}),
    (SERVING, {"serving.workload.prompt.distribution": "normal"}),
    (DEFAULT, {"routing": {"name": "zipf", "skew": 5}}),
    (DEFAULT, {"model": {"preset": "gpt-1.7b", "moe": {"experts": -1}}}),
    (DEFAULT, {"name": None}),                                       # missing keys
    (DEFAULT, {"training.global_batch": None}),
    (SERVING, {"serving.workload.rate_rps": None}),
    (DEFAULT, {"serving": {}}),                                      # a section of another kind
    (SERVING, {"training": {"global_batch": 8}}),
]
NULLS = [  # null where a value is expected: the schema's types never include null
    (DEFAULT, {"parallelism.tp": "null"}),
    (DEFAULT, {"training": "null"}),
    (DEFAULT, {"name": "null"}),
    (SERVING, {"serving.workload": "null"}),
    (DEFAULT, {"strategies.pipeline_schedule.name": "null"}),
    (DEFAULT, {"cluster.nic_latency_us": "null"}),
    (DEFAULT, {"cluster.bogus": "null"}),
    (DEFAULT, {"cluster.topology": {"name": "fat-tree", "bogus": None}}),
]
NOT_EXPRESSED = [  # errors the schema cannot see (see the docstring): it accepts them
    (DEFAULT, {"parallelism.dp": 3}),
    (DEFAULT, {"training.global_batch": 63}),
    (DEFAULT, {"parallelism.pp": 100}),
    (DEFAULT, {"name": "a/b"}),
    (SERVING, {"serving.workload.prompt": {"distribution": "uniform", "min": 10, "max": 5}}),
    (SERVING, {"serving.prefill_replicas": 4}),
    (DEFAULT, {"kind": "moe-chiplet"}),
    (DEFAULT, {"faults.process": {"name": "trace", "file": "no-such-trace.csv"}}),
]
GOOD = [  # "auto", a bare member name, a preset with overrides, a preset section's full object form
    (DEFAULT, {"parallelism.dp": "auto"}),
    (DEFAULT, {"strategies.pipeline_schedule": "gpipe"}),
    (DEFAULT, {"cluster.nodes": 4}),
    (DEFAULT, {"hardware": "H100-SXM5-80GB"}),
    (DEFAULT, {"training.grad_bucket_MB": 25.5}),
    (DEFAULT, {"hardware": "FULL_OBJECT"}),
    (SERVING, {"serving.workload.prompt": {"distribution": "fixed", "tokens": 100}}),
]


def the_validator(llmsim):
    """The validator class of the draft the schema declares, after checking the schema against its meta-schema."""
    text = subprocess.run([str(llmsim), "schema", "--format", "json-schema"], check=True, capture_output=True,
                          text=True).stdout
    schema = json.loads(text)
    cls = jsonschema.validators.validator_for(schema, default=None)
    if cls is None or cls.META_SCHEMA.get("$id", cls.META_SCHEMA.get("$schema", "")).rstrip("#") != \
            schema["$schema"].rstrip("#"):
        sys.exit(f"jsonschema {jsonschema.__file__} has no validator of {schema['$schema']}")
    cls.check_schema(schema)
    return cls(schema)


def first_error(validator, doc):
    """The first violation as "<json path>: <message>", or None when doc is valid."""
    errors = sorted(validator.iter_errors(doc), key=lambda e: len(e.absolute_path))
    return None if not errors else f"{errors[0].json_path}: {errors[0].message[:200]}"


def llmsim_validate(llmsim, file):
    """(exit code, resolved scenario or None, stderr) of `llmsim validate file`."""
    r = subprocess.run([str(llmsim), "validate", str(file)], capture_output=True, text=True)
    return r.returncode, json.loads(r.stdout) if r.returncode == 0 else None, r.stderr


def resolved_name(scenario):
    """The file a scenario's resolved form is in: its path below the repository, "/" as "__"."""
    return scenario.replace("/", "__")


def shipped(opts, validator):
    problems, files = [], sorted(f for f in (REPO / "scenarios").rglob("*.json")
                                 if f.relative_to(REPO).as_posix() != "scenarios/regression/baseline.json")
    for f in files:
        name = f.relative_to(REPO).as_posix()
        why = first_error(validator, json.loads(f.read_text()))
        if why:
            problems.append(f"{name}: the schema rejects the shipped scenario: {why}")
        resolved = opts.resolved / resolved_name(name)
        if not resolved.is_file():
            problems.append(f"{name}: no resolved form {resolved}")
        elif first_error(validator, json.loads(resolved.read_text())):
            problems.append(f"{name}: the schema rejects its resolved form: "
                            f"{first_error(validator, json.loads(resolved.read_text()))}")
    if len(files) < 60:
        problems.append(f"only {len(files)} shipped scenarios found under {REPO / 'scenarios'}")
    return problems


def mutant(base, sets):
    """base (a path in the repository) with sets applied; a preset section named by a string becomes
    {"preset": name}, a member name {"name": name}; "null" sets JSON null, None deletes, FULL_OBJECT puts a
    preset's own fields in place of the section."""
    doc = json.loads((REPO / base).read_text())
    for dotted, value in sets.items():
        node, parts = doc, dotted.split(".")
        for k in parts[:-1]:
            if isinstance(node.get(k), str):
                node[k] = {"preset" if k in ("hardware", "cluster", "model") else "name": node[k]}
            node = node.setdefault(k, {})
        if value is None:
            node.pop(parts[-1], None)
        elif value == "FULL_OBJECT":
            node[parts[-1]] = json.loads((REPO / "configs" / parts[-1] / f"{node[parts[-1]]}.json").read_text())
        else:
            node[parts[-1]] = None if value == "null" else value
    return doc


def rejected(opts, validator):
    problems, llmsim = [], opts.llmsim
    with tempfile.TemporaryDirectory(prefix="llmsim-schema-") as tmp:
        for i, (base, sets) in enumerate(BAD + NULLS + NOT_EXPRESSED + GOOD):
            doc = mutant(base, sets)
            file = Path(tmp) / f"case-{i}.json"
            file.write_text(json.dumps(doc))
            code, _, err = llmsim_validate(llmsim, file)
            why = first_error(validator, doc)
            case = f"{base} with {json.dumps(sets)}"
            good = i >= len(BAD + NULLS + NOT_EXPRESSED)
            if good and (code != 0 or why):
                problems.append(f"{case}: should be valid; llmsim exits {code} ({err.strip()}), schema: {why}")
            if not good and (code != 2 or not err.startswith("error: ") or err.count("\n") != 1):
                problems.append(f"{case}: llmsim validate should reject it with one error line, exits {code}: {err!r}")
            if i < len(BAD + NULLS) and not why:
                problems.append(f"{case}: llmsim rejects it ({err.strip()}) but the schema accepts it")
            if len(BAD + NULLS) <= i < len(BAD + NULLS + NOT_EXPRESSED) and why:
                problems.append(f"{case}: the schema now rejects it ({why}): move it from NOT_EXPRESSED to BAD")
    return problems


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--llmsim", type=Path, required=True)
    p.add_argument("--resolved", type=Path, help="shipped: folder of the resolved scenarios (resolved_name)")
    p.add_argument("what", choices=["shipped", "rejected"])
    o = p.parse_args(argv)
    if o.what == "shipped" and not o.resolved:
        p.error("shipped needs --resolved")
    validator = the_validator(o.llmsim)
    problems = (shipped if o.what == "shipped" else rejected)(o, validator)
    for line in problems:
        print(line)
    print(f"check_schema {o.what}: {len(problems)} problems ({type(validator).__name__}, jsonschema "
          f"{Path(jsonschema.__file__).parent})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
