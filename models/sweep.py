#!/usr/bin/env python3
"""Sweeps ONNX's own node test cases through IREE and Ortho and classifies every case.

For every case of onnx.backend.test.case.node.collect_testcases() (model, inputs, expected
outputs) it
  1. imports the model with iree-import-onnx,
  2. compiles it with iree-compile for VMVX with the corpus's plain "vmvx" flags (build.py),
  3. runs it with iree-run-module on local-sync and on local-task,
  4. runs it with Ortho's run-module on local-sync (in one JVM for many cases: the harness
     launcher/src/test/java/dev/ortho/launcher/internal/OnnxSweepHarness.java, compiled here with
     javac against the jars inside launcher/target/ortho.jar),
  5. compares Ortho's outputs with IREE's local-sync outputs byte for byte, and IREE's with ONNX's
     expected outputs (within the case's rtol/atol),
and classifies the case (CLASSES below).

Work is kept under a scratch directory (default /work/sweep, never in the repository), one folder
per case, so the sweep resumes where it stopped: every step is skipped when its result exists.
Ortho's results are dropped when ortho.jar changes (its sha256 is kept with them).

Usage (from the repository root; build ortho.jar first, e.g. with ./ortho version):
  models/.venv/bin/python models/sweep.py [--budget SECONDS] [--jobs N] [--only REGEX]
  models/.venv/bin/python models/sweep.py --report          counts per class, ops per failing class
  models/.venv/bin/python models/sweep.py --rerun-ortho     forget Ortho's results and run it again
--budget stops starting new work after that many seconds (the machine lock asks for chunks of at
most 3 minutes); run it again until it prints "sweep: complete".
"""

import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import sys
import time
import warnings
import zipfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
VENV_BIN = HERE / ".venv" / "bin"
# The same flags as build.py's plain "vmvx" variant.
COMPILE_FLAGS = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=vmvx"]
DEVICES = ["local-sync", "local-task"]
HARNESS = ROOT / "launcher/src/test/java/dev/ortho/launcher/internal/OnnxSweepHarness.java"
JAR = ROOT / "launcher/target/ortho.jar"
ORTHO_DEVICE = "local-sync"  # --ortho-device
ORTHO_FLAGS = []  # --ortho-flag, e.g. --vm_compile=eager
IMPORT_TIMEOUT, COMPILE_TIMEOUT, RUN_TIMEOUT = 120, 300, 120

CLASSES = [
    "import fails",
    "compile fails",
    "IREE fails to run",
    "Ortho = IREE",
    "Ortho differs (wrong numbers)",
    "Ortho fails where IREE runs",
    "Ortho runs where IREE fails",
    "IREE fails to run, Ortho fails differently",
]


def tool(name):
    path = VENV_BIN / name
    return str(path) if path.exists() else name


def first_error_line(text):
    for line in text.splitlines():
        if "error" in line.lower() or re.search(r"\b[A-Z][A-Z_]+[A-Z];", line):
            return line.strip()[:400]
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[0][:400] if lines else "(no output)"


def status_code(text):
    m = re.search(r"\b([A-Z][A-Z_]{3,});", text)
    return m.group(1) if m else None


def run(args, cwd, timeout):
    try:
        r = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                           timeout=timeout, errors="replace")
        return r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired:
        return "timeout", f"timed out after {timeout} s"


# ----------------------------------------------------------------------------------------------
# Cases
# ----------------------------------------------------------------------------------------------

def collect():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import onnx.backend.test.case.node as node
        return node.collect_testcases(None)


def ops_of(model):
    return sorted({n.op_type for n in model.graph.node})


