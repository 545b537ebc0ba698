"""``minigrad generate`` on a text model (minigrad/cli/generate.py): ``--chars`` is
bounded by ``MAX_CHARS`` with a clear CLI error, and the text is printed as it is
generated (each character flushed before the next is sampled), the same text that
``Trainer.sample_text`` returns."""

from __future__ import annotations

import io

import pytest

from minigrad.cli import generate as generate_cli
from minigrad.cli import main
from minigrad.train.model import TinyTransformer
from minigrad.train.trainer import Trainer


@pytest.mark.parametrize("chars", [generate_cli.MAX_CHARS + 1, 10**12, 0, -5])
def test_chars_outside_the_bound_is_a_clear_cli_error(text_run, capsys, chars):
    status = main(["generate", "--checkpoint", str(text_run), "--chars", str(chars)])
    err = capsys.readouterr().err
    assert status == 2
    assert f"--chars must be between 1 and {generate_cli.MAX_CHARS:,}" in err
    assert "Traceback" not in err


def test_the_bound_is_documented_in_the_help(capsys):
    with pytest.raises(SystemExit):
        main(["generate", "--help"])
    assert f"at most {generate_cli.MAX_CHARS:,}" in capsys.readouterr().out.replace("\n", " ")


def test_streamed_text_is_sample_texts_text(text_run, capsys):
    args = ["--prompt", "the ", "--chars", "25", "--seed", "3", "--temperature", "0.9"]
    assert main(["generate", "--checkpoint", str(text_run), *args]) == 0
    trainer = Trainer.from_checkpoint(text_run / "checkpoint.safetensors", model_only=True)
    assert capsys.readouterr().out == trainer.sample_text("the ", 25, 0.9, 3) + "\n"


class _Recorder(io.StringIO):
    """A stdout that notes each flush in a shared event list."""

    def __init__(self, events):
        super().__init__()
        self.events = events

    def flush(self):
        self.events.append(("flush", self.getvalue()))


def test_each_character_is_flushed_before_the_next_is_sampled(text_run, monkeypatch):
    events = []
    generate = TinyTransformer.generate

    def counting(self, *args, **kwargs):
        events.append(("generate", None))
        return generate(self, *args, **kwargs)

    monkeypatch.setattr(TinyTransformer, "generate", counting)
    monkeypatch.setattr("sys.stdout", _Recorder(events))
    assert main(["generate", "--checkpoint", str(text_run), "--prompt", "a", "--chars", "6"]) == 0
    calls = [i for i, (kind, _) in enumerate(events) if kind == "generate"]
    assert len(calls) == 6
    shown = []
    for before, after in zip(calls, calls[1:] + [len(events)]):
        flushed = [text for kind, text in events[before:after] if kind == "flush"]
        assert flushed, "a character was sampled but not flushed before the next one"
        shown.append(flushed[-1])
    assert [len(s) for s in shown[:-1]] == list(range(2, 7))  # "a" + one more each time
