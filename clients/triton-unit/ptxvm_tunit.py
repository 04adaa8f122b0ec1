"""pytest plugin for running Triton's own unit tests on ptxvm (`-p ptxvm_tunit`).

`--tests-file FILE` keeps only the tests whose node ids (from Triton's repository root, as
`pytest --collect-only -q` prints them there: `python/test/unit/...`) are listed in FILE, in
FILE's order; blank lines and `#` comments are ignored. A line `cuda: ID` names a test that
exists only when Triton collects for CUDA (some `test_dot` parametrizations depend on the
backend); it is left out with any other `--device`. Node ids that do not exist are reported
as errors so a stale list cannot shrink silently. With `--device cuda` the plugin also runs the
tests' own PyTorch operations on the host (below); see README.md."""

import pytest


def pytest_addoption(parser):
    parser.addoption("--tests-file", action="store", default=None,
                     help="run only the node ids listed in this file")


def _wanted(config):
    path = config.getoption("--tests-file")
    if not path:
        return None
    try:
        cuda = config.getoption("--device") == "cuda"
    except ValueError:
        cuda = True
    wanted = []
    with open(path) as f:
        for l in f:
            l = l.strip()
            if not l or l.startswith("#"):
                continue
            if l.startswith("cuda:"):
                if not cuda:
                    continue
                l = l[len("cuda:"):].strip()
            wanted.append(l)
    return wanted


def pytest_collection_modifyitems(session, config, items):
    wanted = _wanted(config)
    if wanted is None:
        return
    # node ids depend on pytest's rootdir (Triton's repository root or its python/ directory):
    # compare them from `test/` on
    def key(nid):
        i = nid.find("test/unit/")
        return nid[i:] if i >= 0 else nid

    def item_key(it):
        # the file part of a node id is not always there (seen as "::test_x" with pytest 9 when
        # the file is given on the command line): rebuild it from the item's path
        path = str(it.path)
        i = path.find("test/unit/")
        rest = it.nodeid[it.nodeid.index("::"):] if "::" in it.nodeid else ""
        return (path[i:] if i >= 0 else path) + rest

    by_id = {item_key(it): it for it in items}
    missing = [w for w in wanted if key(w) not in by_id]
    if missing:
        raise pytest.UsageError(f"--tests-file: {len(missing)} node id(s) not collected, e.g. {missing[:3]}")
    keep = [by_id[key(w)] for w in wanted]
    keep_set = set(id(i) for i in keep)
    config.hook.pytest_deselected(items=[i for i in items if id(i) not in keep_set])
    items[:] = keep


# --- PyTorch's own kernels on the host -------------------------------------------------------
#
# PyTorch's CUDA build ships its kernels as SASS only, so on ptxvm every PyTorch operation that
# launches one of them fails (CUDA_ERROR_NO_BINARY_FOR_GPU; random-number generators fail even
# earlier). Allocation, memset and copies between host and device are driver calls and work.
# `HostFallback` is a TorchFunctionMode that runs such operations on host copies instead:
#
# * metadata and allocation (`shape`, `stride`, `data_ptr`, `empty*`, ...) run natively;
# * a factory call with `device="cuda"` (`torch.randn`, `torch.arange`, `torch.tensor`, ...)
#   builds the tensor on the host and copies it to the device;
# * any other call with a CUDA tensor among its arguments gets, for each such tensor, a host
#   mirror of its whole storage (one device-to-host memcpy) viewed with the same size, stride
#   and offset, so views and aliasing are preserved; the call runs on the host; every mirror
#   whose bytes changed (in-place ops, `out=`, `copy_`, `__setitem__`) is copied back
#   (one host-to-device memcpy); results that are views of a mirror become the same view of
#   the device storage, new results are copied to the device.
#
# Seeding: `torch.manual_seed` also seeds PyTorch's CUDA generators, and on ptxvm that fails
# inside NVIDIA's libcudart (cudaErrorCallRequiresNewerDriver, before any driver call reaches
# ptxvm). With the fallback every random tensor is drawn on the host, so the CUDA generators are
# never used: `torch.cuda.manual_seed` and `torch.cuda.manual_seed_all` become no-ops, and
# `torch.manual_seed` seeds the host generator as before.
#
# Triton's kernels are untouched: they still receive device pointers and run on ptxvm. Only the
# tests' own PyTorch code (building inputs, torch references, comparisons) runs on the host, as
# it does under TRITON_INTERPRET=1.

_NATIVE = {
    "data_ptr", "size", "stride", "dim", "ndimension", "numel", "nelement", "element_size",
    "is_contiguous", "storage_offset", "untyped_storage", "_typed_storage", "storage",
    "get_device", "is_floating_point", "is_complex", "is_signed", "__len__", "__hash__",
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "set_",
    "__cuda_array_interface__", "__dlpack__", "__dlpack_device__", "requires_grad_",
    "_is_view", "is_set_to", "has_names", "__reduce_ex__", "__deepcopy__", "__class__",
}


def _is_cuda(t):
    import torch
    return isinstance(t, torch.Tensor) and t.device.type == "cuda"


def _is_dense(t):
    # non-overlapping and dense: PyTorch copies such a tensor between devices with one memcpy
    import torch
    if t.is_contiguous():
        return True
    dims = sorted((s, n) for s, n in zip(t.stride(), t.shape) if n != 1)
    expect = 1
    for s, n in dims:
        if s != expect:
            return False
        expect *= n
    return True


def _to_device(t, device):
    """A host tensor on `device`, moved with memcpys only."""
    if not _is_dense(t):
        t = t.contiguous()
    return t.to(device)