def prepare(case, folder):
    """Writes model.onnx, input<i>.npy and onnx<i>.npy; returns the case's state."""
    import onnx
    import onnx.numpy_helper
    folder.mkdir(parents=True, exist_ok=True)
    onnx.save(case.model, folder / "model.onnx")
    inputs, outputs = case.data_sets[0]
    state = {"name": case.name, "ops": ops_of(case.model), "rtol": case.rtol, "atol": case.atol,
             "opset": max((o.version for o in case.model.opset_import if o.domain in ("", "ai.onnx")),
                          default=None)}
    problems = []
    for kind, arrays in (("input", inputs), ("onnx", outputs)):
        for i, a in enumerate(arrays):
            if isinstance(a, np.generic):  # a 0-d input given as a numpy scalar
                a = np.asarray(a)
            elif isinstance(a, onnx.TensorProto):  # types numpy lacks (bfloat16, float8, int4...)
                a = onnx.numpy_helper.to_array(a)
            if not isinstance(a, np.ndarray):
                problems.append(f"{kind} {i} is a {type(a).__name__}, not a tensor")
                continue
            try:
                np.save(folder / f"{kind}{i}.npy", a, allow_pickle=False)
            except ValueError as e:
                problems.append(f"{kind} {i}: {e}")
    state["inputs"], state["outputs"] = len(inputs), len(outputs)
    state["dtypes"] = [str(getattr(a, "dtype", type(a).__name__)) for a in list(inputs) + list(outputs)]
    if problems:
        state["not_tensors"] = problems
    return state


def iree_steps(folder, state):
    """Import, compile and iree-run-module on both devices; updates state."""
    if "import" not in state:
        code, text = run([tool("iree-import-onnx"), "model.onnx", "-o", "model.mlir"], folder, IMPORT_TIMEOUT)
        state["import"] = {"exit": code, "error": None if code == 0 else first_error_line(text)}
    if state["import"]["exit"] != 0:
        return state
    if "function" not in state:
        m = re.search(r"func\.func @(\"[^\"]+\"|[\w$.-]+)\(", (folder / "model.mlir").read_text())
        state["function"] = m.group(1).strip('"') if m else None
    if "compile" not in state:
        code, text = run([tool("iree-compile"), "model.mlir", *COMPILE_FLAGS, "-o", "model.vmfb"],
                         folder, COMPILE_TIMEOUT)
        state["compile"] = {"exit": code, "error": None if code == 0 else first_error_line(text)}
    if state["compile"]["exit"] != 0:
        return state
    state.setdefault("iree", {})
    for device in DEVICES:
        if device in state["iree"]:
            continue
        out = folder / f"iree-{device}"
        out.mkdir(exist_ok=True)
        code, text = run([tool("iree-run-module"), f"--device={device}", "--module=model.vmfb",
                          f"--function={state['function']}", *input_flags(state),
                          *[f"--output=@{out.name}/output{i}.npy" for i in range(state["outputs"])]],
                         folder, RUN_TIMEOUT)
        state["iree"][device] = {"exit": code, "error": None if code == 0 else first_error_line(text),
                                 "status": None if code == 0 else status_code(text)}
    return state


def input_flags(state):
    return [f"--input=@input{i}.npy" for i in range(state["inputs"])]


# ----------------------------------------------------------------------------------------------
# Ortho
# ----------------------------------------------------------------------------------------------

def harness_classpath(scratch):
    """Extracts the jars inside ortho.jar and compiles the harness against them (once per jar)."""
    digest = hashlib.sha256(JAR.read_bytes()).hexdigest()
    base = scratch / "harness" / digest[:16]
    classes = base / "classes"
    jars = base / "jars"
    if not (classes / "dev/ortho/launcher/internal/OnnxSweepHarness.class").exists():
        jars.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(JAR) as z:
            for name in z.namelist():
                if name.startswith("jar/") and name.endswith(".jar"):
                    (jars / Path(name).name).write_bytes(z.read(name))
        cp = ":".join(str(p) for p in sorted(jars.glob("*.jar")))
        code, text = run([java_home() + "/bin/javac", "-nowarn", "-cp", cp, "-d", classes, HARNESS], ROOT, 300)
        if code != 0:
            sys.exit(f"sweep: javac failed: {text}")
    cp = ":".join([str(classes)] + [str(p) for p in sorted(jars.glob("*.jar"))])
    return digest, cp


