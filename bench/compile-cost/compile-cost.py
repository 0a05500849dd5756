#!/usr/bin/env python3
"""decan compile cost: compile time and .text of plugin builds vs plain.

Per project (a C library: lz4; a C++ library with templates: {fmt}; the
PolyBench/C 4.2.1 kernels; and, as docs/pgo.md, Lua 5.4 and zlib), source
trees given, nothing fetched or written into the repository, builds each
translation unit with

  plain        -O2 -gline-tables-only (what `decan flags` adds, no plugin)
  before       $(BEFORE/bin/decan flags --cflags): another build's plugin,
               e.g. main's before a change (--before; optional)
  default      $(decan flags --cflags): every loop, `decan run`'s variants
  extended     $(decan flags --cflags --extended)
  all          $(decan flags --cflags --variants=all): every variant
  nests        $(decan flags --cflags --nests): every loop and loop nest
  hot-before   $(BEFORE/bin/decan flags --cflags --hot run.json) (--before)
  hot          $(decan flags --cflags --hot run.json)

where run.json is a `decan run` of the default build on a small workload
(lz4 and minigzip compressing 8 MB of their sources, the {fmt} driver and
the Lua script of bench/coverage, each PolyBench kernel at SMALL_DATASET). It prints, per project and build, the compile CPU
time (user+sys of the compilers, best of --rounds), the `.text` bytes of
the objects (every .text* section), the instrumented loops (outlined REF
copies) and both ratios to plain.

Usage: compile-cost.py --build BUILD [--before BUILD] [--lz4 DIR]
       [--fmt DIR] [--polybench DIR] [--lua DIR] [--zlib DIR] [--rounds N]
       [--work DIR [--reuse]]
       [--kernels a,b] [--builds plain,default,...]
Not a test: it asserts nothing about the figures.
"""
import argparse
import glob
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile

LLVM_BIN = "/usr/lib/llvm-22/bin"
CC, CXX = LLVM_BIN + "/clang-22", LLVM_BIN + "/clang++"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PLAIN = ["-O2", "-gline-tables-only"]
BUILDS = ["plain", "before", "default", "extended", "all", "nests",
          "hot-before", "hot"]


def run(cmd, **kw):
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    r = subprocess.run(cmd, text=True, **kw)
    if r.returncode:
        sys.exit(f"compile-cost: {' '.join(cmd)} failed:\n{r.stderr}")
    return r


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def text_size(obj):
    """Bytes of every .text* section of an object (llvm-size -A)."""
    out = run([LLVM_BIN + "/llvm-size", "-A", obj]).stdout
    return sum(int(m.group(1)) for m in
               re.finditer(r"^\.text\S*\s+(\d+)", out, re.M))


def outlined_loops(obj):
    """Instrumented loops: the outlined REF copies (f.decan.L0.REF)."""
    out = run([LLVM_BIN + "/llvm-nm", obj]).stdout
    return len(re.findall(r"\.decan\.L\d+\.REF$", out, re.M))


class Project:
    """A name, its translation units (source, compiler, flags), the units
    linked into its workload's program and the workloads (argv lists, the
    program first; {exe} and {work} substituted)."""

    def __init__(self, name, units, link, workloads, libs=(), ldlibs=(),
                 cflags=()):
        self.name, self.units, self.link = name, units, link
        self.workloads, self.libs = workloads, list(libs)
        self.ldlibs, self.cflags = list(ldlibs), list(cflags)


