"""JIT formula extensions for the compiled engine (as ``torch.utils.cpp_extension.load``).

Stage: user entry point. Input: the user's formula files (Python, the language of
``formulas/``). Output: an imported extension module whose attributes are the compiled ops,
built against the installed transgrad (no checkout): its headers (``transgrad/include``), its
``libtransgrad.so`` (Note [One runtime] in CMakeLists.txt) and the compiler and options it was
built with (``transgrad._build_config``).

``load`` checks and translates the files (``transgrad.translator.emit_extension``: a formula
error is the translator's ``TranslatorError`` at the user's file:line, before any compiler
runs), compiles each generated ``.cpp`` (in parallel; an object whose source and options did not
change is reused, so editing one formula recompiles one file), links, and imports.

Note [Extension cache]
~~~~~~~~~~~~~~~~~~~~~~
A build lives in ``<cache>/<name>/`` (``<cache>`` = ``$TRANSGRAD_EXTENSIONS_DIR``, else
``$XDG_CACHE_HOME/transgrad_extensions``, else ``~/.cache/transgrad_extensions``; created 0700
since a library found there is loaded into the process) or in ``build_directory``. Its
``build.json`` records the key of the build: a sha256 over the sources' names and contents, the
extension name, the transgrad version, the compiler and its options, and the Python ABI. A
cached library is loaded only when the recorded key equals the one computed now (no translator,
no compiler: hashing a few files). Anything else rebuilds. The library's file and module
names carry the key (``<name>_<key>``), so a rebuilt extension loads in the same process beside
an older one (Note [Extension module names] in translator/emit_extension.py).

The compiler is run directly, not through CMake: configuring a CMake project costs seconds per
build, and the objects, the options and the link line are all known here (the CMake package,
``transgradConfig.cmake``, is the path for a package's wheel).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import re
import sys
import sysconfig
import threading
import types
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

__all__ = ["load", "extensions_dir", "include_paths", "library_dir"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_lock = threading.Lock()
_loaded: Dict[Tuple[str, str], types.ModuleType] = {}  # (name, key) -> module, this process


def library_dir() -> str:
    """The directory of ``libtransgrad.so`` (the installed package)."""
    return _PACKAGE_DIR


def include_paths() -> List[str]:
    """The include directories of an extension: transgrad's headers (with the pybind11 headers
    it was built with) and Python's."""
    inc = os.path.join(_PACKAGE_DIR, "include")
    return [inc, os.path.join(inc, "generated"), sysconfig.get_paths()["include"]]


def extensions_dir() -> str:
    """The per-user cache of built extensions (Note [Extension cache]), created 0700."""
    root = os.environ.get("TRANSGRAD_EXTENSIONS_DIR")
    if not root:
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(cache, "transgrad_extensions")
    _private_dir(root)
    return root


