"""benchmarks/perf_targets.py and run_all.py --targets: the builds, the verdict rows and the page's section (the
measurements are synthetic: nothing here is timed)."""

import json
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
AVX512_HOST = ["sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw"]
AVX2_HOST = ["sse4_2", "avx", "avx2", "fma"]


@pytest.fixture
def pt(benchmark_script):
    sys.path.insert(0, str(ROOT / "benchmarks"))   # as run_all.py: the scripts import their neighbours
    return benchmark_script("perf_targets")


@pytest.fixture
def run_all(benchmark_script):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    return benchmark_script("run_all")


def measured(build, gemm=2.5, loss=1.5, grad=5.0, m5=3.25, auto=1.0, rb=(0.5, True), os_=(0.4, False),
             mv=4.0, rmv=3.0, one_pass=0.5):
    """One build's measurements as ``measure`` returns them, in seconds (gemm 2.5 s: ratios are not times)."""
    def sampler(t_reached):
        t, reached = t_reached
        return {"seconds": t, "samples": 1000, "half_rel": 0.009 if reached else 0.05, "error_rel": 0.001,
                "reached": reached}

    return {"build": build, "quick": False, "gemm_cpu_s": gemm, "numba": {"name": "haswell", "features": ["avx2"],
                                                                          "target": "avx2"},
            "env": {"NUMBA_CPU_NAME": "haswell"}, "load_start": 1.0, "load_end": 1.5, "wall_s": 200.0,
            "loss_m3": {"seconds": loss, "route": "collapsed", "n": 10**6, "gemm_s": gemm},
            "grad_m3": {"seconds": grad, "route": "collapsed", "n": 10**6},
            "loss_m5": {"seconds": m5, "route": "collapsed", "n": 10**5},
            "to_accuracy": {"seconds": auto, "method": "exact:collapsed", "half_rel": 1e-12, "rtol": 0.01},
            "samplers": {"Rao-Blackwellised control-variate MC": sampler(rb), "output-subsampled MC": sampler(os_)},
            "frame_operator": {"pass_s": one_pass, "matvec_s": mv, "rmatvec_s": rmv, "log2n": 27, "repeat": 3}}


def by_key(rows, build):
    return {r["key"]: r for r in rows if r["build"] == build}


def test_builds_and_their_environments(pt):
    assert pt.builds_for(AVX512_HOST) == ["AVX2", "native"]
    assert pt.builds_for(AVX2_HOST) == ["native"]          # native is the AVX2 build there
    assert pt.builds_for([]) == ["native"]
    base = {"PATH": "/bin", "NUMBA_CPU_NAME": "skylake-avx512", "OPENBLAS_CORETYPE": "SkylakeX"}
    avx2 = pt.build_env("AVX2", base)
    assert avx2 == {"PATH": "/bin", "NUMBA_CPU_NAME": "haswell", "NUMBA_CPU_FEATURES": "",
                    "OPENBLAS_CORETYPE": "Haswell"}            # empty features: haswell's own, a real AVX2 build
    assert pt.build_env("native", base) == {"PATH": "/bin"}   # the host's own, whatever the caller's shell set
    with pytest.raises(ValueError, match="'name'"):
        pt.build_env("avx2", base)
    assert [pt.build_isa(b, AVX512_HOST) for b in ("AVX2", "native")] == ["AVX2", "AVX-512"]
    assert pt.build_isa("native", AVX2_HOST) == "AVX2" and pt.build_isa("native", ["sse4_2"]) == "generic"


def test_cpu_flags_are_read_in_a_fixed_order(run_all, tmp_path):
    cpu_flags = run_all.cpu_flags
    info = tmp_path / "cpuinfo"
    info.write_text("model name\t: X\nflags\t\t: fpu avx512f sse4_2 fma avx2 avx lm\nflags\t\t: other\n")
    assert cpu_flags(str(info)) == ["sse4_2", "avx", "avx2", "fma", "avx512f"]
    assert cpu_flags(str(tmp_path / "none")) == []