def java_home():
    out = subprocess.run(["bash", "-c", f". {ROOT}/scripts/find-jdk.sh && echo $ORTHO_JAVA_HOME"],
                         capture_output=True, text=True, check=True).stdout.strip()
    return out


def ortho_steps(scratch, todo, budget_seconds):
    """Runs Ortho on the cases in todo [(folder, state)]; stores the results in each state."""
    if not todo or budget_seconds <= 5:
        return
    digest, cp = harness_classpath(scratch)
    jobs = scratch / "harness" / "jobs.txt"
    results = scratch / "harness" / "results.txt"
    lines = []
    for folder, state in todo:
        out = folder / "ortho"
        out.mkdir(exist_ok=True)
        for f in out.glob("*.npy"):
            f.unlink()
        args = ["run-module", f"--device={ORTHO_DEVICE}", *ORTHO_FLAGS, f"--module={folder}/model.vmfb",
                f"--function={state['function']}",
                *[f"--input=@{folder}/input{i}.npy" for i in range(state["inputs"])],
                *[f"--output=@{out}/output{i}.npy" for i in range(state["outputs"])]]
        lines.append("\t".join([state["name"], *args]))
    jobs.write_text("\n".join(lines) + "\n")
    results.unlink(missing_ok=True)
    results.touch()
    java = [java_home() + "/bin/java", "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow", "-cp", cp, "dev.ortho.launcher.internal.OnnxSweepHarness",
            str(jobs), str(results), str(int(budget_seconds))]
    subprocess.run(java, cwd=ROOT, capture_output=True, timeout=budget_seconds + 200)
    by_name = {state["name"]: (folder, state) for folder, state in todo}
    for line in results.read_text().splitlines():
        name, code, err = (line.split("\t", 2) + ["", ""])[:3]
        err = err.replace("\\n", "\n").replace("\\t", "\t").replace("\\r", "\r").replace("\\\\", "\\")
        folder, state = by_name[name]
        state["ortho"] = {"exit": code if code == "TIMEOUT" else int(code), "jar": digest,
                          "error": None if code == "0" else first_error_line(err),
                          "status": None if code == "0" else status_code(err)}
        save_state(folder, state)


# ----------------------------------------------------------------------------------------------
# Comparison and classes
# ----------------------------------------------------------------------------------------------

def compare_arrays(want, got):
    """Bytes equal, or a description of how they differ."""
    if want.dtype != got.dtype or want.shape != got.shape:
        return {"equal": False, "why": f"{got.dtype}{list(got.shape)} instead of {want.dtype}{list(want.shape)}"}
    if want.tobytes() == got.tobytes():
        return {"equal": True}
    result = {"equal": False}
    if want.dtype.kind == "f":
        w, g = want.astype(np.float64), got.astype(np.float64)
        both_nan = np.isnan(w) & np.isnan(g)
        differ = ~(both_nan | (w == g))
        result["elements"] = int(differ.sum())
        if not differ.any():
            result["why"] = "differs only in NaN payloads or the sign of zero"
            result["nan_or_zero_sign_only"] = True
            return result
        with np.errstate(all="ignore"):
            d = np.abs(w - g)[differ]
            result["max_abs"] = float(np.nanmax(d)) if d.size else None
            if want.dtype in (np.float32, np.float64):
                bits = np.int32 if want.dtype == np.float32 else np.int64
                ulps = np.abs(want.view(bits).astype(np.int64) - got.view(bits).astype(np.int64))[differ]
                result["max_ulps"] = int(ulps.max())
            idx = np.flatnonzero(differ)[0]
            result["first"] = {"index": int(idx), "iree": repr(want.flat[idx]), "ortho": repr(got.flat[idx])}
    else:
        differ = want != got
        result["elements"] = int(np.sum(differ))
        idx = np.flatnonzero(differ)[0]
        result["first"] = {"index": int(idx), "iree": repr(want.flat[idx]), "ortho": repr(got.flat[idx])}
    result["why"] = f"{result['elements']} of {want.size} elements differ" + (
        f" (max {result['max_ulps']} ulp)" if "max_ulps" in result else "")
    return result


