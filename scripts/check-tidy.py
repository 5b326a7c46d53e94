#!/usr/bin/env python3
"""clang-tidy over the project's translation units, remembering which ones were clean.

Usage: scripts/check-tidy.py [BUILD_DIR] [--record] [--full] [FILE...]

Every rule of .clang-tidy is enforced on every file, but a file is analysed again only when
something that decides its findings changed. Its key is a SHA-256 over: clang-tidy's version,
.clang-tidy, the file's compile command (source and build folders written as placeholders), every
.clang-tidy between the file and the root (app/.clang-tidy) and the content of every project
header it includes (from the build's dependency log; system headers by path). A key found clean before is not analysed again:
  - BUILD_DIR/tidy-cache/clean.txt: keys this build folder found clean;
  - tests/lint/tidy-clean.txt: keys recorded with --record by a full clean pass, committed with
    the code, so a fresh clone analyses only what changed since the last recorded clean run.
Any change to the root .clang-tidy or to clang-tidy's version changes every key: a full pass;
a change to a folder's own .clang-tidy re-analyses that folder.

--record  analyse what is not known clean, then (if everything is clean) rewrite
          tests/lint/tidy-clean.txt with the keys of every file.
--full    ignore both caches and analyse every file.
A file without an entry in the build's dependency log (not built yet) is always analysed.
"""

import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), '..'))
MANIFEST = os.path.join(ROOT, 'tests', 'lint', 'tidy-clean.txt')
# The levels clang-tidy covers (their headers through .clang-tidy's HeaderFilterRegex). Generated
# Qt sources (moc, rcc, uic) are not tracked, so not covered.
COVERED = ['core/*.cpp', 'runtime/*.cpp', 'app/*.cpp']
FINDING = re.compile(r': (warning|error): ')


def fail(message):
    print(f'error: {message}', file=sys.stderr)
    sys.exit(1)


def find_clang_tidy():
    path = shutil.which('clang-tidy-14') or shutil.which('clang-tidy')
    if not path:
        fail('clang-tidy is not installed (scripts/install-deps.sh all)')
    return path


def tracked_files():
    out = subprocess.run(['git', 'ls-files', *COVERED], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if line]


def without_pch(args):
    """The compile command without CMake's precompiled header (`-Winvalid-pch -include
    …/cmake_pch.hxx`): clang cannot read GCC's, and without it each file must include what it
    uses."""
    out = []
    for arg in args:
        if out and out[-1] == '-include' and 'cmake_pch' in arg:
            out.pop()
        elif arg != '-Winvalid-pch':
            out.append(arg)
    return out


def object_of(args):
    for i, arg in enumerate(args):
        if arg == '-o' and i + 1 < len(args):
            return args[i + 1]
    return None


def dependency_log(build):
    """Object (relative to the build folder) -> the files it was compiled from."""
    result = subprocess.run(['ninja', '-C', build, '-t', 'deps'], capture_output=True, text=True)
    deps = {}
    current = None
    for line in result.stdout.splitlines():
        if not line.strip():
            current = None
        elif not line.startswith(' '):
            current = line.split(':', 1)[0]
            deps[current] = [] if '(VALID)' in line else None
        elif current is not None and deps[current] is not None:
            deps[current].append(line.strip())
    return deps


def release(tidy):
    """clang-tidy's release, e.g. `Debian LLVM version 14.0.6`: only the lines naming a version.
    The rest of `--version` describes the machine (`Host CPU: skylake`), and a key holding it
    would match on no other machine, so a fresh clone would analyse every file again."""
    out = subprocess.run([tidy, '--version'], capture_output=True, text=True).stdout
    return '\n'.join(line.strip() for line in out.splitlines() if 'version' in line.lower())


class Keys:
    def __init__(self, build, tidy):
        self.build = os.path.realpath(build)
        self.digests = {}
        version = release(tidy)
        with open(os.path.join(ROOT, '.clang-tidy'), 'rb') as f:
            config = f.read()
        self.base = hashlib.sha256(b'hetplan-tidy-key/1\0' + version.encode() + b'\0' + config)

    def normalise(self, text):
        return text.replace(self.build, '<build>').replace(ROOT, '<source>')

    def content(self, path):
        if path not in self.digests:
            try:
                with open(path, 'rb') as f:
                    self.digests[path] = hashlib.sha256(f.read()).hexdigest()
            except OSError:
                self.digests[path] = 'missing'
        return self.digests[path]

    def folder_configs(self, name):
        """The .clang-tidy files of the folders between `name` and the root, root excluded: they
        refine the root's for their folder (InheritParentConfig)."""
        configs = []
        folder = os.path.dirname(name)
        while folder:
            path = os.path.join(ROOT, folder, '.clang-tidy')
            if os.path.isfile(path):
                configs.append(f'{folder}/.clang-tidy={self.content(path)}\0')
            folder = os.path.dirname(folder)
        return configs

    def key(self, name, args, deps):
        h = self.base.copy()
        h.update(self.normalise(' '.join(args)).encode() + b'\0')
        for config in self.folder_configs(name):
            h.update(config.encode())
        # Sorted as written into the key: the log names a header relative to the build folder or
        # by its absolute path, depending on how the object was compiled (ccache hits keep
        # paths relative), and the two sort apart.
        entries = []
        for dep in deps:
            real = os.path.realpath(dep if os.path.isabs(dep) else os.path.join(self.build, dep))
            if real.startswith(ROOT + os.sep):  # the source tree and in-tree build folders
                entries.append(f'{self.normalise(real)}={self.content(real)}')
            else:
                entries.append(real)
        for entry in sorted(entries):
            h.update(f'{entry}\0'.encode())
        return h.hexdigest()


