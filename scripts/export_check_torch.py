"""Loads an exported safetensors file into the equivalent torch.nn.Sequential
and writes its logits: the export test's external check (cmd/peerlearn
TestExportExternal), run with Debian's python3-torch (scripts/deps.sh torch).

    /usr/bin/python3 scripts/export_check_torch.py MODEL.safetensors INPUTS.f32 N LOGITS.f32 [STATE.safetensors]

The file is parsed here with struct and json (Debian has no python3-safetensors).
The Sequential is built from the file's peerlearn.sequential metadata and the
tensors are loaded with load_state_dict(strict=True), so torch itself checks
every name and shape. INPUTS.f32 holds N samples in the file's peerlearn.input
shape (NCHW), little-endian float32; LOGITS.f32 receives N*classes float32.
STATE.safetensors, if given, receives the module's state_dict as torch holds
it, written the way a torch user would (keys in reverse order, no metadata, no
padding), for the import direction: PeerLearn must read it back.
"""
import json
import struct
import sys

import torch
from torch import nn


def read_safetensors(path):
    with open(path, "rb") as f:
        b = f.read()
    (n,) = struct.unpack("<Q", b[:8])
    header = json.loads(b[8 : 8 + n].decode("utf-8"))
    data = b[8 + n :]
    meta = header.pop("__metadata__", {})
    tensors = {}
    for name, e in header.items():
        if e["dtype"] != "F32":
            raise ValueError(f"{name}: dtype {e['dtype']}")
        begin, end = e["data_offsets"]
        count = (end - begin) // 4
        vals = struct.unpack(f"<{count}f", data[begin:end])
        tensors[name] = torch.tensor(vals, dtype=torch.float32).reshape(e["shape"])
    return meta, tensors


def write_state(path, state):
    header, data = {}, b""
    for name in reversed(list(state)):
        t = state[name].detach().contiguous().to(torch.float32)
        raw = struct.pack(f"<{t.numel()}f", *t.flatten().tolist())
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(header).encode("utf-8")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)


def module(m):
    t = m["type"]
    if t == "Linear":
        return nn.Linear(m["in"], m["out"])
    if t == "Conv2d":
        return nn.Conv2d(m["in"], m["out"], m["kernel"], stride=m["stride"], padding=m.get("padding", 0))
    if t == "MaxPool2d":
        return nn.MaxPool2d(m["kernel"], stride=m["stride"])
    if t == "AvgPool2d":
        return nn.AvgPool2d(m["kernel"], stride=m["stride"])
    if t == "AdaptiveAvgPool2d":
        return nn.AdaptiveAvgPool2d(1)
    if t == "Dropout":
        return nn.Dropout(m.get("p", 0.0))
    if t == "Unflatten":
        return nn.Unflatten(1, tuple(m["shape"]))
    if t in ("ReLU", "Tanh", "Flatten"):
        return getattr(nn, t)()
    raise ValueError(f"unknown module {t}")


def main():
    model, inputs, n, out = sys.argv[1:5]
    state_out = sys.argv[5] if len(sys.argv) > 5 else None
    n = int(n)
    meta, tensors = read_safetensors(model)
    net = nn.Sequential(*[module(m) for m in json.loads(meta["peerlearn.sequential"])])
    net.load_state_dict(tensors, strict=True)
    net.eval()
    c, h, w = (int(d) for d in meta["peerlearn.input"].split(",")[1:])
    with open(inputs, "rb") as f:
        raw = f.read()
    want = n * c * h * w
    if len(raw) != 4 * want:
        raise ValueError(f"{inputs}: {len(raw)} bytes, want {4 * want}")
    x = torch.tensor(struct.unpack(f"<{want}f", raw), dtype=torch.float32).reshape(n, c, h, w)
    with torch.no_grad():
        logits = net(x)
    with open(out, "wb") as f:
        f.write(struct.pack(f"<{logits.numel()}f", *logits.flatten().tolist()))
    if state_out:
        write_state(state_out, net.state_dict())
    print(f"torch {torch.__version__}: {net}".replace("\n", " ") + f" logits {tuple(logits.shape)}")


if __name__ == "__main__":
    main()