def load(path):
    return np.load(path, allow_pickle=False)


def finish(folder, state):
    """Compares outputs and sets state['class'] (and 'detail')."""
    if state["import"]["exit"] != 0:
        state["class"], state["detail"] = "import fails", state["import"]["error"]
        return
    if state["compile"]["exit"] != 0:
        state["class"], state["detail"] = "compile fails", state["compile"]["error"]
        return
    iree = state["iree"]["local-sync"]
    task = state["iree"]["local-task"]
    ortho = state["ortho"]
    n = state["outputs"]
    if iree["exit"] == 0 and task["exit"] == 0:
        state["iree_devices_identical"] = all(
            (folder / f"iree-local-sync/output{i}.npy").read_bytes()
            == (folder / f"iree-local-task/output{i}.npy").read_bytes() for i in range(n))
    if iree["exit"] == 0:
        vs_onnx = []
        for i in range(n):
            if not (folder / f"onnx{i}.npy").exists():
                vs_onnx.append("no ONNX expectation (not a tensor)")
                continue
            want, got = load(folder / f"onnx{i}.npy"), load(folder / f"iree-local-sync/output{i}.npy")
            if want.shape != got.shape or want.dtype != got.dtype:
                vs_onnx.append(f"{got.dtype}{list(got.shape)} instead of {want.dtype}{list(want.shape)}")
            elif want.dtype.kind in "fc":
                ok = np.allclose(got, want, rtol=state["rtol"], atol=state["atol"], equal_nan=True)
                vs_onnx.append("close" if ok else "NOT close")
            else:
                vs_onnx.append("equal" if np.array_equal(got, want) else "NOT equal")
        state["iree_vs_onnx"] = vs_onnx
    if iree["exit"] != 0:
        if ortho["exit"] == 0:
            state["class"] = "Ortho runs where IREE fails"
            state["detail"] = f"IREE: {iree['error']}"
        elif ortho["status"] == iree["status"]:
            state["class"] = "IREE fails to run"
            state["detail"] = f"IREE: {iree['error']} | Ortho: {ortho['error']}"
        else:
            state["class"] = "IREE fails to run, Ortho fails differently"
            state["detail"] = f"IREE: {iree['error']} | Ortho: {ortho['error']}"
        return
    if ortho["exit"] != 0:
        state["class"], state["detail"] = "Ortho fails where IREE runs", f"Ortho: {ortho['error']}"
        return
    diffs = []
    for i in range(n):
        got_path = folder / f"ortho/output{i}.npy"
        if not got_path.exists():
            diffs.append({"output": i, "equal": False, "why": "no output file"})
            continue
        try:
            got = load(got_path)
        except Exception as e:  # a malformed .npy is a finding too
            diffs.append({"output": i, "equal": False, "why": f"unreadable .npy: {e}"})
            continue
        c = compare_arrays(load(folder / f"iree-local-sync/output{i}.npy"), got)
        if not c["equal"]:
            diffs.append({"output": i, **c})
    if diffs:
        state["class"], state["diffs"] = "Ortho differs (wrong numbers)", diffs
        state["detail"] = "; ".join(f"output {d['output']}: {d['why']}" for d in diffs)
    else:
        state["class"], state["detail"] = "Ortho = IREE", None


# ----------------------------------------------------------------------------------------------
# Driver
# ----------------------------------------------------------------------------------------------

def state_path(folder):
    return folder / "state.json"


