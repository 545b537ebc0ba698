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
    first.save(tmp_path / "checkpoint.npz")
    mg.manual_seed(999)  # the checkpoint must carry the random state, not the process
    second = Trainer.from_checkpoint(tmp_path / "checkpoint.npz", TrainConfig(**config))
    assert second.step == 5
    resumed_losses += [second.train_step()["loss"] for _ in range(7)]

    assert resumed_losses == losses
    a, b = straight.model.state_dict(), second.model.state_dict()
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_resume_refuses_a_checkpoint_of_another_model(tmp_path):
    config = dict(SMALL, steps=2, warmup_steps=1)
    trainer = Trainer(TrainConfig(**config))
    trainer.train_step()
    trainer.save(tmp_path / "c.npz")
    other = TrainConfig(**dict(config, d_model=64, n_layers=2))
    with pytest.raises(
        ConfigError, match=r"d_model \(checkpoint: 32, now: 64\).*n_layers|n_layers.*d_model"
    ):
        Trainer.from_checkpoint(tmp_path / "c.npz", other)


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
