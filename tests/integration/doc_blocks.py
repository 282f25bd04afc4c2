#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# The fenced code blocks of Markdown documents, as test_doc_commands.sh runs them: one line per
# block, then one per command of a command block, tab-separated.
#   doc_blocks.py DOC...
#   block <TAB> FILE:LINE <TAB> commands|skip|file|bad <TAB> reason (skip, bad)
#   cmd   <TAB> FILE:LINE <TAB> command (continuation lines joined)
# A command block is fenced as sh, bash, shell or console, or has lines that start with "$ "
# (a prompt: those lines are its commands, the others what they print). In an sh block every
# line is a command but comments and blank lines. Any other block is a file's contents
# (slurm.conf lines, fabricfit.conf), not commands. The line just before a fence (blank lines
# aside) may say <!-- doc-test: skip: REASON -->: the block is not run, and the reason is shown.
import re
import sys

FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([A-Za-z0-9_+-]*)")
MARK = re.compile(r"<!--\s*doc-test:(.*?)-->")
SHELL = {"sh", "bash", "shell", "console"}


def join_continued(lines):
    """(line number, text) pairs with backslash-continued lines joined to their first."""
    out, cur, start = [], None, 0
    for no, text in lines:
        if cur is None:
            cur, start = text, no
        else:
            cur += "\n" + text
        if text.rstrip().endswith("\\"):
            continue
        out.append((start, cur))
        cur = None
    if cur is not None:
        out.append((start, cur))
    return out


def blocks(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info, start = m.group(2), m.group(3).lower(), i + 1
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append((i + 1, lines[i]))
            i += 1
        i += 1  # the closing fence
        # The marker: the nearest non-blank line above the opening fence.
        j = start - 2
        while j >= 0 and not lines[j].strip():
            j -= 1
        marker = MARK.search(lines[j]) if j >= 0 else None
        yield start, info, body, marker


def main():
    for path in sys.argv[1:]:
        for start, info, body, marker in blocks(path):
            where = f"{path}:{start}"
            prompt = [(no, t.lstrip()[2:]) for no, t in body if t.lstrip().startswith("$ ")]
            is_cmd = info in SHELL or bool(prompt)
            if marker:
                m = re.match(r"\s*skip:\s*(\S.*?)\s*$", marker.group(1))
                if not m:
                    print(f"block\t{where}\tbad\tmarker '{marker.group(0)}' is not <!-- doc-test: skip: REASON -->")
                elif not is_cmd:
                    print(f"block\t{where}\tbad\ta skip marker on a block that is not commands")
                else:
                    print(f"block\t{where}\tskip\t{m.group(1)}")
                continue
            if not is_cmd:
                print(f"block\t{where}\tfile\t")
                continue
            print(f"block\t{where}\tcommands\t")
            if prompt:
                cmds = prompt
            else:
                cmds = [(no, t) for no, t in body if t.strip() and not t.lstrip().startswith("#")]
            for no, cmd in join_continued(cmds):
                # One line per record: continuations are joined with a space, as the shell would.
                cmd = re.sub(r"\\\n\s*", " ", cmd)
                print(f"cmd\t{path}:{no}\t{cmd}")


if __name__ == "__main__":
    main()