def _device_of(kwargs):
    import torch
    d = kwargs.get("device")
    if d is None:
        return None
    d = torch.device(d) if not isinstance(d, torch.device) else d
    return d if d.type == "cuda" else None


class _Mirrors:
    """Host mirrors of device storages for one call."""

    def __init__(self):
        self.by_storage = {}  # device storage ptr -> (device flat u8, host flat u8, snapshot)
        self.host_storage = {}  # host storage ptr -> device flat u8

    def mirror(self, t):
        import torch
        st = t.untyped_storage()
        key = st.data_ptr()
        if key not in self.by_storage:
            dflat = torch.empty(0, dtype=torch.uint8, device=t.device).set_(st)
            hflat = dflat.cpu()
            self.by_storage[key] = (dflat, hflat, hflat.clone())
            self.host_storage[hflat.untyped_storage().data_ptr()] = dflat
        hflat = self.by_storage[key][1]
        return torch.empty(0, dtype=t.dtype).set_(hflat.untyped_storage(), t.storage_offset(), t.size(),
                                                   t.stride())

    def write_back(self):
        import torch
        for dflat, hflat, snap in self.by_storage.values():
            if hflat.numel() and not torch.equal(hflat, snap):
                dflat.copy_(hflat)

    def result(self, r, device):
        import torch
        if isinstance(r, torch.Tensor):
            if r.device.type != "cpu":
                return r
            dflat = self.host_storage.get(r.untyped_storage().data_ptr())
            if dflat is not None:
                return torch.empty(0, dtype=r.dtype, device=dflat.device).set_(dflat.untyped_storage(),
                                                                                r.storage_offset(), r.size(),
                                                                                r.stride())
            return _to_device(r, device)
        if isinstance(r, (list, tuple)) and any(isinstance(x, torch.Tensor) for x in r):
            out = [self.result(x, device) for x in r]
            if hasattr(r, "_fields"):  # namedtuple (torch.return_types.*)
                return type(r)(*out)
            return type(r)(out)
        return r


def _map(obj, fn):
    import torch
    if isinstance(obj, torch.Tensor):
        return fn(obj)
    if isinstance(obj, (list, tuple)):
        m = [_map(x, fn) for x in obj]
        return type(obj)(*m) if hasattr(obj, "_fields") else type(obj)(m)
    if isinstance(obj, dict):
        return {k: _map(v, fn) for k, v in obj.items()}
    return obj


def _has_cuda(obj):
    import torch
    if isinstance(obj, torch.Tensor):
        return obj.device.type == "cuda"
    if isinstance(obj, (list, tuple)):
        return any(_has_cuda(x) for x in obj)
    if isinstance(obj, dict):
        return any(_has_cuda(x) for x in obj.values())
    return False


def _make_mode():
    import torch
    from torch.overrides import TorchFunctionMode

    class HostFallback(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            name = getattr(func, "__name__", "")
            # attribute getters (t.shape, t.device, t.dtype, ...) and metadata: native
            if name == "__get__" or name in _NATIVE:
                return func(*args, **kwargs)
            dev = _device_of(kwargs)
            if not _has_cuda(args) and not _has_cuda(kwargs):
                if dev is None:
                    return func(*args, **kwargs)
                # a factory call for the device: build on the host, copy
                r = func(*args, **{**kwargs, "device": "cpu"})
                return _map(r, lambda t: _to_device(t, dev))
            m = _Mirrors()
            hargs = _map(args, lambda t: m.mirror(t) if _is_cuda(t) else t)
            hkwargs = _map(kwargs, lambda t: m.mirror(t) if _is_cuda(t) else t)
            target = None
            for t in list(args) + list(kwargs.values()):
                if _is_cuda(t):
                    target = t.device
                    break
            if isinstance(args[0] if args else None, (list, tuple)):
                for t in args[0]:
                    if _is_cuda(t):
                        target = t.device
                        break
            if dev is not None:
                hkwargs["device"] = "cpu"
                target = dev
            wants_host = name in ("cpu", "numpy", "tolist", "item", "__repr__", "__str__", "__format__",
                                  "__array__", "__bool__", "__int__", "__float__", "__index__", "__reduce_ex__")
            if name == "to":
                # t.to(...): where does the result live?
                to_dev = None
                for a in list(args[1:]) + [kwargs.get("device")]:
                    if isinstance(a, (str, torch.device)):
                        to_dev = torch.device(a)
                    elif isinstance(a, torch.Tensor):
                        to_dev = a.device
                if to_dev is not None:
                    target = to_dev
                    hargs = tuple(a if not isinstance(a, (str, torch.device)) else "cpu" for a in hargs)
                    if "device" in hkwargs:
                        hkwargs["device"] = "cpu"
                if target.type == "cpu":
                    wants_host = True
            r = func(*hargs, **hkwargs)
            m.write_back()
            if wants_host:
                # a fresh host result, never a view of a mirror
                return _map(r, lambda t: t.clone() if t.device.type == "cpu" and
                            t.untyped_storage().data_ptr() in m.host_storage else t)
            return m.result(r, target)

    return HostFallback()


_mode = None


def pytest_configure(config):
    global _mode
    import os
    if os.environ.get("TRITON_INTERPRET") == "1" or os.environ.get("PTXVM_TUNIT_NO_FALLBACK") == "1":
        return
    try:
        dev = config.getoption("--device")
    except ValueError:
        dev = "cuda"
    if dev != "cuda":
        return
    import torch
    torch.cuda.manual_seed = lambda seed: None
    torch.cuda.manual_seed_all = lambda seed: None
    _mode = _make_mode()
    _mode.__enter__()


def pytest_unconfigure(config):
    global _mode
    if _mode is not None:
        _mode.__exit__(None, None, None)
        _mode = None