def lz4_input(src, work):
    """About 8 MB of text to compress: a tree's sources, repeated."""
    data = os.path.join(work, os.path.basename(src) + "-input")
    if not os.path.exists(data):
        chunks = []
        for f in sorted(glob.glob(src + "/**/*.[ch]", recursive=True)):
            with open(f, "rb") as fh:
                chunks.append(fh.read())
        blob = b"".join(chunks)
        with open(data, "wb") as fh:
            fh.write(blob * max(1, (8 << 20) // max(1, len(blob))))
    return data


def lz4_project(src, work):
    lib, prog = os.path.join(src, "lib"), os.path.join(src, "programs")
    # The library is measured; the command-line program around it is
    # compiled plainly, for the workload.
    units = [(f, CC, ["-I" + lib]) for f in sorted(glob.glob(lib + "/*.c"))]
    data = lz4_input(src, work)
    return [Project("lz4", units, [u[0] for u in units],
                    [["{exe}", "-1", "-f", data, "{work}/out.lz4"]],
                    libs=sorted(glob.glob(prog + "/*.c")),
                    cflags=["-I" + lib])]


def lua_project(src, work):
    """Lua 5.4 (github.com/lua/lua): the interpreter, as docs/pgo.md."""
    units = [(f, CC, ["-std=c99", "-DLUA_USE_LINUX"])
             for f in sorted(glob.glob(src + "/*.c"))
             if os.path.basename(f) not in ("ltests.c", "onelua.c", "luac.c")]
    script = os.path.join(ROOT, "bench", "coverage", "lua-bench.lua")
    return [Project("lua", units, [u[0] for u in units],
                    [["{exe}", script]], libs=(), ldlibs=["-ldl"])]


def zlib_project(src, work):
    """zlib (github.com/madler/zlib): the library and test/minigzip.c."""
    flags = ["-D_LARGEFILE64_SOURCE=1", "-DHAVE_HIDDEN", "-I" + src]
    units = [(f, CC, flags) for f in sorted(glob.glob(src + "/*.c"))]
    units.append((os.path.join(src, "test", "minigzip.c"), CC, flags))
    data = lz4_input(src, work)
    return [Project("zlib", units, [u[0] for u in units],
                    [["{exe}", "-c", data]])]


def fmt_project(src, work):
    inc = ["-I" + os.path.join(src, "include"), "-std=c++17"]
    driver = os.path.join(ROOT, "bench", "coverage", "fmt-driver.cpp")
    units = [(os.path.join(src, "src", f), CXX, inc)
             for f in ("format.cc", "os.cc")] + [(driver, CXX, inc)]
    return [Project("fmt", units, [driver], [["{exe}", "100000"]])]


def polybench_projects(src, work, only):
    util = os.path.join(src, "utilities")
    flags = ["-I" + util, "-DSMALL_DATASET", "-DPOLYBENCH_USE_C99_PROTO"]
    with open(os.path.join(util, "benchmark_list")) as fh:
        kernels = [os.path.normpath(os.path.join(src, l.strip()))
                   for l in fh if l.strip()]
    if only:
        kernels = [k for k in kernels
                   if os.path.basename(k)[:-2] in only.split(",")]
    out = []
    for k in kernels:
        units = [(k, CC, flags + ["-I" + os.path.dirname(k)])]
        out.append(Project("polybench/" + os.path.basename(k)[:-2], units,
                           [k], [["{exe}"]], libs=[os.path.join(util,
                                                                "polybench.c")]))
    return out


def decan_flags(decan, *extra):
    return run([decan, "flags", "--cflags", *extra]).stdout.split()


def build(project, flags, out_dir, reuse=False):
    """Compiles every unit; returns {unit: object}, CPU seconds. With
    \p reuse, an object a finished compile left (its CPU time beside it in
    OBJ.cpu) is taken as it is: an interrupted measurement resumes."""
    os.makedirs(out_dir, exist_ok=True)
    objs, cpu = {}, 0.0
    for src, compiler, extra in project.units:
        obj = os.path.join(out_dir, os.path.basename(src) + ".o")
        objs[src] = obj
        if reuse and os.path.exists(obj + ".cpu"):
            with open(obj + ".cpu") as fh:
                cpu += float(fh.read())
            continue
        before = child_cpu()
        run([compiler, *PLAIN, *extra, *flags, "-c", src, "-o", obj])
        spent = child_cpu() - before
        with open(obj + ".cpu", "w") as fh:
            fh.write(f"{spent}\n")
        cpu += spent
    return objs, cpu


def link_and_profile(project, decan, objs, work, reuse):
    """The default build's program, run under `decan run`: the report --hot
    reads."""
    exe = os.path.join(work, project.name.replace("/", "-") + ".exe")
    report = exe + ".json"
    if reuse and os.path.exists(report):
        return report
    extra = []
    for lib in project.libs:  # plain, not measured: the program around
        o = os.path.join(work, project.name.replace("/", "-") + "." +
                         os.path.basename(lib) + ".o")
        if not os.path.exists(o):
            run([CC, *PLAIN, *project.cflags, "-c", lib, "-o", o])
        extra.append(o)
    linker = CXX if any(c == CXX for _, c, _ in project.units) else CC
    libs = run([decan, "flags", "--libs"]).stdout.split()
    run([linker, "-O2", *[objs[u] for u in project.link], *extra, *libs,
         "-lm", *project.ldlibs, "-o", exe])
    for argv in project.workloads:
        argv = [a.format(exe=exe, work=work) for a in argv]
        run([decan, "run", "--json", report, "-o", os.devnull, "--", *argv],
            stdout=subprocess.DEVNULL)
    return report


def measure(project, args, work):
    decan = os.path.join(args.build, "bin", "decan")
    before = (os.path.join(args.before, "bin", "decan")
              if args.before else None)
    wanted = [b for b in args.builds.split(",") if b]
    flags = {"plain": [], "default": decan_flags(decan),
             "extended": decan_flags(decan, "--extended"),
             "all": decan_flags(decan, "--variants=all"),
             "nests": decan_flags(decan, "--nests")}
    if before:
        flags["before"] = decan_flags(before)
    results = {}
    pdir = os.path.join(work, project.name.replace("/", "-"))
    for name in [b for b in BUILDS if b in wanted]:
        if name.startswith("hot"):
            if "hot-report" not in results:
                objs = results.get("default", {}).get("objs")
                if not objs:
                    objs, _ = build(project, flags["default"],
                                    pdir + "/default", args.reuse)
                results["hot-report"] = link_and_profile(
                    project, decan, objs, work, args.reuse)
            tool = decan if name == "hot" else before
            if not tool:
                continue
            flags[name] = run([tool, "flags", "--cflags", "--hot",
                               results["hot-report"]],
                              stderr=subprocess.DEVNULL).stdout.split()
        if name not in flags:
            continue
        best = None
        for r in range(args.rounds):
            objs, cpu = build(project, flags[name], f"{pdir}/{name}",
                              args.reuse and r == 0)
            best = cpu if best is None else min(best, cpu)
        results[name] = {
            "objs": objs, "cpu": best,
            "text": sum(text_size(o) for o in objs.values()),
            "loops": sum(outlined_loops(o) for o in objs.values())}
    return results


def print_table(title, results, out):
    base = results.get("plain")
    out.write(f"\n{title}\n")
    out.write(f"{'build':<12}{'CPU s':>9}{'x plain':>9}{'.text':>11}"
              f"{'x plain':>9}{'loops':>7}\n")
    for name in BUILDS:
        r = results.get(name)
        if not r:
            continue
        tr = cr = ""
        if base and base["text"] and base["cpu"]:
            cr = f"{r['cpu'] / base['cpu']:.2f}x"
            tr = f"{r['text'] / base['text']:.2f}x"
        out.write(f"{name:<12}{r['cpu']:>9.2f}{cr:>9}{r['text']:>11}"
                  f"{tr:>9}{r['loops']:>7}\n")
    out.flush()


def summed(per_kernel):
    """PolyBench: the kernels' figures added up, build by build."""
    total = {}
    for res in per_kernel:
        for name, r in res.items():
            if not isinstance(r, dict):
                continue
            t = total.setdefault(name, {"cpu": 0.0, "text": 0, "loops": 0})
            for k in ("cpu", "text", "loops"):
                t[k] += r[k]
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--before", help="another build dir (e.g. main's)")
    ap.add_argument("--lz4"), ap.add_argument("--fmt")
    ap.add_argument("--lua"), ap.add_argument("--zlib")
    ap.add_argument("--polybench")
    ap.add_argument("--kernels", help="PolyBench kernels (default: all)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--builds", default=",".join(BUILDS))
    ap.add_argument("--work", help="keep the objects here (default: a "
                    "temporary directory, removed)")
    ap.add_argument("--reuse", action="store_true",
                    help="with --work: take the objects an earlier, "
                    "interrupted run finished (their CPU time is kept "
                    "beside them)")
    args = ap.parse_args()
    if not (args.lz4 or args.fmt or args.polybench or args.lua or args.zlib):
        ap.error("give at least one of --lz4, --fmt, --polybench, --lua, "
                 "--zlib")
    work = args.work or tempfile.mkdtemp(prefix="decan-compile-cost.")
    os.makedirs(work, exist_ok=True)
    try:
        if args.lz4:
            for p in lz4_project(os.path.abspath(args.lz4), work):
                print_table(f"lz4 (lib/, {len(p.units)} files; programs/ "
                            "plain)", measure(p, args, work),
                            sys.stdout)
        for name, make, what in (
                ("lua", lua_project, "Lua 5.4 (the interpreter)"),
                ("zlib", zlib_project, "zlib (library and minigzip)")):
            if getattr(args, name):
                for p in make(os.path.abspath(getattr(args, name)), work):
                    print_table(f"{what}, {len(p.units)} files",
                                measure(p, args, work), sys.stdout)
        if args.fmt:
            for p in fmt_project(os.path.abspath(args.fmt), work):
                print_table("{fmt} (src/format.cc, src/os.cc, "
                            "bench/coverage/fmt-driver.cpp header-only)",
                            measure(p, args, work), sys.stdout)
        if args.polybench:
            ps = polybench_projects(os.path.abspath(args.polybench), work,
                                    args.kernels)
            per = [measure(p, args, work) for p in ps]
            print_table(f"PolyBench/C ({len(ps)} kernels, SMALL_DATASET, "
                        "summed)", summed(per), sys.stdout)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
