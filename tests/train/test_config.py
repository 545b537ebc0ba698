import json

import pytest

from minigrad.train.config import ConfigError, TrainConfig, load_config_file


def test_defaults_are_valid():
    assert TrainConfig().validate().task == "reverse"


def test_every_problem_is_named():
    cfg = TrainConfig(d_model=30, n_heads=4, norm="batch", dropout=1.5, task="nope")
    with pytest.raises(ConfigError) as e:
        cfg.validate()
    msg = str(e.value)
    assert "d_model (30) must be divisible by n_heads (4)" in msg
    assert "norm must be 'layer', 'rms' or 'none'" in msg
    assert "dropout must be in [0, 1)" in msg
    assert "task must be one of" in msg


def test_toml_and_json_files_load(tmp_path):
    toml = tmp_path / "c.toml"
    toml.write_text('task = "sort"\nd_model = 32\nlr = 1\n', encoding="utf-8")
    assert load_config_file(toml) == {"task": "sort", "d_model": 32, "lr": 1.0}
    js = tmp_path / "c.json"
    js.write_text(json.dumps({"n-layers": 3}), encoding="utf-8")
    assert load_config_file(js) == {"n_layers": 3}


@pytest.mark.parametrize(
    "content, message",
    [
        ('colour = "red"\n', "unknown key 'colour'"),
        ('d_model = "wide"\n', "d_model must be int"),
        ("d_model = \n", "invalid TOML"),
    ],
)
def test_bad_config_files_are_clear_errors(tmp_path, content, message):
    path = tmp_path / "c.toml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        load_config_file(path)


def test_config_file_must_exist_and_have_a_known_suffix(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_config_file(tmp_path / "nope.toml")
    other = tmp_path / "c.yaml"
    other.write_text("a: 1", encoding="utf-8")
    with pytest.raises(ConfigError, match=".toml or .json"):
        load_config_file(other)


@pytest.mark.parametrize("field", ["lr", "weight_decay", "grad_clip", "dropout", "min_lr_ratio"])
@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_hyper_parameters_are_refused(field, value):
    with pytest.raises(ConfigError, match=f"{field} must be a finite number, got {value}"):
        TrainConfig(**{field: value}).validate()


def test_a_text_file_with_another_task_is_a_contradiction():
    with pytest.raises(ConfigError, match="read only by the text task, not by 'reverse'"):
        TrainConfig(task="reverse", text="book.txt").validate()


def test_a_config_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "c.toml"
    path.write_bytes(b"# \xff\xfe\nsteps = 3\n")
    with pytest.raises(ConfigError, match="not valid UTF-8"):
        load_config_file(path)
