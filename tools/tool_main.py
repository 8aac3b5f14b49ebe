"""The entry point every tool shares: a run that fails on its input (a missing or malformed file, an llmsim run
that failed, an output path that cannot be written) ends with one line on stderr and exit code 2, not a traceback."""
import argparse
import json
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


def run_llmsim(cmd, what):
    """Runs an llmsim command line; a failure ends the tool with one line: `what`, then llmsim's own error (or
    its exit code when it printed none)."""
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        fail(f"{what} failed: {lines[-1] if lines else f'exit {done.returncode} without a message'}")
    return done.stdout
