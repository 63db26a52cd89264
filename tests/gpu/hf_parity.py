#!/usr/bin/env python3
"""HF parity: pgci's C reference forward pass against HuggingFace transformers.

For each case (a toy config directory, the weights `pgci logits --export-weights`
wrote, and the input ids and reference outputs `pgci logits --dump` wrote), build
the transformers model from the same config.json with eager attention, load the
same weights, run the same input ids, and compare its logits, its hidden state
after every layer but the last (transformers returns the last one after the final
norm) and its next-token loss with pgci's reference, with pgci's tolerances.

    hf_parity.py --case DIR WEIGHTS DUMP [--case ...] [--time DIR ...]
                 [--batch B] [--seq N] [--json OUT]

--time DIR builds a (randomly initialised) model from DIR (on the GPU when there
is one, else on the CPU) and times its forward pass in each --time-dtype, for the
wall-time comparison with pgci's forward pass.
Exit status: 0 all cases pass, 1 a case failed, 2 the script could not run.
"""
import argparse
import json
import struct
import sys
import time

# pgci's tolerances (kernels/compare.c): fp32 is strict, bf16 allows rounding flips.
TOL = {
    "fp32": {"max_rel": 1e-4, "rel_l2": 5e-5, "min_cos": 0.999999, "loss_rel": 1e-5},
    "bf16": {"max_rel": 0.25, "rel_l2": 5e-2, "min_cos": 0.998, "loss_rel": 2e-3},
}


def read_safetensors(path):
    """A minimal reader (header + raw bytes) so the dump needs nothing but torch."""
    import torch

    dt = {"F32": torch.float32, "F64": torch.float64, "I64": torch.int64,
          "BF16": torch.bfloat16, "F16": torch.float16, "I32": torch.int32}
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    hdr = json.loads(raw[8:8 + n])
    base = 8 + n
    out = {}
    for name, info in hdr.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        buf = bytearray(raw[base + b:base + e])
        t = torch.frombuffer(buf, dtype=dt[info["dtype"]]) if e > b else \
            torch.empty(0, dtype=dt[info["dtype"]])
        out[name] = t.reshape(info["shape"]).clone()
    return out


def stats(ref, got):
    import torch

    ref = ref.double().flatten()
    got = got.double().flatten()
    finite = bool(torch.isfinite(ref).all() and torch.isfinite(got).all())
    diff = (got - ref).abs()
    scale = ref.abs().max().item()
    max_abs = diff.max().item()
    return {
        "finite": finite,
        "max_abs": max_abs,
        "max_rel": max_abs / scale if scale > 0 else float("inf"),
        "rel_l2": (diff.norm() / ref.norm()).item() if ref.norm() > 0 else float("inf"),
        "cosine": torch.nn.functional.cosine_similarity(ref, got, dim=0).item(),
    }


def ok(s, tol):
    return s["finite"] and s["max_rel"] <= tol["max_rel"] and s["rel_l2"] <= tol["rel_l2"] \
        and s["cosine"] >= tol["min_cos"]


def build_model(config_dir, dtype, device):
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    cfg = AutoConfig.from_pretrained(config_dir)
    try:
        cfg._attn_implementation = "eager"
    except Exception:  # noqa: BLE001
        pass
    # transformers 4.x does not read rope_parameters (the 5.x spelling): give it
    # the same theta the reference reads; check_rope() verifies the result.
    theta = config_theta(config_dir)
    if getattr(cfg, "rope_theta", theta) != theta:
        try:
            cfg.rope_theta = theta
        except Exception:  # noqa: BLE001
            pass
    with torch.device(device):
        try:
            model = AutoModelForCausalLM.from_config(cfg, attn_implementation="eager",
                                                     dtype=dtype)
        except TypeError:  # transformers 4.x spells it torch_dtype
            model = AutoModelForCausalLM.from_config(cfg, attn_implementation="eager",
                                                     torch_dtype=dtype)
    model = model.to(dtype)
    # transformers 5 may run MoE experts through grouped GEMMs; the reference
    # follows the eager loop (expert by expert, index_add_ in the hidden dtype).
    if hasattr(model, "set_experts_implementation"):
        try:
            model.set_experts_implementation("eager")
        except Exception:  # noqa: BLE001 - a model without MoE layers
            pass
    return model.eval()