def _private_dir(path: str) -> None:
    """Create ``path`` readable by its owner only; refuse a directory owned by someone else
    (a library found there would be loaded into this process)."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    st = os.stat(path)
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise RuntimeError(f"the transgrad extensions directory {path} belongs to another user; "
                           "set TRANSGRAD_EXTENSIONS_DIR to a directory of your own")


def _build_config() -> Any:
    try:
        from transgrad import _build_config
    except ImportError:
        raise RuntimeError(
            "transgrad.extension needs an installed transgrad (pip install transgrad, or "
            "`pip install .` in a checkout): transgrad._build_config, its headers and "
            "libtransgrad.so are written by the build") from None
    return _build_config


def _compile_options(extra_cflags: Sequence[str]) -> List[str]:
    return [*_build_config().CXX_OPTIONS, *extra_cflags]


def _build_key(name: str, namespace: str, sources: Sequence[str],
               options: Sequence[str]) -> str:
    cfg = _build_config()
    h = hashlib.sha256()
    for part in (name, namespace, cfg.VERSION, cfg.CXX, *options,
                 sysconfig.get_config_var("EXT_SUFFIX") or ""):
        h.update(part.encode() + b"\0")
    for path in sources:  # the path too: the generated code cites it (locations, anomaly mode)
        with open(path, "rb") as f:
            h.update(path.encode() + b"\0" + f.read() + b"\0")
    return h.hexdigest()


def load(name: str, sources: Union[str, Sequence[str]], *,
         build_directory: Optional[str] = None, verbose: bool = False,
         extra_cflags: Optional[Sequence[str]] = None,
         kernels: Optional[str] = None) -> types.ModuleType:
    """Compile the formula files ``sources`` into extension module ``name`` and import it.

    The module's attributes are the formulas, compiled (``mod.softsign(x)``); their nodes sit in
    the same graphs as transgrad's own ops. The ops are also ``transgrad.ops.<name>.<op>``.
    A cached build is reused when its sources, transgrad version and compiler options are
    unchanged (Note [Extension cache]). ``verbose`` prints the compiler commands and progress;
    compiler errors are always shown (in the raised RuntimeError). ``extra_cflags`` are added
    to transgrad's own compiler options (and to the cache key), as torch's ``extra_cflags``.
    ``kernels`` is the package's own kernel file (``kernels.py``: a ``KERNELS`` declaration
    table as translator/signatures.py and the numpy bodies, Note [Kernel table in scope] in
    translator/user_kernels.py); the C++ bodies are the ``.cpp`` beside it of the same stem,
    compiled with the extension (it includes ``user_kernels.h``, generated from the table).
    """
    import transgrad  # noqa: F401  (loads libtransgrad.so, which the extension links to)

    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    paths = [os.path.abspath(os.fspath(s)) for s in sources]
    if not paths:
        raise ValueError("transgrad.extension.load needs at least one formula file")
    for p in paths:
        if not os.path.isfile(p):
            raise FileNotFoundError(f"formula file {p} does not exist")
    kernel_files = _kernel_files(kernels) if kernels is not None else []
    options = _compile_options(list(extra_cflags or ()))
    key = _build_key(name, name, [*paths, *kernel_files], options)
    with _lock:
        hit = _loaded.get((name, key))
        if hit is not None:
            return hit
        directory = build_directory or os.path.join(extensions_dir(), name)
        _private_dir(directory)
        # the module's name carries the key: Note [Extension module names]
        module_name = f"{name}_{key[:16]}"
        library = os.path.join(directory, module_name + _suffix())
        if _cached(directory, key, library):
            if verbose:
                print(f"transgrad.extension: loading cached {library}", file=sys.stderr)
        else:
            _build(name, module_name, paths, directory, options, library, verbose,
                   kernel_files)
            _write_json(os.path.join(directory, "build.json"),
                        {"key": key, "version": _build_config().VERSION, "options": options,
                         "library": os.path.basename(library), "sources": paths})
        module = _import(module_name, library)  # its init registers its ops (register_extension)
        _loaded[(name, key)] = module
        return module


def _kernel_files(kernels: str) -> List[str]:
    """The package's kernel declarations (``kernels.py``) and C++ bodies (``kernels.cpp``)."""
    declarations = os.path.abspath(os.fspath(kernels))
    bodies = os.path.splitext(declarations)[0] + ".cpp"
    for path, what in ((declarations, "kernel declarations"), (bodies, "C++ kernel bodies")):
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{what} file {path} does not exist")
    return [declarations, bodies]


def _suffix() -> str:
    return sysconfig.get_config_var("EXT_SUFFIX") or ".so"


def _cached(directory: str, key: str, library: str) -> bool:
    """Whether the recorded build matches ``key`` and the installed transgrad."""
    import json

    try:
        with open(os.path.join(directory, "build.json"), encoding="utf-8") as f:
            recorded = json.load(f)
    except (OSError, ValueError):
        return False
    cfg = _build_config()
    return (recorded.get("key") == key and recorded.get("version") == cfg.VERSION
            and os.path.isfile(library))


def _write_json(path: str, data: Dict[str, Any]) -> None:
    import json

    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
    os.replace(tmp, path)


