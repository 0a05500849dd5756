"""Facts about the machine the suite runs on."""

import glob
import os
import subprocess


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def _size(text):
    text = text.strip().upper()
    mult = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}
    if text and text[-1] in mult:
        return int(text[:-1]) * mult[text[-1]]
    return int(text)


def caches():
    """Data/unified cache sizes in bytes per level of cpu0: {1: .., 2: .., 3: ..}."""
    out = {}
    for d in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*"):
        try:
            level = int(open(os.path.join(d, "level")).read())
            kind = open(os.path.join(d, "type")).read().strip()
            size = _size(open(os.path.join(d, "size")).read())
        except (OSError, ValueError):
            continue
        if kind in ("Data", "Unified"):
            out[level] = size
    # Conservative defaults when sysfs says nothing (containers).
    out.setdefault(1, 32 * 1024)
    out.setdefault(2, 512 * 1024)
    out.setdefault(3, 8 * 1024 * 1024)
    return out


def regime(ws_bytes, cache):
    """The memory level a working set lives in, or None near a boundary.

    A working set up to 60% of a level is resident there; L3 is shared and
    the guest may not own all of it, so RAM starts at twice its size. Sizes
    in between get no regime and expectations are not checked on them."""
    if ws_bytes <= 0.6 * cache[1]:
        return "L1"
    if 1.5 * cache[1] <= ws_bytes <= 0.6 * cache[2]:
        return "L2"
    if 1.5 * cache[2] <= ws_bytes <= 0.5 * cache[3]:
        return "L3"
    if ws_bytes >= 2 * cache[3]:
        return "RAM"
    return None


def describe():
    return {
        "cpu": cpu_model(),
        "nproc": os.cpu_count(),
        "caches": caches(),
        "kernel": os.uname().release,
    }