def adapt_state_dict(sd, model):
    """pgci writes transformers v5 names (fused experts [E, 2I, H]); a 4.x model
    keeps one gate/up/down Linear per expert: split the fused tensors for it."""
    want = set(model.state_dict().keys())
    out = {}
    for name, t in sd.items():
        if name.endswith("mlp.experts.gate_up_proj") and name not in want:
            prefix = name[:-len("gate_up_proj")]
            inter = t.shape[1] // 2
            for e in range(t.shape[0]):
                out[f"{prefix}{e}.gate_proj.weight"] = t[e, :inter]
                out[f"{prefix}{e}.up_proj.weight"] = t[e, inter:]
        elif name.endswith("mlp.experts.down_proj") and name not in want:
            prefix = name[:-len("down_proj")]
            for e in range(t.shape[0]):
                out[f"{prefix}{e}.down_proj.weight"] = t[e]
        else:
            out[name] = t
    return out


def config_theta(config_dir):
    """rope_theta as pgci's reader takes it: rope_parameters wins, then the
    top-level field, then 10000."""
    cfg_json = json.load(open(f"{config_dir}/config.json"))
    theta = cfg_json.get("rope_theta")
    rp = cfg_json.get("rope_parameters") or {}
    return float(rp.get("rope_theta", theta if theta is not None else 10000.0))


def check_rope(model, config_dir):
    """The reference reads rope_theta from config.json; make sure transformers
    resolved the same value (v5 moves it into rope_parameters)."""
    theta = config_theta(config_dir)
    c = model.config
    got = getattr(c, "rope_theta", None)
    if got is None:
        got = (getattr(c, "rope_parameters", None) or {}).get("rope_theta")
    if got is not None and abs(float(got) - float(theta)) > 1e-6 * float(theta):
        raise RuntimeError(f"transformers resolved rope_theta {got}, config.json says {theta}")


def run_case(config_dir, weights, dump, device):
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    sd = read_safetensors(weights)
    ref = read_safetensors(dump)
    ids = ref["input_ids"].to(device)
    rows = []
    for dtname, dtype in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
        if f"logits.{dtname}" not in ref:
            continue
        model = build_model(config_dir, dtype, device)
        check_rope(model, config_dir)
        state = {k: v.to(dtype) for k, v in adapt_state_dict(sd, model).items()}
        missing, unexpected = model.load_state_dict(state, strict=False)
        tied = bool(getattr(model.config, "tie_word_embeddings", False))
        missing = [k for k in missing if not (tied and k == "lm_head.weight")]
        if missing or unexpected:
            raise RuntimeError(f"weights do not fit the transformers model: missing {missing[:5]}, "
                               f"unexpected {unexpected[:5]}")
        if tied and hasattr(model, "tie_weights"):
            model.tie_weights()
        if tied and model.get_output_embeddings() is not None:
            emb = model.get_input_embeddings().weight
            if model.get_output_embeddings().weight.data_ptr() != emb.data_ptr():
                raise RuntimeError("tie_word_embeddings is set but lm_head is not tied")
        with torch.no_grad():
            out = model(input_ids=ids, output_hidden_states=True)
        logits = out.logits.float().cpu()
        tol = TOL[dtname]
        s = stats(ref[f"logits.{dtname}"], logits)
        # transformers returns the embedding output first ([0]) and then each
        # layer's output, the last one after the final norm; some versions leave
        # the embedding out. Align by length and skip the last entry either way.
        hid = ref[f"hidden.{dtname}"]
        n_layers = hid.shape[0]
        hs_all = out.hidden_states or ()
        offset = 1 if len(hs_all) == n_layers + 1 else 0
        first_bad = None
        compared = 0
        if len(hs_all) in (n_layers, n_layers + 1):
            for layer in range(n_layers - 1):
                hs = stats(hid[layer], hs_all[layer + offset].float().cpu())
                compared += 1
                if first_bad is None and not ok(hs, tol):
                    first_bad = layer
        lab = ids[:, 1:].reshape(-1).cpu()
        hf_loss = torch.nn.functional.cross_entropy(
            logits[:, :-1, :].reshape(-1, logits.shape[-1]).double(), lab).item()
        ref_loss = ref[f"loss.{dtname}"].item()
        loss_rel = abs(hf_loss - ref_loss) / max(abs(ref_loss), 1e-12)
        passed = ok(s, tol) and first_bad is None and loss_rel <= tol["loss_rel"]
        rows.append({"toy": config_dir.rstrip("/").split("/")[-1], "dtype": dtname,
                     "device": device, "status": "pass" if passed else "FAIL",
                     "first_diverging_layer": first_bad, "layers_compared": compared,
                     "loss_ref": ref_loss, "loss_hf": hf_loss,
                     "loss_rel": loss_rel, **s})
        del model
    return rows


