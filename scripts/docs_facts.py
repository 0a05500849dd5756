"""Checks the facts decan's documentation states that drift from the code
(lit/abi/docs-facts.test): each fact is read from the code, never written
here, and every place in the docs that states it is compared with it.

  abi         "ABI version N" in the docs = DECAN_ABI_VERSION (decan/abi.h)
  variants    the default, --extended and --groups lists and counts in the
              docs = decan/variants.def (scripts/decan_abi.py), and
              `decan run --help`'s lists = variants.def; "indices 0..N" and
              "all N variants" = the table's size
  thresholds  docs/tool.md's thresholds table = struct Thresholds
              (tools/include/decan/Tool/Analysis.h): the same names, the
              same values
  options     every option `decan <command> --help` prints is in that
              command's section of docs/tool.md (`decan rewrite`: the top
              of docs/rewriter.md), and every option the section's heading,
              synopsis or option table names is one the help prints

Usage: docs_facts.py SRC_ROOT DECAN [CHECK...]
Prints one line per drift (FILE:LINE: what the doc says, what the code
says) and exits 1 if there is one.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1])
DECAN = sys.argv[2]
CHECKS = sys.argv[3:] or ["abi", "variants", "thresholds", "options"]
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from decan_abi import DEFAULT, EXTENDED, GROUPS, VARIANTS  # noqa: E402

TOOL_MD = os.path.join("docs", "tool.md")
REWRITER_MD = os.path.join("docs", "rewriter.md")
NUMBERS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve "
    "thirteen fourteen fifteen sixteen seventeen eighteen nineteen "
    "twenty".split())}
NUM = r"(\d+|%s)" % "|".join(NUMBERS)
drifts = []


def number(word):
    return int(word) if word.isdigit() else NUMBERS[word.lower()]


def read(rel):
    return open(os.path.join(ROOT, rel), errors="replace").read()


def drift(rel, text, pos, what):
    line = text.count("\n", 0, pos) + 1
    drifts.append("%s:%d: %s" % (rel, line, what))


def doc_files():
    """docs/*.md, README.md and every folder's README.md."""
    out = []
    for dirpath, dirnames, files in os.walk(ROOT):
        dirnames[:] = sorted(d for d in dirnames
                             if not d.startswith(".") and d not in
                             ("build", "Output", "__pycache__"))
        rel_dir = os.path.relpath(dirpath, ROOT)
        for f in sorted(files):
            if f.endswith(".md") and (rel_dir == "docs" or f == "README.md"):
                out.append(os.path.normpath(os.path.join(rel_dir, f)))
    return out


def help_of(*args):
    return subprocess.run([DECAN, *args, "--help"], capture_output=True,
                          text=True, check=True).stdout


def check_abi():
    m = re.search(r"#define DECAN_ABI_VERSION (\d+)",
                  read("runtime/include/decan/abi.h"))
    version = int(m.group(1))
    for rel in doc_files():
        text = read(rel)
        for m in re.finditer(r"\bABI version (\d+)|DECAN_ABI_VERSION`? "
                             r"(?:is |= ?)(\d+)", text):
            said = int(m.group(1) or m.group(2))
            if said != version:
                drift(rel, text, m.start(), "'%s': abi.h's DECAN_ABI_VERSION "
                      "is %d" % (m.group(0), version))


# A variant name, or a run like DL1_G0..3 / DL1_G0..DL1_G3 standing for
# the names between.
NAME = r"(?:%s)(?:\.\.(?:[A-Z0-9_]+))?\b" % "|".join(
    sorted(map(re.escape, VARIANTS), key=len, reverse=True))
NAME_RUN = re.compile(r"\b%s(?:[\s,`()/'+]+(?:and\s+|or\s+)?%s)+" %
                      (NAME, NAME))
# What a list of names right after one of these words is.
LIST_MARKERS = [(r"--extended", "--extended", EXTENDED),
                (r"--groups|GROUPING", "--groups", GROUPS),
                (r"\bdefault\b|verdicts'", "the default rotation", DEFAULT)]
# What a count of variants next to these words is.
COUNT_PATTERNS = [
    (r"\bdefault %s variants\b" % NUM, "the default rotation", DEFAULT),
    (r"\b%s default variants\b" % NUM, "the default rotation", DEFAULT),
    (r"\bverdicts' %s\b" % NUM, "the default rotation", DEFAULT),
    (r"\bthe %s variants it rotates\b" % NUM, "the default rotation", DEFAULT),
    (r"\(%s variants, the default\b" % NUM, "the default rotation", DEFAULT),
    (r"\ball %s variants\b" % NUM, "every variant", VARIANTS),
    (r"--variants=all`? (?:builds )?(?:all )?\(?%s\b" % NUM, "every variant",
     VARIANTS),
    (r"\bindices 0\.\.(\d+)\b", "the last index", range(len(VARIANTS) - 1)),
]


def expand(run):
    """The variant names a run of names stands for, in order."""
    names = []
    for tok in re.findall(NAME, run):
        first, _, last = tok.partition("..")
        if not last:
            names.append(first)
            continue
        if last.isdigit():
            last = first.rstrip("0123456789") + last
        names.extend(VARIANTS[VARIANTS.index(first):VARIANTS.index(last) + 1])
    return names


def check_variants():
    help_text = " ".join(help_of("run").split())
    for said, what, code in [
            (r"\(default ([A-Z0-9_,]+)\)", "default", DEFAULT),
            (r"--extended also ([A-Z0-9_, ]+?):", "--extended", EXTENDED),
            (r"--groups also GROUPING \(([A-Z0-9_, ]+)\)", "--groups",
             GROUPS)]:
        m = re.search(said, help_text)
        if not m or expand(m.group(1)) != code:
            drifts.append("decan run --help: the %s list is %s, variants.def "
                          "says %s" % (what, m and m.group(1), ",".join(code)))
    for rel in doc_files():
        text = read(rel)
        for m in NAME_RUN.finditer(text):
            names = expand(m.group(0))
            if len(names) < 3:
                continue
            before = text[max(0, m.start() - 60):m.start()]
            best = None
            for marker, what, code in LIST_MARKERS:
                for mm in re.finditer(marker, before):
                    if best is None or mm.start() > best[0]:
                        best = (mm.start(), what, code)
            if best and names != list(best[2]) and \
                    not (best[2] is DEFAULT and set(names) >= set(VARIANTS)):
                drift(rel, text, m.start(), "'%s' after '%s': %s is %s in "
                      "variants.def" % (" ".join(m.group(0).split()),
                                        " ".join(before.split()[-4:]),
                                        best[1], ", ".join(best[2])))
        for m in re.finditer(r"(?:default|verdicts')[^.|]{0,40}?\(REF to "
                             r"([A-Z0-9_]+)\)", text):
            if m.group(1) not in VARIANTS or \
                    VARIANTS[:VARIANTS.index(m.group(1)) + 1] != DEFAULT:
                drift(rel, text, m.start(), "'%s': the default rotation is %s "
                      "in variants.def" % (" ".join(m.group(0).split()),
                                           ", ".join(DEFAULT)))
        for pattern, what, code in COUNT_PATTERNS:
            for m in re.finditer(pattern, text, re.I):
                if number(m.group(1)) != len(code):
                    drift(rel, text, m.start(), "'%s': %s has %d in "
                          "variants.def" % (" ".join(m.group(0).split()), what,
                                            len(code)))


def check_thresholds():
    header = read("tools/include/decan/Tool/Analysis.h")
    body = re.search(r"struct Thresholds \{(.*?)\n\};", header, re.S).group(1)
    body = re.sub(r"//[^\n]*", "", body)
    code = {}
    for decl in re.findall(r"\b(?:double|unsigned|int)\s+([^;]+);", body):
        for part in decl.split(","):
            name, value = (s.strip() for s in part.split("="))
            code[name] = float(value)
    text = read(TOOL_MD)
    section = re.search(r"^## Analyses and thresholds.*?(?=^## )", text,
                        re.S | re.M)
    doc = {}
    for m in re.finditer(r"^\| (`\w+`(?:, `\w+`)*) \| ([^|]+) \|",
                         section.group(0), re.M):
        names = re.findall(r"`(\w+)`", m.group(1))
        values = [v.strip() for v in m.group(2).split(",")]
        if len(names) != len(values):
            drift(TOOL_MD, text, section.start() + m.start(),
                  "%d names, %d values" % (len(names), len(values)))
            continue
        for name, value in zip(names, values):
            doc[name] = (float(value), section.start() + m.start())
    for name, value in sorted(code.items()):
        if name not in doc:
            drift(TOOL_MD, text, section.start(), "the thresholds table has "
                  "no row for %s (%g in struct Thresholds)" % (name, value))
        elif doc[name][0] != value:
            drift(TOOL_MD, text, doc[name][1], "%s is %g in the table, %g in "
                  "struct Thresholds" % (name, doc[name][0], value))
    for name, (_, pos) in sorted(doc.items()):
        if name not in code:
            drift(TOOL_MD, text, pos, "%s is in the thresholds table, not in "
                  "struct Thresholds" % name)


OPTION = r"(?<![\w-])(--?[a-z][a-z0-9-]*)"


def help_options(command):
    """The options `decan COMMAND --help` lists, --help itself aside."""
    opts = set()
    for line in help_of(command).splitlines():
        m = re.match(r"\s+(-\w),? ?(--[a-z][\w-]*)?|\s+(--[a-z][\w-]*)", line)
        if m:
            opts.update(o for o in m.groups() if o)
    return opts - {"-h", "--help"}


def command_doc(command):
    """The text that documents COMMAND, where it starts, its file, and the
    lines that name its options (heading, synopsis, option table)."""
    rel = TOOL_MD
    text = read(rel)
    m = re.search(r"^## `decan %s\b.*?(?=^## |\Z)" % command, text,
                  re.S | re.M)
    if not m and command == "rewrite":
        rel = REWRITER_MD
        text = read(rel)
        m = re.search(r"\A.*?(?=^## )", text, re.S | re.M)
    if not m:
        return rel, text, None, 0, []
    section = m.group(0)
    naming = [section.splitlines()[0]]
    naming += re.findall(r"^decan %s .*$" % command, section, re.M)
    naming += [row.split("|")[1] for row in
               re.findall(r"^\| `-[^|]*\|", section, re.M)]
    return rel, text, section, m.start(), naming


def check_options():
    commands = re.findall(r"^  (\w+)\s{2,}", help_of()
                          .split("COMMANDS:")[1], re.M)
    for command in commands:
        rel, text, section, start, naming = command_doc(command)
        if section is None:
            drifts.append("%s: no section for `decan %s`" % (rel, command))
            continue
        in_doc = set(re.findall(OPTION, section))
        for opt in sorted(help_options(command) - in_doc):
            drift(rel, text, start, "`decan %s --help` prints %s; its section "
                  "never names it" % (command, opt))
        helped = help_options(command) | {"-h", "--help"}
        for line in naming:
            for opt in re.findall(OPTION, line):
                if opt not in helped:
                    drift(rel, text, start + section.find(line),
                          "the section of `decan %s` names %s; its --help "
                          "does not" % (command, opt))


for check in CHECKS:
    globals()["check_" + check]()
for d in drifts:
    print(d)
sys.exit(1 if drifts else 0)
