#!/usr/bin/env python3
"""check_copies.py — the repository's acceptance inputs (test/acceptance/seeds, programs, notebooks) are the same
as the project's shared folder beside the repository (../shared/acceptance, ../shared/seeds), where there is one.

The tests read only the copies, so a clone elsewhere runs them alone; this check says when ../shared has changed
(a file edited, added or removed) so that the copies can be brought up to date. Without ../shared it exits 77, which
ctest reports as skipped, saying so.

usage: check_copies.py REPO_ROOT
"""
import filecmp
import os
import sys

SKIPPED = 77  # ctest's SKIP_RETURN_CODE for this test


def files(folder):
    return sorted(f for f in os.listdir(folder) if os.path.isfile(os.path.join(folder, f)))


def main():
    root = os.path.abspath(sys.argv[1])
    shared = os.path.normpath(os.path.join(root, "..", "shared"))
    here = os.path.join(root, "test", "acceptance")
    if not os.path.isdir(os.path.join(shared, "acceptance")):
        print("check_copies: no %s/acceptance beside the repository: nothing to compare the copies with" % shared)
        return SKIPPED
    problems = []
    # every file of ../shared/acceptance/{seeds,programs} is copied; of ../shared/seeds only what the tests use
    pairs = [(os.path.join(shared, "acceptance", d), os.path.join(here, d), True) for d in ("seeds", "programs")]
    pairs.append((os.path.join(shared, "seeds"), os.path.join(here, "notebooks"), False))
    for original, copy, every_file in pairs:
        for name in files(copy):
            if not os.path.exists(os.path.join(original, name)):
                problems.append("%s: not in %s any more" % (os.path.join(copy, name), original))
            elif not filecmp.cmp(os.path.join(original, name), os.path.join(copy, name), shallow=False):
                problems.append("%s differs from %s" % (os.path.join(copy, name), os.path.join(original, name)))
        if every_file:
            for name in files(original):
                if not os.path.exists(os.path.join(copy, name)):
                    problems.append("%s: not copied into %s" % (os.path.join(original, name), copy))
    for p in problems:
        print("check_copies: " + p)
    print("check_copies: %s" % ("%d difference(s) from ../shared" % len(problems) if problems else
                                "the copies are ../shared's"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
