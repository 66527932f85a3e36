"""The throughput plot: add against n, device arrays and NumPy in / NumPy out, beside
the streaming ceiling (needs matplotlib; without it, the reason instead of a file)."""


COLORS = {"myModule": "tab:red", "myModule (device='cuda')": "tab:red",
          "myModule (device='auto')": "tab:purple", "NumPy": "tab:green", "CuPy": "tab:blue",
          "PyTorch": "tab:orange"}


def plot(path, sweeps, ceiling, gpu_name):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as exc:  # noqa: BLE001
        return "matplotlib not available (%s)" % exc.__class__.__name__
    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    titles = {"dev": "add, device arrays (float64)", "host": "add, NumPy in / NumPy out (float64)"}
    for ax, kind in zip(axes, ("dev", "host")):
        curves = sweeps.get(kind, {})
        for name, pts in sorted(curves.items()):
            if pts:
                ax.plot([p[0] for p in pts], [p[2] for p in pts], marker="o", ms=3, label=name,
                        color=COLORS.get(name), ls="--" if "auto" in name else "-")
        if kind == "dev" and ceiling:
            ax.axhline(ceiling / 1e9, color="k", ls="--", lw=1, label="D2D copy ceiling")
            ax.axhline(0.9 * ceiling / 1e9, color="gray", ls=":", lw=1, label="90% of ceiling")
        ax.set_xscale("log", base=2 if kind == "dev" else 10)
        ax.set_yscale("log")
        ax.set_xlabel("n (elements)")
        ax.set_ylabel("GB/s (bytes read + written)")
        ax.set_title(titles[kind])
        ax.grid(True, which="both", alpha=0.3)
        if any(curves.values()):
            ax.legend(fontsize=8)
        else:
            ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center")
    fig.suptitle("myModule vs NumPy / CuPy / PyTorch on %s" % (gpu_name or "no GPU"))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None