def time_forward(config_dir, batch, seq, device, dtname):
    import torch

    model = build_model(config_dir, {"fp32": torch.float32, "bf16": torch.bfloat16}[dtname],
                        device)
    vocab = model.config.vocab_size
    ids = torch.randint(0, vocab, (batch, seq), device=device)
    times = []
    with torch.no_grad():
        for i in range(6):
            if device == "cuda":
                torch.cuda.synchronize()
            t0 = time.perf_counter()
            model(input_ids=ids)
            if device == "cuda":
                torch.cuda.synchronize()
            if i > 0:  # the first pass warms up
                times.append((time.perf_counter() - t0) * 1e3)
    del model
    if device == "cuda":
        torch.cuda.empty_cache()
    times.sort()
    return {"config": config_dir, "family": json.load(open(f"{config_dir}/config.json"))["model_type"],
            "batch": batch, "seq": seq, "dtype": dtname, "device": device,
            "hf_ms": times[len(times) // 2]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--case", nargs=3, action="append", default=[],
                    metavar=("DIR", "WEIGHTS", "DUMP"))
    ap.add_argument("--time", action="append", default=[], metavar="DIR")
    ap.add_argument("--time-dtype", action="append", choices=("fp32", "bf16"),
                    help="dtypes to time (default: bf16)")
    ap.add_argument("--threads", type=int, help="torch's CPU threads")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seq", type=int, default=16)
    ap.add_argument("--json", help="write the results here")
    a = ap.parse_args()
    try:
        import torch
        import transformers
    except Exception as e:  # noqa: BLE001
        print(f"hf_parity: cannot import torch/transformers: {e}", file=sys.stderr)
        return 2
    device = "cuda" if torch.cuda.is_available() else "cpu"
    print(f"hf_parity: torch {torch.__version__}, transformers {transformers.__version__}, "
          f"device {device}" + (f" ({torch.cuda.get_device_name(0)})" if device == "cuda" else ""))
    rows, timings, errors = [], [], []
    for config_dir, weights, dump in a.case:
        try:
            rows += run_case(config_dir, weights, dump, device)
        except Exception as e:  # noqa: BLE001
            errors.append(f"{config_dir}: {type(e).__name__}: {e}")
    if a.threads:
        torch.set_num_threads(a.threads)
    for config_dir in a.time:
        for dtname in a.time_dtype or ["bf16"]:
            try:
                timings.append(time_forward(config_dir, a.batch, a.seq, device, dtname))
            except Exception as e:  # noqa: BLE001
                errors.append(f"timing {config_dir}: {type(e).__name__}: {e}")
    print(f"{'toy':18} {'dtype':5} {'status':6} {'max_abs':>9} {'max_rel':>9} {'rel_l2':>9} "
          f"{'cosine':>10} {'layer':>5} {'loss_rel':>9}")
    for r in rows:
        layer = "-" if r["first_diverging_layer"] is None else str(r["first_diverging_layer"])
        print(f"{r['toy']:18} {r['dtype']:5} {r['status']:6} {r['max_abs']:9.2e} "
              f"{r['max_rel']:9.2e} {r['rel_l2']:9.2e} {r['cosine']:10.7f} {layer:>5} "
              f"{r['loss_rel']:9.2e}")
    for t in timings:
        print(f"hf forward {t['family']:10} {t['dtype']} batch {t['batch']} seq {t['seq']} "
              f"on {t['device']}: {t['hf_ms']:.2f} ms (median of 5, eager)")
    for e in errors:
        print(f"hf_parity: error: {e}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": rows, "timings": timings, "errors": errors,
                       "torch": torch.__version__, "transformers": transformers.__version__,
                       "device": device}, f, indent=2)
    failed = errors or any(r["status"] != "pass" for r in rows) or not (rows or timings)
    print(f"hf_parity: {sum(r['status'] == 'pass' for r in rows)} passed, "
          f"{sum(r['status'] != 'pass' for r in rows)} failed, {len(errors)} errors")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