def read_keys(path):
    try:
        with open(path) as f:
            return {line.split()[0] for line in f if line.strip() and not line.startswith('#')}
    except OSError:
        return set()


def main():
    argv = sys.argv[1:]
    record = '--record' in argv
    full = '--full' in argv
    argv = [a for a in argv if a not in ('--record', '--full')]
    build = os.path.join(ROOT, 'build')
    if argv and os.path.isdir(argv[0]):
        build = os.path.realpath(argv.pop(0))
    commands_path = os.path.join(build, 'compile_commands.json')
    if not os.path.isfile(commands_path):
        fail(f'{commands_path} is missing: configure with a preset first')
    tidy = find_clang_tidy()
    files = argv or tracked_files()

    with open(commands_path) as f:
        commands = {os.path.realpath(e['file']): e for e in json.load(f)}
    deps = dependency_log(build)
    keys = Keys(build, tidy)
    local_cache = os.path.join(build, 'tidy-cache', 'clean.txt')
    known = set() if full else read_keys(local_cache) | read_keys(MANIFEST)

    filtered = []
    file_keys = {}
    todo = []
    for name in files:
        path = os.path.realpath(os.path.join(ROOT, name))
        entry = commands.get(path)
        if entry is None:
            continue  # not compiled in this configuration (e.g. CUDA sources without nvcc)
        args = without_pch(entry['arguments'] if 'arguments' in entry
                           else shlex.split(entry['command']))
        filtered.append({'directory': entry['directory'], 'file': entry['file'],
                         'arguments': args})
        obj = object_of(args)
        dep_list = deps.get(obj) if obj else None
        key = keys.key(name, args, dep_list) if dep_list else None
        file_keys[name] = key
        if key is None or key not in known:
            todo.append(name)

    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, 'compile_commands.json'), 'w') as f:
            json.dump(filtered, f)

        def analyse(name):
            result = subprocess.run([tidy, '-p', tmp, '--quiet', os.path.join(ROOT, name)],
                                    capture_output=True, text=True)
            return name, result.stdout

        # Each file's findings are printed, and each clean key kept, as soon as its analysis
        # ends: an interrupted pass loses nothing it finished.
        os.makedirs(os.path.dirname(local_cache), exist_ok=True)
        findings = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool, \
                open(local_cache, 'a') as cache:
            for done in concurrent.futures.as_completed([pool.submit(analyse, n) for n in todo]):
                name, out = done.result()
                if any(FINDING.search(line) for line in out.splitlines()):
                    findings.append(out)
                    print(out, flush=True)
                elif file_keys.get(name):
                    cache.write(file_keys[name] + '\n')
                    cache.flush()

    analysed = len(todo)
    total = len(file_keys)
    if findings:
        count = sum(len([l for l in o.splitlines() if FINDING.search(l)]) for o in findings)
        print(f'clang-tidy: {count} finding(s) in {len(findings)} of {total} files '
              f'(checks: .clang-tidy)')
        return 1
    if record:
        missing = [n for n, k in file_keys.items() if k is None]
        if missing:
            fail('not built, so not recordable (build first): ' + ', '.join(missing[:5]))
        with open(MANIFEST, 'w') as f:
            f.write('# Keys of translation units clang-tidy found clean (scripts/check-tidy.py '
                    '--record).\n')
            for name in sorted(file_keys):
                f.write(f'{file_keys[name]} {name}\n')
        print(f'clang-tidy: recorded {total} clean files in {os.path.relpath(MANIFEST, ROOT)}')
    print(f'clang-tidy: {total} files of {", ".join(c.rsplit("/", 1)[0] + "/" for c in COVERED)} '
          f'without findings ({analysed} analysed, {total - analysed} unchanged since a clean run)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