def load_state(folder):
    p = state_path(folder)
    return json.loads(p.read_text()) if p.exists() else None


def save_state(folder, state):
    tmp = folder / "state.json.tmp"
    tmp.write_text(json.dumps(state, indent=1, default=str))
    os.replace(tmp, state_path(folder))


def needs_ortho(state):
    return (state.get("compile", {}).get("exit") == 0 and len(state.get("iree", {})) == len(DEVICES)
            and "ortho" not in state)


def sweep(args):
    scratch = Path(args.scratch)
    start = time.monotonic()
    deadline = start + args.budget
    cases = [c for c in collect() if re.search(args.only, c.name)]
    folders = {c.name: scratch / "cases" / c.name for c in cases}
    jar_digest = hashlib.sha256(JAR.read_bytes()).hexdigest() if JAR.exists() else None
    states = {}
    for c in cases:
        s = load_state(folders[c.name])
        if s is not None and args.rerun_ortho:
            s.pop("ortho", None)
            s.pop("class", None)
        if s is not None and "ortho" in s and s["ortho"].get("jar") != jar_digest:
            s.pop("ortho")
            s.pop("class", None)
        states[c.name] = s

    # IREE: prepare, import, compile, run (in parallel, each case on its own).
    def iree_work(case):
        folder = folders[case.name]
        state = states[case.name] or prepare(case, folder)
        state = iree_steps(folder, state)
        save_state(folder, state)
        return case.name, state

    pending = [c for c in cases if states[c.name] is None or (
        "import" not in states[c.name]
        or (states[c.name]["import"]["exit"] == 0 and "compile" not in states[c.name])
        or (states[c.name].get("compile", {}).get("exit") == 0 and len(states[c.name].get("iree", {})) < len(DEVICES)))]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        running = set()
        it = iter(pending)
        for c in it:
            if time.monotonic() > start + 0.7 * args.budget:  # the rest is Ortho's
                break
            running.add(pool.submit(iree_work, c))
            if len(running) >= args.jobs:
                done, running = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
                for f in done:
                    name, s = f.result()
                    states[name] = s
        for f in concurrent.futures.as_completed(running):
            name, s = f.result()
            states[name] = s

    # Ortho, in one JVM for as many cases as the budget allows.
    if JAR.exists():
        todo = [(folders[n], s) for n, s in states.items() if s is not None and needs_ortho(s)]
        while todo and time.monotonic() < deadline - 5:
            ortho_steps(scratch, todo, deadline - time.monotonic())
            left = [(f, s) for f, s in todo if "ortho" not in s]
            if len(left) == len(todo):
                break
            todo = left

    complete = True
    for name, s in states.items():
        if s is None:
            complete = False
            continue
        if "class" in s:
            continue
        ready = (s["import"]["exit"] != 0 or s.get("compile", {}).get("exit") not in (None, 0)
                 or "ortho" in s)
        if ready and "import" in s and (s["import"]["exit"] != 0 or "compile" in s):
            finish(folders[name], s)
            save_state(folders[name], s)
        else:
            complete = False
    done = sum(1 for s in states.values() if s and "class" in s)
    print(f"sweep: {done} of {len(states)} cases classified in {time.monotonic() - start:.0f} s"
          + ("; sweep: complete" if complete else "; run again to continue"))


def cause_of(detail):
    """A short, countable form of a failure message."""
    for pattern, label in ((r"failed to legalize operation '(torch\.operator)'.*?name = \"([\w.]+)\"", "unsupported {1}"),
                           (r"failed to legalize operation '([\w.]+)'", "{0} not legal for VMVX"),
                           (r"'([\w.]+)' op (operand #\d+ must be [^,]+)", "{0}: {1}"),
                           (r"unable to open file", "input not expressible as .npy for IREE"),
                           (r"KeyError: (\d+)", "importer lacks ONNX type {0}"),
                           (r"\b([A-Z][A-Z_]{3,});", "{0}")):
        m = re.search(pattern, detail)
        if m:
            return label.format(*m.groups())
    return detail[:80]


