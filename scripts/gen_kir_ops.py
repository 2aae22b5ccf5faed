"""Writes docs/kir-ops.md, kir's op reference, from `kfront-opt --list-ops` (which prints ir/ops.def's table).

  kfront-opt --list-ops | python3 scripts/gen_kir_ops.py docs/kir-ops.md          # regenerate
  kfront-opt --list-ops | python3 scripts/gen_kir_ops.py --check docs/kir-ops.md  # fail if it is out of date

`--list-ops` prints each op as its name, an indented summary and an indented `example:` (which may run over
several lines), ops separated by a blank line. The test test/ir/kir-ops-doc.test runs the --check form.
"""
import sys

HEADER = """# kir ops

Every op of kir, by dialect: its summary (operands, results, attributes) and an example in the generic text
form ([kir.md](kir.md)). Generated from `ir/ops.def` by `kfront-opt --list-ops | python3 scripts/gen_kir_ops.py
docs/kir-ops.md`; `test/ir/kir-ops-doc.test` fails when this page and the table differ. The per-op rules the
verifier applies are in `ir/verify.c` (the function each op names in `ops.def`).
"""


def parse(listing):
    ops = []
    for entry in listing.strip("\n").split("\n\n"):
        lines = entry.split("\n")
        name, summary, example = lines[0], lines[1].strip(), lines[2:]
        if not example or not example[0].startswith("  example: "):
            raise SystemExit(f"gen_kir_ops: unexpected --list-ops entry for {name!r}")
        example[0] = example[0][len("  example: "):]
        ops.append((name, summary, "\n".join(example)))
    return ops


def render(ops):
    out, dialect = [HEADER], None
    for name, summary, example in ops:
        d = name.split(".")[0]
        if d != dialect:
            dialect = d
            out.append(f"\n## {d}\n")
        out.append(f"\n### `{name}`\n\n{summary}\n\n```\n{example}\n```\n")
    return "".join(out)


def main():
    args = sys.argv[1:]
    check = args[:1] == ["--check"]
    if check:
        args = args[1:]
    if len(args) != 1:
        raise SystemExit(__doc__)
    text = render(parse(sys.stdin.read()))
    if check:
        with open(args[0], encoding="utf-8") as f:
            if f.read() != text:
                print(f"{args[0]} is out of date: regenerate it with `kfront-opt --list-ops | python3 "
                      f"scripts/gen_kir_ops.py {args[0]}`", file=sys.stderr)
                return 1
        print(f"{args[0]}: up to date ({text.count('### ')} ops)")
        return 0
    with open(args[0], "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
