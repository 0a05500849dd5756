# lit configuration for decan. Every tool comes from the build tree or from
# LLVM 22's bin directory, never from PATH guesses.
import os
import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "decan"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".c", ".cpp", ".ll", ".s", ".test", ".mir"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.decan_obj_root, "lit")

# A hung test fails alone instead of eating the whole CI budget (needs psutil,
# which scripts/setup.sh installs).
try:
    import psutil  # noqa: F401
    lit_config.maxIndividualTestTime = 180
except ImportError:
    lit_config.warning("python3-psutil missing: no per-test timeout")

llvm_config.with_system_environment(["HOME", "TMPDIR", "TMP", "TEMP"])
# Rewritten copies are cached (docs/rewriter.md): the tests' cache lives in
# the build tree, never in the user's.
config.environment["DECAN_CACHE_DIR"] = os.path.join(config.test_exec_root,
                                                     "decan-cache")
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.decan_bin_dir, append_path=True)

plugin = config.decan_plugin
# -Xclang -load makes the plugin's cl::opts known before -mllvm is parsed.
clang_plugin = "{} -fpass-plugin={} -Xclang -load -Xclang {}".format(
    config.clang, plugin, plugin)

config.substitutions.append(("%decan_plugin", plugin))
config.substitutions.append(("%decan_runtime_include", config.decan_runtime_include))
config.substitutions.append(("%decan_runtime", config.decan_runtime))
config.substitutions.append(("%clang_decan", clang_plugin))
# Link the shared runtime (built by runtime/ into lib/) the way `decan flags` does.
decan_link = "-L{0} -Wl,-rpath,{0} {1}".format(
    config.decan_lib_dir, config.decan_link_libs)
config.substitutions.append(("%decan_link", decan_link))
config.substitutions.append(("%decan_lib_dir", config.decan_lib_dir))
config.substitutions.append(("%src_root", config.decan_src_root))

tools = [
    ToolSubst("%clangxx", command=config.clang, extra_args=["--driver-mode=g++"], unresolved="fatal"),
    ToolSubst("%clang", command=config.clang, unresolved="fatal"),
    ToolSubst("%decan", command=config.decan_tool, unresolved="fatal"),
    ToolSubst("FileCheck", command=config.filecheck, unresolved="fatal"),
    ToolSubst("not", command=os.path.join(config.llvm_tools_dir, "not"), unresolved="fatal"),
    ToolSubst("llvm-objdump", command=os.path.join(config.llvm_tools_dir, "llvm-objdump"), unresolved="fatal"),
    ToolSubst("llvm-nm", command=os.path.join(config.llvm_tools_dir, "llvm-nm"), unresolved="fatal"),
    ToolSubst("llvm-profdata", command=os.path.join(config.llvm_tools_dir, "llvm-profdata"), unresolved="fatal"),
    ToolSubst("llc", command=os.path.join(config.llvm_tools_dir, "llc"), unresolved="fatal"),
    ToolSubst("opt", command=os.path.join(config.llvm_tools_dir, "opt"), unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, [config.llvm_tools_dir, config.decan_bin_dir])

# Machine facts tests can REQUIRE.
if os.path.exists("/proc/cpuinfo"):
    flags = open("/proc/cpuinfo").read()
    for feat in ["avx2", "avx512f", "sse4_2"]:
        if " " + feat + " " in flags or " " + feat + "\n" in flags:
            config.available_features.add("cpu-" + feat)

# gdb (scripts/test.sh installs it): unwinding through rewritten code.
import shutil
if shutil.which("gdb"):
    config.available_features.add("gdb")