def _build(name: str, module_name: str, paths: Sequence[str], directory: str,
           options: Sequence[str], library: str, verbose: bool,
           kernel_files: Sequence[str] = ()) -> None:
    """Translate, compile and link into ``library``."""
    from transgrad.translator.backend import write_files
    from transgrad.translator.emit_extension import emit_extension

    generated = os.path.join(directory, "generated")
    # a TranslatorError at the user's file:line, before any compiler runs
    files = emit_extension(paths, name, name, module=module_name,
                           kernels=kernel_files[0] if kernel_files else None)
    write_files(files, generated)
    for stale in set(os.listdir(generated)) - set(files):
        if stale.endswith((".cpp", ".h")):
            os.remove(os.path.join(generated, stale))
    cfg = _build_config()
    includes = [f"-I{d}" for d in (generated, *include_paths())]
    objects_dir = os.path.join(directory, "objects")
    os.makedirs(objects_dir, exist_ok=True)
    headers = _headers_digest(files)
    jobs, objects = [], []
    # the generated sources, and the package's C++ kernel bodies (read from where they are)
    sources = {cpp: (os.path.join(generated, cpp), files[cpp])
               for cpp in files if cpp.endswith(".cpp")}
    for bodies in kernel_files[1:]:
        with open(bodies, encoding="utf-8") as f:
            sources["user_" + os.path.basename(bodies)] = (bodies, f.read())
    for cpp, (path, text) in sorted(sources.items()):
        cmd = [cfg.CXX, *options, *includes, "-c", path]
        digest = hashlib.sha256("\0".join(cmd).encode() + text.encode()
                                + headers).hexdigest()[:16]
        obj = os.path.join(objects_dir, f"{cpp[:-4]}.{digest}.o")
        objects.append(obj)
        if not os.path.isfile(obj):
            jobs.append((cpp, [*cmd, "-o", obj + ".tmp"], obj))
        elif verbose:
            print(f"transgrad.extension [{name}] {cpp} unchanged: reusing its object",
                  file=sys.stderr)
    _run_parallel(name, jobs, verbose)
    link = [cfg.CXX, "-shared", *objects, "-o", library + ".tmp", f"-L{library_dir()}",
            "-l:libtransgrad.so", f"-Wl,-rpath,{library_dir()}"]
    _run_parallel(name, [("link", link, library)], verbose)
    for old in os.listdir(objects_dir):  # objects of sources that changed since
        path = os.path.join(objects_dir, old)
        if path not in objects:
            os.remove(path)
    for old in os.listdir(directory):  # libraries of earlier keys
        if re.fullmatch(re.escape(name) + r"_[0-9a-f]{16}" + re.escape(_suffix()), old) and \
                os.path.join(directory, old) != library:
            os.remove(os.path.join(directory, old))


def _headers_digest(files: Dict[str, str]) -> bytes:
    """An object depends on its .cpp and on every generated header."""
    h = hashlib.sha256()
    for n in sorted(files):
        if n.endswith(".h"):
            h.update(n.encode() + b"\0" + files[n].encode())
    return h.digest()


def _run_parallel(name: str, jobs: Sequence[Tuple[str, List[str], str]], verbose: bool) -> None:
    """Run the compiler ``jobs`` (what, command, output), as many at once as there are CPUs;
    raise RuntimeError with the compiler's output when one fails."""
    import shlex  # the build's modules, imported when a build runs (import transgrad stays lean)
    import subprocess

    width = max(1, min(len(jobs), os.cpu_count() or 1))
    pending = list(jobs)
    running: List[Tuple[str, subprocess.Popen, str, List[str]]] = []
    failures: List[str] = []
    while pending or running:
        while pending and len(running) < width:
            what, cmd, out = pending.pop(0)
            if verbose:
                print(f"transgrad.extension [{name}] {what}: {shlex.join(cmd)}", file=sys.stderr)
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            running.append((what, proc, out, cmd))
        what, proc, out, cmd = running.pop(0)
        output = proc.communicate()[0].decode(errors="replace")
        if proc.returncode != 0:
            failures.append(f"$ {shlex.join(cmd)}\n{output}")
            continue
        if output and verbose:
            print(output, file=sys.stderr, end="")
        os.replace(out + ".tmp", out)
    if failures:
        raise RuntimeError(f"Error building extension '{name}':\n" + "\n".join(failures))


def _import(name: str, library: str) -> types.ModuleType:
    loader = importlib.machinery.ExtensionFileLoader(name, library)
    spec = importlib.util.spec_from_file_location(name, library, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def register_extension(module: types.ModuleType) -> None:
    """Register an extension module's ops as ``transgrad.ops.<namespace>.<op>``: called by the
    module's own init (generated by ``emit_extension``), however it was built (``load`` or a
    package's ``transgrad_add_extension``). A namespace and name that another file owns is the
    registry's RuntimeError naming both files, and the import fails with it."""
    from transgrad import _op_registry

    namespace = module.__transgrad_namespace__
    for op, source in sorted(module.__transgrad_ops__.items()):
        _op_registry.register_op("compiled", namespace, op, getattr(module, op), source)
