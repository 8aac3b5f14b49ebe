"""The entry point every tool shares: a run that fails on its input (a missing, empty or malformed file, an option
value it does not take, an llmsim run that failed, an output path that cannot be written) ends with one line on
stderr and exit code 2, not a traceback; and the readers and option types whose checks several tools share."""
import argparse
import csv
import json
import math
import os
import subprocess
import sys


def describe(e):
    """One line for exception `e` as the user should read it."""
    if isinstance(e, KeyError):
        return f"missing key {e} (is the input the output this tool reads?)"
    if isinstance(e, json.JSONDecodeError):
        return f"malformed JSON: {e}"
    if isinstance(e, subprocess.CalledProcessError):
        return f"{' '.join(map(str, e.cmd))} failed (exit {e.returncode})"
    if isinstance(e, OSError) and e.filename:
        return f"{e.filename}: {e.strerror}"
    return f"{type(e).__name__}: {e}"


def guarded(main, *args):
    """Runs main(*args) and returns its result; input errors (and a SystemExit with a message) exit 2 with one line
    naming the tool."""
    try:
        return main(*args)
    except SystemExit as e:
        if not isinstance(e.code, str):  # argparse's own exit, sys.exit(n)
            raise
        fail(e.code.removeprefix("error: "))
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError,
            subprocess.CalledProcessError) as e:
        fail(describe(e))


def fail(message):
    """Ends the tool with `message` on one line of stderr, named by the tool, and exit code 2."""
    print(f"{os.path.basename(sys.argv[0])}: error: {' '.join(message.split())}", file=sys.stderr)
    sys.exit(2)


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser whose usage errors end the tool as the other input errors do: one line, exit code 2."""

    def error(self, message):
        fail(f"{message} (see {self.prog} --help)")


def numbers(kind=float, low=-math.inf, count=None, high=math.inf):
    """An argparse type: comma-separated numbers, each a finite `kind` (int or float) from `low` to `high`, and
    `count` of them if given (count 1: the number itself, not a list). Anything else is a usage error that names the
    option and what it takes (type=float alone takes nan and inf; a ValueError of int() names neither)."""
    single, plural = ("an integer", "integers") if kind is int else ("a finite number", "finite numbers")
    bound = ("" if low == -math.inf else f" of at least {low:g}") + ("" if high == math.inf else f" and at most {high:g}")
    what = single + bound if count == 1 else f"{f'{count} ' if count else ''}comma-separated {plural}{bound}"

    def parse(text):
        try:
            values = [kind(v) for v in text.split(",")]
        except ValueError:
            values = []
        if not values or count not in (None, len(values)) or not all(math.isfinite(v) and low <= v <= high
                                                                     for v in values):
            raise argparse.ArgumentTypeError(f"{what}, not '{text}'")
        return values[0] if count == 1 else values
    return parse


def number(kind=float, low=-math.inf, high=math.inf):
    """An argparse type: one finite int or float (`kind`) from `low` to `high` (see numbers)."""
    return numbers(kind, low, 1, high)


def read_rows(path, why_empty=""):
    """The rows of CSV file `path` as dicts by its header. A file without rows (0 bytes or the header only) or a
    row with more or fewer fields than the header ends the tool naming the file (`why_empty`: when that happens)."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        rows = []
        try:
            for r in reader:
                if None in r or None in r.values():
                    raise SystemExit(f"{path} line {reader.line_num}: {'more' if None in r else 'fewer'} fields than "
                                     f"the header's {len(reader.fieldnames)}")
                rows.append(r)
        except csv.Error as e:  # a NUL byte, an unterminated quote
            raise SystemExit(f"{path} line {reader.line_num}: not a CSV row ({e})")
    if not rows:
        raise SystemExit(f"{path}: no rows{why_empty}")
    return rows


def read_object(path, what):
    """The JSON object in file `path`; malformed or other JSON (an array, a number) ends the tool naming the file
    and `what` it should be."""
    with open(path) as f:
        try:
            value = json.load(f)
        except json.JSONDecodeError as e:
            raise SystemExit(f"{path}: malformed JSON: {e}")
    if not isinstance(value, dict):
        raise SystemExit(f"{path}: not {what} (a JSON object)")
    return value


def run_llmsim(cmd, what):
    """Runs an llmsim command line; a failure ends the tool with one line: `what`, then llmsim's own error (or
    its exit code when it printed none)."""
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        fail(f"{what} failed: {lines[-1] if lines else f'exit {done.returncode} without a message'}")
    return done.stdout
