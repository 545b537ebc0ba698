import numpy as np
import pytest

import minigrad as mg
from minigrad.train import ConfigError, TrainConfig, Trainer

SMALL = dict(
    task="reverse",
    length=4,
    n_layers=1,
    d_model=32,
    n_heads=2,
    d_ff=64,
    batch_size=32,
    lr=1e-2,
    warmup_steps=20,
    eval_interval=1000,
)


def test_a_short_run_learns_to_reverse():
    trainer = Trainer(TrainConfig(steps=150, **SMALL))
    losses = [trainer.train_step()["loss"] for _ in range(150)]
    result = trainer.evaluate()
    assert losses[0] > 2.0  # about log(11): chance level over the 11 tokens
    assert np.mean(losses[-10:]) < losses[0] / 100
    assert result["accuracy"] >= 0.99  # on 1000 held-out examples
    assert trainer.answer("1 2 3 4") == "4 3 2 1"


def test_stop_and_resume_equals_an_uninterrupted_run_bit_for_bit(tmp_path):
    config = dict(SMALL, steps=12, warmup_steps=4, dropout=0.1, batch_size=8)
    straight = Trainer(TrainConfig(**config))
    losses = [straight.train_step()["loss"] for _ in range(12)]

    first = Trainer(TrainConfig(**config))
    resumed_losses = [first.train_step()["loss"] for _ in range(5)]
    first.save(tmp_path / "checkpoint.safetensors")
    mg.manual_seed(999)  # the checkpoint must carry the random state, not the process
    second = Trainer.from_checkpoint(tmp_path / "checkpoint.safetensors", TrainConfig(**config))
    assert second.step == 5
    resumed_losses += [second.train_step()["loss"] for _ in range(7)]

    assert resumed_losses == losses
    a, b = straight.model.state_dict(), second.model.state_dict()
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_resume_refuses_a_checkpoint_of_another_model(tmp_path):
    config = dict(SMALL, steps=2, warmup_steps=1)
    trainer = Trainer(TrainConfig(**config))
    trainer.train_step()
    trainer.save(tmp_path / "c.safetensors")
    other = TrainConfig(**dict(config, d_model=64, n_layers=2))
    with pytest.raises(
        ConfigError, match=r"d_model \(checkpoint: 32, now: 64\).*n_layers|n_layers.*d_model"
    ):
        Trainer.from_checkpoint(tmp_path / "c.safetensors", other)


def test_schedule_warms_up_then_decays_to_the_floor():
    config = TrainConfig(steps=40, **dict(SMALL, warmup_steps=10, lr=1e-2))
    trainer = Trainer(config)
    lrs = [trainer.train_step()["lr"] for _ in range(40)]
    assert lrs[0] == pytest.approx(1e-3)  # lr / warmup_steps
    assert lrs[9] < lrs[10] == pytest.approx(1e-2)  # peak right after warmup
    assert all(a >= b for a, b in zip(lrs[10:], lrs[11:]))  # then only down
    assert lrs[-1] == pytest.approx(1e-3, rel=0.05)  # towards lr * min_lr_ratio


def test_text_task_reports_bits_per_char_and_samples(tmp_path):
    path = tmp_path / "abc.txt"
    path.write_text("abcabcabd " * 300, encoding="utf-8")
    text = dict(task="text", text=str(path), length=16, steps=60, batch_size=16, warmup_steps=10)
    trainer = Trainer(TrainConfig(**{**SMALL, **text}))
    before = trainer.evaluate()
    for _ in range(60):
        trainer.train_step()
    after = trainer.evaluate()
    assert after["val_loss"] < before["val_loss"] / 2
    assert after["bits_per_char"] == pytest.approx(after["val_loss"] / np.log(2))
    sample = trainer.sample_text("abc", 30, temperature=0.5)
    assert sample.startswith("abc") and len(sample) == 33
    assert set(sample) <= set("abcd ")


def test_a_non_finite_loss_stops_before_the_step_and_nothing_bad_is_saved(tmp_path):
    from minigrad.train.trainer import TrainingDiverged

    trainer = Trainer(TrainConfig(steps=10, **dict(SMALL, warmup_steps=0)))
    trainer.train_step()
    trainer.save(tmp_path / "good.safetensors")
    before = {k: v.numpy().copy() for k, v in trainer.model.state_dict().items()}
    with mg.no_grad():
        trainer.model.head.bias.fill_(float("nan"))  # any NaN reaching the loss
    before["head.bias"] = trainer.model.head.bias.numpy().copy()
    with pytest.raises(TrainingDiverged, match="training loss became nan at step 2"):
        trainer.train_step()
    assert trainer.step == 1  # the step was not taken: no update, no schedule step
    for k, v in trainer.model.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k], err_msg=k)
    with pytest.raises(TrainingDiverged, match="parameter head.bias"):
        trainer.save(tmp_path / "good.safetensors")
    assert mg.load(tmp_path / "good.safetensors")["step"] == 1  # the good checkpoint is kept


def test_a_configuration_that_cannot_fit_says_how_much_before_allocating(monkeypatch):
    from minigrad.train import trainer as trainer_module

    monkeypatch.setattr(trainer_module, "available_memory", lambda: 2**30)
    with pytest.raises(ConfigError, match=r"needs at least .* GiB of memory .* than the 1.0 GiB"):
        Trainer(TrainConfig(**dict(SMALL, d_model=8192, n_heads=2, d_ff=8192)))
    Trainer(TrainConfig(steps=30, **SMALL))  # the small one fits in 1 GiB


def test_memory_estimate_is_a_lower_bound_of_the_parameters():
    from minigrad.train.trainer import estimate_memory

    trainer = Trainer(TrainConfig(steps=30, **SMALL))
    n_params = sum(p.numpy().size for p in trainer.model.parameters())
    need = estimate_memory(trainer.config, trainer.task.vocab_size, trainer.task.seq_len)
    assert need["parameters"] == 16 * n_params  # weights, grads, two AdamW moments


def test_a_text_model_runs_from_its_checkpoint_without_the_file(tmp_path):
    text = tmp_path / "t.txt"
    text.write_text("abcab cabba " * 80, encoding="utf-8")
    config = TrainConfig(task="text", text=str(text), length=8, n_layers=1, d_model=16,
                         n_heads=2, d_ff=32, steps=2, warmup_steps=0, batch_size=4)  # fmt: skip
    trainer = Trainer(config)
    trainer.train_step()
    trainer.save(tmp_path / "ckpt.safetensors")
    text.unlink()
    runner = Trainer.from_checkpoint(tmp_path / "ckpt.safetensors", model_only=True)
    assert runner.task.itos == trainer.task.itos
    assert runner.sample_text("ab", 5, temperature=0.0) == trainer.sample_text("ab", 5, 0.0)


def test_attention_example_is_causal_rows_of_weights():
    trainer = Trainer(TrainConfig(steps=30, **SMALL))
    weights, tokens = trainer.attention_example()
    T = trainer.task.seq_len
    assert weights.shape == (2, T, T) and len(tokens) == T
    np.testing.assert_allclose(weights.sum(-1), 1.0, rtol=1e-5)
    assert np.all(np.triu(weights, 1) == 0)  # no query reads a later key
