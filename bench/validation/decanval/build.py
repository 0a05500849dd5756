"""Building every codelet twice: plain clang-22, and with the decan plugin.

Compile time is the wall time of `clang -c` (best of a few runs, so a
scheduling hiccup does not count as plugin overhead); code size is the
object's .text plus decan's sections, read with llvm-size."""

import os

from . import tools as T


def _sections(tools, obj):
    r = T.run([tools.size_tool, "-A", obj], timeout=60)
    out = {}
    for line in r.out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1].isdigit():
            # Sections of one name can repeat (one .decan.meta per loop).
            out[parts[0]] = out.get(parts[0], 0) + int(parts[1])
    return out


def _compile(tools, src, obj, flags, repeats):
    best, last = None, None
    for _ in range(repeats):
        last = T.run([tools.clang] + flags + ["-c", src, "-o", obj], timeout=300)
        if last.rc != 0:
            return None, last
        best = last.wall if best is None else min(best, last.wall)
    return best, last


def build_codelet(tools, manifest, name, srcdir, outdir, repeats=3):
    """Returns {'plain': {...}, 'decan': {...}} with exe, compile_s, sizes."""
    spec = manifest["codelets"][name]
    src = os.path.join(srcdir, name + ".c")
    cflags = list(manifest["base_cflags"]) + spec.get("cflags", []) + ["-I", srcdir]
    ldflags = spec.get("ldflags", []) + ["-lm"]
    res = {}
    variants = [("plain", [])]
    if tools.can_measure:
        fns = ",".join(spec["functions"])
        variants.append(("decan", tools.decan_flags + ["-mllvm", "-decan-functions=" + fns]))
    for kind, extra in variants:
        obj = os.path.join(outdir, "%s.%s.o" % (name, kind))
        exe = os.path.join(outdir, "%s.%s" % (name, kind))
        secs, r = _compile(tools, src, obj, cflags + extra, repeats)
        note = None
        if secs is None and kind == "decan" and "decan-functions" in (r.err or ""):
            # The plugin does not know the function filter: instrument all
            # loops and let bench/run pick the kernel's by function name.
            extra = tools.decan_flags
            note = "plugin rejected -decan-functions; all loops instrumented"
            secs, r = _compile(tools, src, obj, cflags + extra, repeats)
        if secs is None:
            res[kind] = {"error": "compile failed: " + r.brief(), "log": r.err[-2000:]}
            continue
        libs = tools.decan_libs if kind == "decan" else []
        link = T.run([tools.clang] + cflags + extra + [obj, "-o", exe] + ldflags + libs,
                     timeout=300)
        if link.rc != 0:
            res[kind] = {"error": "link failed: " + link.brief(), "log": link.err[-2000:]}
            continue
        sec = _sections(tools, obj)
        # Loop tables and descriptors; the DL1 scratch areas are .bss (no
        # file bytes) and counted apart.
        decan_bytes = sum(v for k, v in sec.items() if "decan" in k and "scratch" not in k)
        scratch_bytes = sum(v for k, v in sec.items() if "decan" in k and "scratch" in k)
        res[kind] = {"exe": exe, "compile_s": secs, "text_bytes": sec.get(".text", 0),
                     "decan_section_bytes": decan_bytes, "scratch_bss_bytes": scratch_bytes,
                     "object_bytes": os.path.getsize(obj),
                     "exe_bytes": os.path.getsize(exe)}
        if note:
            res[kind]["note"] = note
    return res
