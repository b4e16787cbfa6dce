#!/usr/bin/env python3
"""cli/dist/gen.py KINESIFT OUTDIR VERSION COMMAND...: the man pages and the bash completion of kinesift,
written from the binary's own help text so that they say what --help says and cannot drift.

Reads `KINESIFT --help` (the commands and their one-line summaries) and `KINESIFT CMD --help`
for each command; writes OUTDIR/kinesift.1, OUTDIR/kinesift-CMD.1 per command, and
OUTDIR/kinesift (bash completion: commands, then each command's flags; files otherwise).

The help text's layout is the input format: a first block of usage lines, then paragraphs
separated by blank lines; option lines start with two spaces and a dash, the option and its
description separated by two spaces or more, continuation lines indented further; so do table
lines ("  stats     read traces ..."). Other lines are prose. Run at build time (cli/dist/meson.build); not when cross-compiling (the binary does
not run on the build machine)."""
import os
import re
import subprocess
import sys

OPTION = re.compile(r"^  (-[^ ].*?)(?: {2,}(.*))?$")
TABLE = re.compile(r"^  ([^ -].*?) {2,}(\S.*)$")  # "  name   what it is" (commands, workloads)
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[A-Za-z](?![\w-]))")


def help_text(exe, *args):
    r = subprocess.run([exe, *args, "--help"], capture_output=True, text=True, check=True)
    return r.stdout


def commands(top):
    """[(name, summary)] from the Commands: block of `kinesift --help`."""
    out, inside = [], False
    for line in top.splitlines():
        if line == "Commands:":
            inside = True
        elif inside and not line.strip():
            break
        elif inside and line.startswith("   ") and out:  # a summary's continuation line
            out[-1] = (out[-1][0], out[-1][1] + " " + line.strip())
        elif inside:
            name, summary = line.split(None, 1)
            out.append((name, summary))
    return [(n, s) for n, s in out if n != "help"]


def esc(s):
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + s if s[:1] in (".", "'") else s


def blocks(text):
    """(usage lines, [paragraph lines]) of a help text."""
    paras = [p.split("\n") for p in text.strip("\n").split("\n\n")]
    return paras[0], paras[1:]


def roff_body(paras):
    out = []
    for para in paras:
        item = None
        prose = []

        def flush_prose():
            if prose:
                out.append(".PP")
                out.append(esc(" ".join(prose)))
                prose.clear()
        for line in para:
            m = OPTION.match(line) or TABLE.match(line)
            if m:
                flush_prose()
                item = [m.group(1), [m.group(2) or ""]]
                out.append(".TP")
                out.append("\\fB" + esc(item[0]) + "\\fR")
                if item[1][0]:  # else the description starts on the next line
                    out.append(esc(item[1][0]))
            elif item is not None and line.startswith("    "):
                out.append(esc(line.strip()))
            else:
                item = None
                prose.append(line.strip())
        flush_prose()
    return out


def man_page(name, summary, text, version, see_also):
    usage, paras = blocks(text)
    out = ['.TH "%s" "1" "" "kinesift %s" "kinesift manual"' % (name.upper(), version),
           ".SH NAME", "%s \\- %s" % (esc(name), esc(summary)), ".SH SYNOPSIS", ".nf"]
    out += [esc(re.sub(r"^(usage:)? *", "", u)) for u in usage]
    out += [".fi", ".SH DESCRIPTION"] + roff_body(paras)
    out += [".SH SEE ALSO", ", ".join("\\fB%s\\fR(1)" % esc(s) for s in see_also)]
    return "\n".join(out) + "\n"


def flags(text):
    """The flags a command takes: those of its usage lines and of its option lines' left part."""
    usage, paras = blocks(text)
    found = set()
    for line in usage:
        found.update(FLAG.findall(line))
    for para in paras:
        for line in para:
            m = OPTION.match(line)
            if m:
                found.update(FLAG.findall(m.group(1)))
    found.add("--help")
    return sorted(found)


def completion(cmds, cmd_flags):
    names = " ".join([c for c, _ in cmds] + ["help"])
    cases = "\n".join('        %s) flags="%s" ;;' % (c, " ".join(cmd_flags[c])) for c, _ in cmds)
    return f"""# bash completion for kinesift: commands, then each command's flags; file names otherwise.
# Generated from the --help text of kinesift by cli/dist/gen.py.
_kinesift() {{
    local cur=${{COMP_WORDS[COMP_CWORD]}} flags
    COMPREPLY=()
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "{names} --help --version" -- "$cur"))
        return
    fi
    case ${{COMP_WORDS[1]}} in
        help)
            [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "{names}" -- "$cur"))
            return ;;
{cases}
        *) return ;;
    esac
    case $cur in
        -*) COMPREPLY=($(compgen -W "$flags" -- "$cur")) ;;
    esac
}}
complete -o default -o bashdefault -F _kinesift kinesift
"""


def main():
    exe, outdir, version, expected = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    top = help_text(exe)
    cmds = commands(top)
    if [c for c, _ in cmds] != expected:
        sys.exit("gen.py: `kinesift --help` lists %s, cli/dist/meson.build %s: update ks_commands"
                 % ([c for c, _ in cmds], expected))
    pages = ["kinesift-" + c for c, _ in cmds]
    texts = {c: help_text(exe, c) for c, _ in cmds}
    with open(os.path.join(outdir, "kinesift.1"), "w") as f:
        f.write(man_page("kinesift", "post-process PyTorch profiler (Kineto) traces", top, version,
                         pages))
    for c, summary in cmds:
        with open(os.path.join(outdir, "kinesift-%s.1" % c), "w") as f:
            f.write(man_page("kinesift-" + c, summary, texts[c], version, ["kinesift"]))
    with open(os.path.join(outdir, "kinesift"), "w") as f:
        f.write(completion(cmds, {c: flags(texts[c]) for c, _ in cmds}))


main()
