#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Replace the block between "<!-- MARK:begin -->" and "<!-- MARK:end -->" in a document with a
# fragment: how the bench scripts' --update-docs writes their tables into docs/placement.md.
#   doc_block.py DOC FRAGMENT MARK
import sys

doc, frag, mark = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3]
text = open(doc).read()
begin, end = f"<!-- {mark}:begin -->", f"<!-- {mark}:end -->"
if begin not in text or end not in text:
    sys.exit(f"doc_block: {doc} has no {mark} markers")
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(doc, "w").write(head + begin + "\n" + frag + end + tail)