def test_each_target_is_met_or_not_on_both_sides_of_its_limit(pt):
    # AVX2 build on an AVX-512 host: loss 1.5 / 2.5 = 0.6 (at the limit: met), gradient 5.25 / 2.5 = 2.1 (> 2.0),
    # m = 5 3.0 / 2.5 = 1.2; native: the figures before (0.61, 1.88, 1.54) are its limits
    rows = pt.evaluate([measured("AVX2", grad=5.25, m5=3.0),
                        measured("native", loss=1.55, grad=4.5, m5=3.9, mv=4.25, rmv=4.0)], AVX512_HOST, None)
    a, n = by_key(rows, "AVX2"), by_key(rows, "native (AVX-512)")
    assert (a["loss_m3"]["measured"], a["loss_m3"]["limit"], a["loss_m3"]["met"]) == (pytest.approx(0.6), 0.6, True)
    assert (a["grad_m3"]["measured"], a["grad_m3"]["met"]) == (pytest.approx(2.1), False)
    assert (a["loss_m5"]["measured"], a["loss_m5"]["met"]) == (pytest.approx(1.2), True)
    assert [n[k]["limit"] for k in ("loss_m3", "grad_m3", "loss_m5")] == [0.61, 1.88, 1.54]
    assert [n[k]["met"] for k in ("loss_m3", "grad_m3", "loss_m5")] == [False, True, False]   # 0.62, 1.8, 1.56
    # each workload against the gemm timed alternately with it, where it has one (else the build's first gemm)
    alt = measured("AVX2")
    alt["loss_m3"]["gemm_s"] = 3.0
    assert by_key(pt.evaluate([alt], AVX512_HOST), "AVX2")["loss_m3"]["measured"] == pytest.approx(0.5)
    # the frame operator: seconds over one pass (8 at most)
    assert (a["matvec"]["measured"], a["matvec"]["met"]) == (pytest.approx(8.0), True)
    assert (n["matvec"]["measured"], n["matvec"]["met"]) == (pytest.approx(8.5), False)
    assert n["rmatvec"]["measured"] == pytest.approx(8.0) and n["rmatvec"]["met"]
    # the main job, not measured in this run: no verdict
    job = [r for r in rows if r["key"] == "main_job"]
    assert len(job) == 1 and job[0]["met"] is None and "not measured" in job[0]["note"]
    assert [r["met"] for r in pt.evaluate([], AVX512_HOST, 600.0)] == [True]
    assert [r["met"] for r in pt.evaluate([], AVX512_HOST, 601.0)] == [False]


def test_an_avx2_host_holds_its_native_build_to_the_avx2_targets(pt):
    rows = by_key(pt.evaluate([measured("native", loss=1.55)], AVX2_HOST), "native (AVX2)")
    assert rows["loss_m3"]["limit"] == 0.6 and rows["loss_m3"]["met"] is False      # 0.62 > 0.6 (< 0.61 before)
    assert not any(r["key"].startswith(("loss", "grad")) for r in pt.evaluate([measured("native")], ["sse4_2"]))


def test_the_loss_to_one_percent_is_rated_against_the_fastest_sampler_that_reached_it(pt):
    # the output-subsampled sampler stopped short (0.4 s, not at 1%): it is no baseline, however fast
    row = by_key(pt.evaluate([measured("AVX2", auto=1.0, rb=(0.5, True), os_=(0.4, False))], AVX512_HOST),
                 "AVX2")["to_accuracy"]
    assert row["measured"] == pytest.approx(2.0) and row["met"] is True
    assert "fastest: Rao-Blackwellised" in row["note"] and "> 0.40 s" in row["note"] and "stopped before 1%" in row["note"]
    assert "already slower" not in row["note"]
    row = by_key(pt.evaluate([measured("AVX2", rb=(0.5, True), os_=(60.0, False))], AVX512_HOST), "AVX2")["to_accuracy"]
    assert "> 60.00 s" in row["note"] and "already slower than the fastest" in row["note"]   # it cannot be the fastest
    row = by_key(pt.evaluate([measured("AVX2", auto=1.0, rb=(0.9, True), os_=(0.45, True))], AVX512_HOST),
                 "AVX2")["to_accuracy"]
    assert row["measured"] == pytest.approx(1.0 / 0.45) and row["met"] is False and "fastest: output-subsampled" in row["note"]
    row = by_key(pt.evaluate([measured("AVX2", rb=(0.9, False), os_=(0.45, False))], AVX512_HOST), "AVX2")["to_accuracy"]
    assert row["measured"] is None and row["met"] is None


def test_the_section_names_the_cpu_its_flags_each_build_and_every_verdict(pt):
    rows = pt.evaluate([measured("AVX2", grad=5.25), measured("native")], AVX512_HOST, None)
    text = "\n".join(pt.render({"cpu": "Intel Xeon X", "flags": AVX512_HOST, "builds": [measured("AVX2")],
                                "rows": rows}))
    assert "Intel Xeon X" in text and "avx2 fma avx512f avx512bw" in text
    assert "build **AVX2** (NUMBA_CPU_NAME=haswell)" in text
    table = [ln for ln in text.splitlines() if ln.startswith("| ") and "---" not in ln][1:]
    assert len(table) == len(rows)
    assert sum("**not met**" in ln for ln in table) == sum(r["met"] is False for r in rows) > 0
    assert sum("| not measured |" in ln for ln in table) == 1
    judged = sum(r["met"] is not None for r in rows)
    assert f"{sum(r['met'] is True for r in rows)} of {judged} judged targets met, 1 not measured." in text


