#!/usr/bin/python3
"""PyTorch reference for `peerlearn bench train`: training samples/s.

Trains the same architectures as nn/archs.go on random data (batch 64,
forward + backward + plain SGD step, lr 0.01) and prints one line per
architecture:

    torch arch=mlp threads=1 batch=64 sps=1234.5 blas=openblas

Architectures (28x28x1 inputs, 10 classes, as in nn/archs.go):
  mlp        784-128-10, ReLU
  small-cnn  conv 8@3x3 pad 1, ReLU, max-pool 2, conv 16@3x3 pad 1, ReLU,
             max-pool 2, flatten (16x7x7), dense 10

Run it with Debian's interpreter (/usr/bin/python3) and python3-torch.
libtorch falls back to the slow reference BLAS unless an optimised one
(libopenblas0-pthread) is installed: the blas= field says which one the
process loaded, and the script warns when it is not OpenBLAS.
"""

import argparse
import sys
import time

import torch
from torch import nn


def build(arch):
    if arch == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
    if arch == "small-cnn":
        return nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(16 * 7 * 7, 10),
        )
    raise SystemExit(f"bench_torch: unknown arch {arch!r}")


def loaded_blas():
    """Names the BLAS library mapped into this process, if any."""
    try:
        with open("/proc/self/maps") as f:
            maps = f.read()
    except OSError:
        return "unknown"
    for name in ("openblas", "mkl", "blis"):
        if "lib" + name in maps:
            return name
    if "libblas.so" in maps:
        return "reference"
    return "none"


def bench(arch, threads, batch, seconds, warmup):
    torch.manual_seed(1)
    model = build(arch)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    # A pool of random batches, cycled, so that no step sees cached data.
    xs = [torch.rand(batch, 1, 28, 28) for _ in range(8)]
    ys = [torch.randint(0, 10, (batch,)) for _ in range(8)]

    def step(i):
        opt.zero_grad(set_to_none=False)
        loss = loss_fn(model(xs[i % 8]), ys[i % 8])
        loss.backward()
        opt.step()
        return loss

    end = time.perf_counter() + warmup
    i = 0
    while time.perf_counter() < end or i < 5:
        step(i)
        i += 1
    steps = 0
    start = time.perf_counter()
    end = start + seconds
    while True:
        loss = step(steps)
        steps += 1
        now = time.perf_counter()
        if now >= end:
            break
    elapsed = now - start
    if not torch.isfinite(loss):
        raise SystemExit(f"bench_torch: {arch}: loss is {loss.item()}")
    return steps * batch / elapsed


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--arch", default="mlp,small-cnn", help="comma-separated: mlp, small-cnn")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--warmup", type=float, default=0.5)
    a = p.parse_args()

    torch.set_num_threads(a.threads)
    torch.set_num_interop_threads(1)
    blas = loaded_blas()
    for arch in a.arch.split(","):
        sps = bench(arch, a.threads, a.batch, a.seconds, a.warmup)
        if blas in ("none", "unknown"):
            blas = loaded_blas()  # libtorch may map BLAS lazily
        print(f"torch arch={arch} threads={a.threads} batch={a.batch} sps={sps:.1f} blas={blas}", flush=True)
    if blas != "openblas":
        print(f"bench_torch: warning: libtorch uses {blas} BLAS, not OpenBLAS: "
              "install libopenblas0-pthread for a fair reference", file=sys.stderr)


if __name__ == "__main__":
    main()
