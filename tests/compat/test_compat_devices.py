"""What PyTorch programs ask of CUDA, devices, backends, AMP, compile and distributed,
answered for a CPU-only library: the CPU paths work, anything else is a clear error."""

import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn


def test_cuda_queries():
    assert mg.cuda.is_available() is False
    assert mg.cuda.device_count() == 0
    assert mg.cuda.is_bf16_supported() is False
    for fn in (mg.cuda.manual_seed, mg.cuda.manual_seed_all):
        assert fn(123) is None
    mg.cuda.synchronize()
    mg.cuda.empty_cache()
    with pytest.raises(RuntimeError, match="minigrad runs on the CPU only"):
        mg.cuda.current_device()
    with pytest.raises(RuntimeError, match="no CUDA device"):
        mg.cuda.get_device_name(0)


def test_cuda_seeding_leaves_minigrad_stream_alone():
    mg.manual_seed(5)
    a = mg.randn(3)
    mg.manual_seed(5)
    mg.cuda.manual_seed_all(99)
    np.testing.assert_array_equal(mg.randn(3).numpy(), a.numpy())


def test_backends_flags_are_settable_and_report_no_gpu():
    mg.backends.cuda.matmul.allow_tf32 = True
    mg.backends.cudnn.allow_tf32 = True
    mg.backends.cudnn.benchmark = True
    assert mg.backends.cuda.matmul.allow_tf32 is True and mg.backends.cudnn.benchmark is True
    assert mg.backends.mps.is_available() is False and mg.backends.mps.is_built() is False
    assert mg.backends.cudnn.is_available() is False and mg.backends.cuda.is_built() is False
    mg.backends.cudnn.benchmark = False


def test_float32_matmul_precision():
    assert mg.get_float32_matmul_precision() == "highest"
    mg.set_float32_matmul_precision("high")
    assert mg.get_float32_matmul_precision() == "high"
    mg.set_float32_matmul_precision("highest")
    with pytest.raises(ValueError, match="expected 'highest', 'high' or 'medium', got 'fast'"):
        mg.set_float32_matmul_precision("fast")


def test_device_objects(torch):
    for spec in ("cpu", "cuda", "cuda:1", "mps"):
        assert str(mg.device(spec)) == str(torch.device(spec))
        assert repr(mg.device(spec)) == repr(torch.device(spec))
    assert mg.device("cuda", 1) == mg.device("cuda:1") and mg.device("cuda:1").index == 1
    assert mg.device("cpu").type == "cpu" and mg.device("cpu").index is None
    with pytest.raises(RuntimeError, match="Invalid device string: 'cuda:x'"):
        mg.device("cuda:x")
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        mg.device("tpu")


@pytest.mark.parametrize(
    "make",
    [
        lambda d: mg.zeros(2, device=d),
        lambda d: mg.ones(2, device=d),
        lambda d: mg.empty(2, device=d),
        lambda d: mg.full((2,), 1.0, device=d),
        lambda d: mg.tensor([1.0], device=d),
        lambda d: mg.arange(3, device=d),
        lambda d: mg.linspace(0, 1, 3, device=d),
        lambda d: mg.randn(2, device=d),
        lambda d: mg.rand(2, device=d),
        lambda d: mg.randint(0, 3, (2,), device=d),
        lambda d: mg.randperm(3, device=d),
        lambda d: mg.zeros_like(mg.ones(2), device=d),
        lambda d: mg.ones_like(mg.ones(2), device=d),
        lambda d: mg.full_like(mg.ones(2), 3.0, device=d),
        lambda d: mg.randn_like(mg.ones(2), device=d),
        lambda d: mg.eye(2, device=d),
        lambda d: mg.ones(2).new_zeros(2, device=d),
    ],
)
def test_every_factory_takes_device(make):
    for ok in ("cpu", "cpu:0", mg.device("cpu"), None):
        assert make(ok).shape[0] in (1, 2, 3)
    for bad in ("cuda", "cuda:0", mg.device("mps")):
        with pytest.raises(RuntimeError, match="minigrad runs on the CPU only"):
            make(bad)


def test_tensor_and_module_to_device():
    x = mg.ones(2, requires_grad=True)
    assert x.to("cpu") is x and x.to(mg.device("cpu"), non_blocking=True) is x
    assert x.cpu() is x and x.pin_memory() is x and x.is_pinned() is False
    assert x.to("cpu", mg.float64).dtype == mg.float64
    assert x.to(mg.zeros(1, dtype=mg.float64)).dtype == mg.float64
    assert x.to(device="cpu", dtype=mg.float64, copy=True).dtype == mg.float64
    assert x.to(x.device) is x and x.is_cuda is False
    with pytest.raises(RuntimeError, match="device 'cuda' is not available"):
        x.to("cuda")
    with pytest.raises(RuntimeError, match="device 'mps' is not available"):
        x.to(device="mps")
    with pytest.raises(RuntimeError, match="minigrad runs on the CPU only"):
        x.cuda()
    m = nn.Linear(2, 3)
    assert m.to("cpu") is m and m.to(mg.device("cpu"), non_blocking=True) is m
    assert m.to("cpu", mg.float64).weight.dtype == mg.float64
    with pytest.raises(RuntimeError, match="Module.to: minigrad runs on the CPU only"):
        m.to("cuda")
    with pytest.raises(RuntimeError, match="Module.to: minigrad runs on the CPU only"):
        m.to(device=mg.device("cuda", 0))


