"""What a run writes: the table on stdout, and under --out the Markdown file (header with
GPU, versions and method, then the table), the plot and latest.json (every raw number),
copied into $OUT when that is set."""
import json
import os
import re
import shutil

from .contenders import COLUMNS
from .plot import plot
from .table import fmt_bw, md_table, text_table


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", (text or "no-gpu").lower()).strip("-") or "no-gpu"


def md_header(env, settings, ceiling, ceiling_source, elapsed):
    v = env["versions"]
    lines = ["# myModule side-by-side benchmark: %s" % (env["gpu"] or "no GPU"), "",
             "- date: %s; run took %.0f s%s" % (env["time"], elapsed,
                                                "; --quick" if settings.quick else ""),
             "- GPU: %s%s" % (env["gpu"] or "none",
                              (" (%s)" % env["nvidia_smi"]) if env.get("nvidia_smi") else ""),
             "- NVIDIA driver %s (CUDA driver API %s); CUDA runtime: myModule %s (static), "
             "CuPy %s, PyTorch %s" % (env.get("driver", "?"), env.get("cuda_driver_api", "?"),
                                      env.get("cuda_runtime_mymodule", "-"),
                                      env.get("cuda_runtime_cupy", "-"),
                                      env.get("cuda_runtime_torch", "-")),
             "- CPU: %s, %s cores (%s usable)" % (env.get("cpu_model"), env["cpu_count"],
                                                   env["cpu_affinity"]),
             "- Python %s; myModule %s; NumPy %s; CuPy %s; PyTorch %s; git %s%s" % (
                 env["python"], v["myModule"] or "-", v["NumPy"], v["CuPy"] or "absent",
                 v["PyTorch"] or "absent", env.get("git", "?"),
                 " (uncommitted changes)" if env.get("git_dirty") else ""),
             "- streaming ceiling (best D2D copy in this run, bytes read + written): %s%s" % (
                 fmt_bw(ceiling) if ceiling else "n/a",
                 (" (%s)" % ceiling_source) if ceiling_source else ""),
             "- method: float64 standard-normal data; median of %d repeats (GPU) / %d (host; "
             "%d for NumPy/CuPy/torch at n = 1e8); GPU cases: host clock around a loop of calls "
             "+ the contender's synchronize, each repeat >= %.0f ms; 'call + sync' cases sync after "
             "every call; inputs under 2x L2 rotate among up to 8 sets; warm-up excluded. "
             "Throughput counts bytes read + written (binary op: 3 x n x 8; sum: n x 8; "
             "op table rows: each input and the result at its dtype, e.g. a comparison writes "
             "1 byte, where reads a 1-byte condition; axpy: 24 bytes/element); "
             "transfers: one-way bytes, myModule to_device / get(), CuPy cudaMemcpy, "
             "PyTorch copy_ + synchronize." % (
                 settings.repeats_gpu, settings.repeats_host, settings.repeats_host_big,
                 settings.min_time * 1e3)]
    skipped = ["%s: %s" % (c, env["available"][c]["why"]) for c in COLUMNS
               if env["available"][c]["why"]]
    if skipped:
        lines.append("- not measured: " + "; ".join(skipped))
    return "\n".join(lines)


def print_table(rows, ceiling, ceiling_source, elapsed):
    print(text_table(rows))
    print("\nstreaming ceiling: %s%s; run took %.1f s" % (
        fmt_bw(ceiling) if ceiling else "n/a", (" (%s)" % ceiling_source) if ceiling_source
        else "", elapsed))


def write_results(out_dir, env, settings, elapsed, ceiling, ceiling_source, other_results,
                  case_results, rows, sweeps):
    """<gpu-slug>-<date>.md, .png and latest.json under out_dir. other_results: what was
    measured outside the cases (first calls, the C floor), written into latest.json as
    it is, in its order, before the cases."""
    os.makedirs(out_dir, exist_ok=True)
    stem = "%s-%s" % (slug(env["gpu"]), env["date"])
    md_path = os.path.join(out_dir, stem + ".md")
    png_path = os.path.join(out_dir, stem + ".png")
    json_path = os.path.join(out_dir, "latest.json")
    with open(md_path, "w") as f:
        f.write(md_header(env, settings, ceiling, ceiling_source, elapsed) + "\n\n")
        f.write(md_table(rows) + "\n\n")
        f.write("![throughput against n](%s)\n" % os.path.basename(png_path))
    why_no_png = plot(png_path, sweeps, ceiling, env["gpu"])
    raw = {"env": env, "settings": vars(settings), "elapsed_s": elapsed,
           "ceiling_Bps": ceiling, "ceiling_source": ceiling_source}
    raw.update(other_results)
    raw.update({"cases": [{"name": case.name, "group": case.group, "bytes": case.nbytes,
                           "results": results, "targets": row["evals"], "result": row["result"]}
                          for (case, results), row in zip(case_results, rows)],
                "sweeps": sweeps, "md": os.path.basename(md_path),
                "png": None if why_no_png else os.path.basename(png_path)})
    with open(json_path, "w") as f:
        json.dump(raw, f, indent=1, default=str)
    written = [md_path, json_path] + ([] if why_no_png else [png_path])
    print("wrote " + ", ".join(written) + (("; no PNG: " + why_no_png) if why_no_png else ""))
    out_env = os.environ.get("OUT")
    if out_env:
        os.makedirs(out_env, exist_ok=True)
        for p in written:
            if not os.path.exists(os.path.join(out_env, os.path.basename(p))) or \
                    not os.path.samefile(p, os.path.join(out_env, os.path.basename(p))):
                shutil.copy(p, out_env)
        print("copied to $OUT = %s" % out_env)
