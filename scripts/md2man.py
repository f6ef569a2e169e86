#!/usr/bin/env python3
"""Turn a tool's page in docs/ (Markdown) into its man page (roff, section 8).

The docs are the one source: the man page says the same thing.  Handles
the subset the pages use: # headings, paragraphs, fenced code blocks,
tables, bullet lists, `code`, **bold**, [links](...) and pictures
(a line ![what](img/NAME.png): named, as a man page shows none).

usage: md2man.py docs/TOOL.md VERSION > TOOL.8
"""
import datetime
import re
import sys


# characters beyond ASCII, as roff names them (groff reads its input as
# Latin-1 unless preconv runs first: man does, groff alone does not)
GLYPHS = {"\u2014": "\\(em", "\u2013": "\\(en", "\u00b5": "\\(mc",
          "\u00d7": "\\(mu", "\u2192": "\\(->", "\u2264": "\\(<=",
          "\u2265": "\\(>=", "\u2018": "\\(oq", "\u2019": "\\(cq",
          "\u201c": "\\(lq", "\u201d": "\\(rq", "\u2026": "...",
          "\u00a0": "\\ "}


def glyphs(text):
    return "".join(c if ord(c) < 128 else
                   GLYPHS.get(c, "\\[u%04X]" % ord(c)) for c in text)


def esc(text):
    """Escape roff specials in running text."""
    text = text.replace("\\", "\\e")
    text = re.sub(r"^([.'])", r"\\&\1", text)
    return glyphs(text.replace("-", "\\-"))


def inline(text):
    text = esc(text)
    text = re.sub(r"\*\*(.+?)\*\*", r"\\fB\1\\fR", text)
    text = re.sub(r"`([^`]+)`", r"\\fB\1\\fR", text)
    text = re.sub(r"(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])", r"\\fI\1\\fR", text)
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)
    return text


def convert(lines, name, version):
    out = []
    date = datetime.date.today().isoformat()
    out.append('.TH %s 8 "%s" "%s %s" "System Administration"' % (
        name.upper(), date, name, version))
    # NAME: the first sentence of the first paragraph ("...: where ...?")
    # (the whole paragraph is read: its first line may end mid-sentence)
    desc = "latency tool"
    for k, ln in enumerate(lines):
        if ln.strip() and not ln.startswith(("#", "```", "|")):
            para = []
            for pl in lines[k:]:
                if not pl.strip() or pl.startswith(("#", "```", "|")):
                    break
                para.append(pl.strip())
            first = re.sub(r"^\*\*[^*]*\*\*\s*", "", " ".join(para))
            first = first.replace("*", "").replace("`", "")
            desc = re.split(r"(?<=[?.])\s", first)[0].rstrip(".")
            if len(desc) > 70 and ", " in desc:  # NAME is one short line
                desc = desc.split(", ")[0] + ("?" if desc.endswith("?") else "")
            break
    i = 0
    title_done = False
    while i < len(lines):
        line = lines[i].rstrip("\n")
        if line.startswith("```"):
            out.append(".PP\n.nf\n.RS 4")
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                out.append(esc(lines[i].rstrip("\n")) or "\\&")
                i += 1
            out.append(".RE\n.fi")
            i += 1
            continue
        m = re.match(r"^(#+)\s+(.*)", line)
        if m:
            level, text = len(m.group(1)), m.group(2)
            if level == 1 and not title_done:
                title_done = True
                out.append(".SH NAME")
                out.append("%s \\- %s" % (esc(name), inline(desc)))
            elif level <= 2:
                out.append(".SH " + inline(text.upper()))
            else:
                out.append(".SS " + inline(text))
            i += 1
            continue
        if line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                if not all(re.match(r"^:?-+:?$", c) for c in cells):
                    rows.append(cells)
                i += 1
            for r, cells in enumerate(rows):
                if r == 0:
                    continue  # header row: the items speak for themselves
                out.append(".TP")
                out.append(inline(cells[0]))
                out.append(inline(" ".join(cells[1:])))
            continue
        if re.match(r"^\s*[*-] ", line):
            text = re.sub(r"^\s*[*-] ", "", line)
            i += 1
            while i < len(lines) and lines[i].strip() and \
                    not re.match(r"^\s*[*-] ", lines[i]) and \
                    not lines[i].startswith(("#", "|", "```")):
                text += " " + lines[i].strip()
                i += 1
            out.append(".IP \\(bu 2")
            out.append(inline(text))
            continue
        if not line.strip():
            i += 1
            continue
        m = re.match(r"^!\[[^\]]*\]\(([^)\s]+)\)\s*$", line)
        if m:
            out.append(".PP")
            out.append(inline("(the picture: docs/%s)" % m.group(1)))
            i += 1
            continue
        para = [line.strip()]
        i += 1
        while i < len(lines) and lines[i].strip() and \
                not lines[i].startswith(("#", "|", "```")) and \
                not re.match(r"^\s*[*-] ", lines[i]):
            para.append(lines[i].strip())
            i += 1
        out.append(".PP")
        out.append(inline(" ".join(para)))
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    path, version = sys.argv[1], sys.argv[2]
    name = re.sub(r"\.md$", "", path.rsplit("/", 1)[-1])
    with open(path, encoding="utf-8") as f:
        sys.stdout.write(convert(f.readlines(), name, version))
    return 0


if __name__ == "__main__":
    sys.exit(main())