def test_generator_device():
    assert mg.Generator("cpu").device == "cpu"
    with pytest.raises(RuntimeError, match="Generator: minigrad runs on the CPU only"):
        mg.Generator(device="cuda")


def test_grad_scaler_passes_through_like_torch_without_cuda(torch):
    for make in (lambda: mg.amp.GradScaler(), lambda: mg.cuda.amp.GradScaler()):
        with pytest.warns(UserWarning, match="GradScaler is enabled, but minigrad has no CUDA"):
            scaler = make()
        w = nn.Parameter(mg.tensor([1.0, 2.0]))
        opt = mg.optim.SGD([w], lr=0.5)
        loss = (w * w).sum()
        assert scaler.scale(loss) is loss
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        scaler.step(opt)
        scaler.update()
        np.testing.assert_allclose(w.numpy(), [0.0, 0.0])  # w - 0.5 * 2w
        assert scaler.get_scale() == 1.0 and not scaler.is_enabled()
        assert scaler.state_dict() == {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mg.amp.GradScaler(enabled=False).get_scale() == 1.0
    with pytest.warns(UserWarning):
        t = torch.amp.GradScaler()
    assert t.get_scale() == 1.0 and not t.is_enabled() and t.state_dict() == {}


def test_autocast_off_the_cpu_warns_and_does_nothing():
    x = mg.ones(2, 2) / 3
    with pytest.warns(UserWarning, match="cuda is not available"):
        ctx = mg.autocast("cuda")
    with ctx:
        assert (x @ x).numpy().tolist() == (x.numpy() @ x.numpy()).tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with mg.amp.autocast("cpu", enabled=False):
            pass

    @mg.cuda.amp.autocast(enabled=False)
    def f(a):
        return a * 2

    assert f(x).dtype == mg.float32


def test_bfloat16_is_a_name_that_refuses_storage():
    assert repr(mg.bfloat16) == "minigrad.bfloat16" and mg.float16 == np.float16
    assert {"bfloat16": mg.bfloat16}["bfloat16"] is mg.bfloat16
    for make in (lambda: mg.zeros(2, dtype=mg.bfloat16), lambda: mg.ones(2).to(mg.bfloat16)):
        with pytest.raises(TypeError, match="bfloat16 has no NumPy type"):
            make()


def test_compile_returns_the_model_unchanged():
    m = nn.Linear(2, 2)
    assert mg.compile(m) is m and mg.compile(m, mode="max-autotune") is m

    @mg.compile
    def f(a):
        return a + 1

    @mg.compile(fullgraph=True)
    def g(a):
        return a + 2

    assert f(1) == 2 and g(1) == 3


def test_inference_mode_context_and_decorators():
    x = mg.ones(2, requires_grad=True)
    with mg.inference_mode():
        assert not (x * 2).requires_grad and mg.is_inference_mode_enabled()
    assert (x * 2).requires_grad

    @mg.inference_mode()
    def f(a):
        return a * 2

    @mg.inference_mode
    def g(a):
        return a * 3

    assert not f(x).requires_grad and not g(x).requires_grad and (x * 2).requires_grad
    with mg.inference_mode(False):
        assert (x * 2).requires_grad


def test_distributed_single_process(monkeypatch):
    dist = mg.distributed
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    assert dist.is_available() and not dist.is_initialized()
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        dist.get_rank()
    dist.init_process_group(backend="gloo")
    try:
        assert dist.is_initialized() and dist.get_rank() == 0 and dist.get_world_size() == 1
        t = mg.tensor([1.0, 2.0])
        dist.all_reduce(t, op=dist.ReduceOp.SUM)
        dist.barrier()
        assert t.tolist() == [1.0, 2.0]
        with pytest.raises(ValueError, match="initialize the default process group twice"):
            dist.init_process_group("gloo")
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()


def test_distributed_many_processes_point_to_pytorch(monkeypatch):
    with pytest.raises(RuntimeError, match="cannot join a process group of 4.*PyTorch"):
        mg.distributed.init_process_group("gloo", world_size=4, rank=0)
    monkeypatch.setenv("WORLD_SIZE", "2")
    with pytest.raises(RuntimeError, match="DistributedDataParallel.*docs/pytorch-compat.md"):
        mg.distributed.init_process_group("gloo")
    with pytest.raises(RuntimeError, match="process group of 2"):
        nn.parallel.DistributedDataParallel(nn.Linear(2, 2))
    assert not mg.distributed.is_initialized()


def test_ddp_wraps_transparently_with_torch_keys(torch, monkeypatch):
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    inner = nn.Linear(3, 2)
    ddp = nn.parallel.DistributedDataParallel(inner)
    x = mg.randn(4, 3)
    np.testing.assert_array_equal(ddp(x).numpy(), inner(x).numpy())
    assert ddp.module is inner
    with ddp.no_sync():
        assert ddp.require_backward_grad_sync is False
    tinner = torch.nn.Linear(3, 2)
    tkeys = list(torch.nn.DataParallel(tinner).state_dict())
    assert list(ddp.state_dict()) == tkeys == ["module.weight", "module.bias"]
    assert list(nn.DataParallel(inner).state_dict()) == tkeys


def test_module_cuda_says_minigrad_runs_on_the_cpu():
    with pytest.raises(RuntimeError, match="CPU only"):
        mg.nn.Linear(2, 2).cuda()