@pytest.mark.parametrize("value,shown", [(1.0009857, "1.00"), (1.4, "1.40"), (0.50891, "0.509"), (6.2, "6.20"),
                                         (99.96, "100"), (814.3, "814"), (None, "n/a")])
def test_a_measured_value_is_shown_to_three_significant_digits(pt, value, shown):
    """The table's measured column: 3 significant digits with their trailing zeros (an m = 5 ratio of 1.001 once
    read as a bare "1"), whole units from 100 on."""
    assert pt._num(value) == shown


def test_quick_sizes_are_shown_and_not_judged(pt):
    quick = measured("AVX2")
    quick.update(quick=True, loss_m3={"seconds": 0.1, "route": "collapsed", "n": 10**5})
    rows = pt.evaluate([quick], AVX512_HOST, 500.0)
    a = by_key(rows, "AVX2")
    assert a["loss_m3"]["measured"] == pytest.approx(0.04) and a["loss_m3"]["what"].startswith("exact loss, n = 10^5,")
    assert all(r["met"] is None for r in rows if r["key"] != "main_job") and by_key(rows, "-")["main_job"]["met"]
    text = "\n".join(pt.render({"cpu": "X", "flags": [], "builds": [quick], "rows": rows}))
    assert "1 of 1 judged targets met, 6 not judged (quick sizes, not the targets')." in text
    assert text.count("| not judged |") == 6


def test_the_page_shows_the_targets_and_a_targets_only_run_no_empty_table(run_all, pt):
    # the committed results file without its own targets (it may hold some: the page is made from a targets run)
    res = {k: v for k, v in json.loads((ROOT / "docs" / "_data" / "performance.json").read_text(encoding="utf-8"))
           .items() if k != "targets"}
    plain = run_all.render(res)
    entry = {"cpu": "Intel Xeon X", "flags": AVX512_HOST, "builds": [measured("AVX2")],
             "rows": pt.evaluate([measured("AVX2")], AVX512_HOST)}
    both = run_all.render({**res, "targets": entry})
    section = "\n".join(pt.render(entry)) + "\n\n"
    assert section in both
    rest = both.replace(section, "", 1)
    assert set(rest.splitlines()) <= set(plain.splitlines())   # nothing else added to the page
    if "*ratio* = " in rest:   # a page with comparison rows: the targets come before their legend
        assert both.index(section) < both.index("*ratio* = ")
    alone = run_all.render({**res, "rows": [], "exponents": {}, "notes": [], "targets": entry})
    assert "## Issue 42's targets" in alone
    assert "| figure / workload |" not in alone and "## Roofline" not in alone and "## Scaling" not in alone


def test_each_build_runs_in_a_child_with_its_environment(pt, tmp_path, monkeypatch):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent('''
        import json, os, sys
        name, out = sys.argv[sys.argv.index("--targets-child") + 1], sys.argv[sys.argv.index("--results") + 1]
        if os.environ.get("FAIL_BUILD") == name:
            sys.exit(3)
        json.dump({"build": name, "cpu_name": os.environ.get("NUMBA_CPU_NAME"),
                   "features": os.environ.get("NUMBA_CPU_FEATURES"), "quick": "--quick" in sys.argv,
                   "budget": [a for a in sys.argv if a.startswith("--sampler-budget")]}, open(out, "w"))
    '''))
    done, failures = pt.run_builds(AVX512_HOST, True, script, sampler_budget=0.0)
    assert failures == {}
    assert [(m["build"], m["cpu_name"], m["features"], m["quick"], m["budget"]) for m in done] == \
        [("AVX2", "haswell", "", True, ["--sampler-budget=0.0"]), ("native", None, None, True, ["--sampler-budget=0.0"])]
    monkeypatch.setenv("FAIL_BUILD", "AVX2")
    done, failures = pt.run_builds(AVX512_HOST, False, script)
    assert [m["build"] for m in done] == ["native"] and "3" in failures["targets (AVX2 build)"]


@pytest.mark.parametrize("value", ["-5", "0", "nan", "inf"])
def test_a_main_job_time_that_is_not_a_positive_number_is_refused(run_all, capsys, value):
    assert run_all.main(["--targets", f"--main-job-seconds={value}"]) == 2
    assert "Argument 'main-job-seconds' must be a positive number" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["-1", "nan", "inf"])
def test_a_sampler_budget_that_is_not_a_nonnegative_number_is_refused(run_all, capsys, value):
    assert run_all.main(["--targets", f"--sampler-budget={value}"]) == 2
    assert "Argument 'sampler-budget' must be a number of seconds >= 0" in capsys.readouterr().err