def report(args):
    scratch = Path(args.scratch)
    rows = []
    for folder in sorted((scratch / "cases").iterdir()):
        s = load_state(folder)
        if s and "class" in s and re.search(args.only, s["name"]):
            rows.append(s)
    counts = collections.Counter(s["class"] for s in rows)
    print(f"{len(rows)} cases classified\n")
    print("| class | cases | ONNX ops |\n|---|---:|---|")
    for cls in CLASSES:
        ops = sorted({op for s in rows if s["class"] == cls for op in s["ops"]})
        shown = ", ".join(ops) if cls != "Ortho = IREE" else f"{len(ops)} ops"
        print(f"| {cls} | {counts.get(cls, 0)} | {shown} |")
    ran = [s for s in rows if s.get("iree_vs_onnx")]
    bad = [s for s in ran if any(v.startswith("NOT") or "instead" in v for v in s["iree_vs_onnx"])]
    print(f"\nIREE vs ONNX's expected outputs: {len(ran) - len(bad)} of {len(ran)} cases that IREE ran match"
          f" (rtol/atol of each case)")
    devices = [s for s in ran if "iree_devices_identical" in s]
    print(f"IREE local-sync = local-task byte for byte: {sum(s['iree_devices_identical'] for s in devices)}"
          f" of {len(devices)}")
    print("\nCommonest causes per failing class (cases):")
    for cls in ("import fails", "compile fails", "IREE fails to run"):
        causes = collections.Counter(cause_of(s.get("detail") or "") for s in rows if s["class"] == cls)
        print(f"- {cls}: " + "; ".join(f"{c} ({n})" for c, n in causes.most_common(8)))
    if args.verbose:
        for cls in CLASSES:
            if cls in ("Ortho = IREE",):
                continue
            members = [s for s in rows if s["class"] == cls]
            if not members:
                continue
            print(f"\n## {cls} ({len(members)})")
            for s in members:
                print(f"- {s['name']} [{','.join(s['ops'])}]: {s.get('detail')}")
        print("\n## IREE differs from ONNX")
        for s in bad:
            print(f"- {s['name']} [{','.join(s['ops'])}]: {s['iree_vs_onnx']}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scratch", default="/work/sweep", help="where cases and results go (default /work/sweep)")
    p.add_argument("--budget", type=float, default=170, help="seconds after which no new work starts")
    p.add_argument("--jobs", type=int, default=2, help="IREE tool processes at once")
    p.add_argument("--only", default="", help="only cases whose name matches this regex")
    p.add_argument("--rerun-ortho", action="store_true", help="forget Ortho's results first")
    p.add_argument("--ortho-device", default="local-sync",
                   help="Ortho's --device (default local-sync; e.g. 'local-sync://?vmvx_compile=off' to"
                   " interpret the dispatch functions, local-task); give it its own --scratch copy")
    p.add_argument("--ortho-flag", action="append", default=[],
                   help="another run-module flag for Ortho, e.g. --vm_compile=eager (repeatable)")
    p.add_argument("--jar", help="run this ortho.jar instead of launcher/target/ortho.jar (e.g. another"
                   " branch's build, with its own --scratch copy, for a before/after)")
    p.add_argument("--report", action="store_true", help="print the table of classes and exit")
    p.add_argument("-v", "--verbose", action="store_true", help="with --report: every non-matching case")
    args = p.parse_args()
    global JAR, ORTHO_DEVICE, ORTHO_FLAGS
    if args.jar:
        JAR = Path(args.jar).resolve()
    ORTHO_DEVICE, ORTHO_FLAGS = args.ortho_device, args.ortho_flag
    if args.report:
        report(args)
    else:
        sweep(args)


if __name__ == "__main__":
    main()
