"""test_conformance_pytest.py — the conformance gauge's pytest plugin (boot/conformance_pytest.py) records each
test's outcome as pytest and unittest mean it: a test whose subtests fail is a failure even though its own report
says passed (the bug that counted cudapy/test_cache_hints.py's failing subtests as passes). ctest
conformance/plugin; needs neither numba nor kfront."""
import os
import subprocess
import sys
import textwrap

BOOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "boot")

MODULE = textwrap.dedent('''
    import unittest

    class T(unittest.TestCase):
        def test_subtests_fail(self):
            for i in range(3):
                with self.subTest(i=i):
                    self.assertLess(i, 1)

        def test_subtests_pass(self):
            for i in range(2):
                with self.subTest(i=i):
                    self.assertGreaterEqual(i, 0)

        def test_fails(self):
            self.assertEqual(1, 2)

        def test_skipped(self):
            self.skipTest("not here")

        @unittest.expectedFailure
        def test_expected_failure(self):
            self.assertEqual(1, 2)

        def test_passes(self):
            pass
''')


def records(tmp_path):
    (tmp_path / "test_sample.py").write_text(MODULE)
    rec = tmp_path / "records.tsv"
    env = dict(os.environ, PYTHONPATH=BOOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "conformance_pytest", "-p", "no:cacheprovider",
                    "--conformance-records", str(rec), str(tmp_path / "test_sample.py")],
                   cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    out = {}
    for line in rec.read_text().splitlines():
        parts = line.split("\t")
        if parts[0] == "result":
            out[parts[1]] = (parts[2], parts[4] if len(parts) > 4 else "")
    return out


def test_outcomes(tmp_path):
    r = records(tmp_path)
    assert r["T.test_subtests_fail"][0] == "fail"
    assert r["T.test_subtests_fail"][1].startswith("2 subtest(s) failed, the first: AssertionError")
    assert r["T.test_subtests_pass"] == ("pass", "")
    assert r["T.test_fails"] == ("fail", "AssertionError: 1 != 2")
    assert r["T.test_skipped"][0] == "skip"
    assert r["T.test_expected_failure"][0] == "xfail"
    assert r["T.test_passes"] == ("pass", "")
