#!/usr/bin/env bash
# Fails when a citation of a documentation section points nowhere. A citation is docs/FILE.md
# followed by a quoted section name, the way comments and messages write them:
#   docs/formats.md, "Hosts"    docs/formats.md ("Plan")    docs/runtime.md "The GPU backend"
#   docs/import.md, "Which figure wins" and "Links between machines"
# and the name may wrap onto the next comment line. It resolves when docs/FILE.md has a heading
# (# to ####, outside code blocks) that reads the name, with backticks dropped; a heading also
# answers to its part before " — " or before a closing parenthesis ("Cluster" finds
# "Cluster — `hetplan.cluster/1`", "The measurement file" finds "The measurement file
# (`hetplan.measurement/1`)").
# Usage: scripts/check-doc-anchors.sh [PATH...]
# PATHs are relative to the repository root (default: every file git tracks or would track);
# the script may be run from any directory.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PYTHON'
import os
import re
import subprocess
import sys

CITATION = re.compile(
    r'docs/(?P<file>[A-Za-z0-9_./-]+?\.md)(?:,\s*\(?|\s*\(|\s+)\\?"(?P<name>[^"\\\n]+)\\?"'
    r'(?P<more>(?:\s+and\s+\\?"[^"\\\n]+\\?")*)')
MORE = re.compile(r'\\?"([^"\\\n]+)\\?"')
COMMENT_LEADER = re.compile(r'^\s*(?://+!?|/?\*+|#+|--)?\s*')
HEADING = re.compile(r'^(#{1,4})\s+(.*?)\s*#*\s*$')
FENCE = re.compile(r'^\s*(```|~~~)')


def tracked_files(paths):
    try:
        out = subprocess.run(['git', 'ls-files', '-z', '--cached', '--others', '--exclude-standard',
                              '--', *paths], check=True, capture_output=True).stdout.decode()
        return [f for f in out.split('\0') if f]
    except (OSError, subprocess.CalledProcessError):
        found = []
        for root in paths or ['.']:
            if os.path.isfile(root):
                found.append(root)
            for directory, dirs, files in os.walk(root):
                dirs[:] = [d for d in dirs if not d.startswith('.') and d != 'build']
                found += [os.path.join(directory, f) for f in files]
        return found


def normalized(text):
    return ' '.join(text.replace('`', '').split())


def heading_names(path):
    names = set()
    in_code = False
    with open(path, encoding='utf-8') as f:
        for line in f:
            if FENCE.match(line):
                in_code = not in_code
                continue
            m = None if in_code else HEADING.match(line)
            if not m:
                continue
            text = normalized(m.group(2))
            names.add(text)
            names.add(text.split(' — ')[0])
            names.add(re.sub(r'\s*\([^()]*\)$', '', text))
    return names


def main():
    headings = {}
    problems = []
    citations = 0
    for path in tracked_files(sys.argv[1:]):
        try:
            with open(path, encoding='utf-8') as f:
                lines = f.read().splitlines()
        except (UnicodeDecodeError, OSError):
            continue
        for i, line in enumerate(lines):
            if 'docs/' not in line:
                continue
            # A name may wrap onto the next comment lines.
            joined = line
            for extra in lines[i + 1:i + 3]:
                joined += ' ' + COMMENT_LEADER.sub('', extra, count=1)
            for m in CITATION.finditer(joined):
                if m.start() >= len(line):
                    break
                doc = 'docs/' + m.group('file')
                names = [m.group('name')] + MORE.findall(m.group('more'))
                where = f'{path}:{i + 1}'
                citations += len(names)
                if doc not in headings:
                    headings[doc] = heading_names(doc) if os.path.isfile(doc) else None
                if headings[doc] is None:
                    problems.append(f'{where}: {doc} does not exist')
                    continue
                for name in names:
                    if normalized(name) not in headings[doc]:
                        problems.append(f'{where}: {doc} has no heading "{normalized(name)}"')
    for p in problems:
        print(p)
    if problems:
        print(f'{len(problems)} of {citations} doc citations point nowhere: fix the citation, '
              'or the heading it names')
        return 1
    print(f'doc anchors: {citations} citations resolve')
    return 0


sys.exit(main())
PYTHON
