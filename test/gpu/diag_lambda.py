"""Diagnoses, on the GPU machine's Python, why a lambda's source is not recognised (SourceUnavailableError
there for `compile_ptx(lambda: None, ...)`): compiles this file whole and compares the code objects field by field."""
import dis
import sys


def holder():
    return (lambda: None)


def main():
    lam = holder()
    code = lam.__code__
    whole = compile(open(__file__).read(), __file__, "exec")
    def walk(c):
        for k in c.co_consts:
            if hasattr(k, "co_code"):
                yield k
                yield from walk(k)
    cands = [c for c in walk(whole) if c.co_name == code.co_name and c.co_firstlineno == code.co_firstlineno]
    print(sys.version, "candidates", len(cands))
    for c in cands:
        print("equal", c == code)
        for attr in dir(code):
            if attr.startswith("co_"):
                a, b = getattr(c, attr), getattr(code, attr)
                if a != b:
                    print("differs", attr, repr(a)[:200], repr(b)[:200])
    from kfront import cuda
    try:
        print(cuda.compile_ptx(lambda: None, ())[0][-80:])
    except Exception as e:
        print(type(e).__name__, e)


main()
