"""The benchmark's shared harness: how a row is described, its inputs made, its
contenders timed and its results written. bench/run.py (the command line) and the row
modules (bench/*_rows.py, c_floor.py) import it; nothing here imports a row module or
bench/run.py, so the rows depend on the harness and never the other way round.

    settings.py     repeats, time per repeat and sweep sizes (--quick or not)
    timing.py       the timing method: timeit_gpu, timeit_host
    contenders.py   the libraries timed (Lib, load_libs) and their spellings of add, upload
    inputs.py       the random inputs, their device copies and the sizes rows use
    cases.py        a row (Case) and one contender in it (Entry)
    targets.py      the ratios a row is held to, read from bench/TARGETS.md's table
    builders.py     Entry factories shared by the rows and the sweeps
    runner.py       measures the entries of the cases and the sweeps
    table.py        formatting, the text and Markdown tables
    environment.py  GPU name, versions, CPU, git revision
    plot.py         the throughput plot
    report.py       the Markdown header and the files written under --out
"""
